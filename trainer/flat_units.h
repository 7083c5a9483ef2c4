// The flat layout of ZeRO's sharded units (docs/sharding.md, "Layout"), as FSDP's FlatParameter
// lays out one wrapped module: the parameters of a unit (ViT::unit_parameters) are concatenated in
// registration order into one flat buffer of the model's dtype, padded with zeros to a multiple of
// the world size N, and rank r owns the contiguous block [r S, (r + 1) S) of it, S = ceil(n / N).
// After FlatUnits is built, every model parameter is a view of its unit's flat buffer (the same
// tensor objects: the optimizer's and the hooks' references stay valid), so an all-gather into the
// buffer updates the parameters in place, and stage 3 frees and re-allocates the buffer's storage
// (FSDP's _free_storage / _alloc_storage) while the parameters keep their shapes, and autograd's
// saved references to them, across the free. Layout only: the collectives are zero_engine.h's.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace vitsim::trainer {

struct FlatUnit {
  std::vector<torch::Tensor> params;  // the model's parameters of the unit (views of `flat`)
  std::vector<int64_t> offsets;       // element offset of each in `flat`
  int64_t elements = 0;               // sum of their numel (without padding)
  int64_t shard = 0;                  // S = ceil(elements / N): elements of one rank's block
  torch::Tensor flat;                 // N x S elements, the model's dtype
};

class FlatUnits {
 public:
  // Flattens each unit's parameters (one vector per unit, in unit order) for `ranks` ranks of
  // which this is `rank`; the parameters' values are kept.
  FlatUnits(const std::vector<std::vector<torch::Tensor>>& units, int ranks, int rank);
  FlatUnits(const FlatUnits&) = delete;
  FlatUnits& operator=(const FlatUnits&) = delete;

  size_t size() const { return units_.size(); }
  FlatUnit& unit(size_t u) { return units_.at(u); }
  const FlatUnit& unit(size_t u) const { return units_.at(u); }
  int ranks() const { return ranks_; }
  int rank() const { return rank_; }
  // This rank's block of unit u's flat buffer (a view: writing it writes the parameters).
  torch::Tensor own_block(size_t u) const;

  // Stage 3: drops the storage of unit u's flat buffer (the parameters keep their shapes; reading
  // them throws until allocate), and gives it fresh, uninitialised storage of the full size.
  void release(size_t u);
  void allocate(size_t u);
  bool allocated(size_t u) const;

  // Copies the gradients of unit u's parameters, times `scale`, into `into` (N x S elements of
  // the wire type) at the parameters' offsets, zeros where a parameter has no gradient and in the
  // padding (what a reduce-scatter of the unit sums).
  void gather_gradients(size_t u, torch::Tensor& into, double scale) const;
  // Adds this rank's block of the unit's flat coordinates, taken from `full` (one tensor per
  // parameter of the unit, any float dtype, undefined = zeros), into `block` (S fp32 elements):
  // stage 1 takes its shard of the all-reduced gradients this way.
  void add_own_block(size_t u, const std::vector<torch::Tensor>& full, torch::Tensor& block) const;
  // The unit's parameters as separate tensors, cut from a flat buffer of its layout (N x S
  // elements: a gathered fp32 master copy for --dump-params and checkpoints of the whole model).
  std::vector<torch::Tensor> unflatten(size_t u, const torch::Tensor& flat) const;

 private:
  std::vector<FlatUnit> units_;
  int ranks_, rank_;
};

}  // namespace vitsim::trainer
