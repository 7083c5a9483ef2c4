// What would make a configuration fit; see fit_advisor.h.
#include "plan/fit_advisor.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "costmodel/global_batch.h"
#include "schema/input_error.h"

namespace vitsim::plan {
namespace {

// A candidate before it is simulated.
struct Change {
  std::string what_if;
  schema::Json change;
  schema::TrainingConfig config;
};

void higher_stages(const schema::TrainingConfig& c, std::vector<Change>& out) {
  for (int s = c.zero_stage + 1; s <= 3; ++s) {
    Change x{fmt::format("ZeRO stage {}", s), {{"zero_stage", s}}, c};
    x.config.zero_stage = s;
    out.push_back(x);
  }
}

void checkpointing(const schema::TrainingConfig& c, std::vector<Change>& out) {
  if (c.activation_checkpointing) return;
  Change x{"activation checkpointing", {{"activation_checkpointing", true}}, c};
  x.config.activation_checkpointing = true;
  out.push_back(x);
  if (c.zero_stage == 3) return;
  Change both{"ZeRO stage 3 and activation checkpointing",
              {{"zero_stage", 3}, {"activation_checkpointing", true}},
              x.config};
  both.config.zero_stage = 3;
  out.push_back(both);
}

// The fewest micro-steps whose micro-batch fits, splitting the global batch evenly: a
// micro-batch of ceil(A b / A') at A' = ceil(A b / the largest that fits).
void smaller_micro_batch(const schema::TrainingConfig& c, const schema::ConfigPrediction& base,
                         std::vector<Change>& out) {
  const int64_t fits = base.max_micro_batch_that_fits;
  if (!c.per_rank_micro_batch.empty() || fits < 1 || fits >= c.micro_batch) return;
  const int64_t per_rank = c.accumulation * c.micro_batch;  // samples per rank and step
  const int64_t accumulation = (per_rank + fits - 1) / fits;
  const int64_t micro_batch = (per_rank + accumulation - 1) / accumulation;
  Change x{fmt::format("micro-batch {} with accumulation {} ({})", micro_batch, accumulation,
                       micro_batch * accumulation == per_rank
                           ? std::string("the global batch kept")
                           : fmt::format("{} samples per rank and step instead of {}",
                                         micro_batch * accumulation, per_rank)),
           {{"micro_batch", micro_batch}, {"accumulation", accumulation}},
           c};
  x.config.micro_batch = micro_batch;
  x.config.accumulation = accumulation;
  out.push_back(x);
}

std::vector<Change> changes(const AdviceRequest& q) {
  std::vector<Change> out;
  higher_stages(*q.config, out);
  checkpointing(*q.config, out);
  smaller_micro_batch(*q.config, *q.base, out);
  return out;
}

// Simulated; nullopt where it cannot run here.
std::optional<schema::ConfigPrediction> simulate(const AdviceRequest& q,
                                                 const schema::TrainingConfig& config) {
  sim::SimOptions options = *q.options;
  options.trace_path.clear();
  try {
    return sim::predict(*q.cluster, *q.catalog, *q.model, config, *q.costs, options);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // e.g. more GPUs than the cluster has, the tree at stage 2
  } catch (const schema::InputError&) {
    return std::nullopt;
  }
}

// More GPUs: at a sharding stage each rank holds 1/N of what it shards. The fewest of 2, 4, 8 x
// the GPUs that fit, at the configuration's stage when it shards, else at stage 3.
void more_gpus(const AdviceRequest& q, std::vector<FitCandidate>& out) {
  const schema::TrainingConfig& c = *q.config;
  if (!c.hosts.empty() || !c.per_rank_micro_batch.empty()) return;
  const int stage = c.zero_stage > 0 ? c.zero_stage : 3;
  for (int64_t factor : {2, 4, 8}) {
    schema::TrainingConfig more = c;
    more.gpus = c.gpus * factor;
    more.zero_stage = stage;
    more.nodes.reset();
    const auto p = simulate(q, more);
    if (!p || p->out_of_memory) continue;
    std::string what = fmt::format("{} GPUs", more.gpus);
    schema::Json change = {{"gpus", more.gpus}};
    if (stage != c.zero_stage) {
      what += fmt::format(" at ZeRO stage {}", stage);
      change["zero_stage"] = stage;
    }
    out.push_back({what, change, *p});
    return;
  }
}

}  // namespace

std::vector<FitCandidate> what_would_fit(const AdviceRequest& q) {
  std::vector<FitCandidate> out;
  if (!q.base->out_of_memory) return out;
  for (const Change& x : changes(q)) {
    const auto p = simulate(q, x.config);
    if (p && !p->out_of_memory) out.push_back({x.what_if, x.change, *p});
  }
  more_gpus(q, out);
  std::stable_sort(out.begin(), out.end(), [](const FitCandidate& a, const FitCandidate& b) {
    return a.prediction.epoch_time_s < b.prediction.epoch_time_s;
  });
  return out;
}

std::vector<schema::FitOption> fit_options(const std::vector<FitCandidate>& candidates) {
  std::vector<schema::FitOption> out;
  for (const FitCandidate& c : candidates) {
    const schema::ConfigPrediction& p = c.prediction;
    schema::FitOption f;
    f.what_if = c.what_if;
    f.change = c.change;
    f.gpus = p.config.gpus;
    f.step_time_s = p.step_time_s;
    f.epoch_time_s = p.epoch_time_s;
    for (const auto& r : p.ranks) {
      if (r.memory_bytes >= f.memory_bytes) {
        f.memory_bytes = r.memory_bytes;
        f.device_memory_bytes = r.device_memory_bytes;
      }
    }
    if (p.cost) {
      f.epoch_usd = p.cost->epoch_usd;
      f.run_usd = p.cost->run_usd;
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace vitsim::plan
