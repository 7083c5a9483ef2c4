// The trainer's measured peak of tensor memory (docs/sharding.md, "What is measured"): the most
// bytes of tensors alive at once since the last reset, on the device the ranks train on.
// - On a GPU: the CUDA caching allocator's allocated-bytes peak (what PyTorch's
//   torch.cuda.max_memory_allocated reports; the allocator's reserve and the CUDA context are not
//   in it).
// - On a CPU: LibTorch 1.13 keeps no allocator statistics of its own, so the trainer installs a
//   counting CPU allocator (c10::SetCPUAllocator) in front of LibTorch's aligned malloc: every CPU
//   tensor's storage is counted while it lives, the peak kept with an atomic maximum. It counts
//   what the memory model predicts, tensors (weights, gradients, optimizer states, activations,
//   buffers, batches), not the process's code, MPI's buffers, glibc's free lists or the
//   dataset's raw bytes, which the resident set (VmHWM) mixes in; the alternatives measured at
//   the same time are compared in docs/sharding.md. Installed before the first tensor is made;
//   LibTorch 2.3 changed the allocator interface, and there (and wherever another allocator was
//   installed first) the CPU meter reports nothing.
#pragma once

#include <cstdint>
#include <optional>

namespace vitsim::trainer {

// Installs the counting CPU allocator (once per process; later calls do nothing). Returns whether
// CPU tensors are counted.
bool install_tensor_memory_counter();

// Resets the peak to the bytes alive now, on `device_index` for a CUDA device (-1: the CPU).
void reset_peak_tensor_bytes(int device_index);
// The peak since the last reset; nothing where it is not measured.
std::optional<double> peak_tensor_bytes(int device_index);
// Bytes of CPU tensors alive now (0 where not counted).
double live_cpu_tensor_bytes();

}  // namespace vitsim::trainer
