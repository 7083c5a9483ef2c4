// First-principles memory of a data-parallel rank (see memory.h, docs/cost-model.md "Memory").
#include "costmodel/memory.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "costmodel/sharding.h"

namespace vitsim::costmodel {

double optimizer_state_bytes_per_parameter(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kAdamW:
      return 2 * kFp32Bytes;  // exp_avg, exp_avg_sq
    case Optimizer::kSgd:
      return kFp32Bytes;  // momentum buffer
  }
  return 0;
}

ParameterBytes parameter_bytes(Regime precision, Optimizer optimizer) {
  ParameterBytes b;
  b.weights = weight_bytes_per_parameter(precision);
  b.gradients = gradient_storage_bytes_per_parameter(precision);
  // DeepSpeed's FP16_Optimizer / BF16_Optimizer keep fp32 master weights and hand the optimizer
  // fp32 gradients (BF16_Optimizer persistently; the fused FP16_Optimizer for the step, after the
  // activations are freed: counted as if persistent, an upper bound at micro-batch 0).
  b.master_weights = is_deepspeed(precision) ? kFp32Bytes : 0;
  b.master_gradients = is_deepspeed(precision) ? kFp32Bytes : 0;
  b.optimizer_states = optimizer_state_bytes_per_parameter(optimizer);
  b.bucket_copy = gradient_bytes_per_parameter(precision);
  b.half_weights = is_amp(precision) ? kHalfBytes : 0;
  return b;
}

MemoryEstimate first_principles_memory(const LayerGraph& graph, Regime precision,
                                       Optimizer optimizer) {
  MemoryEstimate m;
  m.fixed_bytes =
      static_cast<double>(graph.parameters()) * parameter_bytes(precision, optimizer).total() +
      kRuntimeReserveBytes;
  m.per_sample_bytes = graph.activation_bytes_per_sample(activation_element_bytes(precision));
  return m;
}

double optimizer_memory_shift_bytes(const LayerGraph& graph, Optimizer from, Optimizer to) {
  return static_cast<double>(graph.parameters()) *
         (optimizer_state_bytes_per_parameter(to) - optimizer_state_bytes_per_parameter(from));
}

ModelStateBytes zero_model_state_bytes(Regime precision, Optimizer optimizer, int stage,
                                       int64_t ranks) {
  if (stage < 0 || stage > 3 || ranks < 1)
    throw std::invalid_argument("zero_model_state_bytes: stage 0-3 and ranks >= 1");
  const double n = static_cast<double>(ranks);
  ModelStateBytes b;
  b.weights = weight_bytes_per_parameter(precision);
  b.gradients = gradient_storage_bytes_per_parameter(precision);
  // K: the fp32 master copy of the 16-bit regimes, and the optimizer's own states.
  b.optimizer_states =
      (is_deepspeed(precision) ? kFp32Bytes : 0) + optimizer_state_bytes_per_parameter(optimizer);
  if (stage >= 1) b.optimizer_states /= n;
  if (stage >= 2) b.gradients /= n;
  if (stage >= 3) b.weights /= n;
  return b;
}

namespace {

// The units of vitsim-train (costmodel/sharding.h: the patch embedding, each block, norm + head).
using Unit = ShardUnit;

// What one point of the step holds beyond the persistent state.
struct Point {
  double activations = 0, gradients = 0, gathered = 0, optimizer = 0;
  std::string phase;
  double total() const { return activations + gradients + gathered + optimizer; }
};

// The byte sizes the phases below combine, for one precision, optimizer and plan.
struct Sizes {
  double n = 1, b = 1;                       // ranks, micro-batch
  double weight = 4, grad = 4, wire = 4;     // bytes per element
  double act = 4;                            // bytes per activation element
  double half_weights = 0;                   // amp-*: autocast's 16-bit copies kept for backward
  double token_bytes = 0, hidden_bytes = 0;  // one (S, D) and one (S, M) tensor, whole batch
  std::vector<double> act_kept, act_full, flat;  // per unit: kept, without checkpointing, gathered
};

Sizes sizes_of(const LayerGraph& g, const std::vector<Unit>& units, Regime r,
               const ShardingPlan& plan, double b) {
  Sizes z;
  z.n = static_cast<double>(plan.ranks);
  z.b = b;
  z.weight = weight_bytes_per_parameter(r);
  z.grad = gradient_storage_bytes_per_parameter(r);
  z.wire = gradient_bytes_per_parameter(r);
  z.act = activation_element_bytes(r);
  z.half_weights = is_amp(r) ? kHalfBytes * static_cast<double>(g.parameters()) : 0;
  const double s = static_cast<double>(g.config.tokens());
  z.token_bytes = s * static_cast<double>(g.config.width) * b * z.act;
  z.hidden_bytes = s * static_cast<double>(g.config.mlp_dim()) * b * z.act;
  for (const Unit& u : units) {
    z.act_full.push_back(u.activation_elements * b * z.act);
    // A checkpointed block keeps only its input.
    z.act_kept.push_back(plan.activation_checkpointing && u.block ? z.token_bytes
                                                                  : z.act_full.back());
    z.flat.push_back(u.padded * z.weight);
  }
  return z;
}

double sum_to(const std::vector<double>& v, size_t end) {
  double s = 0;
  for (size_t i = 0; i < end && i < v.size(); ++i) s += v[i];
  return s;
}

// The forward of each unit: what the units before it saved, and at stage 3 the unit and the next
// one, prefetched.
void forward_points(const std::vector<Unit>& units, const Sizes& z, const ShardingPlan& plan,
                    std::vector<Point>& out) {
  for (size_t u = 0; u < units.size(); ++u) {
    Point p;
    p.phase = "forward of " + units[u].name;
    p.activations = sum_to(z.act_kept, u + 1) + z.half_weights;
    if (plan.zero_stage == 3) p.gathered = z.flat[u] + (u + 1 < units.size() ? z.flat[u + 1] : 0);
    out.push_back(p);
  }
}

// Each unit's backward, at its start (all it saved alive, the gradient flowing in and, in a
// block, the MLP's hidden gradient: its working set) and at its end (its parameters' gradients
// complete, its activations freed; stages 2-3 copy them into the reduce-scatter's buffer).
void backward_points(const std::vector<Unit>& units, const Sizes& z, const ShardingPlan& plan,
                     std::vector<Point>& out) {
  const bool sharded_grads = plan.zero_stage >= 2;
  double held = 0;  // stages 0-1: parameter gradients of the units done
  for (size_t u = units.size(); u-- > 0;) {
    const double grads = units[u].parameters * z.grad;
    const double send = units[u].padded * z.wire, recv = send / z.n;
    const double in_flight = sharded_grads && plan.overlap && u + 1 < units.size()
                                 ? (units[u + 1].padded * z.wire) * (1 + 1 / z.n)
                                 : 0;
    const double gathered = plan.zero_stage == 3 ? z.flat[u] + (u > 0 ? z.flat[u - 1] : 0) : 0;
    const bool recomputed = plan.activation_checkpointing && units[u].block;
    Point start;
    start.phase = "backward of " + units[u].name;
    start.activations =
        sum_to(z.act_kept, u + 1) + z.half_weights + (recomputed ? z.act_full[u] : 0);
    start.gradients = held + in_flight + z.token_bytes + (units[u].block ? z.hidden_bytes : 0);
    start.gathered = gathered;
    Point end;
    end.phase = "end of the backward of " + units[u].name;
    end.activations = sum_to(z.act_kept, u) + z.half_weights;
    end.gradients = sharded_grads ? send + std::max(grads, recv) + in_flight : held + grads;
    end.gathered = gathered;
    if (!sharded_grads) held += grads;
    out.push_back(start);
    out.push_back(end);
  }
}

}  // namespace

ShardedMemory sharded_memory(const LayerGraph& graph, Regime precision, Optimizer optimizer,
                             const ShardingPlan& plan, double micro_batch) {
  if (plan.zero_stage < 0 || plan.zero_stage > 3 || plan.ranks < 1 || !(micro_batch >= 1))
    throw std::invalid_argument("sharded_memory: stage 0-3, ranks >= 1, micro-batch >= 1");
  const std::vector<Unit> units = sharding_units(graph, plan.ranks);
  const Sizes z = sizes_of(graph, units, precision, plan, micro_batch);
  double params = 0, padded = 0;
  for (const Unit& u : units) {
    params += static_cast<double>(u.parameters);
    padded += static_cast<double>(u.padded);
  }
  const int stage = plan.zero_stage;
  const double block = padded / z.n;  // elements of the rank's blocks
  const double states = optimizer_state_bytes_per_parameter(optimizer);
  ShardedMemory m;
  // fp32 and amp-* at stage 3: the fp32 blocks are the weights; 16-bit regimes keep both.
  m.weights = stage == 0 ? params * z.weight : stage < 3 ? padded * z.weight : block * z.weight;
  m.master_weights = is_deepspeed(precision) ? (stage == 0 ? params : block) * kFp32Bytes : 0;
  m.optimizer_states = (stage == 0 ? params : block) * states;
  m.gradient_buffers = (stage < 2 ? params * z.wire : 0) + (stage >= 1 ? block * kFp32Bytes : 0);
  const ViTConfig& c = graph.config;
  const double image_bytes =
      static_cast<double>(c.channels * c.image_size * c.image_size) * kFp32Bytes + 8;  // + label
  m.input_batches = static_cast<double>(plan.batches_in_memory) * micro_batch * image_bytes;

  std::vector<Point> points;
  forward_points(units, z, plan, points);
  backward_points(units, z, plan, points);
  Point step;
  step.phase = "optimizer step";
  const double stepped = stage == 0 ? params : block;
  // The foreach AdamW's sqrt of the second moments; stage 0's 16-bit regimes also cast the
  // gradients to fp32 for the master copy (MasterWeights), unless they travelled as fp32.
  step.optimizer =
      (optimizer == Optimizer::kAdamW && !plan.fused_optimizer ? stepped * 4 : 0) +
      (stage == 0 && is_deepspeed(precision) && z.wire < kFp32Bytes ? params * kFp32Bytes : 0);
  points.push_back(step);
  const Point& top =
      *std::max_element(points.begin(), points.end(),
                        [](const Point& a, const Point& b) { return a.total() < b.total(); });
  m.activations = top.activations;
  m.gradients = top.gradients;
  m.gathered_units = top.gathered;
  m.optimizer_temporaries = top.optimizer;
  m.peak_phase = top.phase;
  m.peak_bytes = m.persistent() + top.total();
  return m;
}

}  // namespace vitsim::costmodel
