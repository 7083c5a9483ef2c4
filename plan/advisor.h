// What would help (docs/simulator.md, "Advice"): what-ifs built from a prediction's breakdown,
// each SIMULATED as a configuration of its own, ranked by the change of the epoch time. The
// candidates: drop the slowest host or the host whose link holds the step back; give that host
// the fastest NIC of another node of the cluster; lower the stragglers' micro-batch so their
// compute matches the others'; overlap the all-reduce with the backward in smaller buckets; the
// other collectives. A candidate that cannot run (out of memory, a collective that does not
// apply, one host left) is left out.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "costmodel/buckets.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/vit_config.h"
#include "schema/cluster.h"
#include "schema/prediction.h"
#include "sim/simulator.h"

namespace vitsim::plan {

// The bucket the overlap what-if uses: PyTorch DDP's default (costmodel/buckets.h), small enough
// that buckets close during the backward.
inline constexpr double kAdviceBucketBytes = costmodel::kDdpBucketBytes;

struct AdviceRequest {
  const schema::ClusterSpec* cluster = nullptr;
  const costmodel::DeviceCatalog* catalog = nullptr;
  const costmodel::ViTConfig* model = nullptr;
  const schema::TrainingConfig* config = nullptr;
  const costmodel::CostModel* costs = nullptr;
  const sim::SimOptions* options = nullptr;
  const schema::ConfigPrediction* base = nullptr;  // the prediction of `config`, with breakdown
  // Called after each what-if simulated (done, total), for a progress line; may be empty.
  std::function<void(size_t, size_t)> progress;
};

// Every candidate simulated, in the order of the goal "fastest" (plan/sweep_goal.h rank_for_goal,
// the one that chooses for every command): first up to `keep` that shorten the epoch (those that
// help, epoch_change_rel < 0), then every one that does not (slower, or no change), so that a
// reader sees what was tried and what it would cost.
std::vector<schema::WhatIf> advise(const AdviceRequest& request, size_t keep = 3);

}  // namespace vitsim::plan
