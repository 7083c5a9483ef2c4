// Builds a PlatformPlan into the running SimGrid engine with the C++ API (zones, hosts, links,
// routes). Zones: a star at the root (the switch, or the spines of a fat-tree), a star per fat-tree
// leaf, a full zone per node (GPU hosts + a gateway router). See platform_plan.h for the routes.
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/platform_plan.h"

namespace vitsim::sim {

// Returns the SimGrid host of each rank. Needs a live s4u::Engine.
std::vector<simgrid::s4u::Host*> build_platform(const PlatformPlan& plan);

}  // namespace vitsim::sim
