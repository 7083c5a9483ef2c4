// Link classes in use and their provenance; see link_provenance.h.
#include "sim/link_provenance.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/placement.h"

namespace vitsim::sim {
namespace {

bool is_measurement(costmodel::LinkSource s) {
  return s == costmodel::LinkSource::kMeasured || s == costmodel::LinkSource::kImported;
}

}  // namespace

std::vector<costmodel::LinkProvenance> link_classes_used(const PlatformPlan& plan) {
  std::vector<costmodel::LinkProvenance> out;
  const int64_t ranks = static_cast<int64_t>(plan.ranks());
  if (ranks < 2) return out;
  std::set<int> seen;
  auto add_route = [&](int64_t a, int64_t b) {
    for (int l : plan.route(a, b)) {
      const int p = plan.links[static_cast<size_t>(l)].provenance;
      if (p >= 0 && seen.insert(p).second) out.push_back(plan.provenance[static_cast<size_t>(p)]);
    }
  };
  for (int64_t r = 0; r < ranks; ++r) add_route(r, (r + 1) % ranks);
  for (int64_t r = 1; r < ranks; ++r) add_route(0, r);
  return out;
}

std::vector<costmodel::LinkProvenance> link_classes_used(const schema::ClusterSpec& cluster,
                                                         const schema::TrainingConfig& config,
                                                         const costmodel::CostModel& costs,
                                                         const SimOptions& options) {
  if (config.gpus < 2) return {};
  const Placement placement = place_ranks(cluster, config);
  return link_classes_used(plan_platform(cluster, placement, &costs, false,
                                         options.transports ? &*options.transports : nullptr));
}

std::vector<schema::LinkUse> link_uses(const PlatformPlan& plan) {
  std::vector<schema::LinkUse> out;
  for (const auto& p : link_classes_used(plan)) out.push_back({p, 0});
  if (out.empty()) return out;
  // Per provenance entry, the entry of `out` with its class (-1: none): a rank counts once per
  // class however many of its links belong to it.
  std::vector<int> use_of(plan.provenance.size(), -1);
  for (size_t p = 0; p < plan.provenance.size(); ++p) {
    for (size_t u = 0; u < out.size() && use_of[p] < 0; ++u) {
      if (out[u].link.link_class == plan.provenance[p].link_class) use_of[p] = static_cast<int>(u);
    }
  }
  const int64_t ranks = static_cast<int64_t>(plan.ranks());
  std::vector<int64_t> seen_by(out.size(), -1);  // the last rank that counted each use
  for (int64_t r = 0; r < ranks; ++r) {
    for (int64_t peer : {(r + 1) % ranks, (r + ranks - 1) % ranks}) {
      for (int l : plan.route(r, peer)) {
        const int p = plan.links[static_cast<size_t>(l)].provenance;
        const int u = p >= 0 ? use_of[static_cast<size_t>(p)] : -1;
        if (u < 0 || seen_by[static_cast<size_t>(u)] == r) continue;
        seen_by[static_cast<size_t>(u)] = r;
        ++out[static_cast<size_t>(u)].ranks;
      }
    }
  }
  for (auto& u : out) u.ranks = std::max<int64_t>(u.ranks, 1);  // rank 0's tree routes
  return out;
}

std::vector<schema::LinkUse> link_uses(const schema::ClusterSpec& cluster,
                                       const schema::TrainingConfig& config,
                                       const costmodel::CostModel& costs,
                                       const SimOptions& options) {
  if (config.gpus < 2) return {};
  const Placement placement = place_ranks(cluster, config);
  return link_uses(plan_platform(cluster, placement, &costs, false,
                                 options.transports ? &*options.transports : nullptr));
}

std::string unmeasured_link_line(const costmodel::LinkProvenance& p) {
  if (is_measurement(p.source)) return "";
  return fmt::format(
      "{}: {} ({}: {:.4g} GB/s, {:.1f} us per step), not measured: run vitsim-train "
      "bench-allreduce on these hosts, or import their nccl-tests output with vitsim "
      "import-nccl-tests",
      p.link_class, costmodel::to_string(p.source), p.model, p.bandwidth_bytes_per_s / 1e9,
      p.latency_s * 1e6);
}

}  // namespace vitsim::sim
