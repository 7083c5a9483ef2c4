// Turning LibTorch's autocast on and off, the same way on every LibTorch vitsim-train builds with.
// LibTorch 2.4 replaced the per-device calls (set_enabled, set_cpu_enabled, set_autocast_gpu_dtype,
// set_autocast_cpu_dtype) by calls that take the device type; from then on the old ones print a
// deprecation warning on every call (each layer of every step here), and releases after 2.5 may
// drop them. Debian's LibTorch 1.13 has only the old ones. Nothing else differs: which operations
// autocast casts, and to what, is LibTorch's (docs/trainer.md).
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <optional>

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define VITSIM_AUTOCAST_TAKES_DEVICE_TYPE 1
#endif

namespace vitsim::trainer {

// Autocast to `dtype` (bf16 or fp16) for operations on `device` (CPU or CUDA), this thread.
inline void autocast_on(c10::DeviceType device, at::ScalarType dtype) {
#ifdef VITSIM_AUTOCAST_TAKES_DEVICE_TYPE
  at::autocast::set_autocast_enabled(device, true);
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_enabled(true);
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

// The dtype CPU autocast casts to on this thread, or nothing when it is off.
inline std::optional<at::ScalarType> cpu_autocast_dtype() {
#ifdef VITSIM_AUTOCAST_TAKES_DEVICE_TYPE
  if (!at::autocast::is_autocast_enabled(c10::DeviceType::CPU)) return std::nullopt;
  return at::autocast::get_autocast_dtype(c10::DeviceType::CPU);
#else
  if (!at::autocast::is_cpu_enabled()) return std::nullopt;
  return at::autocast::get_autocast_cpu_dtype();
#endif
}

// The dtype CUDA autocast casts to on this thread, or nothing when it is off.
inline std::optional<at::ScalarType> cuda_autocast_dtype() {
#ifdef VITSIM_AUTOCAST_TAKES_DEVICE_TYPE
  if (!at::autocast::is_autocast_enabled(c10::DeviceType::CUDA)) return std::nullopt;
  return at::autocast::get_autocast_dtype(c10::DeviceType::CUDA);
#else
  if (!at::autocast::is_enabled()) return std::nullopt;
  return at::autocast::get_autocast_gpu_dtype();
#endif
}

// Autocast off for CPU and CUDA, and the casts it cached dropped.
inline void autocast_off() {
#ifdef VITSIM_AUTOCAST_TAKES_DEVICE_TYPE
  at::autocast::set_autocast_enabled(c10::DeviceType::CPU, false);
  at::autocast::set_autocast_enabled(c10::DeviceType::CUDA, false);
#else
  at::autocast::set_cpu_enabled(false);
  at::autocast::set_enabled(false);
#endif
  at::autocast::clear_cache();
}

}  // namespace vitsim::trainer
