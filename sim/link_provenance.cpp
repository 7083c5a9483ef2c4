// Link classes in use and their provenance; see link_provenance.h.
#include "sim/link_provenance.h"

#include <fmt/format.h>

#include <map>
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
  const int64_t ranks = static_cast<int64_t>(plan.rank_hosts.size());
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

std::vector<std::string> unmeasured_link_warnings(
    const std::vector<std::vector<costmodel::LinkProvenance>>& per_config) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<costmodel::LinkProvenance, int>> found;
  for (const auto& links : per_config) {
    std::set<std::string> in_this;
    for (const auto& p : links) {
      if (is_measurement(p.source) || !in_this.insert(p.link_class).second) continue;
      auto it = found.find(p.link_class);
      if (it == found.end()) {
        order.push_back(p.link_class);
        found.emplace(p.link_class, std::make_pair(p, 1));
      } else {
        ++it->second.second;
      }
    }
  }
  std::vector<std::string> lines;
  for (const auto& cls : order) {
    const auto& [p, count] = found.at(cls);
    lines.push_back(
        fmt::format("{}: {} ({}: {:.4g} GB/s, {:.1f} us per step), not measured: run vitsim-train "
                    "bench-allreduce on these hosts, or import their nccl-tests output with vitsim "
                    "import-nccl-tests; used by {} of {} configuration(s)",
                    cls, costmodel::to_string(p.source), p.model, p.bandwidth_bytes_per_s / 1e9,
                    p.latency_s * 1e6, count, per_config.size()));
  }
  return lines;
}

}  // namespace vitsim::sim
