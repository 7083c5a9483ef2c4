// JSON form of the terms a link class learned from training runs (docs/formats/cost-model.md,
// `links[].run_overheads`; the term: docs/learning-from-runs.md).
#include "schema/run_overhead_io.h"

#include <cmath>

#include "costmodel/physical_bounds.h"
#include "schema/common_io.h"

namespace vitsim::schema {

namespace {

costmodel::RunStepOverhead read_one(const Node& n) {
  n.expect_keys({"device", "precision", "ranks_per_node", "overhead_s", "compute_scale", "spread_s",
                 "steps", "derived_from"});
  costmodel::RunStepOverhead r;
  r.device = n["device"].string();
  if (r.device.empty()) n["device"].fail("a device id", "empty string");
  r.precision = read_regime(n["precision"]);
  r.ranks_per_node = n["ranks_per_node"].count(costmodel::kRanks);
  if (r.ranks_per_node < 2)
    n["ranks_per_node"].fail("2 or more ranks sharing a host", n["ranks_per_node"].describe());
  // Signed: a run faster than its prediction learns a negative term.
  r.overhead_s = n["overhead_s"].number();
  if (std::abs(r.overhead_s) > costmodel::kDurationS.max)
    n["overhead_s"].fail("seconds per step: -1e7 .. 1e7", n["overhead_s"].describe(),
                         costmodel::kDurationS.why);
  if (const auto scale = n.get("compute_scale"))  // absent (files before 2026-12-07): 1
    r.compute_scale = scale->within(costmodel::kComputeScale);
  r.spread_s = n["spread_s"].within(costmodel::kDurationS);
  r.steps = n["steps"].count(costmodel::kRepetitions);
  r.derived_from = n["derived_from"].string();
  return r;
}

}  // namespace

std::vector<costmodel::RunStepOverhead> read_run_overheads(const Node& link) {
  std::vector<costmodel::RunStepOverhead> out;
  const auto terms = link.get("run_overheads");
  if (!terms) return out;
  for (const Node& n : terms->items()) {
    costmodel::RunStepOverhead r = read_one(n);
    for (const auto& q : out) {
      if (q.device == r.device && q.precision == r.precision &&
          q.ranks_per_node == r.ranks_per_node)
        n["device"].fail("one term per device, precision and ranks_per_node",
                         "a second one of " + r.device);
    }
    out.push_back(std::move(r));
  }
  return out;
}

void write_run_overheads(const std::vector<costmodel::RunStepOverhead>& terms, Json& link) {
  if (terms.empty()) return;
  Json a = Json::array();
  for (const auto& r : terms) {
    a.push_back({{"device", r.device},
                 {"precision", costmodel::to_string(r.precision)},
                 {"ranks_per_node", r.ranks_per_node},
                 {"overhead_s", r.overhead_s},
                 {"compute_scale", r.compute_scale},
                 {"spread_s", r.spread_s},
                 {"steps", r.steps},
                 {"derived_from", r.derived_from}});
  }
  link["run_overheads"] = a;
}

}  // namespace vitsim::schema
