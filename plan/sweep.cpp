// Sweeps; see sweep.h.
#include "plan/sweep.h"

#include <fmt/format.h>

#include <stdexcept>
#include <type_traits>

#include "costmodel/buckets.h"
#include "costmodel/layer_graph.h"
#include "plan/sweep_goal.h"
#include "plan/sweep_jobs.h"

namespace vitsim::plan {

namespace {

// " zero3 ckpt": the sharding part of a label, where the sweep searches it or it is not plain.
std::string sharding_label(const SweepSpec& spec, int stage, bool checkpointing) {
  std::string s;
  if (spec.zero_stages.size() > 1 || stage != 0) s += fmt::format(" zero{}", stage);
  if (spec.checkpointing.size() > 1 || checkpointing) s += checkpointing ? " ckpt" : " no-ckpt";
  return s;
}

}  // namespace

std::vector<costmodel::Regime> precisions_of(const SweepSpec& spec) {
  return spec.precisions.empty() ? std::vector<costmodel::Regime>{spec.base.precision}
                                 : spec.precisions;
}

namespace {

// The label's suffix naming a precision swept (none when there is only one).
std::string precision_suffix(const SweepSpec& spec, costmodel::Regime p) {
  return precisions_of(spec).size() > 1 ? std::string(" ") + costmodel::to_string(p)
                                        : std::string();
}

// One GPU count of one micro-batch and precision: its run variants, labelled with the count.
void add_count(const SweepSpec& spec, const schema::TrainingConfig& base, int64_t g,
               std::vector<SweepItem>& items) {
  for (schema::TrainingConfig c : run_variants(spec, base, g == 1)) {
    c.gpus = g;
    c.label = fmt::format("{}x {}", g, c.label);
    items.push_back({c, true});
  }
}

// One micro-batch and precision: every GPU count, then the 1-GPU baseline when `gpus` lacks 1.
void add_items(const SweepSpec& spec, schema::TrainingConfig base, std::vector<SweepItem>& items) {
  const int64_t b = base.micro_batch;
  const std::string precision = precision_suffix(spec, base.precision);
  bool has_one = false;
  for (int64_t g : spec.gpus) {
    has_one = has_one || g == 1;
    add_count(spec, base, g, items);
  }
  if (!has_one) {
    base.gpus = 1;
    base.label = fmt::format("1x mb{} (baseline){}", b, precision);
    items.push_back({base, false});
  }
}

}  // namespace

std::vector<schema::TrainingConfig> run_variants(const SweepSpec& spec,
                                                 const schema::TrainingConfig& base, bool one_gpu) {
  const auto first_if = [one_gpu](const auto& values) {
    return one_gpu
               ? std::vector<typename std::decay_t<decltype(values)>::value_type>{values.front()}
               : values;
  };
  const std::string precision = precision_suffix(spec, base.precision);
  std::vector<schema::TrainingConfig> out;
  for (costmodel::Collective coll : first_if(spec.collectives))
    for (double bucket : first_if(spec.bucket_bytes))
      for (bool ov : first_if(spec.overlaps))
        for (int stage : first_if(spec.zero_stages))
          for (bool ckpt : spec.checkpointing) {
            schema::TrainingConfig c = base;
            c.collective = coll;
            c.bucket_bytes = bucket;
            c.overlap = ov;
            c.zero_stage = stage;
            c.activation_checkpointing = ckpt;
            c.label =
                fmt::format("mb{} {} {:g}MiB {}{}{}", base.micro_batch, costmodel::to_string(coll),
                            bucket / costmodel::kMiB, ov ? "overlap" : "no-overlap",
                            sharding_label(spec, stage, ckpt), precision);
            out.push_back(c);
          }
  return out;
}

std::vector<SweepItem> sweep_items(const SweepSpec& spec) {
  std::vector<SweepItem> items;
  for (costmodel::Regime p : precisions_of(spec)) {
    for (int64_t b : spec.micro_batches) {
      schema::TrainingConfig base = spec.base;
      base.precision = p;
      base.micro_batch = b;
      add_items(spec, base, items);
    }
  }
  return items;
}

schema::SweepEntry simulate_sweep_item(const SweepItem& item, int64_t index,
                                       const schema::ClusterSpec& cluster,
                                       const costmodel::DeviceCatalog& catalog,
                                       const costmodel::ViTConfig& model,
                                       const costmodel::CostModel& costs,
                                       const sim::SimOptions& options) {
  schema::SweepEntry e;
  e.configuration = index;
  e.requested = item.requested;
  sim::SimOptions one = options;  // each configuration: no trace, no argv
  one.trace_path.clear();
  one.argv.clear();
  try {
    e.prediction = sim::predict(cluster, catalog, model, item.config, costs, one);
  } catch (const std::invalid_argument& err) {
    e.skipped = item.config.label + ": " + err.what();
    return e;
  }
  // An epoch of less than one global batch (issue 68, class 11) is refused by sim::predict
  // (costmodel::epoch_batch_shortfall): skipped above with why.
  return e;
}

SweepResult assemble_sweep(const std::vector<schema::SweepEntry>& entries, SweepGoal goal,
                           const GoalLimits& limits) {
  SweepResult out;
  out.predictions.scenario = "sweep";
  std::vector<schema::ConfigPrediction>& all = out.predictions.configurations;
  std::vector<bool> requested;
  for (const schema::SweepEntry& e : entries) {
    if (e.prediction) {
      all.push_back(*e.prediction);
      all.back().added_baseline = !e.requested;
      requested.push_back(e.requested);
    } else if (e.requested) {
      out.skipped.push_back(e.skipped);
    }
  }
  sim::apply_speedups(all);
  out.requested = requested;
  choose_best(out, goal, limits);
  return out;
}

void choose_best(SweepResult& result, SweepGoal goal, const GoalLimits& limits) {
  result.pick = pick_best(result.predictions.configurations, result.requested, goal, limits);
  result.predictions.selection = to_selection(goal, limits);
}

std::vector<std::string> sweep_notes(const SweepSpec& spec, const costmodel::ViTConfig& model) {
  std::vector<std::string> out;
  if (spec.overlaps.size() < 2) return out;
  const double gradient_bytes =
      static_cast<double>(costmodel::build_layer_graph(model).gradient_bytes(spec.base.precision));
  for (double bucket : spec.bucket_bytes) {
    if (bucket < gradient_bytes) continue;
    out.push_back(fmt::format(
        "one {:g} MiB bucket holds the whole {:.0f} MiB gradient: overlap cannot start before the "
        "backward ends, so overlap on and off rows of that bucket are the same (try --bucket-mb "
        "{:g})",
        bucket / costmodel::kMiB, gradient_bytes / costmodel::kMiB,
        costmodel::kDdpBucketBytes / costmodel::kMiB));
  }
  return out;
}

SweepResult run_sweep(const SweepSpec& spec, const schema::ClusterSpec& cluster,
                      const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& model,
                      const costmodel::CostModel& costs, const sim::SimOptions& options) {
  const std::vector<SweepItem> items = sweep_items(spec);
  std::vector<int64_t> all(items.size());
  for (size_t i = 0; i < items.size(); ++i) all[i] = static_cast<int64_t>(i);
  bool interrupted = false;
  SweepContext context(cluster, catalog, model, costs, options);
  context.progress = spec.progress;
  context.stop_requested = spec.stop_requested;
  context.interrupted = &interrupted;
  SweepResult out =
      assemble_sweep(simulate_sweep_items(items, all, context, spec.jobs), spec.goal, spec.limits);
  out.interrupted = interrupted;
  out.total = items.size();
  return out;
}

}  // namespace vitsim::plan
