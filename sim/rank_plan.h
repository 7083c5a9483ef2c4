// What each rank computes in a step, from the cost model: per-layer forward and backward times at
// the rank's micro-batch, data and copy, optimizer and overhead; the gradient buckets; the memory
// model. Pure arithmetic (no SimGrid) applying the rules of costmodel/ (buckets.h, memory.h,
// epoch.h; docs/cost-model.md) to a configuration; the step equations are in docs/simulator.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/layer_graph.h"
#include "costmodel/optimizer.h"
#include "schema/cluster.h"
#include "schema/scenario.h"
#include "sim/placement.h"

namespace vitsim::sim {

// Layers' gradients (in backward order) grouped into buckets by costmodel::assign_buckets.
struct Bucket {
  double bytes = 0;
  std::vector<int> layers;  // layer indices (forward order numbering), in backward order
  int ready_after = 0;      // the bucket is complete when this layer's backward ends (its last)
};
std::vector<Bucket> make_buckets(const costmodel::LayerGraph& graph, costmodel::Regime precision,
                                 double bucket_bytes);

// Device memory of one rank: fixed + per_sample * micro_batch.
struct MemoryModel {
  double fixed_bytes = 0;
  double per_sample_bytes = 0;
  bool from_measurement = false;  // the cost model's fitted memory, else the layer graph estimate
  // Sharded data parallelism and checkpointing (sharded_plan.h): what they change at a
  // micro-batch, added to the stage-0 memory above; empty at stage 0 without checkpointing.
  std::function<double(int64_t)> shift_bytes;
  double at(int64_t micro_batch) const {
    return fixed_bytes + per_sample_bytes * static_cast<double>(micro_batch) +
           (shift_bytes ? shift_bytes(micro_batch) : 0.0);
  }
  // Largest micro-batch whose memory fits `device_bytes` (0 when not even 1 fits).
  int64_t max_micro_batch(double device_bytes) const;
  // What max_micro_batch says when memory does not grow with the batch: any size fits, and 2^20
  // samples per rank is beyond every micro-batch a ViT trains with while staying readable.
  static constexpr int64_t kAnyMicroBatchFits = int64_t{1} << 20;
};
// The cost model's memory (measured with AdamW, as profiles are taken) moved to `optimizer`, else
// costmodel::first_principles_memory.
MemoryModel memory_model(const costmodel::DeviceCosts& costs, const costmodel::LayerGraph& graph,
                         costmodel::Regime precision, costmodel::Optimizer optimizer);

struct RankPlan {
  int64_t rank = 0;
  std::string host;
  std::string device;
  int64_t micro_batch = 0;
  double data_s = 0;               // exposed data wait + host-to-device copy, one micro-step
  std::vector<double> forward_s;   // per layer, forward order
  std::vector<double> backward_s;  // per layer, forward order numbering
  double optimizer_s = 0;
  // The optimizer right after the rank waited at least optimizer_wait_s for its gradient
  // all-reduce, where measured (DeviceCosts::optimizer_after_wait); optimizer_wait_s 0: never.
  double optimizer_after_wait_s = 0;
  double optimizer_wait_s = 0;
  // The next step's first data wait (+ host-to-device copy) after such a wait, where measured
  // (DeviceCosts::data_after_wait); absent: data_s.
  std::optional<double> data_after_wait_s;
  double overhead_s = 0;  // per step
  // Once per step at 2+ ranks: the copy of the gradients into the all-reduce buckets, where the
  // device's costs measured it (DeviceCosts::bucket_copy); 0 at one rank and where not measured.
  double bucket_copy_s = 0;
  // The expected wait for the slowest rank's step-to-step noise (costmodel/straggler.h), per step,
  // on the ranks of the largest mean compute only: the step ends that much later on average.
  double straggler_s = 0;
  // What a rank slow for the whole run adds to it where the device's process spread was measured
  // (DeviceCosts::process_spread_rel: each rank's process draws its own speed for the run): the
  // expected wait with each rank's spread hypot(step spread, process spread), less straggler_s.
  // Same ranks, per step; 0 where no process spread was measured.
  double straggler_process_s = 0;
  // Once, before the epoch's first step: the device's epoch_start_s, or its process start at this
  // micro-batch for the process's first epoch (TrainingConfig::first_epoch).
  double epoch_start_s = 0;
  // The same for the kind of epoch not simulated (the loader's restart when the process's first
  // is, else the process's start): what the other epoch's time is worked out from.
  double other_epoch_start_s = 0;
  // ZeRO stage 3 (sharded_plan.h), per unit in forward order: the local part of its gather (its
  // flat buffer allocated, the rank's block copied in) and of its free; empty at other stages.
  std::vector<double> unit_gather_s, unit_free_s;
  MemoryModel memory;
  double memory_bytes = 0;  // at micro_batch
  double device_memory_bytes = 0;
};

// A step's compute before its all-reduce: accumulation x (data + forward + backward) + the bucket
// copy, no optimizer, overhead or straggler wait.
double compute_before_sync_s(const RankPlan& plan, int64_t accumulation);

// Device catalog plus the cluster's own devices (costmodel::with_devices: they win on an id clash).
costmodel::DeviceCatalog merged_catalog(const costmodel::DeviceCatalog& catalog,
                                        const schema::ClusterSpec& cluster);

// Why `device` (of `host`) cannot run `precision` (its datasheet gives that math type no peak: a
// T4 has no bf16): the error a user reads instead of "calibrate this device", with the precisions
// it runs.
std::string unsupported_precision(const costmodel::DeviceSpec& device, costmodel::Regime precision,
                                  const std::string& host);

// Costs of `device` at `precision`; std::invalid_argument naming both and listing what `costs` has.
const costmodel::DeviceCosts& find_costs(const costmodel::CostModel& costs,
                                         const std::string& device, costmodel::Regime precision);

// The plans of the distinct (device, micro-batch) pairs of a placement, in order of first
// appearance (each with the rank and host of its first rank), and the kind of each rank: at
// 65,536 ranks one plan per rank would be 65,536 copies of the same ~100 layer times. With two or
// more ranks the slowest kind carries the expected straggler wait (straggler_s).
struct RankKinds {
  std::vector<RankPlan> plans;
  std::vector<int> kind_of_rank;
};
RankKinds plan_rank_kinds(const Placement& placement, const costmodel::DeviceCatalog& catalog,
                          const costmodel::LayerGraph& graph, const schema::TrainingConfig& config,
                          const costmodel::CostModel& costs,
                          std::map<std::string, costmodel::CostSource>& sources);
// One plan per rank (plan_rank_kinds, expanded); `sources` gets "device/precision" -> where its
// costs came from.
std::vector<RankPlan> plan_ranks(const Placement& placement,
                                 const costmodel::DeviceCatalog& catalog,
                                 const costmodel::LayerGraph& graph,
                                 const schema::TrainingConfig& config,
                                 const costmodel::CostModel& costs,
                                 std::map<std::string, costmodel::CostSource>& sources);

}  // namespace vitsim::sim
