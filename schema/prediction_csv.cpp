// CSV views of predictions (see prediction_csv.h, docs/formats/predictions-csv.md). Numbers keep
// the precision each view has always had: configurations_csv rounds for people (a spreadsheet),
// ranks_csv writes the shortest round-trip form.
#include "schema/prediction_csv.h"

#include <fmt/format.h>

#include "schema/csv_table.h"
#include "schema/json_file.h"

namespace vitsim::schema {
namespace {

std::string label_of(const ConfigPrediction& p) {
  if (!p.config.label.empty()) return p.config.label;
  return fmt::format("{} GPU(s)", p.config.gpus);
}

// Cost columns, the same in both views, empty without a cost (no price for a device, out of
// memory): $ and kWh per epoch and per run of `epochs` epochs, how checked the prices are, the
// price mode (one per file), and why a configuration that ran has no cost.
const std::vector<std::string> kCostColumns = {"epoch_usd", "run_usd",     "epochs",
                                               "epoch_kwh", "run_kwh",     "price_status",
                                               "cost_mode", "cost_missing"};

void append_cost(std::vector<std::string>& row, const ConfigPrediction& p) {
  if (!p.cost) {
    row.insert(row.end(), kCostColumns.size() - 1, "");
    row.push_back(p.cost_missing);
    return;
  }
  const RunCost& c = *p.cost;
  auto num = [](double x) { return fmt::format("{}", x); };
  row.insert(row.end(), {num(c.epoch_usd), num(c.run_usd), std::to_string(c.epochs),
                         num(c.epoch_kwh), num(c.run_kwh), c.price_status, c.mode, ""});
}

std::vector<std::string> with_cost(std::vector<std::string> row, const ConfigPrediction& p) {
  append_cost(row, p);
  return row;
}

// The global batch and its flag (costmodel/global_batch.h), against the file's limit.
std::vector<std::string> batch_cells(const ConfigPrediction& c, int64_t max_global_batch) {
  const int64_t batch = global_batch(c.config);
  return {std::to_string(batch),
          costmodel::above_global_batch_limit(batch, max_global_batch) ? "true" : "false"};
}

std::vector<std::string> configuration_row(const std::string& scenario, const ConfigPrediction& c,
                                           int64_t max_global_batch) {
  const std::vector<std::string> batch = batch_cells(c, max_global_batch);
  return {scenario,
          c.cluster,
          c.config.label,
          std::to_string(c.config.gpus),
          c.config.placement,
          std::to_string(c.config.micro_batch),
          std::to_string(c.config.accumulation),
          batch[0],
          batch[1],
          costmodel::to_string(c.config.precision),
          fmt::format("{:g}", c.config.data_fraction),
          std::to_string(c.config.images),
          costmodel::to_string(c.config.collective),
          costmodel::to_string(c.config.collective_level),
          c.config.overlap ? "on" : "off",
          fmt::format("{}", c.config.bucket_bytes),
          std::to_string(c.steps_per_epoch),
          fmt::format("{:.6f}", c.step_time_s),
          fmt::format("{:.3f}", c.epoch_time_s),
          c.range ? fmt::format("{:.3f}", c.range->epoch_time_s.p10) : "",
          c.range ? fmt::format("{:.3f}", c.range->epoch_time_s.p90) : "",
          c.config.first_epoch ? "first" : "later",
          fmt::format("{:.3f}", c.first_epoch_time_s),
          fmt::format("{:.3f}", c.later_epoch_time_s),
          fmt::format("{:.3f}", c.throughput_images_per_s),
          fmt::format("{:.4f}", c.speedup),
          fmt::format("{:.4f}", c.parallel_efficiency),
          c.out_of_memory ? "true" : "false",
          std::to_string(c.max_micro_batch_that_fits),
          provenance_summary(c.provenance)};
}

// `batch`: the configuration's batch_cells, made once for all its ranks (with per-rank
// micro-batches the global batch is a sum over the ranks).
std::vector<std::string> rank_row(const ConfigPrediction& p, const RankPrediction& r,
                                  const std::vector<std::string>& batch) {
  auto num = [](double x) { return fmt::format("{}", x); };
  return {label_of(p),
          p.cluster,
          std::to_string(p.config.gpus),
          std::to_string(p.config.micro_batch),
          std::to_string(p.config.accumulation),
          batch[0],
          batch[1],
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

std::vector<std::string> with_cost_header(std::vector<std::string> header) {
  header.insert(header.end(), kCostColumns.begin(), kCostColumns.end());
  return header;
}

}  // namespace

std::string configurations_csv(const std::vector<PredictionFile>& files) {
  std::string out = csv_record(with_cost_header({"scenario",
                                                 "cluster",
                                                 "label",
                                                 "gpus",
                                                 "placement",
                                                 "micro_batch",
                                                 "accumulation",
                                                 "global_batch",
                                                 "above_max_global_batch",
                                                 "precision",
                                                 "data_fraction",
                                                 "images",
                                                 "collective",
                                                 "collective_level",
                                                 "overlap",
                                                 "bucket_bytes",
                                                 "steps_per_epoch",
                                                 "step_time_s",
                                                 "epoch_time_s",
                                                 "epoch_p10_s",
                                                 "epoch_p90_s",
                                                 "epoch",
                                                 "first_epoch_s",
                                                 "later_epoch_s",
                                                 "throughput_images_per_s",
                                                 "speedup",
                                                 "parallel_efficiency",
                                                 "out_of_memory",
                                                 "max_micro_batch_that_fits",
                                                 "provenance"}));
  for (const auto& f : files) {
    const int64_t limit = max_global_batch_of(f);
    for (const auto& c : f.configurations)
      out += csv_record(with_cost(configuration_row(f.scenario, c, limit), c));
  }
  return out;
}

std::string ranks_csv(const PredictionFile& file) {
  std::string out = csv_record(with_cost_header({"configuration",
                                                 "cluster",
                                                 "gpus",
                                                 "micro_batch",
                                                 "accumulation",
                                                 "global_batch",
                                                 "above_max_global_batch",
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
                                                 "memory_fits"}));
  const int64_t limit = max_global_batch_of(file);
  for (const auto& p : file.configurations) {
    const std::vector<std::string> batch = batch_cells(p, limit);
    for (const auto& r : p.ranks) out += csv_record(with_cost(rank_row(p, r, batch), p));
  }
  return out;
}

std::vector<std::string> prediction_output_paths(const std::string& prefix) {
  if (prefix.empty()) return {};
  return {prefix + ".json", prefix + ".csv", prefix + ".ranks.csv"};
}

void add_prediction_outputs(OutputGroup& group, const std::string& prefix,
                            const std::string& json_path, const PredictionFile& predictions) {
  auto add_json = [&](const std::string& path) {
    group.add(path, json_text(path, write_prediction_json(predictions)));
  };
  if (!json_path.empty()) add_json(json_path);
  if (!prefix.empty()) {
    add_json(prefix + ".json");
    group.add(prefix + ".csv", configurations_csv({predictions}));
    group.add(prefix + ".ranks.csv", ranks_csv(predictions));
  }
}

void write_prediction_outputs(const std::string& prefix, const std::string& json_path,
                              const PredictionFile& predictions) {
  OutputGroup group;
  add_prediction_outputs(group, prefix, json_path, predictions);
  group.commit();
}

}  // namespace vitsim::schema
