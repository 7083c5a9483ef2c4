// Runs gnuplot (Debian's gnuplot-nox) as a subprocess on a generated script, for the report's
// figures. The figures are gnuplot's own PNG (pngcairo) and SVG output; nothing is drawn by hand.
//
// Outputs never appear half-written: a script names each output through a variable (e.g.
// `set output vitsim_png`) that it defaults to the final name, so that `gnuplot NAME.gp` run by
// hand still works; run_gnuplot sets the variables to temporary names and renames the files into
// place once gnuplot has succeeded. gnuplot runs as a child of the one process runner
// (process/fork_runner.h: it dies with vitsim, and SIGINT/SIGTERM take it with them), and no
// helper file is left next to the script.
#pragma once

#include <string>
#include <vector>

namespace vitsim::present {

// True when `gnuplot` is on PATH.
bool gnuplot_available();

// One file a script writes: the gnuplot variable holding its name, and the name (relative to the
// working directory, as the script's default for the variable).
struct GnuplotOutput {
  std::string variable;
  std::string path;
};

// `if (!exists("v")) v = 'path'` lines for the head of a script: the defaults of its outputs.
std::string gnuplot_output_defaults(const std::vector<GnuplotOutput>& outputs);

// Runs `gnuplot script_path` in `work_dir` with each output written to a temporary name and
// renamed into place when gnuplot succeeds; throws std::runtime_error with gnuplot's stderr when it
// fails (and removes what it wrote), or a hint to run scripts/install-deps when it is missing.
void run_gnuplot(const std::string& script_path, const std::string& work_dir,
                 const std::vector<GnuplotOutput>& outputs);

// A string as a gnuplot single-quoted literal ('it''s').
std::string gnuplot_quote(const std::string& text);

}  // namespace vitsim::present
