// The fits of sharded data parallelism's costs (docs/sharding.md, "Simulated"): a device's
// recomputation of its checkpointed blocks and the local part of gathering and freeing a unit,
// from the profiles that timed them (vitsim-train profile --sharding-costs); and each link
// class's reduce-scatter and all-gather, from the profiles' reduce_scatter[] and all_gather[]
// benchmarks, in the ring's convention of their operation. Where nothing measured them the cost
// model has none, and the simulator says what it uses instead.
#pragma once

#include <string>
#include <vector>

#include "calibrate/calibrator.h"
#include "costmodel/cost_model.h"
#include "schema/profile.h"

namespace vitsim::calibrate {

// Sets costs.recompute (x = micro-batch, fitted as a layer pass is: cost_fit.h), unit_gather and
// unit_free (x = a block's parameters of the profiled model, proportional) from the group's
// profiles where any of them measured them; returns a clause for derived_from ("" where none).
std::string fit_sharding_costs(const std::vector<const schema::ProfileInput*>& group,
                               costmodel::DeviceCosts& costs);

// Adds to each link class of `links` the alpha-beta fits of the reduce-scatters and all-gathers
// the profiles benchmarked over it (LinkCost::operations); a class measured only for those,
// without an all-reduce fit, is named in `notes` and left out (the platform's link figures are
// the all-reduce's).
void fit_operation_links(const std::vector<schema::ProfileInput>& profiles,
                         const CalibrateOptions& options, std::vector<costmodel::LinkCost>& links,
                         std::vector<std::string>& notes);

}  // namespace vitsim::calibrate
