// Provenance and range of a prediction (docs/uncertainty.md, docs/formats/prediction.md): where
// the compute of each device and each link class a configuration uses came from (measured,
// imported, transferred, modelled, datasheet), the lines naming every part that is not a
// measurement, and the p10-p50-p90 range from the parts' spread. One mechanism for compute and
// links: predict, simulate, sweep and reproduce print unmeasured_warnings() on stderr.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "schema/prediction.h"
#include "sim/rank_plan.h"

namespace vitsim::sim {

// Compute provenance of each device the ranks use (in order of first rank), with rank counts.
std::vector<schema::ComputeProvenance> compute_provenance(const RankKinds& kinds,
                                                          const costmodel::CostModel& costs,
                                                          costmodel::Regime precision);

// The provenance.unmeasured lines of compute and links: transferred compute, memory from the
// first-principles estimate, modelled or datasheet links.
std::vector<std::string> unmeasured_lines(const schema::Provenance& provenance,
                                          const RankKinds& kinds);

// The range of a simulated prediction from its provenance: the slowest rank's device gives the
// compute spread, the least certain link (or, at a sharded stage, measured reduce-scatter or
// all-gather fit over a link used) the communication's (docs/uncertainty.md).
costmodel::PredictionRange range_of(const schema::ConfigPrediction& prediction,
                                    const costmodel::CostModel& costs);

// One stderr line per distinct unmeasured part over `predictions`, in order of first use, with
// the number of configurations that rest on it.
std::vector<std::string> unmeasured_warnings(
    const std::vector<schema::ConfigPrediction>& predictions);

// A line of unmeasured_warnings on one short line: what the part is and where its figure came
// from, without how it was modelled and how to measure it ("h200-nvlink: modelled, not measured;
// used by 1 of 1 configuration(s)"). Commands print these and the whole lines with --explain.
std::string one_line_warning(const std::string& line);

}  // namespace vitsim::sim
