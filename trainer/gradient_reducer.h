// Averages gradients across ranks the way PyTorch DDP does: parameters grouped into buckets in
// reverse registration order (the order backward produces them) by costmodel::assign_buckets (a
// bucket closes once it holds >= bucket_bytes, the simulator's rule), one
// all-reduce per bucket of gradients divided by the world size on the way in (as DDP does). With
// one rank there is nothing to average and the gradients stay where backward put them.
//   overlap on:  an autograd hook on every parameter notes when its gradient is ready; a bucket
//                whose gradients are all ready is all-reduced at once (non-blocking) while the
//                rest of the backward runs. Buckets start strictly in index order on every rank.
//   overlap off: all buckets are all-reduced after the backward (DeepSpeed overlap_comm: false).
// Only the last micro-step of an accumulation window communicates (DDP's no_sync for the others).
// The buckets hold the wire type (`wire_dtype`): fp32 for fp32 and amp-*, bf16 for ds-bf16 (2
// bytes per parameter, so a bucket of bucket_bytes holds twice as many parameters), fp32 again
// for ds-bf16-allreduce-fp32 (bf16 gradients widened into fp32 buckets).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "costmodel/buckets.h"
#include "costmodel/regime.h"
#include "trainer/communicator.h"

namespace vitsim::trainer {

// The element type gradients travel in: the regime's gradient bytes per parameter
// (costmodel::gradient_bytes_per_parameter, the simulator's rule) in its 16-bit type or fp32.
at::ScalarType wire_dtype(costmodel::Regime r);

struct GradientReducerOptions {
  double bucket_bytes = costmodel::kDdpBucketBytes;  // a bucket closes at >= this, bytes
  bool overlap = true;
  at::ScalarType wire_dtype = at::kFloat;  // element type of the buckets (the all-reduce)
};

class GradientReducer {
 public:
  GradientReducer(std::vector<torch::Tensor> parameters, Communicator& comm,
                  GradientReducerOptions options);
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Call before each micro-step's backward; `communicate` is true on the last micro-step of the
  // accumulation window.
  void prepare(bool communicate);
  // Call after backward on the communicating micro-step: starts what is not started yet, waits
  // for all buckets and makes each param.grad() a view of its averaged bucket slice. The caller
  // must reset the gradients (undefined, "set to none") before the next backward.
  void finish();

  size_t buckets() const { return buckets_.size(); }
  // After finish(): parameter i's gradient averaged over the ranks, in the wire type (a view of
  // its bucket; with one rank, param.grad() itself). param.grad() is set to the same view only
  // where the wire type is the parameter's type.
  torch::Tensor averaged_gradient(size_t i) const;
  // Parameter indices of each bucket (bucket 0 = last layers).
  std::vector<std::vector<size_t>> bucket_layout() const;
  // Steady-clock time (MpiWorld::now_s) at which the last gradient became ready in the latest
  // communicating backward (overlap on), else when finish() was entered.
  double gradients_ready_s() const { return gradients_ready_s_; }
  // Seconds the latest communicating micro-step spent copying its gradients into the buckets
  // (divided by the world size on the way in): in the hooks during the backward with overlap on,
  // in finish() before the first all-reduce with overlap off; 0 with one rank (nothing copied).
  // A one-rank profile measures the same pass with copy_gradients (docs/simulator.md, "Step").
  double bucket_copy_s() const { return bucket_copy_s_; }

 private:
  struct Bucket {
    std::vector<size_t> params;    // indices into parameters_
    std::vector<int64_t> offsets;  // element offset of each parameter in `buffer`
    torch::Tensor buffer;          // flat fp32
    size_t pending = 0;            // gradients not ready yet
    bool started = false;
    Communicator::Handle handle = -1;
  };

  void on_gradient(size_t param, const torch::Tensor& grad);
  void launch_ready_buckets();
  void start(Bucket& b);

  std::vector<torch::Tensor> parameters_;
  Communicator& comm_;
  GradientReducerOptions options_;
  std::vector<Bucket> buckets_;
  static constexpr size_t kNoBucket = static_cast<size_t>(-1);
  std::vector<size_t> bucket_of_;  // parameter -> bucket, kNoBucket for an empty parameter
  double scale_;                   // 1 / world size, applied while copying into the buckets
  size_t next_to_start_ = 0;
  bool armed_ = false;
  double gradients_ready_s_ = 0;
  double bucket_copy_s_ = 0;
};

// into = from * scale, `into` a flat slice of a bucket (its wire type) and `from` a gradient of
// the same number of elements: the copy every gradient makes into its bucket at 2+ ranks.
void copy_gradient_scaled(torch::Tensor& into, const torch::Tensor& from, double scale);

}  // namespace vitsim::trainer
