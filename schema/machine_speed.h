// The machine's speed during each measured run (docs/formats/machine-speed.md), as
// `vitsim validate --machine-speed` reads it: "RUN FACTOR" lines, RUN the stem of a run log's file
// name, FACTOR the CPUs' cost per unit of work during that run against during the profiles the
// prediction was calibrated from (1.05: 5 % slower). scripts/validate-local writes it from its CPU
// canary (`cpu_canary report --speeds`).
#pragma once

#include <map>
#include <string>

namespace vitsim::schema {

// A factor outside these bounds is refused: no machine that runs a loop to its end is 10x slower
// or faster during one run than during its profiles; such a figure is a broken canary or file.
constexpr double kMinMachineSpeedFactor = 0.1;
constexpr double kMaxMachineSpeedFactor = 10.0;

// RUN -> FACTOR. '#' lines and empty lines are comments. InputError naming the file, the line and
// the field on a malformed line, a factor outside the bounds, or a run given twice.
std::map<std::string, double> read_machine_speeds(const std::string& path);

}  // namespace vitsim::schema
