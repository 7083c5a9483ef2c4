// The command-line kit both programs share (vitsim and vitsim-train; layer clikit, which sees
// costmodel and schema only): runs a CLI11 subcommand with vitsim's exit-code rules:
//   --help -> 0; usage errors and InputError (bad input files) -> 2; other failures -> 1.
// Errors go to stderr as one line, never a stack dump, control bytes escaped.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace vitsim::clikit {

int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// `text` with every control byte but newline and tab (0x00-0x1f, 0x7f) written as \xNN: error
// messages quote file contents, and an escape sequence from a file must not reach the terminal
// (it can move the cursor, recolour or retitle it). run_app writes every error through it.
std::string escape_control_bytes(const std::string& text);

// Option checks with messages a user reads at a glance ("--images: expected a count >= 1, got
// 0"), for counts (GPUs, images, micro-batch, steps) and fractions in (0, 1].
CLI::Validator positive_count();
CLI::Validator unit_fraction();
// A number in [lo, hi] ("--kwh-price: expected a number in [0, 10], got nan"): CLI::Range lets a
// NaN through (every comparison with it is false).
CLI::Validator number_in(double lo, double hi);

}  // namespace vitsim::clikit
