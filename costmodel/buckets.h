// Gradient buckets: which gradients are all-reduced together. The one home of the closing rule,
// used by the simulator (per layer) and by vitsim-train's GradientReducer (per parameter tensor);
// docs/cost-model.md, "Gradient buckets".
#pragma once

#include <cstddef>
#include <vector>

namespace vitsim::costmodel {

// A mebibyte: the unit of every --bucket-mb option (vitsim and vitsim-train), as PyTorch DDP's
// bucket_cap_mb is (bucket_cap_mb * 1024 * 1024 bytes).
inline constexpr double kMiB = 1024.0 * 1024.0;

// The bucket cap vitsim's simulations take when none is given (scenario files, predict, sweep):
// 500 MiB, the study's DeepSpeed reduce_bucket_size (5e8) read in the unit of --bucket-mb. It
// holds ViT-B/16's whole fp32 gradient (344 MB), so that model all-reduces in one bucket, as
// DeepSpeed ZeRO-0 does there (docs/cost-model.md, "Gradient bytes and buckets").
inline constexpr double kDefaultBucketBytes = 500 * kMiB;
// PyTorch DDP's default cap (bucket_cap_mb = 25, torch.nn.parallel.DistributedDataParallel):
// vitsim-train's default, as DDP's, and the small bucket the advisor's overlap what-if tries.
inline constexpr double kDdpBucketBytes = 25 * kMiB;

// Groups gradients, given in the order backward produces them, the way PyTorch DDP does
// (c10d compute_bucket_assignment_by_size): each gradient joins the open bucket, which closes as
// soon as it holds >= cap_bytes, so a bucket can exceed the cap by its last gradient and a
// gradient larger than the cap is a bucket of its own; the last bucket holds what is left.
// Returns, per bucket in order, indices into `gradient_bytes`. Gradients of 0 bytes are skipped
// (no bucket carries them). Throws std::invalid_argument when cap_bytes is not > 0.
std::vector<std::vector<size_t>> assign_buckets(const std::vector<double>& gradient_bytes,
                                                double cap_bytes);

}  // namespace vitsim::costmodel
