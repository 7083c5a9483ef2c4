// The global batch and its limit; see global_batch.h.
#include "costmodel/global_batch.h"

#include <stdexcept>

namespace vitsim::costmodel {

int64_t global_batch(const std::vector<int64_t>& micro_batches, int64_t accumulation) {
  if (accumulation < 1) throw std::invalid_argument("accumulation must be >= 1");
  int64_t images = 0;
  for (int64_t b : micro_batches) images += b;
  return images * accumulation;
}

int64_t global_batch(int64_t ranks, int64_t micro_batch, int64_t accumulation) {
  if (accumulation < 1) throw std::invalid_argument("accumulation must be >= 1");
  return ranks * micro_batch * accumulation;
}

bool above_global_batch_limit(int64_t global_batch, int64_t max_global_batch) {
  return global_batch > max_global_batch;
}

std::string global_batch_warning(int64_t global_batch, int64_t max_global_batch) {
  if (!above_global_batch_limit(global_batch, max_global_batch)) return "";
  return "global batch " + std::to_string(global_batch) + " is above " +
         std::to_string(max_global_batch) +
         " (--max-global-batch; ViT-B/16 was trained with 4096): past the model's usual range a "
         "larger batch changes what training converges to, not only how fast it runs; not "
         "recommended";
}

}  // namespace vitsim::costmodel
