// The tf32 regime's one switch (docs/cost-model.md section 12; docs/trainer.md): fp32 weights,
// activations, gradients, all-reduce and optimizer, with cuBLAS's matmuls and cuDNN's
// convolutions on TF32 tensor cores, as PyTorch's torch.backends.cuda.matmul.allow_tf32 and
// torch.backends.cudnn.allow_tf32 (set_float32_matmul_precision("high")) set them. Everything else
// of the step is fp32's.
#pragma once

#include <string>

namespace vitsim::trainer {

// Turns LibTorch's TF32 switches on for `device` ("cuda"): throws std::invalid_argument (exit 2,
// said in the message) on a CPU device or a GPU without TF32 tensor cores (compute capability
// below 8.0: Ampere is the first with TF32).
void enable_tf32(const std::string& device);

// The reason `device` cannot run tf32, or "" when it can: CPU, or a GPU of compute capability
// `major`.`minor` below 8.0. Pure (tested without a GPU).
std::string tf32_refusal(const std::string& device, int major, int minor);

}  // namespace vitsim::trainer
