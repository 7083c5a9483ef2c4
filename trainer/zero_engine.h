// DeepSpeed's ZeRO stages 1-3 over a Communicator (docs/sharding.md): the model's parameters are
// laid out in flat units (flat_units.h), and each rank owns a 1/N block of every unit.
//   stage 1: gradients are all-reduced as in plain data parallelism (GradientReducer); each rank
//            takes its block of them, steps the optimizer on its block only (the optimizer's
//            states are 1/N), then every unit is all-gathered in place.
//   stage 2: also the gradients: when a unit's gradients have all been accumulated (a post hook
//            on each parameter's AccumulateGrad), they are reduce-scattered at once, and only the
//            rank's block is kept (fp32, accumulated over the micro-steps of a window); a
//            reduce-scatter at every micro-step, as DeepSpeed does.
//   stage 3: also the parameters (FSDP FULL_SHARD): a unit's flat buffer exists only from the
//            all-gather before its forward (or its backward) until after it; the next unit's
//            gather is started before the current one runs (prefetch, FSDP's BACKWARD_PRE in the
//            backward). The last unit stays gathered from its forward into its backward.
// The rank's blocks of the fp32 master weights are what the optimizer steps (`shards()`): for
// fp32 and amp-* at stages 1-2 views of the model's own flat buffers, otherwise fp32 tensors of
// their own (ds-*: the model is bf16; stage 3: the model's buffers come and go). With overlap the
// reduce-scatters run while the backward goes on, at most two at a time, the rest waited for in
// finish_backward(); without, each is waited for in its hook (DeepSpeed's overlap_comm: false).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "trainer/communicator.h"
#include "trainer/flat_units.h"
#include "trainer/unit_forward.h"
#include "trainer/vit_model.h"

namespace vitsim::trainer {

struct ZeroOptions {
  int stage = 1;                           // 1, 2 or 3
  bool overlap = false;                    // stages 2-3: reduce-scatter without blocking
  at::ScalarType wire_dtype = at::kFloat;  // the gradients' type on the wire
};

// Seconds spent in the engine's phases since the last take_times() (docs/formats/run-log.md).
struct ZeroTimes {
  double reduce_scatter_s = 0;  // waiting for gradient reduce-scatters (stages 2-3)
  // their barriers' part on the communication thread: waiting for the slowest peer to arrive
  double reduce_scatter_wait_s = 0;
  double allgather_s = 0;       // waiting for parameter all-gathers
  double allgather_wait_s = 0;  // their barriers' part, as for the reduce-scatters
  double unit_free_s = 0;       // stage 3: freeing gathered units
};

class ZeroEngine : public UnitHooks {
 public:
  // `model`: the ViT forward and backward run on (its parameters become flat views); `master`:
  // the fp32 weights to start from, parameter for parameter (the model itself unless ds-*).
  ZeroEngine(ViT& model, const std::vector<torch::Tensor>& master, Communicator& comm,
             ZeroOptions options);
  ~ZeroEngine() override;
  ZeroEngine(const ZeroEngine&) = delete;
  ZeroEngine& operator=(const ZeroEngine&) = delete;

  // The fp32 tensors the optimizer steps, one per unit (S elements each).
  const std::vector<torch::Tensor>& shards() const { return master_; }
  int stage() const { return options_.stage; }

  // UnitHooks (stage 3): gather before a unit runs, free after it, gather again before its
  // backward.
  void before_forward(size_t unit) override;
  torch::Tensor after_forward(size_t unit, const torch::Tensor& output) override;

  // Before each micro-step's backward (stages 2-3 arm the gradient hooks).
  void prepare_backward();
  // After each micro-step's backward: every unit's reduce-scatter started and finished (stages
  // 2-3); the gathered units freed (stage 3).
  void finish_backward();
  // Stage 1, on the communicating micro-step: this rank's block of the averaged gradients
  // (averaged_gradient(i) of each model parameter, in model order).
  void load_gradients(const std::function<torch::Tensor(size_t)>& averaged_gradient);

  // The optimizer phase on the blocks: master gradients set from the accumulated blocks,
  // `on_shards` (unscaling, clipping and the optimizer's step), ds-*: the 16-bit blocks rounded
  // from the master, then stages 1-2 all-gather every unit. Gradients reset for the next window.
  void step(const std::function<void(const std::vector<torch::Tensor>&)>& on_shards);
  // The squared L2 norm of this rank's gradient blocks (the global norm squared is their sum
  // over ranks: clipping), and every block's gradient times `factor`.
  double local_gradient_norm_squared() const;
  void scale_gradients(double factor);
  bool local_gradients_finite() const;

  // Collective: the full fp32 master weights in model parameter order (gathered blocks).
  std::vector<torch::Tensor> full_master_parameters();
  // After the master blocks were loaded (a resume): the model's weights set from them. Collective
  // at stages 1-2 (all-gather).
  void refresh_model();

  ZeroTimes take_times();

 private:
  void gather(size_t unit);         // starts the unit's all-gather unless under way or done
  void wait_gathered(size_t unit);  // and allocates its storage first where needed
  void free_unit(size_t unit);
  void on_gradient_accumulated(size_t unit);
  void start_reduce_scatter(size_t unit);
  void complete_reduce_scatter(size_t unit);
  void pre_backward(size_t unit);
  void refresh_model_blocks();  // ds-*: 16-bit blocks from the master (rounded once)
  void allgather_all();         // stages 1-2: every unit's flat buffer from the blocks

  struct UnitState;
  ViT model_;
  Communicator& comm_;
  ZeroOptions options_;
  std::unique_ptr<FlatUnits> flat_;
  std::vector<torch::Tensor> master_;       // fp32 blocks, the optimizer's parameters
  std::vector<torch::Tensor> model_block_;  // the model dtype's block the gathers send
  std::vector<torch::Tensor> grad_block_;   // fp32 accumulated gradient blocks
  std::vector<UnitState> state_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;  // kept: hooks live on them
  bool armed_ = false;
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t last_started_ = kNone;  // the unit whose reduce-scatter started last
  ZeroTimes times_;
  // comm_.barrier_wait_s() of the reduce-scatters and the all-gathers at the last take_times()
  double rs_barrier_taken_s_ = 0, ag_barrier_taken_s_ = 0;
};

}  // namespace vitsim::trainer
