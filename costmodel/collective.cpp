// Collective names and the "auto" level (see collective.h).
#include "costmodel/collective.h"

#include <stdexcept>

namespace vitsim::costmodel {

Collective parse_collective(const std::string& text) {
  for (Collective c : {Collective::kRing, Collective::kTree, Collective::kHierarchical}) {
    if (text == to_string(c)) return c;
  }
  throw std::invalid_argument("unknown collective '" + text +
                              "' (expected ring, tree or hierarchical)");
}

const char* to_string(Collective collective) {
  switch (collective) {
    case Collective::kRing:
      return "ring";
    case Collective::kTree:
      return "tree";
    case Collective::kHierarchical:
      return "hierarchical";
  }
  return "?";
}

CollectiveLevel parse_collective_level(const std::string& text) {
  for (CollectiveLevel l :
       {CollectiveLevel::kStep, CollectiveLevel::kFlow, CollectiveLevel::kAuto}) {
    if (text == to_string(l)) return l;
  }
  throw std::invalid_argument("unknown collective level '" + text +
                              "' (expected step, flow or auto)");
}

const char* to_string(CollectiveLevel level) {
  switch (level) {
    case CollectiveLevel::kStep:
      return "step";
    case CollectiveLevel::kFlow:
      return "flow";
    case CollectiveLevel::kAuto:
      return "auto";
  }
  return "?";
}

CollectiveLevel resolve_collective_level(CollectiveLevel level, int64_t ranks) {
  if (level != CollectiveLevel::kAuto) return level;
  return ranks > kAutoFlowAboveRanks ? CollectiveLevel::kFlow : CollectiveLevel::kStep;
}

}  // namespace vitsim::costmodel
