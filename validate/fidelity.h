// The fidelity check (`vitsim validate --leave-one-out`; docs/validation.md): the simulator
// against the naive formula (costmodel/naive_formula.h) on what can be checked without hidden
// runs, with the same calibrated costs and link figures for both:
//   - each shipped study log, calibrated WITHOUT it (leave-one-out), predicted per step;
//   - the development set, calibrated from every log (compared, never fitted), per epoch;
//   - the public nccl-tests rows held out from the transport model, per dataset (bus bandwidth;
//     the naive formula uses the same link figure, so it has no column of its own there);
//   - the emulated-cluster runs of a recorded scripts/validate-local run (the study's
//     "emulated_runs"), re-simulated from the run's own cost model, per epoch.
// Errors per class of runs: same cluster, placement, precision and scaling.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "schema/study.h"
#include "sim/simulator.h"

namespace vitsim::validate {

struct FidelityRow {
  std::string check;  // "leave-one-out", "development", "nccl-tests", "emulated"
  std::string cls;    // class of runs
  std::string what;   // the log, row or dataset
  std::string unit;   // "s/step", "s/epoch", "GB/s"
  double measured = 0;
  double simulated = 0;
  std::optional<double> naive;  // absent where the formula does not apply
  std::string note;             // why a row has no prediction, else ""
};

struct FidelityClass {
  std::string cls;
  int rows = 0;
  double simulator_median_pct = 0;      // median signed error
  double simulator_worst_pct = 0;       // largest |error|, signed
  double simulator_median_abs_pct = 0;  // median |error|
  std::optional<double> naive_median_pct, naive_worst_pct, naive_median_abs_pct;
};

struct FidelityResult {
  std::vector<FidelityRow> rows;
  std::vector<FidelityClass> classes;  // in order of first row
};

// `progress` (done, total), when set, after each part: the emulated runs, each log held out (a
// calibration each: most of the time), the development set (a progress line, clikit/progress.h).
FidelityResult fidelity_check(const schema::Study& study, const sim::SimOptions& options,
                              const std::function<void(size_t, size_t)>& progress = {});

// The "emulated" rows of a recorded validate-local folder
// (docs/formats/validate-local-recorded.md): one per measured configuration (repeats at their
// median), its scenarios simulated again from its costs.json. InputError naming the file for a
// missing or corrupt part.
std::vector<FidelityRow> emulated_check(const std::string& folder,
                                        const costmodel::DeviceCatalog& catalog,
                                        const sim::SimOptions& options);

std::string format_fidelity(const FidelityResult& result);

}  // namespace vitsim::validate
