// What validate may compare; see run_match.h.
#include "present/run_match.h"

#include <fmt/format.h>

#include <cmath>

#include "costmodel/dataset.h"

namespace vitsim::present {
namespace {

std::string on_off(bool b) {
  return b ? "on" : "off";
}

// The prediction's head size, from its file's context ("model"); 0 when it does not say.
int64_t predicted_classes(const schema::Json& context) {
  if (!context.is_object() || !context.contains("model")) return 0;
  const schema::Json& m = context["model"];
  if (!m.is_object() || !m.contains("classes") || !m["classes"].is_number_integer()) return 0;
  return m["classes"].get<int64_t>();
}

}  // namespace

std::vector<std::string> step_time_differences(const MeasuredRun& run,
                                               const schema::ConfigPrediction& p,
                                               const schema::Json& context) {
  std::vector<std::string> out;
  const schema::TrainingConfig& c = p.config;
  auto differ = [&](const std::string& field, const std::string& measured,
                    const std::string& predicted) {
    if (measured != predicted)
      out.push_back(fmt::format("{} {} (predicted {})", field, measured, predicted));
  };
  if (run.accumulation)
    differ("accumulation", std::to_string(*run.accumulation), std::to_string(c.accumulation));
  if (run.images_known) differ("images", std::to_string(run.images), std::to_string(c.images));
  if (run.optimizer)
    differ("optimizer", costmodel::to_string(*run.optimizer), costmodel::to_string(c.optimizer));
  if (run.dataset) {
    const int64_t classes = predicted_classes(context);
    const costmodel::Dataset& d = costmodel::find_dataset(*run.dataset);
    if (classes > 0 && classes != d.classes)
      out.push_back(fmt::format("dataset {} ({} classes; predicted a head of {})", d.name,
                                d.classes, classes));
  }
  // One rank all-reduces nothing: its overlap and buckets change no step.
  if (run.key.gpus > 1 && run.overlap) differ("overlap", on_off(*run.overlap), on_off(c.overlap));
  if (run.key.gpus > 1 && run.bucket_bytes &&
      std::llround(*run.bucket_bytes) != std::llround(c.bucket_bytes))
    out.push_back(
        fmt::format("bucket {:g} B (predicted {:g} B)", *run.bucket_bytes, c.bucket_bytes));
  if (run.steps_per_epoch > 0 && p.steps_per_epoch > 0)
    differ("steps per epoch", std::to_string(run.steps_per_epoch),
           std::to_string(p.steps_per_epoch));
  std::string per_rank;  // the prediction's per-rank micro-batches when one differs from the run's
  for (int64_t b : c.per_rank_micro_batch)
    per_rank += (per_rank.empty() ? "" : ",") + std::to_string(b);
  for (int64_t b : c.per_rank_micro_batch) {
    if (b == run.key.micro_batch) continue;
    out.push_back(fmt::format("per-rank micro-batches {} on every rank (predicted {})",
                              run.key.micro_batch, per_rank));
    break;
  }
  // The prediction's own stage and checkpointing (docs/sharding.md, "Simulated").
  if (run.zero_stage)
    differ("ZeRO stage", std::to_string(*run.zero_stage), std::to_string(c.zero_stage));
  if (run.activation_checkpointing)
    differ("activation checkpointing", on_off(*run.activation_checkpointing),
           on_off(c.activation_checkpointing));
  return out;
}

}  // namespace vitsim::present
