// A link benchmark's token-bucket credit; see burst_credit.h and docs/calibration.md ("Token
// buckets").
#include "calibrate/burst_credit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace vitsim::calibrate {

std::optional<LinkBucket> link_bucket(const std::vector<schema::ClusterSpec>& clusters,
                                      const std::string& link_class) {
  for (const auto& c : clusters) {
    for (const auto& n : c.nodes) {
      if (n.nic.link_class == link_class && n.nic.burst_bytes > 0)
        return LinkBucket{n.nic.burst_bytes, n.nic.bandwidth_bytes_per_s};
    }
  }
  return std::nullopt;
}

double benchmark_idle_s(const schema::Profile& profile, const schema::AllreduceProfile& a) {
  if (a.idle_before_s) return *a.idle_before_s;
  const schema::Json& argv = profile.context.is_object() && profile.context.contains("argv")
                                 ? profile.context["argv"]
                                 : schema::Json();
  if (!argv.is_array()) return 0;
  bool bench = false;
  for (const auto& x : argv) bench = bench || (x.is_string() && x == "bench-allreduce");
  if (!bench) return 0;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i].is_string() && argv[i] == "--compute-before-s" && argv[i + 1].is_string()) {
      const std::string v = argv[i + 1];
      char* end = nullptr;
      const double s = std::strtod(v.c_str(), &end);
      // The trainer refused anything but 0 .. 3600 s; a context that says otherwise was edited.
      if (end != v.c_str() && *end == '\0' && s >= 0 && s <= 3600) return s;
    }
  }
  return 0;
}

double credit_s(const std::optional<LinkBucket>& bucket, double idle_s, costmodel::CollectiveOp op,
                int64_t ranks, double message_bytes_per_channel) {
  if (!bucket || !(idle_s > 0)) return 0;
  const double per_port = costmodel::bus_factor(op, ranks) * message_bytes_per_channel;
  const double credit =
      std::min({bucket->burst_bytes, idle_s * bucket->rate_bytes_per_s, per_port});
  return credit / bucket->rate_bytes_per_s;
}

std::vector<AllreduceSample> credited_samples(const schema::Profile& profile,
                                              const schema::AllreduceProfile& a,
                                              costmodel::CollectiveOp op, int64_t channels,
                                              const std::vector<schema::ClusterSpec>& clusters,
                                              double& most_credit_s) {
  const auto bucket = link_bucket(clusters, a.link_class);
  const double idle_s = benchmark_idle_s(profile, a);
  std::vector<AllreduceSample> out;
  out.reserve(a.points.size());
  for (const auto& p : a.points) {
    const double per_channel = p.message_bytes / static_cast<double>(channels);
    const double back_s = credit_s(bucket, idle_s, op, a.ranks, per_channel);
    most_credit_s = std::max(most_credit_s, back_s);
    out.push_back({a.ranks, per_channel, p.time_s + back_s});
  }
  return out;
}

std::string credit_text(double most_credit_s, const std::optional<LinkBucket>& bucket) {
  if (!bucket || !(most_credit_s > 0)) return "";
  return fmt::format(
      "; the token bucket's credit put back in (burst {:.0f} B at {:.4g} B/s of the cluster file, "
      "min(burst, idle x rate) before each: up to {:.2f} ms a point; the simulator grants it)",
      bucket->burst_bytes, bucket->rate_bytes_per_s, 1e3 * most_credit_s);
}

}  // namespace vitsim::calibrate
