// The kernel-class transfer's arithmetic (costmodel/gpu_transfer.h) by hand: wave quantization,
// the per-kernel roofline, the dispatch floor, fp16 and bf16 alike where the peaks are.
#include "costmodel/gpu_transfer.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace gpu_transfer_test {
namespace {

DeviceSpec gpu(int64_t sms) {
  DeviceSpec d;
  d.id = "test-gpu";
  d.fp32_peak_flop_per_s = 10e12;
  d.fp16_tensor_peak_flop_per_s = 100e12;
  d.bf16_tensor_peak_flop_per_s = 100e12;
  d.memory_bandwidth_bytes_per_s = 1e12;
  d.sm_count = sms;
  return d;
}

TEST(GpuTransfer, WaveFactor) {
  EXPECT_DOUBLE_EQ(wave_factor(100, 132), 1.0);  // fewer tiles than SMs: split along K
  EXPECT_DOUBLE_EQ(wave_factor(264, 132), 1.0);  // two full waves
  EXPECT_DOUBLE_EQ(wave_factor(150, 132), 264.0 / 150.0);
  EXPECT_DOUBLE_EQ(wave_factor(150, 0), 1.0);  // SMs unknown
  // 3152 x 768 (ViT-B/16's out_proj at micro-batch 16): 25 x 6 = 150 tiles of 128 x 128 (1.76),
  // 25 x 12 = 300 of 128 x 64 (396 / 300 = 1.32): the smaller.
  EXPECT_DOUBLE_EQ(gemm_wave_factor(3152, 768, 132), 396.0 / 300.0);
}

TEST(GpuTransfer, PassTimeIsTheKernelsOrTheirLaunches) {
  TransferParams p;
  p.fp32_matrix_efficiency = 0.5;
  p.tensor_matrix_efficiency = 0.8;
  p.memory_efficiency = 0.5;
  p.launch_s = 10e-6;
  Kernel gemm{KernelClass::kMatrix, "g", 8e9, 1e6, 128, 128};  // one tile: no wave loss
  Kernel ew{KernelClass::kMemory, "e", 0, 2e9};
  const DeviceSpec d = gpu(132);
  // fp32: 8e9 / (0.5 x 10e12) = 1.6 ms; memory 2e9 / (0.5 x 1e12) = 4 ms.
  PassTime t = pass_time(pass_load({gemm, ew}, d, Regime::kFp32), p);
  EXPECT_NEAR(t.gpu_s, 1.6e-3 + 4e-3, 1e-12);
  EXPECT_NEAR(t.dispatch_s, 20e-6, 1e-15);
  // bf16: the GEMM on tensor cores, 8e9 / (0.8 x 100e12) = 0.1 ms, above its 2 us of memory.
  t = pass_time(pass_load({gemm, ew}, d, Regime::kAmpBf16), p);
  EXPECT_NEAR(t.gpu_s, 0.1e-3 + 4e-3, 1e-12);
  // A short pass is its launches.
  p.launch_s = 5e-3;
  EXPECT_NEAR(pass_time(pass_load({gemm, ew}, d, Regime::kAmpBf16), p).time_s(), 10e-3, 1e-12);
  // The same tensor peak for fp16 and bf16 gives the same time.
  EXPECT_EQ(pass_time(pass_load({gemm, ew}, d, Regime::kAmpFp16), p).gpu_s,
            pass_time(pass_load({gemm, ew}, d, Regime::kAmpBf16), p).gpu_s);
}

// tf32: the GEMMs on the TF32 tensor peak at the tensor efficiency; the fused attention keeps
// fp32's kernel (allow_tf32 switches cuBLAS and cuDNN, not scaled_dot_product_attention); a GPU
// without TF32 does not support the regime.
TEST(GpuTransfer, Tf32RunsTheGemmsOnTensorCoresAndTheAttentionAsFp32) {
  TransferParams p;
  p.fp32_matrix_efficiency = 0.5;
  p.tensor_matrix_efficiency = 0.8;
  p.memory_efficiency = 1.0;
  DeviceSpec d = gpu(132);
  d.tf32_tensor_peak_flop_per_s = 50e12;
  Kernel gemm{KernelClass::kMatrix, "g", 8e9, 1e3, 128, 128};
  Kernel attention{KernelClass::kAttention, "a", 8e9, 1e3, 0, 0, 100};
  // GEMM: 8e9 / (0.8 x 50e12) = 0.2 ms; attention as fp32: 8e9 / (0.5 x 10e12) = 1.6 ms.
  EXPECT_NEAR(pass_time(pass_load({gemm}, d, Regime::kTf32), p).gpu_s, 0.2e-3, 1e-12);
  EXPECT_NEAR(pass_time(pass_load({attention}, d, Regime::kTf32), p).gpu_s, 1.6e-3, 1e-12);
  EXPECT_EQ(pass_time(pass_load({attention}, d, Regime::kTf32), p).gpu_s,
            pass_time(pass_load({attention}, d, Regime::kFp32), p).gpu_s);
  EXPECT_EQ(attention_regime(Regime::kTf32), Regime::kFp32);
  EXPECT_EQ(attention_regime(Regime::kAmpBf16), Regime::kAmpBf16);
  d.tf32_tensor_peak_flop_per_s = 0;  // a T4, a V100: no TF32
  EXPECT_FALSE(d.supports(Regime::kTf32));
  EXPECT_THROW(pass_load({gemm}, d, Regime::kTf32), std::invalid_argument);
}

TEST(GpuTransfer, EachWaveOfTilesPaysItsFixedCyclesAtTheBoostClock) {
  TransferParams p;
  p.fp32_matrix_efficiency = 0.5;
  p.tensor_matrix_efficiency = 1.0;
  p.memory_efficiency = 1.0;
  p.tile_overhead_cycles = 1000;
  DeviceSpec d = gpu(4);
  d.boost_clock_hz = 1e9;
  // 1024 x 1024 output: 64 tiles of 128 x 128 on 4 SMs, 16 full waves (wave factor 1).
  EXPECT_EQ(gemm_waves(1024, 1024, 4), 16);
  EXPECT_EQ(waves(3, 4), 1);  // fewer tiles than SMs: one wave (split along K)
  Kernel gemm{KernelClass::kMatrix, "g", 1e9, 1e3, 1024, 1024};
  // bf16: 1e9 / 100e12 = 10 us of products + 16 waves x 1000 cycles / 1 GHz = 16 us.
  EXPECT_NEAR(pass_time(pass_load({gemm}, d, Regime::kAmpBf16), p).gpu_s, 10e-6 + 16e-6, 1e-15);
  // The same fixed cost on the fp32 units: 1e9 / (0.5 x 10e12) = 200 us + 16 us.
  EXPECT_NEAR(pass_time(pass_load({gemm}, d, Regime::kFp32), p).gpu_s, 200e-6 + 16e-6, 1e-15);
  // Without a clock in the catalog the term is 0; a memory kernel never pays it.
  d.boost_clock_hz = 0;
  EXPECT_NEAR(pass_time(pass_load({gemm}, d, Regime::kAmpBf16), p).gpu_s, 10e-6, 1e-15);
  Kernel ew{KernelClass::kMemory, "e", 0, 1e6};
  d.boost_clock_hz = 1e9;
  EXPECT_NEAR(pass_time(pass_load({ew}, d, Regime::kAmpBf16), p).gpu_s, 1e-6, 1e-15);
}

// A GEMM whose tiles leave the last wave partly idle may run balanced (stream-K): every SM the
// same share of the products, one tile cost per tile it touches (waves + 1), and the partial
// tiles' fp32 traffic; the faster of the two ways counts.
TEST(GpuTransfer, ALastWavesIdleSmsAreBalancedWhenThatIsFaster) {
  TransferParams p;
  p.fp32_matrix_efficiency = 1.0;
  p.tensor_matrix_efficiency = 1.0;
  p.memory_efficiency = 1.0;
  p.tile_overhead_cycles = 1000;
  DeviceSpec d = gpu(4);
  d.boost_clock_hz = 1e9;
  // 640 x 128: 5 tiles of 128 x 128 on 4 SMs (or 10 of 128 x 64): 2 waves for 1.25 (2.5) of
  // work, wave factor 1.6 (1.2 with the narrow tiles, 3 waves).
  EXPECT_DOUBLE_EQ(gemm_wave_factor(640, 128, 4), 1.2);
  Kernel gemm{KernelClass::kMatrix, "g", 1e9, 1e3, 640, 128};
  // Tiled: 1e9 x 1.2 / 100e12 = 12 us + 3 waves x 1 us. Balanced: 10 us + (2 + 1) x 1 us, and
  // 1e3 + 2 x 4 x 64 KiB bytes at 1e12 B/s (0.5 us, below the products).
  const KernelWay b = balanced_gemm(gemm.flop, gemm.bytes, 640, 128, d, 100e12);
  EXPECT_DOUBLE_EQ(b.matrix_s, 10e-6);
  EXPECT_DOUBLE_EQ(b.tile_s_per_cycle, 3e-9);
  EXPECT_DOUBLE_EQ(b.memory_s, (1e3 + 2 * 4 * 128 * 128 * 4.0) / 1e12);
  EXPECT_NEAR(pass_time(pass_load({gemm}, d, Regime::kAmpBf16), p).gpu_s, 10e-6 + 3e-6, 1e-15);
  // Where the extra tile cost outweighs the idle SMs' share, the tiled way stays: 896 x 128 is 7
  // tiles on 4 SMs (wave factor 8/7 either way, 2 waves of 128 x 128), balanced 3 tile costs.
  Kernel seven{KernelClass::kMatrix, "s", 1e9, 1e3, 896, 128};
  p.tile_overhead_cycles = 10000;  // 10 us a tile: tiled 11.4 + 20 us, balanced 10 + 30 us
  EXPECT_NEAR(pass_time(pass_load({seven}, d, Regime::kAmpBf16), p).gpu_s, 10e-6 * 8 / 7 + 20e-6,
              1e-15);
  p.tile_overhead_cycles = 1000;  // 1 us a tile: tiled 11.4 + 2 us, balanced 10 + 3 us
  EXPECT_NEAR(pass_time(pass_load({seven}, d, Regime::kAmpBf16), p).gpu_s, 13e-6, 1e-15);
  // Full waves have nothing to balance: 1024 x 1024 on 4 SMs keeps its 16 waves.
  Kernel full{KernelClass::kMatrix, "f", 1e9, 1e3, 1024, 1024};
  EXPECT_NEAR(pass_time(pass_load({full}, d, Regime::kAmpBf16), p).gpu_s, 10e-6 + 16e-6, 1e-15);
}

TEST(GpuTransfer, OptimizerStepIsMemoryTraffic) {
  TransferParams p;
  p.optimizer_efficiency = 0.25;
  EXPECT_NEAR(optimizer_time_s(1e8, 28, gpu(1), p), 1e8 * 28 / (0.25 * 1e12), 1e-15);
}

}  // namespace
}  // namespace gpu_transfer_test
}  // namespace vitsim::costmodel
