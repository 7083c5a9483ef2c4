// SimGrid XML (platform version 4.1) equivalent to the C++-built platform of a PlatformPlan:
// the same hosts, links (names, bandwidths, latencies) and the same links on every route.
// Full routing replaces the star zones of the C++ build (XML has no star routes), so the root
// lists a zoneRoute per pair of nodes (or leaves); a fat-tree leaf's switch lives in a zone of its
// own ("leafN.sw") because an XML zone holds either sub-zones or hosts/routers.
//
// Every name (cluster, host, link) is escaped by xml_escape, the one escape of this writer: the
// file is well-formed XML whatever the names hold. Full routing lists a route per pair of GPUs of
// a node and per pair of nodes (or leaves): the document grows with their square, so its
// elements are counted before anything is built, and a plan of more than kMaxPlatformXmlElements
// is refused (10^6 nodes would need 5 x 10^11 routes).
#pragma once

#include <cstdint>
#include <string>

#include "sim/platform_plan.h"

namespace vitsim::sim {

// 5 million elements: about 0.8 GB of XML (routes of ~150 bytes), the largest a user may want to
// read into SimGrid (about 3,000 one-GPU nodes in a star).
inline constexpr uint64_t kMaxPlatformXmlElements = 5000000;

// The elements (hosts, links, routes, zones) platform_xml would write, counted without building
// them (saturating: no overflow for any plan).
uint64_t platform_xml_elements(const PlatformPlan& plan);

// Text as an XML attribute value: & < > " ' as entities, tab, newline and carriage return as
// character references (a parser would fold them into spaces). std::invalid_argument for a byte
// XML 1.0 cannot hold (another control byte).
std::string xml_escape(const std::string& text);

// The document; std::invalid_argument (naming the count and the limit) for a plan of more than
// kMaxPlatformXmlElements elements, or a name xml_escape refuses.
std::string platform_xml(const PlatformPlan& plan);

}  // namespace vitsim::sim
