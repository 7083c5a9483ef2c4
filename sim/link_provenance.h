// Which link classes a configuration's ranks talk over, and where each class's figures came from
// (measured, imported, modelled by the transport model, or the cluster file's datasheet figures):
// the per-class record that `predict` and `simulate` warn about when it is not a measurement, and
// that the prediction files can carry (costmodel::LinkProvenance).
#pragma once

#include <string>
#include <vector>

#include "costmodel/transport_model.h"
#include "schema/cluster.h"
#include "schema/scenario.h"
#include "sim/platform_plan.h"
#include "sim/simulator.h"

namespace vitsim::sim {

// Classes of the links on the routes the ranks use (between ring neighbours, and from rank 0 to
// every rank, which together cover every class a ring, tree or hierarchical collective crosses);
// one entry per class, in order of first use. Empty for a single rank.
std::vector<costmodel::LinkProvenance> link_classes_used(const PlatformPlan& plan);

// The same for a configuration on a cluster (scenario overrides already applied).
std::vector<costmodel::LinkProvenance> link_classes_used(const schema::ClusterSpec& cluster,
                                                         const schema::TrainingConfig& config,
                                                         const costmodel::CostModel& costs,
                                                         const SimOptions& options);

// One line per distinct class that is neither measured nor imported, naming how its figures were
// obtained and what to run, with the number of configurations (of `per_config`) that use it.
std::vector<std::string> unmeasured_link_warnings(
    const std::vector<std::vector<costmodel::LinkProvenance>>& per_config);

}  // namespace vitsim::sim
