// DeepSpeed log and compute-summary import (see deepspeed_import.h, docs/calibration.md).
#include "import/deepspeed_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "costmodel/collective_op.h"
#include "costmodel/epoch.h"
#include "costmodel/physical_bounds.h"
#include "costmodel/statistics.h"
#include "import/allreduce_wait.h"
#include "schema/input_error.h"

namespace vitsim::import {

using costmodel::Regime;
using schema::InputError;

namespace {

struct Device {
  std::string id;
  std::string name;
};

// --gpu (or the log's GPU name) -> device id. An id the catalog does not know is kept as given:
// clusters may declare their own devices (e.g. "rtx-a4500" in nebula.json).
Device device_named(const costmodel::DeviceCatalog& catalog, const std::string& wanted,
                    const std::string& where) {
  std::string key = wanted;
  for (const char* prefix : {"NVIDIA ", "nvidia "}) {
    if (key.rfind(prefix, 0) == 0) key = key.substr(std::char_traits<char>::length(prefix));
  }
  if (const auto* spec = catalog.find(key)) return {spec->id, spec->name};
  if (const auto* spec = catalog.find(wanted)) return {spec->id, spec->name};
  // A name several devices share ("a100") is refused with its ids, as every command refuses it
  // (costmodel::match_device); only a name nothing in the catalog resembles is kept.
  if (costmodel::match_device(catalog, key).candidates.size() > 1)
    throw std::invalid_argument(costmodel::device_name_error(catalog, where, key));
  return {wanted, wanted};
}

Device device_of(const DeepSpeedLog& log, const costmodel::DeviceCatalog& catalog,
                 const ImportOptions& o) {
  if (!o.gpu.empty()) return device_named(catalog, o.gpu, "--gpu");
  if (log.gpu_name) {
    Device d = device_named(catalog, *log.gpu_name, log.file + ": GPU name (pass --gpu ID)");
    if (catalog.find(d.id)) return d;
    throw InputError::at(log.file, "GPU name", "a GPU of gpus.json", "\"" + *log.gpu_name + "\"",
                         "pass --gpu ID");
  }
  throw InputError::at(log.file, "GPU name", "a line naming the GPU", "none",
                       "DeepSpeed logs rarely name the GPU: pass --gpu ID (e.g. --gpu rtx3070)");
}

}  // namespace

Regime regime_of_log(const DeepSpeedLog& log, const ImportOptions& o) {
  if (log.precision && o.precision && *log.precision != *o.precision) {
    throw InputError::at(
        log.file, "fp16_enabled/bfloat16_enabled",
        std::string("precision ") + costmodel::to_string(*o.precision) + " (from --precision)",
        costmodel::to_string(*log.precision), "drop --precision or fix it");
  }
  if (log.precision) return *log.precision;
  if (o.precision) return *o.precision;
  throw InputError::at(log.file, "fp16_enabled/bfloat16_enabled", "the echoed precision",
                       "no echo of both fp16_enabled and bfloat16_enabled",
                       std::string("pass --precision (") + costmodel::regime_names() + ")");
}

namespace {

int64_t micro_batch_of(const DeepSpeedLog& log) {
  if (log.micro_batch && log.run_directory && log.run_directory->micro_batch != *log.micro_batch) {
    throw InputError::at(log.file, "train_micro_batch_size_per_gpu",
                         "the run directory's b" + std::to_string(log.run_directory->micro_batch),
                         std::to_string(*log.micro_batch));
  }
  if (log.micro_batch) return *log.micro_batch;
  if (log.run_directory) return log.run_directory->micro_batch;
  throw InputError::at(log.file, "train_micro_batch_size_per_gpu", "the echoed micro-batch", "none",
                       "the log must contain DeepSpeed's configuration echo");
}

// Per-step samples of the kept steps.
struct StepSamples {
  std::vector<double> forward, inner, allreduce, optimizer, outside, interval;
};

// Kept steps: not the first of an epoch, and not a partial last step (fewer samples).
StepSamples kept_samples(const DeepSpeedLog& log, int64_t epoch_steps, bool single_rank,
                         bool drop_last) {
  StepSamples out;
  for (size_t i = 1; i < log.steps.size(); ++i) {
    const int64_t pos = static_cast<int64_t>(i) % epoch_steps;
    if (pos == 0) continue;
    if (drop_last && pos == epoch_steps - 1) continue;
    const DeepSpeedStep& st = log.steps[i];
    const double interval = st.timestamp_s - log.steps[i - 1].timestamp_s;
    // Single rank: bwd_allreduce is local work (no peer), part of the per-step overhead.
    const double timers =
        st.forward_s + (single_rank ? st.backward_inner_s : st.backward_s) + st.optimizer_s;
    out.forward.push_back(st.forward_s);
    out.inner.push_back(st.backward_inner_s);
    out.allreduce.push_back(st.backward_allreduce_s);
    out.optimizer.push_back(st.optimizer_s);
    out.outside.push_back(interval - timers);
    out.interval.push_back(interval);
  }
  return out;
}

// What a profile needs of the medians: passes that take time, an all-reduce that was timed, and
// timers that fit in the wall interval between step lines. The stamps have millisecond resolution
// (and the timers 10 us), so timers may exceed the interval by up to 1 ms: no overhead, 0.
void check_summary(const DeepSpeedLog& log, LogSummary& s) {
  constexpr double kStampResolutionS = 1e-3;
  if (!(s.forward_s > 0 && s.backward_inner_s > 0)) {
    throw InputError::at(log.file, "fwd/bwd_inner", "median forward and backward times > 0 ms",
                         std::to_string(s.forward_s * 1e3) + " and " +
                             std::to_string(s.backward_inner_s * 1e3) + " ms",
                         "timers reading 0 were not measured: is wall_clock_breakdown on?");
  }
  if (s.world_size > 1 && !(s.backward_allreduce_s > 0)) {
    throw InputError::at(
        log.file, "bwd_allreduce",
        "a median all-reduce time > 0 ms in a " + std::to_string(s.world_size) + "-rank log",
        "0 ms", "an all-reduce among ranks takes time; is this one run's log?");
  }
  if (s.outside_s < -kStampResolutionS) {
    throw InputError::at(
        log.file, "step lines", "timers that fit in the wall interval between step lines",
        "timers " + std::to_string(-s.outside_s * 1e3) + " ms longer than the interval (median)",
        "the timers and the timestamps disagree: is this one run's log?");
  }
  s.outside_s = std::max(0.0, s.outside_s);
  s.outside_mean_s = std::max(0.0, s.outside_mean_s);  // ms-rounded stamps, as the median
  // Stamps days apart (a corrupt or spliced log) would give a step no profile reader accepts.
  for (const double t :
       {s.step_interval_s, s.step_interval_mean_s, s.outside_s, s.outside_mean_s}) {
    const std::string why = costmodel::bound_violation(costmodel::kDurationS, t);
    if (!why.empty()) {
      throw InputError::at(log.file, "step lines",
                           "step intervals of " + std::string(costmodel::kDurationS.what),
                           std::to_string(t) + " s (" + why + ")",
                           "the timestamps of consecutive steps are this far apart: is this one "
                           "run's log?");
    }
  }
}

// What an epoch's first step takes more than a steady step: the interval before each epoch-first
// step line after the first epoch's (the very first line has no interval before it, and carries
// the process's warm-up) less the median interval. nullopt with one epoch.
std::optional<double> epoch_start_extra(const DeepSpeedLog& log, int64_t epoch_steps,
                                        double typical_interval_s) {
  std::vector<double> extra;
  for (size_t i = static_cast<size_t>(epoch_steps); i < log.steps.size();
       i += static_cast<size_t>(epoch_steps)) {
    extra.push_back(log.steps[i].timestamp_s - log.steps[i - 1].timestamp_s - typical_interval_s);
  }
  if (extra.empty()) return std::nullopt;
  return std::max(0.0, costmodel::median(extra));
}

// What the process's first step took more than a steady one: its own work (fwd + bwd_inner +
// step, rank 0's device; not the all-reduce, whose first call sets up the communicator) less the
// median of the kept steps', plus the loader's start (an epoch's first step pays it, and the
// process's first epoch starts the loader too; the log's first line has no interval before it).
double process_start_extra(const DeepSpeedLog& log, const std::vector<double>& work,
                           std::optional<double> loader_start_s) {
  const DeepSpeedStep& first = log.steps.front();
  const double warm_up =
      first.forward_s + first.backward_inner_s + first.optimizer_s - costmodel::median(work);
  return std::max(0.0, warm_up) + loader_start_s.value_or(0.0);
}

// Rank 0's wait for a slower rank, out of the all-reduce timer (allreduce_wait.h).
void split_wait(const StepSamples& x, LogSummary& s) {
  std::vector<double> compute;
  for (size_t i = 0; i < x.forward.size(); ++i) compute.push_back(x.forward[i] + x.inner[i]);
  s.allreduce_transfer_s = s.backward_allreduce_mean_s;
  if (compute.size() < 3) {
    s.allreduce_wait_evidence = "too few steps to read a wait from";
    return;
  }
  const AllreduceWait w = estimate_allreduce_wait(compute, x.allreduce);
  s.allreduce_wait_s = w.wait_s;
  s.allreduce_transfer_s = s.backward_allreduce_mean_s - w.wait_s;
  s.allreduce_wait_evidence = w.evidence;
}

// DeepSpeed's local gradient work is in a multi-rank log's timer as in a 1-rank log's; the 1-rank
// log counts it as step overhead, so this one does too: out of the transfer, into the overhead.
void move_local_gradient_work(const DeepSpeedLog& log, double local_s, LogSummary& s) {
  if (!(local_s >= 0) || !(local_s < s.allreduce_transfer_s)) {
    throw InputError::at(log.file, "bwd_allreduce",
                         "an all-reduce longer than the local gradient work of a 1-rank log (" +
                             std::to_string(local_s * 1e3) + " ms)",
                         std::to_string(s.allreduce_transfer_s * 1e3) + " ms after the wait",
                         "are the 1-rank and multi-rank logs of the same device and precision?");
  }
  s.allreduce_transfer_s -= local_s;
  s.outside_mean_s += local_s;
  s.local_gradient_work_moved_s = local_s;
}

}  // namespace

LogSummary summarize_log(const DeepSpeedLog& log, const ImportOptions& o) {
  LogSummary s;
  s.file = log.file;
  s.micro_batch = micro_batch_of(log);
  if (log.accumulation && *log.accumulation != 1) {
    throw InputError::at(log.file, "gradient_accumulation_steps", "1",
                         std::to_string(*log.accumulation),
                         "logs with gradient accumulation are not supported by the import");
  }
  if (!log.world_size) {
    throw InputError::at(log.file, "world_size", "the echoed world size", "none",
                         "the log must contain DeepSpeed's configuration echo");
  }
  s.world_size = *log.world_size;
  if (log.run_directory) {
    s.data_fraction = log.run_directory->data_fraction;
    // --data-fraction is for logs without a run directory: one that says otherwise is not
    // ignored in silence.
    if (o.data_fraction && *o.data_fraction != s.data_fraction)
      throw InputError::at(
          log.file, "run directory",
          "the data fraction --data-fraction gives (" + fmt::format("{:g}", *o.data_fraction) + ")",
          fmt::format("p{:g}", s.data_fraction),
          "leave --data-fraction out: the log's run directory names it");
  } else if (o.data_fraction) {
    s.data_fraction = *o.data_fraction;
  } else {
    throw InputError::at(log.file, "run directory", "a line like \".../p0.1_b16_e10\"", "none",
                         "pass --data-fraction to fix the epoch boundaries");
  }
  if (o.train_images < 1) throw std::invalid_argument("--train-images must be >= 1");
  if (s.world_size < 1 || s.micro_batch < 1) {  // the divisions of the epoch rule
    throw InputError::at(log.file, "world size and micro-batch", "both >= 1",
                         std::to_string(s.world_size) + " and " + std::to_string(s.micro_batch),
                         "is this a DeepSpeed log of one run?");
  }
  // The logs have no accumulation (refused above): a step is a micro-step.
  s.steps_per_epoch = costmodel::steps_per_epoch(
      s.data_fraction, o.train_images,
      std::vector<int64_t>(static_cast<size_t>(s.world_size), s.micro_batch), 1);
  // An epoch holds one global batch at least (costmodel::epoch_batch_shortfall); epoch
  // boundaries below divide by the steps.
  const std::string shortfall = costmodel::epoch_batch_shortfall(s.data_fraction, o.train_images,
                                                                 s.world_size * s.micro_batch);
  if (!shortfall.empty()) {
    throw InputError::at(log.file, log.run_directory ? "run directory" : "--data-fraction",
                         "a data fraction that keeps one global batch (world size x "
                         "micro-batch) of the " +
                             std::to_string(o.train_images) + " training images",
                         shortfall, "check the run directory's p, --data-fraction and --images");
  }
  s.step_lines = static_cast<int64_t>(log.steps.size());
  const bool partial_last =
      costmodel::last_micro_step_is_partial(costmodel::images_used(s.data_fraction, o.train_images),
                                            s.world_size, s.micro_batch) &&
      s.steps_per_epoch > 2;
  const StepSamples x = kept_samples(log, s.steps_per_epoch, s.world_size == 1, partial_last);
  if (x.forward.empty()) {
    throw InputError::at(log.file, "step lines", "at least one step after the first of an epoch",
                         std::to_string(log.steps.size()) + " step lines");
  }
  s.kept_steps = static_cast<int64_t>(x.forward.size());
  s.forward_s = costmodel::median(x.forward);
  s.forward_iqr_s = costmodel::interquartile_range(x.forward);
  s.backward_inner_s = costmodel::median(x.inner);
  s.backward_inner_iqr_s = costmodel::interquartile_range(x.inner);
  s.backward_allreduce_s = costmodel::median(x.allreduce);
  s.backward_allreduce_mean_s = costmodel::mean(x.allreduce);
  s.optimizer_s = costmodel::median(x.optimizer);
  std::vector<double> work;
  for (size_t i = 0; i < x.forward.size(); ++i)
    work.push_back(x.forward[i] + x.inner[i] + x.optimizer[i]);
  s.step_spread_s = costmodel::interquartile_range(work);
  s.outside_s = costmodel::median(x.outside);
  s.outside_mean_s = costmodel::mean(x.outside);
  s.step_interval_s = costmodel::median(x.interval);
  s.step_interval_mean_s = costmodel::mean(x.interval);
  check_summary(log, s);
  s.epoch_start_s = epoch_start_extra(log, s.steps_per_epoch, s.step_interval_s);
  if (s.epoch_start_s &&
      !costmodel::bound_violation(costmodel::kDurationS, *s.epoch_start_s).empty())
    throw InputError::at(log.file, "step lines", "epochs that start within days of each other",
                         std::to_string(*s.epoch_start_s) + " s between two epochs",
                         "is this one run's log?");
  s.process_start_s = process_start_extra(log, work, s.epoch_start_s);
  if (!costmodel::bound_violation(costmodel::kDurationS, s.process_start_s).empty())
    throw InputError::at(log.file, "first step line", "a first step within days of a steady one",
                         std::to_string(s.process_start_s) + " s more than a steady step",
                         "is this one run's log?");
  if (s.world_size > 1) {
    split_wait(x, s);
    if (o.local_gradient_work_s) move_local_gradient_work(log, *o.local_gradient_work_s, s);
  }
  return s;
}

std::optional<double> local_gradient_work_s(const DeepSpeedLog& log, const ImportOptions& o) {
  if (!log.world_size || *log.world_size != 1) return std::nullopt;
  return summarize_log(log, o).backward_allreduce_mean_s;
}

std::vector<schema::LayerTiming> split_by_mac_share(const costmodel::LayerGraph& graph,
                                                    double forward_s, double forward_spread_s,
                                                    double backward_s, double backward_spread_s) {
  const double total = graph.forward_mac_per_sample();
  std::vector<schema::LayerTiming> out;
  for (const auto& layer : graph.layers) {
    const double share = total > 0 ? layer.forward_mac_per_sample / total : 0;
    schema::LayerTiming t;
    t.name = layer.name;
    t.kind = layer.kind;
    t.forward_time_s = forward_s * share;
    t.forward_spread_s = forward_spread_s * share;
    t.backward_time_s = backward_s * share;
    t.backward_spread_s = backward_spread_s * share;
    out.push_back(t);
  }
  return out;
}

namespace {

const costmodel::ViTConfig& require_model(const ImportOptions& o, const std::string& file) {
  if (!o.model) {
    throw InputError::at(file, "model", "the trained model", "nothing (logs do not name it)",
                         "pass --model PRESET (and overrides), e.g. --model vit_b_16");
  }
  return *o.model;
}

schema::AllreducePoint allreduce_point(double message_bytes, double time_s, int64_t ranks) {
  schema::AllreducePoint p;
  p.message_bytes = message_bytes;
  p.time_s = time_s;
  p.algbw_bytes_per_s = message_bytes / time_s;
  p.busbw_bytes_per_s = p.algbw_bytes_per_s * costmodel::allreduce_bus_factor(ranks);
  return p;
}

// One compute entry from the logs at micro-batch b: with several logs, the median of their
// medians (one vote per log).
schema::MicroBatchProfile compute_entry(const costmodel::LayerGraph& graph, int64_t b,
                                        const std::vector<LogSummary>& summaries) {
  std::vector<double> fwd, fwd_iqr, inner, inner_iqr, opt, outside, spread, start, process, local;
  int64_t reps = 0;
  for (const auto& s : summaries) {
    // The local gradient work inside the overhead: a 1-rank log's timer, a multi-rank log's moved.
    local.push_back(s.world_size == 1 ? s.backward_allreduce_mean_s
                                      : s.local_gradient_work_moved_s.value_or(0.0));
    fwd.push_back(s.forward_s);
    fwd_iqr.push_back(s.forward_iqr_s);
    inner.push_back(s.backward_inner_s);
    inner_iqr.push_back(s.backward_inner_iqr_s);
    opt.push_back(s.optimizer_s);
    outside.push_back(s.outside_mean_s);
    spread.push_back(s.step_spread_s);
    if (s.epoch_start_s) start.push_back(*s.epoch_start_s);
    process.push_back(s.process_start_s);
    reps += s.kept_steps;
  }
  schema::MicroBatchProfile m;
  m.micro_batch = b;
  m.repetitions = reps;
  m.layers = split_by_mac_share(graph, costmodel::median(fwd), costmodel::median(fwd_iqr),
                                costmodel::median(inner), costmodel::median(inner_iqr));
  m.optimizer_time_s = costmodel::median(opt);
  m.step_overhead_time_s = costmodel::median(outside);
  const double local_s = costmodel::median(local);
  if (local_s > 0) m.gradient_local_time_s = std::min(local_s, m.step_overhead_time_s);
  m.step_spread_s = costmodel::median(spread);
  if (!start.empty()) m.epoch_start_time_s = costmodel::median(start);
  m.process_start_time_s = costmodel::median(process);
  return m;
}

}  // namespace

ImportResult import_deepspeed(const std::vector<DeepSpeedLog>& logs,
                              const costmodel::DeviceCatalog& catalog,
                              const ImportOptions& options) {
  if (logs.empty()) throw std::invalid_argument("import-deepspeed: no log given");
  ImportOptions o = options;
  if (!o.local_gradient_work_s) {  // the 1-rank logs given measure it (one vote per log)
    std::vector<double> local;
    for (const auto& log : logs) {
      if (const auto l = local_gradient_work_s(log, options)) local.push_back(*l);
    }
    if (!local.empty()) o.local_gradient_work_s = costmodel::mean(local);
  }
  ImportResult r;
  const costmodel::LayerGraph graph = build_layer_graph(require_model(o, logs.front().file));
  const Device dev = device_of(logs.front(), catalog, o);
  const Regime prec = regime_of_log(logs.front(), o);
  // Pooled samples per micro-batch (compute) and per world size (all-reduce).
  std::map<int64_t, std::vector<LogSummary>> by_batch;
  std::map<int64_t, std::vector<double>> allreduce_by_ranks;
  for (const auto& log : logs) {
    const Device d = device_of(log, catalog, o);
    if (d.id != dev.id || regime_of_log(log, o) != prec) {
      throw InputError::at(log.file, "device/precision",
                           dev.id + "/" + costmodel::to_string(prec) + " like " + logs.front().file,
                           d.id + "/" + costmodel::to_string(regime_of_log(log, o)),
                           "one profile holds one device type and precision: import separately");
    }
    LogSummary s = summarize_log(log, o);
    if (s.world_size > 1) {
      if (o.link_class.empty()) {
        throw InputError::at(log.file, "world_size", "--link-class for a multi-rank log",
                             std::to_string(s.world_size) + " ranks and no --link-class",
                             "name the link the ranks talked over, e.g. --link-class tesla-10gbe");
      }
      allreduce_by_ranks[s.world_size].push_back(s.allreduce_transfer_s);
    }
    by_batch[s.micro_batch].push_back(s);
    r.logs.push_back(s);
  }
  schema::Profile& p = r.profile;
  p.device = dev.id;
  p.device_name = dev.name;
  p.source = costmodel::CostSource::kImported;
  p.precision = prec;
  p.model = graph.config;
  for (const auto& [b, summaries] : by_batch)
    p.compute.push_back(compute_entry(graph, b, summaries));
  for (const auto& [ranks, times] : allreduce_by_ranks) {
    schema::AllreduceProfile a;
    a.link_class = o.link_class;
    a.ranks = ranks;
    a.backend = "deepspeed-nccl";
    a.points.push_back(allreduce_point(static_cast<double>(graph.gradient_bytes(prec)),
                                       costmodel::median(times), ranks));
    p.allreduce.push_back(a);
  }
  return r;
}

ImportResult import_compute_summary(const schema::CsvTable& t,
                                    const costmodel::DeviceCatalog& catalog,
                                    const ImportOptions& o) {
  t.require_columns({"gpu", "precision", "micro_batch_per_gpu", "fwd_ms_median",
                     "bwd_inner_ms_median", "optimizer_step_ms_median"});
  const costmodel::LayerGraph graph = build_layer_graph(require_model(o, t.file()));
  ImportResult r;
  schema::Profile& p = r.profile;
  p.source = costmodel::CostSource::kImported;
  p.model = graph.config;
  for (size_t i = 0; i < t.rows(); ++i) {
    const Device d = device_named(catalog, t.at(i, "gpu"),
                                  t.file() + ": row " + std::to_string(i + 1) + ", column gpu");
    if (!o.gpu.empty() && d.id != device_named(catalog, o.gpu, "--gpu").id) continue;
    Regime prec;
    try {
      prec = schema::regime_of_text(t.at(i, "precision"), o.precision_names);
    } catch (const std::invalid_argument& e) {
      throw InputError::at(t.file(), "row " + std::to_string(i + 1) + ", column precision",
                           std::string("a precision regime (") + costmodel::regime_names() + ")",
                           "\"" + t.at(i, "precision") + "\"", e.what());
    }
    if (p.device.empty()) {
      p.device = d.id;
      p.device_name = d.name;
      p.precision = prec;
    } else if (p.device != d.id || p.precision != prec) {
      throw InputError::at(t.file(), "row " + std::to_string(i + 1), p.device + " rows only", d.id,
                           "pass --gpu to pick one device's rows");
    }
    schema::MicroBatchProfile m;
    m.micro_batch = t.integer(i, "micro_batch_per_gpu");
    if (!costmodel::bound_violation(costmodel::kMicroBatch, m.micro_batch).empty()) {
      t.fail(i, "micro_batch_per_gpu", costmodel::kMicroBatch.what);
    }
    m.repetitions = 1;
    // Held to the profile's bounds here, so that the import never writes what calibrate refuses.
    auto seconds = [&](const char* column) {
      const double s = t.positive(i, column) / 1000.0;
      if (!costmodel::bound_violation(costmodel::kPositiveDurationS, s).empty()) {
        t.fail(i, column, std::string("milliseconds for ") + costmodel::kPositiveDurationS.what);
      }
      return s;
    };
    m.layers =
        split_by_mac_share(graph, seconds("fwd_ms_median"), 0, seconds("bwd_inner_ms_median"), 0);
    m.optimizer_time_s = seconds("optimizer_step_ms_median");
    p.compute.push_back(m);  // host-side costs unknown: left 0 (calibrate fills them, documented)
  }
  if (p.compute.empty()) {
    throw InputError::at(t.file(), "gpu", "a row for " + o.gpu, "none");
  }
  return r;
}

nlohmann::json to_json(const LogSummary& s) {
  return {{"file", s.file},
          {"world_size", s.world_size},
          {"micro_batch", s.micro_batch},
          {"data_fraction", s.data_fraction},
          {"steps_per_epoch", s.steps_per_epoch},
          {"step_lines", s.step_lines},
          {"kept_steps", s.kept_steps},
          {"forward_median_s", s.forward_s},
          {"backward_inner_median_s", s.backward_inner_s},
          {"backward_allreduce_median_s", s.backward_allreduce_s},
          {"backward_allreduce_mean_s", s.backward_allreduce_mean_s},
          {"allreduce_wait_s", s.allreduce_wait_s},
          {"allreduce_transfer_s", s.allreduce_transfer_s},
          {"allreduce_wait_evidence", s.allreduce_wait_evidence},
          {"optimizer_median_s", s.optimizer_s},
          {"outside_timers_median_s", s.outside_s},
          {"outside_timers_mean_s", s.outside_mean_s},
          {"step_spread_iqr_s", s.step_spread_s},
          {"epoch_start_s", s.epoch_start_s ? nlohmann::json(*s.epoch_start_s) : nlohmann::json()},
          {"process_start_s", s.process_start_s},
          {"step_interval_median_s", s.step_interval_s},
          {"step_interval_mean_s", s.step_interval_mean_s},
          {"local_gradient_work_moved_s", s.local_gradient_work_moved_s
                                              ? nlohmann::json(*s.local_gradient_work_moved_s)
                                              : nlohmann::json()}};
}

}  // namespace vitsim::import
