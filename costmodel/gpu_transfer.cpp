// The kernel-class transfer's arithmetic (see gpu_transfer.h, docs/cost-model.md section 4).
#include "costmodel/gpu_transfer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vitsim::costmodel {

double wave_factor(int64_t tiles, int64_t sms) {
  if (sms <= 0 || tiles <= sms) return 1.0;
  const double w = static_cast<double>(tiles) / static_cast<double>(sms);
  return std::ceil(w) / w;
}

namespace {

// The tiles of the tiling the library is taken to pick: 128 x 128, or 128 x 64 where that loses
// less to the last wave.
int64_t gemm_tiles(int64_t rows, int64_t cols, int64_t sms) {
  const int64_t r = (rows + kGemmTileRows - 1) / kGemmTileRows;
  const int64_t wide = r * ((cols + kGemmTileCols - 1) / kGemmTileCols);
  const int64_t narrow = r * ((cols + kGemmTileCols / 2 - 1) / (kGemmTileCols / 2));
  return wave_factor(wide, sms) <= wave_factor(narrow, sms) ? wide : narrow;
}

}  // namespace

double gemm_wave_factor(int64_t rows, int64_t cols, int64_t sms) {
  return wave_factor(gemm_tiles(rows, cols, sms), sms);
}

int64_t waves(int64_t tiles, int64_t sms) {
  if (sms <= 0 || tiles <= sms) return 1;
  return (tiles + sms - 1) / sms;
}

int64_t gemm_waves(int64_t rows, int64_t cols, int64_t sms) {
  return waves(gemm_tiles(rows, cols, sms), sms);
}

KernelWay balanced_gemm(double flop, double bytes, int64_t rows, int64_t cols,
                        const DeviceSpec& spec, double peak_flop_per_s) {
  const int64_t tiles =
      ((rows + kGemmTileRows - 1) / kGemmTileRows) * ((cols + kGemmTileCols - 1) / kGemmTileCols);
  const double sms = static_cast<double>(spec.sm_count);
  constexpr double kFp32TileBytes = kGemmTileRows * kGemmTileCols * 4.0;
  KernelWay w;
  w.matrix_s = flop / peak_flop_per_s;
  w.memory_s = (bytes + 2 * sms * kFp32TileBytes) / spec.memory_bandwidth_bytes_per_s;
  w.tile_s_per_cycle =
      spec.boost_clock_hz > 0
          ? static_cast<double>(waves(tiles, spec.sm_count) + 1) / spec.boost_clock_hz
          : 0.0;
  return w;
}

Regime attention_regime(Regime regime) {
  return regime == Regime::kTf32 ? Regime::kFp32 : regime;
}

PassLoad pass_load(const std::vector<Kernel>& kernels, const DeviceSpec& spec, Regime regime) {
  const double peak = spec.matrix_peak_flop_per_s(regime);
  const Regime attention = attention_regime(regime);
  const double attention_peak = spec.matrix_peak_flop_per_s(attention);
  const double bandwidth = spec.memory_bandwidth_bytes_per_s;
  if (!(peak > 0) || !(attention_peak > 0) || !(bandwidth > 0)) {
    throw std::invalid_argument("device " + spec.id + " has no datasheet peak or bandwidth for " +
                                to_string(regime));
  }
  PassLoad load;
  const double per_cycle = spec.boost_clock_hz > 0 ? 1.0 / spec.boost_clock_hz : 0.0;
  for (const auto& k : kernels) {
    KernelLoad l;
    l.memory_s = k.bytes / bandwidth;
    if (k.cls == KernelClass::kMatrix) {
      const double wave = gemm_wave_factor(k.rows, k.cols, spec.sm_count);
      l.matrix_s = k.flop * wave / peak;
      l.tensor = spec.tensor_math(regime);
      l.tile_s_per_cycle =
          static_cast<double>(gemm_waves(k.rows, k.cols, spec.sm_count)) * per_cycle;
      if (wave > 1.0) l.balanced = balanced_gemm(k.flop, k.bytes, k.rows, k.cols, spec, peak);
    } else if (k.cls == KernelClass::kAttention) {
      l.matrix_s = k.flop * wave_factor(k.blocks, spec.sm_count) / attention_peak;
      l.tensor = spec.tensor_math(attention);
      l.tile_s_per_cycle = static_cast<double>(waves(k.blocks, spec.sm_count)) * per_cycle;
    }
    load.kernels.push_back(l);
  }
  return load;
}

PassTime pass_time(const PassLoad& load, const TransferParams& p) {
  auto way_s = [&](const KernelWay& k, bool tensor) {
    const double eta = tensor ? p.tensor_matrix_efficiency : p.fp32_matrix_efficiency;
    const double matrix_s =
        k.matrix_s > 0 ? k.matrix_s / eta + k.tile_s_per_cycle * p.tile_overhead_cycles : 0.0;
    return std::max(matrix_s, k.memory_s / p.memory_efficiency);
  };
  PassTime t;
  for (const auto& k : load.kernels)
    t.gpu_s += k.balanced ? std::min(way_s(k, k.tensor), way_s(*k.balanced, k.tensor))
                          : way_s(k, k.tensor);
  t.dispatch_s = load.launches() * p.launch_s;
  return t;
}

double optimizer_time_s(double parameters, double bytes_per_parameter, const DeviceSpec& spec,
                        const TransferParams& p) {
  return parameters * bytes_per_parameter /
         (p.optimizer_efficiency * spec.memory_bandwidth_bytes_per_s);
}

}  // namespace vitsim::costmodel
