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

// The same classes with the number of ranks using each: rank r uses the classes on its routes to
// its ring neighbours (r-1 -> r -> r+1); rank 0's tree/hierarchical routes count for rank 0.
std::vector<schema::LinkUse> link_uses(const PlatformPlan& plan);
std::vector<schema::LinkUse> link_uses(const schema::ClusterSpec& cluster,
                                       const schema::TrainingConfig& config,
                                       const costmodel::CostModel& costs,
                                       const SimOptions& options);

// The line a class that is neither measured nor imported gets in provenance.unmeasured (empty for
// a measurement): how its figures were obtained and what to run.
std::string unmeasured_link_line(const costmodel::LinkProvenance& link);

}  // namespace vitsim::sim
