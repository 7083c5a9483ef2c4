// SimGrid XML (platform version 4.1) equivalent to the C++-built platform of a PlatformPlan:
// the same hosts, links (names, bandwidths, latencies) and the same links on every route.
// Full routing replaces the star zones of the C++ build (XML has no star routes), so the root
// lists a zoneRoute per pair of nodes (or leaves); a fat-tree leaf's switch lives in a zone of its
// own ("leafN.sw") because an XML zone holds either sub-zones or hosts/routers.
#pragma once

#include <string>

#include "sim/platform_plan.h"

namespace vitsim::sim {

std::string platform_xml(const PlatformPlan& plan);

}  // namespace vitsim::sim
