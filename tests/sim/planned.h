// A cluster's platform and collective plans for a training configuration: the class finder's
// inputs (sim/rank_classes.h), as predict builds them, for the tests that inspect the classes.
#pragma once

#include <vector>

#include "costmodel/collective_op.h"
#include "schema/cluster.h"
#include "schema/scenario.h"
#include "sim/collective_plan.h"
#include "sim/collective_registry.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"

namespace vitsim::sim::test {

struct Planned {
  PlatformPlan plan;
  CollectivePlan collective;
};

// The configuration's ranks placed on `cluster`, its collective (`t.collective`) planned for `ops`.
inline Planned planned(const schema::ClusterSpec& cluster, const schema::TrainingConfig& t,
                       const std::vector<costmodel::CollectiveOp>& ops = {
                           costmodel::CollectiveOp::kAllReduce}) {
  Planned p;
  p.plan = plan_platform(cluster, place_ranks(cluster, t), nullptr);
  p.collective = plan_collectives(p.plan, t.collective, ops);
  return p;
}

}  // namespace vitsim::sim::test
