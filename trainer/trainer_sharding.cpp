// The trainer's parts that ZeRO stages 1-3 and activation checkpointing change (trainer.h,
// docs/sharding.md): the engine and the forward unit by unit, the optimizer over the rank's
// blocks, clipping and fp16 loss scaling across ranks, sharded checkpoints, and the gathered
// weights that --dump-params writes.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "costmodel/memory.h"
#include "trainer/multi_tensor_adamw.h"
#include "trainer/trainer.h"

namespace vitsim::trainer {

void Trainer::build_sharding() {
  if (options_.zero_stage > 0) {
    ZeroOptions zo;
    zo.stage = static_cast<int>(options_.zero_stage);
    zo.overlap = options_.overlap;
    zo.wire_dtype = wire_dtype(options_.precision);
    std::vector<torch::Tensor> master = model_->parameters();
    if (master_model_) {
      // ds-*: the bf16 model from the fp32 weights (rounded once, as MasterWeights does), whose
      // rank blocks become the master copy; the whole fp32 model is not kept.
      torch::NoGradGuard no_grad;
      master = master_model_->parameters();
      for (size_t i = 0; i < master.size(); ++i) parameters_[i].copy_(master[i]);
    }
    zero_ = std::make_unique<ZeroEngine>(model_, master, *comm_, zo);
    master_model_ = nullptr;
  }
  forward_ = std::make_unique<UnitForward>(model_, options_.activation_checkpointing,
                                           options_.zero_stage == 3 ? zero_.get() : nullptr);
}

void Trainer::make_optimizer(const std::vector<torch::Tensor>& stepped) {
  if (options_.optimizer == costmodel::Optimizer::kSgd) {
    optimizer_ = std::make_unique<torch::optim::SGD>(
        stepped, torch::optim::SGDOptions(options_.learning_rate)
                     .momentum(options_.momentum)
                     .weight_decay(options_.weight_decay));
    return;
  }
  // LibTorch's AdamW, its operations batched over the parameters (multi_tensor_adamw.h).
  auto adamw =
      std::make_unique<MultiTensorAdamW>(stepped, torch::optim::AdamWOptions(options_.learning_rate)
                                                      .betas({options_.beta1, options_.beta2})
                                                      .eps(options_.adam_eps)
                                                      .weight_decay(options_.weight_decay));
  try {
    adamw->use_fused_kernel(
        options_.adamw_kernel == "fused" ||
        (options_.adamw_kernel == "auto" && MultiTensorAdamW::fused_by_default(device_)));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--adamw-kernel fused: " + std::string(e.what()));
  }
  optimizer_ = std::move(adamw);
}

bool Trainer::update_loss_scale(bool finite) {
  // Dynamic loss scaling (DeepSpeed's defaults: start 2^16, halve on overflow, double after 1000
  // clean steps). Every rank decides on the same evidence, so all decide alike.
  if (!finite) {
    loss_scale_ = std::max(1.0, loss_scale_ / 2);
    good_steps_ = 0;
    return false;
  }
  if (++good_steps_ % 1000 == 0) loss_scale_ *= 2;
  return true;
}

// Each rank holds a block of the gradients: what stage 0 decides from the whole gradient is
// decided from a sum over the ranks (the overflow flag, the squared norm).
void Trainer::sharded_optimizer_step(bool fp16) {
  if (fp16) {
    zero_->scale_gradients(1.0 / loss_scale_);
    std::vector<double> overflow = {zero_->local_gradients_finite() ? 0.0 : 1.0};
    world_.allreduce_max(overflow);
    if (!update_loss_scale(overflow[0] == 0)) return;
  }
  if (options_.gradient_clipping > 0) {
    // LibTorch's clip_grad_norm_: the global L2 norm, scaled down to the limit when above it.
    std::vector<double> norm2 = {zero_->local_gradient_norm_squared()};
    world_.allreduce_sum(norm2);
    const double coefficient = options_.gradient_clipping / (std::sqrt(norm2[0]) + 1e-6);
    if (coefficient < 1) zero_->scale_gradients(coefficient);
  }
  optimizer_->step();
}

void Trainer::resume_sharded() {
  CheckpointKey key = checkpoint_key();
  key.rank = world_.rank();
  const std::string file = sharded_part_path(options_.resume, world_.rank(), world_.size());
  NamedTensors blocks;
  for (size_t u = 0; u < zero_->shards().size(); ++u)
    blocks.emplace_back("block/" + model_->unit_name(u), zero_->shards()[u]);
  position_ = load_checkpoint(file, blocks, *optimizer_, key, resume_bounds());
  zero_->refresh_model();  // collective (stages 1-2)
  epoch_totals_ = {position_.epoch_loss_sum, position_.epoch_correct, position_.epoch_samples};
  if (world_.rank() == 0) {
    std::cout << "vitsim-train: resumed from " << options_.resume << " (" << world_.size()
              << " rank files) at epoch " << position_.epoch + 1 << ", micro-step "
              << position_.micro_step << ", step " << position_.global_step << "\n";
  }
}

void Trainer::save_sharded_checkpoint(const TrainPosition& position) {
  CheckpointKey key = checkpoint_key();
  key.rank = world_.rank();
  NamedTensors blocks;
  for (size_t u = 0; u < zero_->shards().size(); ++u)
    blocks.emplace_back("block/" + model_->unit_name(u), zero_->shards()[u]);
  const std::string step_dir = save_sharded_part(options_.checkpoint_dir, blocks, *optimizer_,
                                                 position, key, world_.size(), files_.inputs);
  world_.barrier();  // "latest" names the step once every rank's file is in place
  if (world_.rank() == 0) {
    commit_sharded(options_.checkpoint_dir, position.global_step, options_.keep_checkpoints,
                   files_.inputs);
    std::cerr << "vitsim-train: checkpoint " << step_dir << " (" << world_.size()
              << " rank files)\n";
  }
}

// The measured peak beside the memory model's for this run (costmodel::sharded_memory,
// docs/sharding.md "Memory"), on rank 0's evidence; bench/trainer/sharded_memory.py collects it.
void Trainer::print_memory_check(const schema::RankStepSummary& rank0) {
  if (!rank0.peak_memory_bytes) return;
  costmodel::ShardingPlan plan;
  plan.zero_stage = static_cast<int>(options_.zero_stage);
  plan.ranks = world_.size();
  plan.activation_checkpointing = options_.activation_checkpointing;
  plan.overlap = options_.overlap;
  // On a CPU the loader's prefetched batches are tensors in the same memory as the step's.
  plan.batches_in_memory = device_.is_cpu() ? BatchLoaderOptions().prefetch + 1 : 1;
  const auto* adamw = dynamic_cast<const MultiTensorAdamW*>(optimizer_.get());
  plan.fused_optimizer = adamw != nullptr && adamw->fused_kernel();
  const costmodel::ShardedMemory m = costmodel::sharded_memory(
      costmodel::build_layer_graph(options_.model), options_.precision, options_.optimizer, plan,
      static_cast<double>(options_.micro_batch));
  const double measured = *rank0.peak_memory_bytes;
  std::printf(
      "vitsim-train: peak tensor memory of rank 0: measured %.0f bytes (median over steps), "
      "modelled %.0f bytes (%+.1f %%, at the %s)\n",
      measured, m.peak_bytes, 100.0 * (m.peak_bytes - measured) / measured, m.peak_phase.c_str());
  std::fflush(stdout);
}

std::vector<std::pair<std::string, torch::Tensor>> Trainer::weights_to_write() {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  const auto named = weights()->named_parameters();
  if (!zero_) {
    for (const auto& item : named) out.emplace_back(item.key(), item.value());
    return out;
  }
  const std::vector<torch::Tensor> full = zero_->full_master_parameters();
  for (size_t i = 0; i < full.size(); ++i) out.emplace_back(named[i].key(), full[i]);
  return out;
}

}  // namespace vitsim::trainer
