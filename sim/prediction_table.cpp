// Tables of predictions; see prediction_table.h.
#include "sim/prediction_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace vitsim::sim {
namespace {

std::string label_of(const schema::ConfigPrediction& p) {
  if (!p.config.label.empty()) return p.config.label;
  return fmt::format("{} GPU(s)", p.config.gpus);
}

std::string micro_batch_of(const schema::ConfigPrediction& p) {
  if (p.config.per_rank_micro_batch.empty()) return std::to_string(p.config.micro_batch);
  std::string s;
  for (int64_t b : p.config.per_rank_micro_batch) s += (s.empty() ? "" : "/") + std::to_string(b);
  return s;
}

double max_memory_gb(const schema::ConfigPrediction& p) {
  double m = 0;
  for (const auto& r : p.ranks) m = std::max(m, r.memory_bytes);
  return m / 1e9;
}

double max_idle(const schema::ConfigPrediction& p) {
  double m = 0;
  for (const auto& r : p.ranks) m = std::max(m, r.idle_time_s);
  return m;
}

}  // namespace

std::string prediction_table(const std::vector<schema::ConfigPrediction>& ps) {
  const char* head =
      "{:<34} {:>5} {:>11} {:<10} {:<17} {:>7} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {:>7} {:>5} "
      "{:>7} {:<4}\n";
  std::string s = fmt::format(head, "configuration", "gpus", "micro-batch", "placement",
                              "collective", "steps", "step", "epoch", "compute", "comm", "max idle",
                              "throughput", "speedup", "eff", "memory", "fit");
  s += fmt::format(head, "", "count", "samples", "", "", "/epoch", "s", "s", "s/step", "s/step",
                   "s/step", "img/s", "x", "%", "GB", "");
  for (const auto& p : ps) {
    const std::string coll = std::string(costmodel::to_string(p.config.collective)) + "/" +
                             costmodel::to_string(p.config.collective_level);
    if (p.out_of_memory) {
      s += fmt::format(
          "{:<34} {:>5} {:>11} {:<10} {:<17} {:>7} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {:>7} "
          "{:>5} {:>7.2f} {:<4}\n",
          label_of(p), p.config.gpus, micro_batch_of(p), p.config.placement, coll,
          p.steps_per_epoch, "-", "-", "-", "-", "-", "-", "-", "-", max_memory_gb(p),
          fmt::format("OOM (max micro-batch {})", p.max_micro_batch_that_fits));
      continue;
    }
    const std::string speedup = p.speedup > 0 ? fmt::format("{:.2f}", p.speedup) : "-";
    const std::string eff =
        p.parallel_efficiency > 0 ? fmt::format("{:.0f}", 100 * p.parallel_efficiency) : "-";
    s += fmt::format(
        "{:<34} {:>5} {:>11} {:<10} {:<17} {:>7} {:>9.4f} {:>10.1f} {:>9.4f} {:>9.4f} {:>9.4f} "
        "{:>9.1f} {:>7} {:>5} {:>7.2f} {:<4}\n",
        label_of(p), p.config.gpus, micro_batch_of(p), p.config.placement, coll, p.steps_per_epoch,
        p.step_time_s, p.epoch_time_s, p.compute_time_s, p.exposed_comm_time_s, max_idle(p),
        p.throughput_images_per_s, speedup, eff, max_memory_gb(p), "ok");
  }
  return s;
}

std::string rank_table(const schema::ConfigPrediction& p) {
  const char* head = "{:>5} {:<16} {:<10} {:>11} {:>9} {:>9} {:>9} {:>8} {:>8}\n";
  std::string s = fmt::format(head, "rank", "host", "device", "micro-batch", "compute", "comm",
                              "idle", "memory", "device");
  s += fmt::format(head, "", "", "", "samples", "s/step", "s/step", "s/step", "GB", "GB");
  for (const auto& r : p.ranks) {
    s += fmt::format("{:>5} {:<16} {:<10} {:>11} {:>9.4f} {:>9.4f} {:>9.4f} {:>8.2f} {:>8.2f}\n",
                     r.rank, r.host, r.device, r.micro_batch, r.compute_time_s,
                     r.exposed_comm_time_s, r.idle_time_s, r.memory_bytes / 1e9,
                     r.device_memory_bytes / 1e9);
  }
  return s;
}

std::string dump_with_head_first(const nlohmann::json& doc) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* head : {"schema", "schema_version", "context"}) {
    if (doc.contains(head)) out[head] = doc.at(head);
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!out.contains(it.key())) out[it.key()] = it.value();
  }
  return out.dump(2) + "\n";
}

}  // namespace vitsim::sim
