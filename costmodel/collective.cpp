// Collective names and the "auto" level (see collective.h).
#include "costmodel/collective.h"

namespace vitsim::costmodel {

Collective parse_collective(const std::string& text) {
  return parse_named(kCollectiveNames, text, "collective");
}

const char* to_string(Collective collective) {
  return name_of(kCollectiveNames, collective);
}

CollectiveLevel parse_collective_level(const std::string& text) {
  return parse_named(kCollectiveLevelNames, text, "collective level");
}

const char* to_string(CollectiveLevel level) {
  return name_of(kCollectiveLevelNames, level);
}

CollectiveLevel resolve_collective_level(CollectiveLevel level, int64_t ranks) {
  if (level != CollectiveLevel::kAuto) return level;
  return ranks > kAutoFlowAboveRanks ? CollectiveLevel::kFlow : CollectiveLevel::kStep;
}

}  // namespace vitsim::costmodel
