// Measured runs and configuration keys (see measured_runs.h).
#include "present/measured_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <tuple>

#include "costmodel/dataset.h"
#include "costmodel/physical_bounds.h"
#include "schema/input_error.h"

namespace vitsim::present {

int64_t fraction_ppm(double fraction) {
  return std::llround(fraction * 1e6);
}

std::string ConfigKey::label() const {
  return fmt::format("{} {} {} GPU b{} p{:g} {}{}{}", cluster, placement.empty() ? "?" : placement,
                     gpus, micro_batch, data_fraction(), costmodel::to_string(precision),
                     zero_stage > 0 ? fmt::format(" zero{}", zero_stage) : "",
                     activation_checkpointing ? " ckpt" : "");
}

bool ConfigKey::operator<(const ConfigKey& o) const {
  return std::tie(cluster, placement, gpus, micro_batch, data_fraction_ppm, precision, zero_stage,
                  activation_checkpointing) <
         std::tie(o.cluster, o.placement, o.gpus, o.micro_batch, o.data_fraction_ppm, o.precision,
                  o.zero_stage, o.activation_checkpointing);
}

bool ConfigKey::operator==(const ConfigKey& o) const {
  return !(*this < o) && !(o < *this);
}

std::string normalize_cluster(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '(') break;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string normalize_placement(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.rfind("inter-node", 0) == 0) return "inter-node";
  if (t.rfind("intra-node", 0) == 0) return "intra-node";
  return t;
}

namespace {

// An integer column of a measured row within its physical bound (a GPU count, a micro-batch): a
// row outside it is a typo, which would otherwise match no prediction without saying why.
int64_t count_within(const schema::CsvTable& t, size_t row, const std::string& column,
                     const costmodel::CountBound& bound) {
  const long long v = t.integer(row, column);
  if (!costmodel::bound_violation(bound, v).empty())
    t.fail(row, column, std::string(bound.what) + " (" + bound.why + ")");
  return v;
}

// "CIFAR-10" -> "cifar10", "ImageNet-1k" -> "imagenet-1k": a data set of costmodel's table, named
// as people write it (case, '-', '_' and spaces aside); InputError naming the row otherwise.
std::string dataset_of(const schema::CsvTable& t, size_t row) {
  auto plain = [](const std::string& s) {
    std::string out;
    for (char c : s)
      if (std::isalnum(static_cast<unsigned char>(c)))
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::string names;
  for (const auto& d : costmodel::datasets()) {
    if (plain(d.name) == plain(t.at(row, "dataset"))) return d.name;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  t.fail(row, "dataset", "a data set of " + names + " (or no dataset column)");
}

// The optional columns that say more of the run than its key (run_match.h compares them).
void read_optional_columns(const schema::CsvTable& t, size_t i, MeasuredRun& r) {
  if (t.has_column("steps_per_epoch"))
    r.steps_per_epoch = count_within(t, i, "steps_per_epoch", costmodel::kRepetitions);
  if (t.has_column("global_batch")) {
    const int64_t batch = count_within(t, i, "global_batch", costmodel::kImages);
    const int64_t per_step = r.key.gpus * r.key.micro_batch;
    if (batch % per_step != 0 || batch / per_step > costmodel::kAccumulation.max)
      t.fail(
          i, "global_batch",
          fmt::format("n_gpus x micro_batch_per_gpu x accumulation: a multiple of {}", per_step));
    r.accumulation = batch / per_step;
  }
  // The data set's training images. Not its classes: a study may predict another head than the
  // runs trained (the reference study's ViT-B/16 of 1000 classes for its CIFAR-10 runs), which a
  // row cannot tell from a run of another data set.
  if (t.has_column("dataset")) {
    r.images = costmodel::find_dataset(dataset_of(t, i)).train_images;
    r.images_known = true;
  }
}

}  // namespace

std::vector<MeasuredRun> measured_from_csv(const schema::CsvTable& t,
                                           const schema::RegimeAliases& aliases) {
  t.require_columns({"cluster", "placement", "precision", "n_gpus", "micro_batch_per_gpu",
                     "dataset_fraction", "epoch_time_s"});
  std::vector<MeasuredRun> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    MeasuredRun r;
    r.key.cluster = normalize_cluster(t.at(i, "cluster"));
    r.key.placement = normalize_placement(t.at(i, "placement"));
    r.key.gpus = count_within(t, i, "n_gpus", costmodel::kRanks);
    r.key.micro_batch = count_within(t, i, "micro_batch_per_gpu", costmodel::kMicroBatch);
    const double fraction = t.positive(i, "dataset_fraction");
    // Keys hold the fraction in parts per million: one that rounds to 0 would match nothing.
    if (fraction > 1 || fraction_ppm(fraction) < 1)
      t.fail(i, "dataset_fraction", "a fraction of the images in [1e-6, 1]");
    r.key.data_fraction_ppm = fraction_ppm(fraction);
    try {
      r.key.precision = schema::regime_of_text(t.at(i, "precision"), aliases);
    } catch (const std::invalid_argument& e) {
      throw schema::InputError::at(
          t.file(), "row " + std::to_string(i + 1) + ", column precision",
          std::string("a precision regime (") + costmodel::regime_names() + ")",
          "\"" + t.at(i, "precision") + "\"",
          std::string(e.what()) +
              "; a study's own names are mapped by its study.json "
              "\"precision_names\" (pass --study)");
    }
    // 1e308 s is a number and no epoch: it would make every error -100 % and the median "-nan".
    r.epoch_time_s = t.positive(i, "epoch_time_s");
    if (!costmodel::bound_violation(costmodel::kPositiveDurationS, r.epoch_time_s).empty())
      t.fail(i, "epoch_time_s",
             std::string(costmodel::kPositiveDurationS.what) + " (" +
                 costmodel::kPositiveDurationS.why + ")");
    read_optional_columns(t, i, r);
    r.source = fmt::format("{}: row {}", t.file(), i + 1);
    out.push_back(r);
  }
  return out;
}

MeasuredRun measured_from_run_log(const schema::RunLog& log, const std::string& file) {
  MeasuredRun r;
  const auto& c = log.config;
  r.key.cluster = normalize_cluster(c.cluster);
  const std::set<std::string> hosts(c.hosts.begin(), c.hosts.end());
  if (c.hosts.empty()) {
    r.key.placement = "";
  } else if (hosts.size() == 1) {
    r.key.placement = "intra-node";
  } else if (hosts.size() == c.hosts.size()) {
    r.key.placement = "inter-node";
  } else {
    r.key.placement = "mixed";
  }
  r.key.gpus = c.world_size;
  r.key.micro_batch = c.micro_batch;
  r.key.data_fraction_ppm = fraction_ppm(c.data_fraction);
  r.key.precision = c.precision;
  r.key.zero_stage = c.zero_stage;
  r.key.activation_checkpointing = c.activation_checkpointing;
  r.images = c.train_images > 0 ? c.train_images : 50000;
  r.images_known = c.train_images > 0;
  r.accumulation = c.accumulation;
  r.optimizer = c.optimizer;
  if (!c.dataset.empty()) r.dataset = c.dataset;
  r.overlap = c.overlap;
  r.bucket_bytes = c.bucket_bytes;
  r.zero_stage = c.zero_stage;
  r.activation_checkpointing = c.activation_checkpointing;
  if (log.epochs.empty()) {
    throw schema::InputError::at(file, "/epochs", "at least one epoch", "an empty array",
                                 "validate needs a run that finished an epoch");
  }
  double sum = 0;
  for (const auto& e : log.epochs) sum += e.epoch_time_s;
  r.epoch_time_s = sum / static_cast<double>(log.epochs.size());  // like the study: mean of epochs
  r.steps_per_epoch = log.epochs.front().steps;
  r.source = file;
  r.run_name = file.substr(file.find_last_of('/') + 1);
  if (r.run_name.size() > 5 && r.run_name.compare(r.run_name.size() - 5, 5, ".json") == 0)
    r.run_name.resize(r.run_name.size() - 5);
  r.model = c.model;
  return r;
}

std::vector<MeasuredRun> read_measured(const std::string& path,
                                       const schema::RegimeAliases& aliases) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0) {
    return measured_from_csv(schema::CsvTable::read(path), aliases);
  }
  return {measured_from_run_log(schema::read_run_log(path), path)};
}

ConfigKey key_of(const schema::ConfigPrediction& p) {
  ConfigKey k;
  k.cluster = normalize_cluster(p.cluster);
  k.placement = p.config.placement;
  if (k.placement.empty() && !p.ranks.empty()) {  // not stated: from the ranks' hosts
    std::set<std::string> hosts;
    for (const auto& r : p.ranks) hosts.insert(r.host);
    k.placement = hosts.size() == 1                ? "intra-node"
                  : hosts.size() == p.ranks.size() ? "inter-node"
                                                   : "mixed";
  }
  k.gpus = p.config.gpus;
  k.micro_batch = p.config.micro_batch;
  k.data_fraction_ppm = fraction_ppm(p.config.data_fraction);
  k.precision = p.config.precision;
  k.zero_stage = p.config.zero_stage;
  k.activation_checkpointing = p.config.activation_checkpointing;
  return k;
}

}  // namespace vitsim::present
