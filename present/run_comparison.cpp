// A run log's step against its prediction (see run_comparison.h).
#include "present/run_comparison.h"

#include <fmt/format.h>

#include <algorithm>

#include "costmodel/buckets.h"

namespace vitsim::present {

std::string like_summary(const std::string& run_file, const schema::RunLog& log,
                         const std::string& cluster_file, const schema::ConfigPrediction& p) {
  const schema::RunConfig& c = log.config;
  std::string hosts;
  for (size_t i = 0; i < c.hosts.size() && i < 8; ++i) hosts += (i ? ", " : "") + c.hosts[i];
  if (c.hosts.size() > 8) hosts += fmt::format(", ... ({} in all)", c.hosts.size());
  return fmt::format(
      "like {}: {} rank(s) on {} ({}), {} (image {}, patch {}, width {}, depth {}), {}, "
      "micro-batch {} x {} accumulation (global batch {}), {} images x {:g}, {}, bucket {:g} "
      "MiB, overlap {}, ring all-reduce\n"
      "predicted on {} (cluster {}): {} steps per epoch\n",
      run_file, c.world_size, hosts, c.device, c.model.name, c.model.image_size, c.model.patch_size,
      c.model.width, c.model.depth, costmodel::to_string(c.precision), c.micro_batch,
      c.accumulation, c.global_batch, c.train_images, c.data_fraction,
      costmodel::to_string(c.optimizer), c.bucket_bytes / costmodel::kMiB, c.overlap ? "on" : "off",
      cluster_file, p.cluster, p.steps_per_epoch);
}

std::string step_comparison(const schema::RunLog& log, const schema::ConfigPrediction& p) {
  if (log.ranks.empty()) return "(the run log lists no rank's step times: no step comparison)\n";
  double step_s = 0, compute_s = 0, allreduce_s = -1;
  for (const auto& r : log.ranks) {
    step_s = std::max(step_s, r.step_time_s);
    compute_s = std::max(compute_s, r.data_time_s + r.host_to_device_time_s + r.forward_time_s +
                                        r.backward_time_s + r.optimizer_time_s);
    if (r.rank == 0) allreduce_s = r.allreduce_time_s;
  }
  double predicted_allreduce_s = 0;
  for (const auto& r : p.ranks) {
    if (r.rank == 0) predicted_allreduce_s = r.exposed_comm_time_s + r.idle_time_s;
  }
  const char* row = "{:<42} {:>10} {:>10} {:>8}\n";
  std::string out = fmt::format(row, "per optimizer step", "measured", "predicted", "error");
  out += fmt::format(row, "", "s", "s", "%");
  auto line = [&](const std::string& what, double measured, double predicted) {
    const std::string error =
        measured > 0 ? fmt::format("{:+.1f}", 100 * (predicted - measured) / measured) : "-";
    out += fmt::format("{:<42} {:>10.4f} {:>10.4f} {:>8}\n", what, measured, predicted, error);
  };
  line("step", step_s, p.step_time_s);
  line("compute, slowest rank", compute_s, p.compute_time_s);
  if (allreduce_s >= 0) {
    line("exposed all-reduce + waiting, rank 0", allreduce_s, predicted_allreduce_s);
  }
  out += fmt::format(
      "(measured: medians over {} rank(s), the first step of each epoch excluded; compute = "
      "data + copy + forward + backward + optimizer)\n",
      log.ranks.size());
  return out;
}

}  // namespace vitsim::present
