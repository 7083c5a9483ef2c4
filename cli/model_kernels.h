// `vitsim model --kernels`: the kernel inventory of one training step
// (costmodel/kernel_inventory.h) as a table (per class, then per layer pass) or as JSON (every
// kernel, docs/formats/kernels.md): what the kernel-class transfer counts, to set beside a measured
// kernel trace of a GPU (bench/gpu/kernel_classes.py).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "costmodel/kernel_inventory.h"
#include "costmodel/layer_graph.h"

namespace vitsim::cli {

struct KernelListing {
  costmodel::Regime regime = costmodel::Regime::kFp32;
  int64_t micro_batch = 64;
  costmodel::AttentionImpl attention = costmodel::AttentionImpl::kFused;
};

nlohmann::json kernels_json(const costmodel::LayerGraph& graph, const KernelListing& what,
                            const std::vector<costmodel::StepKernel>& step);
void print_kernels(const costmodel::LayerGraph& graph, const KernelListing& what,
                   const std::vector<costmodel::StepKernel>& step);

}  // namespace vitsim::cli
