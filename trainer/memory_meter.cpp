// Peak tensor memory: a counting CPU allocator, the CUDA allocator's statistics (memory_meter.h).
#include "trainer/memory_meter.h"

#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/version.h>

#include <atomic>
#include <mutex>

#ifdef VITSIM_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 3)
#define VITSIM_COUNTING_CPU_ALLOCATOR 1
#endif

namespace vitsim::trainer {
namespace {

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};
std::atomic<bool> g_counting{false};

#ifdef VITSIM_COUNTING_CPU_ALLOCATOR
// Each block carries its size in a header as long as the alignment LibTorch's CPU allocator
// gives (64 bytes), so the data stays as aligned as LibTorch's own and the deleter knows what to
// subtract from the data pointer alone.
constexpr size_t kHeaderBytes = 64;

void count(int64_t bytes) {
  const int64_t now = g_live.fetch_add(bytes) + bytes;
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

void release_counted(void* data) {
  if (data == nullptr) return;
  char* base = static_cast<char*>(data) - kHeaderBytes;
  const int64_t bytes = *reinterpret_cast<int64_t*>(base);
  g_live.fetch_sub(bytes);
  c10::free_cpu(base);
}

class CountingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) const override {
    char* base = static_cast<char*>(c10::alloc_cpu(bytes + kHeaderBytes));
    *reinterpret_cast<int64_t*>(base) = static_cast<int64_t>(bytes);
    count(static_cast<int64_t>(bytes));
    void* data = base + kHeaderBytes;
    return {data, data, &release_counted, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release_counted; }
};
#endif

}  // namespace

bool install_tensor_memory_counter() {
#ifdef VITSIM_COUNTING_CPU_ALLOCATOR
  static std::once_flag once;
  std::call_once(once, [] {
    static CountingCpuAllocator allocator;
    // Priority above LibTorch's default registration (0): ours wins, later defaults do not.
    c10::SetCPUAllocator(&allocator, /*priority=*/1);
    g_counting = c10::GetCPUAllocator() == &allocator;
  });
#endif
  return g_counting.load();
}

void reset_peak_tensor_bytes(int device_index) {
#ifdef VITSIM_HAVE_CUDA
  if (device_index >= 0) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device_index));
    return;
  }
#endif
  if (device_index < 0) g_peak.store(g_live.load());
}

std::optional<double> peak_tensor_bytes(int device_index) {
#ifdef VITSIM_HAVE_CUDA
  if (device_index >= 0) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(
        static_cast<c10::DeviceIndex>(device_index));
    return static_cast<double>(stats.allocated_bytes[0].peak);  // [0]: all pools
  }
#endif
  if (device_index >= 0 || !g_counting.load()) return std::nullopt;
  return static_cast<double>(g_peak.load());
}

double live_cpu_tensor_bytes() {
  return g_counting.load() ? static_cast<double>(g_live.load()) : 0.0;
}

}  // namespace vitsim::trainer
