// The kernel-class transfer: the time of a layer pass on a GPU from the GPU's own features
// (docs/cost-model.md, section 4). Per kernel of the inventory (kernel_inventory.h), a roofline of
// its class:
//   matrix     max(FLOP x wave(rows, cols, SMs) / (eta_mat x peak) + waves x c_tile / clock,
//                  bytes / (eta_mem x bandwidth))
//   attention  max(FLOP x wave(blocks, SMs) / (eta_mat x peak) + waves x c_tile / clock,
//                  bytes / (eta_mem x bandwidth))
//   memory     bytes / (eta_mem x bandwidth)
// with peak the regime's matrix peak (tensor cores for fp16/bf16/tf32 where the datasheet has
// them, else the fp32 units; in tf32 the fused attention keeps fp32's kernel: allow_tf32 switches
// cuBLAS and cuDNN only) and eta_mat that unit's efficiency; c_tile the cycles each wave of output
// tiles spends outside its multiply-accumulate loop (filling the operand pipeline before the
// first product, writing the tile after the last), at the datasheet's boost clock: a fixed cost
// per tile that is small where an SM's matrix units are slow (a GeForce card's 512 FP32-accumulate
// FLOP per SM and clock) and large where they are fast (an H100's 4,096); the kernels run one
// after the other:
//   gpu(pass) = sum over its kernels
// and the host dispatches them one by one, so a pass cannot be faster than its launches:
//   t(pass) = max(gpu(pass), kernels x launch_s)
// The optimizer step is memory traffic: parameters x bytes per parameter / (eta_opt x bandwidth).
// Pure arithmetic, no I/O; the efficiencies and the launch cost are fitted in calibrate/.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "costmodel/device_spec.h"
#include "costmodel/kernel_inventory.h"

namespace vitsim::costmodel {

struct TransferParams {
  double fp32_matrix_efficiency = 0;    // achieved / fp32 peak of GEMMs on the fp32 units
  double tensor_matrix_efficiency = 0;  // achieved / tensor peak of 16-bit GEMMs (fp16 and bf16)
  double memory_efficiency = 0;         // achieved / memory bandwidth of memory-bound kernels
  double launch_s = 0;                  // host-side dispatch of one kernel launch
  double optimizer_efficiency = 0;      // achieved / memory bandwidth of the optimizer step
  double tile_overhead_cycles = 0;      // SM cycles per wave of output tiles outside the MMA loop
};

// Output tiles of a GEMM's grid (kGemmTileRows x kGemmTileCols) and the alternative with half as
// wide tiles: the library is taken to pick whichever loses less to the last, partly filled wave.
inline constexpr int64_t kGemmTileRows = 128;
inline constexpr int64_t kGemmTileCols = 128;

// ceil(w) / w with w = tiles / sms: the work of the last wave's idle SMs, >= 1. A grid with fewer
// tiles than SMs is 1 (the library splits the reduction dimension to fill the GPU). 1 when sms is
// unknown (0).
double wave_factor(int64_t tiles, int64_t sms);
// The smaller wave factor of a rows x cols output in 128 x 128 or 128 x 64 tiles.
double gemm_wave_factor(int64_t rows, int64_t cols, int64_t sms);
// ceil(tiles / sms): waves of a grid (1 with fewer tiles than SMs, or SMs unknown).
int64_t waves(int64_t tiles, int64_t sms);
// The waves of the tiling gemm_wave_factor picks.
int64_t gemm_waves(int64_t rows, int64_t cols, int64_t sms);

// One way to run a kernel, reduced to its times at efficiency 1 on one device: the matrix time
// (0 for a memory kernel) and the memory time, so that a fit can re-evaluate it cheaply.
struct KernelWay {
  double matrix_s = 0;          // FLOP x wave factor / peak
  double memory_s = 0;          // bytes / bandwidth
  double tile_s_per_cycle = 0;  // waves / clock: x c_tile is the tiles' fixed cost (0 if no clock)
};
// A kernel: its tiled way, and for a GEMM whose tiles leave the last wave partly idle the
// balanced way (stream-K): the library is taken to run whichever is faster (pass_time).
struct KernelLoad : KernelWay {
  std::optional<KernelWay> balanced;
  bool tensor = false;  // matrix work on tensor cores (tensor_matrix_efficiency applies)
};
// Stream-K (Osama et al., PPoPP'23; cuBLAS 12 and CUTLASS 3 on Hopper): the GEMM's multiply-add
// iterations are divided evenly over the SMs, each SM running a contiguous range that spans whole
// and partial tiles, so no SM idles in a last wave. Each SM pays the tile cost once per tile it
// touches, ceil(tiles / SMs) + 1 at most, and a partial tile is written by one SM and read back
// by the one that finishes it, in fp32: at most 2 x SMs x a 128 x 128 fp32 tile of traffic.
KernelWay balanced_gemm(double flop, double bytes, int64_t rows, int64_t cols,
                        const DeviceSpec& spec, double peak_flop_per_s);
struct PassLoad {
  std::vector<KernelLoad> kernels;
  double launches() const { return static_cast<double>(kernels.size()); }
};
PassLoad pass_load(const std::vector<Kernel>& kernels, const DeviceSpec& spec, Regime regime);
// The regime whose matrix units the fused attention runs on: tf32's attention is fp32's
// (PyTorch's scaled_dot_product_attention picks its kernel by dtype; allow_tf32 does not reach
// it), every other regime's its own.
Regime attention_regime(Regime regime);

struct PassTime {
  double gpu_s = 0;       // the kernels, one after the other
  double dispatch_s = 0;  // kernels x launch_s
  double time_s() const { return gpu_s > dispatch_s ? gpu_s : dispatch_s; }
};
PassTime pass_time(const PassLoad& load, const TransferParams& params);

// parameters x bytes_per_parameter / (optimizer_efficiency x bandwidth).
double optimizer_time_s(double parameters, double bytes_per_parameter, const DeviceSpec& spec,
                        const TransferParams& params);

// Bytes per parameter of one SGD step with momentum in fp32 (timm's benchmark optimizer): reads
// weight, gradient and momentum, writes weight and momentum.
inline constexpr double kSgdMomentumStepBytesPerParameter = 5 * 4;

}  // namespace vitsim::costmodel
