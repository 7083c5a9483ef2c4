// CSV views of predictions (see prediction_csv.h, docs/formats/predictions-csv.md). Numbers keep
// the precision each view has always had: configurations_csv rounds for people (a spreadsheet),
// ranks_csv writes the shortest round-trip form.
#include "schema/prediction_csv.h"

#include <fmt/format.h>

#include "schema/csv_table.h"

namespace vitsim::schema {
namespace {

std::string cost_sources(const ConfigPrediction& c) {
  std::string out;
  for (const auto& [k, v] : c.cost_sources) {
    out += (out.empty() ? "" : "; ") + k + "=" + costmodel::to_string(v);
  }
  return out;
}

std::string label_of(const ConfigPrediction& p) {
  if (!p.config.label.empty()) return p.config.label;
  return fmt::format("{} GPU(s)", p.config.gpus);
}

std::vector<std::string> configuration_row(const std::string& scenario, const ConfigPrediction& c) {
  return {scenario,
          c.cluster,
          c.config.label,
          std::to_string(c.config.gpus),
          c.config.placement,
          std::to_string(c.config.micro_batch),
          std::to_string(c.config.accumulation),
          costmodel::to_string(c.config.precision),
          fmt::format("{:g}", c.config.data_fraction),
          std::to_string(c.steps_per_epoch),
          fmt::format("{:.6f}", c.step_time_s),
          fmt::format("{:.3f}", c.epoch_time_s),
          fmt::format("{:.3f}", c.throughput_images_per_s),
          fmt::format("{:.4f}", c.speedup),
          fmt::format("{:.4f}", c.parallel_efficiency),
          c.out_of_memory ? "true" : "false",
          cost_sources(c)};
}

std::vector<std::string> rank_row(const ConfigPrediction& p, const RankPrediction& r) {
  auto num = [](double x) { return fmt::format("{}", x); };
  return {label_of(p),
          p.cluster,
          std::to_string(p.config.gpus),
          std::to_string(p.config.micro_batch),
          std::to_string(p.config.accumulation),
          costmodel::to_string(p.config.precision),
          num(p.config.data_fraction),
          p.config.placement,
          costmodel::to_string(p.config.collective),
          costmodel::to_string(p.config.collective_level),
          p.config.overlap ? "on" : "off",
          num(p.config.bucket_bytes),
          p.out_of_memory ? "1" : "0",
          std::to_string(p.max_micro_batch_that_fits),
          std::to_string(p.steps_per_epoch),
          num(p.step_time_s),
          num(p.epoch_time_s),
          num(p.throughput_images_per_s),
          num(p.speedup),
          num(p.parallel_efficiency),
          std::to_string(r.rank),
          r.host,
          r.device,
          std::to_string(r.micro_batch),
          num(r.compute_time_s),
          num(r.exposed_comm_time_s),
          num(r.idle_time_s),
          num(r.memory_bytes),
          num(r.device_memory_bytes),
          r.memory_bytes <= r.device_memory_bytes ? "1" : "0"};
}

}  // namespace

std::string configurations_csv(const std::vector<PredictionFile>& files) {
  std::string out = csv_record({"scenario", "cluster", "label", "gpus", "placement", "micro_batch",
                                "accumulation", "precision", "data_fraction", "steps_per_epoch",
                                "step_time_s", "epoch_time_s", "throughput_images_per_s", "speedup",
                                "parallel_efficiency", "out_of_memory", "cost_sources"});
  for (const auto& f : files) {
    for (const auto& c : f.configurations) out += csv_record(configuration_row(f.scenario, c));
  }
  return out;
}

std::string ranks_csv(const std::vector<ConfigPrediction>& predictions) {
  std::string out = csv_record({"configuration",
                                "cluster",
                                "gpus",
                                "micro_batch",
                                "accumulation",
                                "precision",
                                "data_fraction",
                                "placement",
                                "collective",
                                "collective_level",
                                "overlap",
                                "bucket_bytes",
                                "out_of_memory",
                                "max_micro_batch_that_fits",
                                "steps_per_epoch",
                                "step_time_s",
                                "epoch_time_s",
                                "throughput_images_per_s",
                                "speedup",
                                "parallel_efficiency",
                                "rank",
                                "host",
                                "device",
                                "rank_micro_batch",
                                "compute_time_s",
                                "exposed_comm_time_s",
                                "idle_time_s",
                                "memory_bytes",
                                "device_memory_bytes",
                                "memory_fits"});
  for (const auto& p : predictions) {
    for (const auto& r : p.ranks) out += csv_record(rank_row(p, r));
  }
  return out;
}

}  // namespace vitsim::schema
