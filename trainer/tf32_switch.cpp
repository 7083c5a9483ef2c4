// LibTorch's TF32 switches, refused where the device has no TF32 (see tf32_switch.h).
#include "trainer/tf32_switch.h"

#include <ATen/Context.h>

#include <stdexcept>

#ifdef VITSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace vitsim::trainer {

std::string tf32_refusal(const std::string& device, int major, int minor) {
  if (device != "cuda") {
    return "--precision tf32 needs --device cuda: TF32 is a mode of NVIDIA's tensor cores "
           "(Ampere and later), not of a CPU";
  }
  if (major < 8) {
    return "--precision tf32: this GPU (compute capability " + std::to_string(major) + "." +
           std::to_string(minor) +
           ") has no TF32 tensor cores (Ampere, compute capability 8.0, is the first): use fp32, "
           "or amp-fp16 on its tensor cores";
  }
  return "";
}

void enable_tf32(const std::string& device) {
  int major = 0, minor = 0;
#ifdef VITSIM_HAVE_CUDA
  int index = 0;
  cudaDeviceProp props{};
  if (device == "cuda" && cudaGetDevice(&index) == cudaSuccess &&
      cudaGetDeviceProperties(&props, index) == cudaSuccess) {
    major = props.major;
    minor = props.minor;
  }
#endif
  const std::string why = tf32_refusal(device, major, minor);
  if (!why.empty()) throw std::invalid_argument(why);
  at::globalContext().setAllowTF32CuBLAS(true);
  at::globalContext().setAllowTF32CuDNN(true);
}

}  // namespace vitsim::trainer
