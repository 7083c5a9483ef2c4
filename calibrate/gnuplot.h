// Runs gnuplot (Debian's gnuplot-nox) as a subprocess on a generated script, for the report's
// figures. The figures are gnuplot's own PNG (pngcairo) and SVG output; nothing is drawn by hand.
#pragma once

#include <string>
#include <vector>

namespace vitsim::calibrate {

// True when `gnuplot` is on PATH.
bool gnuplot_available();

// Runs `gnuplot script_path` in `work_dir`; throws std::runtime_error with gnuplot's stderr when it
// fails, or a hint to run scripts/install-deps when gnuplot is missing.
void run_gnuplot(const std::string& script_path, const std::string& work_dir);

// A string as a gnuplot single-quoted literal ('it''s').
std::string gnuplot_quote(const std::string& text);

}  // namespace vitsim::calibrate
