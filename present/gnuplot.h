// Runs gnuplot (Debian's gnuplot-nox) as a subprocess on a generated script, for the report's
// figures. The figures are gnuplot's own PNG (pngcairo) and SVG output; nothing is drawn by hand.
//
// gnuplot works in a private folder (".vitsim-gnuplot.XXXXXX" inside the folder it is given):
// the script and its data files are written there, gnuplot draws there, and the caller gets the
// bytes of what it drew; the folder is removed afterwards, when gnuplot fails, and on SIGINT,
// SIGTERM or SIGHUP (schema/temp_cleanup.h). gnuplot runs as a child of the one process runner
// (process/fork_runner.h: its own process group, it dies with vitsim). The caller adds the
// figures to its group of outputs (schema/output_file.h), so that they land with the page they
// belong to or not at all. A script names each output through a variable (e.g. `set output
// vitsim_png`) that it defaults to the output's name, so that `gnuplot NAME.gp` run by hand in
// the report's figures folder draws the same files.
//
// gnuplot_quote is the one escape of text for gnuplot: a single-quoted string, where only the
// quote itself is special (doubled). Data files have no escape for '"' (gnuplot 5.4 ends a
// quoted field at the next '"', whatever precedes it), so names (hosts, labels) go into the
// script, never into a data file.
#pragma once

#include <string>
#include <utility>
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

// One run: the script (its file name and text), the data files it reads (name, bytes) and what it
// draws.
struct GnuplotRun {
  std::string script_name;
  std::string script;
  std::vector<std::pair<std::string, std::string>> data;
  std::vector<GnuplotOutput> outputs;
};

// Runs `gnuplot SCRIPT` in a private folder made inside `parent_dir` (which must exist) and
// returns the bytes of each output, in the order of run.outputs. Throws std::runtime_error with
// gnuplot's stderr when it fails or does not write an output, or a hint to run
// scripts/install-deps when it is missing; the folder is gone in every case.
std::vector<std::string> run_gnuplot(const GnuplotRun& run, const std::string& parent_dir);

// A string as a gnuplot single-quoted literal ('it''s'); a newline (which no gnuplot string
// holds) becomes a space.
std::string gnuplot_quote(const std::string& text);

}  // namespace vitsim::present
