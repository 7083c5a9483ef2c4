// Chrome trace (JSON object format: {"traceEvents": [...]}, opens in Perfetto and chrome://tracing)
// of simulated timelines. One process per configuration, two tracks per simulated actor, that is
// per rank, or per class of equivalent ranks when the class-level simulation ran (the track name
// says which ranks): "<who>" (compute spans per layer and phase, then "idle" while waiting for
// slower ranks and "communication" while the all-reduce is exposed) and "<who> all-reduce" (each
// bucket's collective). Times in us. At most kMaxTraceTracks actors get tracks; the process then
// carries a label saying how many were left out.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/training_sim.h"

namespace vitsim::sim {

// Actors traced per configuration: at 1,024 ranks one track per rank made a 70 MB trace that
// viewers cannot open; 64 ranks' tracks are a few MB.
inline constexpr int64_t kMaxTraceTracks = 64;

class ChromeTrace {
 public:
  // Adds one configuration's timeline as process `pid`; `tracks`: who each actor of `out` is.
  void add(int64_t pid, const std::string& label, const std::vector<std::string>& tracks,
           const SimOutput& out);
  // {"schema": "vitsim.trace", "schema_version": 1, "context", "displayTimeUnit", "traceEvents"}.
  nlohmann::json document(const nlohmann::json& context) const;
  bool empty() const { return events_.empty(); }

 private:
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace vitsim::sim
