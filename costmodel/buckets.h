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

// Groups gradients, given in the order backward produces them, the way PyTorch DDP does
// (c10d compute_bucket_assignment_by_size): each gradient joins the open bucket, which closes as
// soon as it holds >= cap_bytes, so a bucket can exceed the cap by its last gradient and a
// gradient larger than the cap is a bucket of its own; the last bucket holds what is left.
// Returns, per bucket in order, indices into `gradient_bytes`. Gradients of 0 bytes are skipped
// (no bucket carries them). Throws std::invalid_argument when cap_bytes is not > 0.
std::vector<std::vector<size_t>> assign_buckets(const std::vector<double>& gradient_bytes,
                                                double cap_bytes);

}  // namespace vitsim::costmodel
