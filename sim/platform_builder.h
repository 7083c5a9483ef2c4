// Builds a PlatformPlan into the running SimGrid engine with the C++ API (zones, hosts, links,
// routes). Zones: a star at the root (the switch, or the spines of a fat-tree), a star per fat-tree
// leaf, a full zone per node (GPU hosts + a gateway router). See platform_plan.h for the routes.
// Also the platform of the class-level simulation (build_class_platform).
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/platform_plan.h"
#include "sim/rank_classes.h"

namespace vitsim::sim {

// Returns the SimGrid host of each rank. Needs a live s4u::Engine.
std::vector<simgrid::s4u::Host*> build_platform(const PlatformPlan& plan);

// The class-level platform (docs/simulator.md, "Classes of ranks"): one shared link per class of
// links, with latency 0; per class of flows a full zone of two hosts whose route crosses a link of
// its own carrying the flow's route latency (and a bandwidth that never binds), then each class
// link it loads, repeated as many times as the class has flows on one such link: SimGrid 3.32
// adds the weights of a link a route crosses twice (lmm::System::expand), so one flow then loads
// it as that many flows would. `actors`: a host for the class actors (they only sleep).
struct ClassHosts {
  simgrid::s4u::Host* actors = nullptr;
  std::vector<simgrid::s4u::Host*> flow_src, flow_dst;  // per class of flows
};
ClassHosts build_class_platform(const RankClasses& classes);

}  // namespace vitsim::sim
