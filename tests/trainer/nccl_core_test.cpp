// Tests of the Torch-free NCCL core (trainer/nccl_core.h) on a real device: a 1-rank all-reduce
// (in-place sum of fp32 and bf16, as the trainer's buckets), broadcast, reduce-scatter and
// all-gather in this process, and a
// 2-rank job under mpirun (nccl_core_mpi_check). Without a CUDA device (no driver, no GPU) every
// test that needs one skips with "no CUDA device: ..."; the binary itself must load without
// libcuda.
#include "trainer/nccl_core.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_consent.h"  // tests/support/

namespace vitsim::trainer {
namespace nccl_core_test {
namespace {

#define SKIP_WITHOUT_DEVICES(n)                                                     \
  do {                                                                              \
    std::string why_;                                                               \
    const int count_ = cuda_device_count(&why_);                                    \
    if (count_ < 1) GTEST_SKIP() << "no CUDA device: " << why_;                     \
    if (count_ < (n))                                                               \
      GTEST_SKIP() << "needs " << (n) << " CUDA devices (NCCL allows one rank per " \
                   << "device), found " << count_;                                  \
  } while (0)

// Device copy of a host vector, freed on scope exit.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host) : count_(host.size()) {
    VITSIM_CUDA_CHECK(cudaMalloc(&data_, count_ * sizeof(T)));
    VITSIM_CUDA_CHECK(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
    // From pageable memory cudaMemcpy may return before the DMA has landed, and the tests' stream
    // is non-blocking (no implicit order after the legacy stream): wait, so no collective races
    // the copy.
    VITSIM_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() { return static_cast<T*>(data_); }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    VITSIM_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  void* data_ = nullptr;
  size_t count_;
};

// Equal bit for bit; on failure names the first element that differs (gtest prints only 32).
template <typename T>
::testing::AssertionResult same_elements(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " elements, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i]))
      return ::testing::AssertionFailure() << "element " << i << " of " << got.size() << " is "
                                           << +got[i] << ", expected " << +want[i];
  }
  return ::testing::AssertionSuccess();
}

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 1000) - 3.5f;
  return v;
}

TEST(NcclCore, DeviceCountNeverThrows) {
  std::string why;
  const int count = cuda_device_count(&why);
  EXPECT_GE(count, 0);
  if (count == 0) {
    EXPECT_NE(why.find("cudaGetDeviceCount"), std::string::npos) << why;
    // Without a device, choosing one is an error that says why and what to check.
    try {
      device_for_local_rank(0);
      FAIL() << "device_for_local_rank succeeded without a device";
    } catch (const NcclError& e) {
      EXPECT_NE(std::string(e.what()).find("hint: check nvidia-smi"), std::string::npos);
    }
  } else {
    EXPECT_EQ(device_for_local_rank(count + 1), 1 % count);
  }
}

TEST(NcclCore, TypeSizes) {
  EXPECT_EQ(nccl_type_size_bytes(ncclFloat32), 4u);
  EXPECT_EQ(nccl_type_size_bytes(ncclBfloat16), 2u);
  EXPECT_EQ(nccl_type_size_bytes(ncclFloat16), 2u);
  EXPECT_EQ(nccl_type_size_bytes(ncclInt64), 8u);
}

TEST(NcclCore, OneRankAllReduceAndBroadcastOnDevice) {
  SKIP_WITHOUT_DEVICES(1);
  ncclUniqueId id;
  VITSIM_NCCL_CHECK(ncclGetUniqueId(&id));
  NcclCore core(id, /*size=*/1, /*rank=*/0, /*device=*/0);
  EXPECT_EQ(core.rank(), 0);
  EXPECT_EQ(core.size(), 1);
  cudaStream_t stream = nullptr;
  VITSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // 1M + 3 elements: more than one NCCL chunk, and not a multiple of any vector width. In place,
  // as the trainer reduces its gradient buckets: fp32, and bf16 (the ds-bf16 wire; bf16 values
  // are the upper halves of fp32 ones).
  const size_t n = (1u << 20) + 3;
  const std::vector<float> input = ramp(n, 0.25f);
  std::vector<uint16_t> input_bf16(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, &input[i], sizeof bits);
    input_bf16[i] = static_cast<uint16_t>(bits >> 16);
  }
  DeviceArray<float> fp32(input);
  DeviceArray<uint16_t> bf16(input_bf16);
  CudaEventTimer timer;
  timer.start(stream);
  core.all_reduce_sum(fp32.get(), fp32.get(), n, ncclFloat32, stream);
  core.all_reduce_sum(bf16.get(), bf16.get(), n, ncclBfloat16, stream);
  timer.stop(stream);
  EXPECT_GT(timer.elapsed_s(), 0.0);
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  // One rank: the sum is the input itself, bit for bit.
  EXPECT_TRUE(same_elements(fp32.to_host(), input)) << "fp32 sum";
  EXPECT_TRUE(same_elements(bf16.to_host(), input_bf16)) << "bf16 sum";

  // Broadcast out of place, then in place (as the trainer sends its initial parameters).
  DeviceArray<float> dst(std::vector<float>(n, 0.0f));
  core.broadcast(fp32.get(), dst.get(), n, ncclFloat32, /*root=*/0, stream);
  core.broadcast(dst.get(), dst.get(), n, ncclFloat32, /*root=*/0, stream);
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_TRUE(same_elements(dst.to_host(), input)) << "broadcast";
  EXPECT_THROW(core.broadcast(fp32.get(), dst.get(), n, ncclFloat32, 1, stream), NcclError);

  // ZeRO's collectives at one rank: the reduce-scatter's one block is the input (bf16 too), the
  // all-gather's whole buffer the one block, out of place and in place.
  DeviceArray<float> block(std::vector<float>(n, 0.0f));
  core.reduce_scatter_sum(fp32.get(), block.get(), n, ncclFloat32, stream);
  DeviceArray<uint16_t> block_bf16(std::vector<uint16_t>(n, 0));
  core.reduce_scatter_sum(bf16.get(), block_bf16.get(), n, ncclBfloat16, stream);
  DeviceArray<float> whole(std::vector<float>(n, 0.0f));
  core.all_gather(block.get(), whole.get(), n, ncclFloat32, stream);
  core.all_gather(whole.get(), whole.get(), n, ncclFloat32, stream);
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_TRUE(same_elements(block.to_host(), input)) << "reduce-scatter";
  EXPECT_TRUE(same_elements(block_bf16.to_host(), input_bf16)) << "bf16 reduce-scatter";
  EXPECT_TRUE(same_elements(whole.to_host(), input)) << "all-gather";
  VITSIM_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(NcclCore, TwoRanksUnderMpirun) {
  SKIP_WITHOUT_DEVICES(2);
  const std::string cmd = vitsim::test::mpi_root_consent() +
                          "timeout 120 " VITSIM_MPIRUN
                          " --oversubscribe -np 2 " VITSIM_NCCL_MPI_CHECK_EXE " 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
}

}  // namespace
}  // namespace nccl_core_test
}  // namespace vitsim::trainer
