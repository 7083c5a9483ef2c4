// Chrome trace (JSON object format: {"traceEvents": [...]}, opens in Perfetto and chrome://tracing)
// of simulated timelines. One process per configuration, two tracks per rank: "rank r" (compute
// spans per layer and phase, then "idle" while waiting for slower ranks and "communication" while
// the all-reduce is exposed) and "rank r all-reduce" (each bucket's collective). Times in us.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/rank_plan.h"
#include "sim/training_sim.h"

namespace vitsim::sim {

class ChromeTrace {
 public:
  // Adds one configuration's timeline as process `pid`.
  void add(int64_t pid, const std::string& label, const std::vector<RankPlan>& ranks,
           const SimOutput& out);
  // {"schema": "vitsim.trace", "schema_version": 1, "context", "displayTimeUnit", "traceEvents"}.
  nlohmann::json document(const nlohmann::json& context) const;
  bool empty() const { return events_.empty(); }

 private:
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace vitsim::sim
