// The ports' token buckets; see token_buckets.h and docs/simulator.md ("Token buckets").
#include "sim/token_buckets.h"

#include <algorithm>

namespace vitsim::sim {

namespace {

int64_t port_key(int link, bool up) {
  return 2 * static_cast<int64_t>(link) + (up ? 0 : 1);
}

}  // namespace

TokenBuckets::TokenBuckets(const PlatformPlan& plan) : plan_(plan) {
  for (size_t l = 0; l < plan.links.size(); ++l) {
    const double burst = plan.links[l].burst_bytes;
    if (!(burst > 0)) continue;
    for (bool up : {true, false}) ports_[port_key(static_cast<int>(l), up)] = Port{burst, 0.0};
  }
}

double TokenBuckets::tokens_at(int link, const Port& p, double now_s) const {
  if (now_s <= p.busy_until_s) return p.tokens;
  const PlanLink& l = plan_.links[static_cast<size_t>(link)];
  return std::min(l.burst_bytes, p.tokens + (now_s - p.busy_until_s) * l.bandwidth_bytes_per_s);
}

double TokenBuckets::tokens(int link, bool up, double now_s) const {
  auto it = ports_.find(port_key(link, up));
  return it == ports_.end() ? 0.0 : tokens_at(link, it->second, now_s);
}

double TokenBuckets::spend(int64_t src, int64_t dst, double bytes, double now_s) {
  if (ports_.empty() || !(bytes > 0)) return 0;
  const RouteLinks route = plan_.route(src, dst);
  if (route.empty()) return 0;
  // The route's first half goes up (source side), the second half down (platform_plan.h). A port
  // without a bucket limits nothing here (its rate holds from the first byte, as it does anyway
  // in the simulation); the credit is what every bucketed port lets through at once.
  const size_t half = route.size() / 2;
  double credit = bytes;
  bool bucketed = false;
  for (size_t i = 0; i < route.size(); ++i) {
    auto it = ports_.find(port_key(route[i], i < half));
    if (it == ports_.end()) continue;
    bucketed = true;
    credit = std::min(credit, tokens_at(route[i], it->second, now_s));
  }
  if (!bucketed) return 0;
  for (size_t i = 0; i < route.size(); ++i) {
    auto it = ports_.find(port_key(route[i], i < half));
    if (it == ports_.end()) continue;
    Port& p = it->second;
    const double rate = plan_.links[static_cast<size_t>(route[i])].bandwidth_bytes_per_s;
    p.tokens = tokens_at(route[i], p, now_s) - credit;
    p.busy_until_s = std::max(p.busy_until_s, now_s) + (bytes - credit) / rate;
  }
  return credit;
}

bool has_token_buckets(const PlatformPlan& plan) {
  return std::any_of(plan.links.begin(), plan.links.end(),
                     [](const PlanLink& l) { return l.burst_bytes > 0; });
}

std::string token_bucket_line(const PlatformPlan& plan, const std::string& engine,
                              costmodel::CollectiveLevel level, costmodel::Collective collective) {
  if (!has_token_buckets(plan)) return "";
  if (engine == "ranks" && level == costmodel::CollectiveLevel::kStep &&
      collective != costmodel::Collective::kTree)
    return "";
  return "the NICs' token buckets (burst_bytes): not modelled by this run (only the step level "
         "of the rank-by-rank engine's rings grants their credit; here engine " +
         engine + ", level " + costmodel::to_string(level) + ", collective " +
         costmodel::to_string(collective) +
         "): its collectives after idle run at the link's rate from the first byte, an upper "
         "bound (docs/simulator.md, \"Token buckets\")";
}

}  // namespace vitsim::sim
