// The global batch and its limit: the one home of the rule that a configuration whose optimizer
// step sees more images than the model was trained with is flagged and never recommended
// (docs/cost-model.md, "Global batch"). Past the model's usual range a larger batch changes what
// training converges to (it needs another learning-rate schedule, and more epochs to reach the
// same accuracy), not only how fast an epoch runs, so a faster epoch there is no better answer.
// `vitsim predict`, `advise`, `sweep`, `report` and the CSVs apply it the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::costmodel {

// The default limit: ViT-B/16's pre-training batch, 4096 (Dosovitskiy et al., "An Image is Worth
// 16x16 Words", ICLR 2021, section 4.1 "Training & Fine-tuning"), the largest the ViT recipes use.
inline constexpr int64_t kDefaultMaxGlobalBatch = 4096;

// Images per optimizer step over all ranks: the sum of the ranks' micro-batches x accumulation.
// `micro_batches`: one entry per rank (empty: none). std::invalid_argument when accumulation < 1.
int64_t global_batch(const std::vector<int64_t>& micro_batches, int64_t accumulation);

// The same for `ranks` ranks of one micro-batch each.
int64_t global_batch(int64_t ranks, int64_t micro_batch, int64_t accumulation);

// True when `global_batch` is above `max_global_batch` (the configuration is flagged).
bool above_global_batch_limit(int64_t global_batch, int64_t max_global_batch);

// The flag in words: "global batch 32768 is above 4096 (--max-global-batch; ViT-B/16 was trained
// with 4096): ...". Empty when not above.
std::string global_batch_warning(int64_t global_batch, int64_t max_global_batch);

}  // namespace vitsim::costmodel
