// Fitted cost functions: what `vitsim calibrate` produces and `vitsim simulate` consumes.
// Pure data + evaluation; the JSON form is schema/cost_model_io.h, the fitting is calibrate/,
// and the equations are in docs/cost-model.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/collective_op.h"
#include "costmodel/enum_names.h"
#include "costmodel/layer_graph.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"

namespace vitsim::costmodel {

// The fitted form: max(floor_s, fixed_s + per_unit_s * x). x is the micro-batch size in samples
// unless the field using it says otherwise. With knots (the measured points' centres at two or more
// x, ascending: a measured layer pass), the cost passes through them: linear between two knots,
// outside them the form scaled through the nearer end knot (docs/cost-model.md section 1).
struct LinearCost {
  double fixed_s = 0;
  double per_unit_s = 0;
  double floor_s = 0;
  std::vector<std::array<double, 2>> knots;  // {x, t}, x strictly ascending
  double form_at(double x) const;
  double at(double x) const;
};

// Where a cost came from; every report says it. kSibling: a same-chip sibling's measurement moved
// by the terms that differ (docs/cost-model.md section 4, "Siblings").
enum class CostSource { kMeasured, kImported, kTransferred, kSibling };
inline constexpr EnumName<CostSource> kCostSourceNames[] = {
    {CostSource::kMeasured, "measured"},
    {CostSource::kImported, "imported"},
    {CostSource::kTransferred, "transferred"},
    {CostSource::kSibling, "sibling"},
};
const char* to_string(CostSource s);
CostSource parse_cost_source(const std::string& text);  // throws std::invalid_argument

struct LayerCost {
  std::string layer;  // layer name in the layer graph of DeviceCosts::model
  LayerKind kind = LayerKind::kNorm;
  LinearCost forward;               // x = micro-batch (samples)
  LinearCost backward;              // x = micro-batch (samples)
  double forward_residual_rel = 0;  // RMS of (fit - measured) / measured over the fitted points
  double backward_residual_rel = 0;
};

struct DeviceCosts {
  std::string device;  // DeviceSpec::id (gpus.json or the cluster's own devices)
  Regime precision = Regime::kFp32;
  CostSource source = CostSource::kMeasured;
  std::string derived_from;       // provenance: profile files, or the devices a transfer used
  ViTConfig model;                // model the layer costs were measured on
  std::vector<LayerCost> layers;  // in layer-graph order of `model`
  LinearCost optimizer;           // x = trainable parameters (one optimizer step)
  // The optimizer step right after the rank sat idle for at least optimizer_wait_s (a multi-rank
  // step's wait for its gradient all-reduce), where a profile measured it (CPU devices: an
  // emulated device's quota returns unspent; docs/simulator.md, "Step"); x = trainable
  // parameters, fitted as `optimizer`. optimizer_wait_s 0: not measured, `optimizer` throughout.
  LinearCost optimizer_after_wait;
  double optimizer_wait_s = 0;
  // The data loader's exposed wait in the step after such a wait, x = micro-batch, where a profile
  // measured it (the loader's thread shares the device's budget: after the wait it prepares the
  // next batch unthrottled); absent: `data_wait` throughout. Only with optimizer_wait_s > 0.
  std::optional<LinearCost> data_after_wait;
  // The copy of every gradient into the all-reduce buckets that a step at 2+ ranks makes and a
  // one-rank step skips (vitsim-train's GradientReducer), x = trainable parameters, where a profile
  // timed it; absent: no such pass outside the measured step (imported logs: DeepSpeed's runs at
  // every world size, inside step_overhead; docs/simulator.md, "Step").
  std::optional<LinearCost> bucket_copy;
  // Sharded data parallelism (docs/sharding.md), where a profile timed it (vitsim-train profile
  // --sharding-costs); absent otherwise. recompute: the recomputation of every checkpointed block
  // of `model` in one step's backward, x = micro-batch (fitted as a layer pass: the simulator
  // moves it to another model by the blocks' forward times, docs/sharding.md "Simulated").
  // unit_gather / unit_free: the local part of gathering one unit at one rank (its flat buffer
  // allocated, the rank's block copied in) and of freeing it, x = the unit's parameters.
  std::optional<LinearCost> recompute;
  std::optional<LinearCost> unit_gather;
  std::optional<LinearCost> unit_free;
  LinearCost host_to_device;  // x = micro-batch (samples)
  LinearCost data_wait;       // exposed data-loading wait, x = micro-batch (samples)
  LinearCost step_overhead;   // other per-step time outside the timers, x = micro-batch
  // How much longer an epoch's first step takes than a steady step, once per epoch: in an epoch
  // after the process's first, the data loader's restart (epoch_start_s); in the process's first
  // epoch, its start (process_start_s: loader start, first-touch allocations, lazily initialised
  // kernels). 0 where nothing measured it. The process's start grows with the micro-batch where
  // profiles measured it at several (first-touch of activations and workspaces sized by it):
  // process_start_at(b) = process_start_s + process_start_per_sample_s * b; per sample 0 where one
  // micro-batch measured it (docs/cost-model.md section 1, "The first step").
  double epoch_start_s = 0;
  double process_start_s = 0;
  double process_start_per_sample_s = 0;
  double process_start_at(double micro_batch) const {
    return process_start_s + process_start_per_sample_s * micro_batch;
  }
  double memory_fixed_bytes = 0;       // peak device memory at micro-batch 0 (extrapolated)
  double memory_per_sample_bytes = 0;  // peak device memory growth per sample
  std::vector<int> micro_batches;      // micro-batches the fit saw (empty when transferred)
  // Spread of the step's compute, each one relative standard deviation (docs/uncertainty.md):
  double uncertainty_rel = 0;  // systematic: the fit's residual, the transfer's error
  double node_spread_rel = 0;  // node to node (logs of one GPU type on different nodes)
  double step_noise_rel = 0;   // step to step (profiles' and logs' IQR / 1.349)
  // the whole step's step-to-step spread where measured on whole steps (else 0): the noise the
  // slowest of N ranks brings to every synchronisation (docs/simulator.md, "Stragglers")
  double step_spread_rel = 0;
  // launch to launch of one configuration (repeated profiles on one host; else the profile's
  // independent blocks; else the study's figure, kDefaultLaunchSpreadRel in uncertainty.h)
  double launch_spread_rel = 0;
  // the part of launch_spread_rel that each rank's process draws on its own (<= it; 0 where not
  // measured): the ranks' slowest sets the step (docs/uncertainty.md, "process to process")
  double process_spread_rel = 0;
  std::string uncertainty_from;  // where the five came from
  // Transferred and sibling entries: what the transfer rests on and how wide its range is, one
  // line for the provenance warning (the nearest measured GPU or the sibling); "" otherwise.
  std::string transfer_summary;
};

// LinkCost's convention fitted to the points of one ring shape only (docs/cost-model.md, section
// 3, "By ring shape"): a benchmark at the job's own ring shape measures what the job pays there,
// where one fit over every shape splits their differences.
struct RingLinkCost {
  int64_t ranks = 2;           // ranks in the ring
  int64_t ranks_per_node = 1;  // as AllreduceProfile::ranks_per_node
  double latency_s = 0;
  double bandwidth_bytes_per_s = 0;
  double uncertainty_rel = 0;  // this fit's relative residual (1 sigma)
  std::string derived_from;
};

// A reduce-scatter's or an all-gather's own alpha-beta fit over one link class, in the ring's
// convention of its operation: (N-1)/N * M / bandwidth + (N-1) * latency (docs/sharding.md,
// "Simulated"), from the profiles' reduce_scatter[] / all_gather[] benchmarks. Where a class has
// none, the operation runs over the all-reduce's figures (first principles: a ring reduce-scatter
// is the first N-1 phases of a ring all-reduce over the same links).
struct OperationLinkCost {
  CollectiveOp op = CollectiveOp::kReduceScatter;
  double latency_s = 0;
  double bandwidth_bytes_per_s = 0;
  double uncertainty_rel = 0;  // the fit's relative residual (1 sigma)
  std::string derived_from;
};

// What training runs of ranks sharing a host over this link class measured against the model's
// own prediction of them (docs/learning-from-runs.md), part by part as the run log times them:
// the ranks' compute (data, copy, forward, backward, optimizer) as a factor on the costs' compute,
// and the rest of the step (exposed all-reduce, agreement, wait, overhead, untimed) as seconds per
// step beyond what the simulator predicted for it. Applied to every step of a one-host job of the
// same device, precision and ranks; the link's fit and the device's costs are left as measured.
struct RunStepOverhead {
  std::string device;  // the ranks' device id (the cluster's)
  Regime precision = Regime::kFp32;
  int64_t ranks_per_node = 2;  // ranks sharing the host
  double overhead_s = 0;       // per optimizer step beyond the predicted rest of the step (signed)
  double compute_scale = 1;    // measured compute / predicted compute (1 = as profiled)
  double spread_s = 0;         // 1 sigma of the correction in a new launch, seconds per step
  int64_t steps = 0;           // the runs' steps behind it (each rank's steps, summed)
  std::string derived_from;    // the run logs, the measured and the predicted figures
};

// Alpha-beta cost of one link class: a message of n bytes over one link takes
// latency_s + n / bandwidth_bytes_per_s.
struct LinkCost {
  std::string link_class;  // matches the cluster file's link_class fields
  double latency_s = 0;
  double bandwidth_bytes_per_s = 0;
  CostSource source = CostSource::kMeasured;
  std::string derived_from;
  // The alpha-beta fit's relative residual, with the benchmarks' measured run-to-run spread
  // where they recorded blocks (calibrate/link_fit.cpp), 1 sigma.
  double uncertainty_rel = 0;
  // Fits of single ring shapes, where the class was measured at several shapes with two or more
  // message sizes each; a job whose ring has one of these shapes takes that fit.
  std::vector<RingLinkCost> rings;
  const RingLinkCost* find_ring(int64_t ranks, int64_t ranks_per_node) const;
  // Measured fits of the other operations (reduce-scatter, all-gather), at most one each.
  std::vector<OperationLinkCost> operations;
  const OperationLinkCost* find_operation(CollectiveOp op) const;
  // Terms learned from training runs, at most one per device, precision and ranks per node.
  std::vector<RunStepOverhead> run_overheads;
  const RunStepOverhead* find_run_overhead(const std::string& device, Regime precision,
                                           int64_t ranks_per_node) const;
};

// How a layer pass's compute and memory terms combine in the transfer: kMax = max(compute,
// memory) and kAdditive = compute + memory per layer (the layer-level roofline of cost models
// written before the kernel-class transfer); kKernelClasses = per kernel of the inventory, summed,
// floored by the launches (docs/cost-model.md, section 4).
enum class RooflineForm { kMax, kAdditive, kKernelClasses };
inline constexpr EnumName<RooflineForm> kRooflineFormNames[] = {
    {RooflineForm::kMax, "max"},
    {RooflineForm::kAdditive, "additive"},
    {RooflineForm::kKernelClasses, "kernel-classes"},
};
const char* to_string(RooflineForm f);
RooflineForm parse_roofline_form(const std::string& text);  // throws std::invalid_argument

// Roofline efficiencies fitted on measured devices, used for transfers (docs/cost-model.md).
struct RooflineFit {
  Regime precision = Regime::kFp32;
  RooflineForm form = RooflineForm::kMax;
  double compute_efficiency = 0;       // achieved / peak matrix FLOP/s
  double memory_efficiency = 0;        // achieved / peak memory bandwidth
  double launch_overhead_s = 0;        // per layer and pass (kKernelClasses: per kernel launch)
  std::vector<std::string> fitted_on;  // device ids
  // RMS over the measured devices of the relative error of their total layer time when the fit
  // leaves each out; 0 when fewer than 3 devices were measured (nothing to hold out).
  double held_out_error_rel = 0;
  // The pass time of this form without the launch overhead.
  double pass_time_s(double compute_s, double memory_s) const {
    return form == RooflineForm::kAdditive ? compute_s + memory_s
                                           : (compute_s > memory_s ? compute_s : memory_s);
  }
};

struct CostModel {
  std::vector<DeviceCosts> devices;
  std::vector<LinkCost> links;
  std::vector<RooflineFit> roofline;

  const DeviceCosts* find(const std::string& device, Regime precision) const;
  const LinkCost* find_link(const std::string& link_class) const;
};

// Per-layer forward and backward times of `target` on a device at micro-batch b.
// Layers of the model the costs were measured on are used as fitted; for another model (other
// width, depth, image size...) each layer is scaled from the measured layers of the same kind by
// its work ratio (MACs; element traffic for LayerNorm). See docs/cost-model.md.
struct LayerTimes {
  std::vector<double> forward_s;
  std::vector<double> backward_s;
  double forward_total_s() const;
  double backward_total_s() const;
};
LayerTimes layer_times(const DeviceCosts& costs, const LayerGraph& target, double micro_batch);

// Peak memory of a rank at micro-batch b for `target` (scaled like layer_times when the model
// differs): memory_fixed scaled by parameter ratio + per-sample growth scaled by activation ratio.
double memory_bytes(const DeviceCosts& costs, const LayerGraph& target, double micro_batch);

}  // namespace vitsim::costmodel
