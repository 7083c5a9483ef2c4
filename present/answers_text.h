// Human views of a prediction's answers (docs/simulator.md, "Breakdown", "Advice"): the step
// split, the links that held its exposed communication, the bottleneck sentence, the simulated
// what-ifs ranked, and the cost of an epoch and of the run. Printed by `vitsim advise` and
// `vitsim predict --explain` below the prediction table.
#pragma once

#include <string>

#include "schema/prediction.h"

namespace vitsim::present {

// Empty when the prediction carries none of them (out of memory, not computed). `full`: the step
// split, the links and the what-ifs; otherwise the bottleneck sentence and the cost, one line
// each (what `vitsim predict` prints under its table).
std::string answers_text(const schema::ConfigPrediction& prediction, bool full = true);

}  // namespace vitsim::present
