// The kernel-class transfer fitted on every GPU with evidence at once (docs/cost-model.md,
// section 4, "All GPU evidence in one fit"):
//   - the optimizer efficiency from the optimizer steps measured apart (profiles, DeepSpeed's
//     `step` timer): eta_opt = bytes / (bandwidth x time), the geometric mean per GPU, every GPU
//     one vote;
//   - the two matrix efficiencies, the memory efficiency and the launch cost by Nelder-Mead on
//     the squared log errors of the rows' model times, each GPU one vote, split evenly over its
//     sources (profiles, timm training, timm inference) and within a source over its rows; a
//     row timed apart in forward and backward compares both, a total-only row its total;
//   - a weak prior on the launch cost (kLaunchPriorS within a factor kLaunchPriorSpread, worth
//     kLaunchPriorWeight of one GPU's vote: a tie-breaker, not a pull): only a GPU whose passes
//     are dispatch-bound at small micro-batches measures it (the shipped H100); without such a
//     GPU nothing else decides it, and it is the prior.
//   - the tiles' fixed cost c_tile (gpu_transfer.h) fitted with them, under a weak prior of the
//     same kind (kTileOverheadPriorCycles): only GPUs whose SMs multiply fast (the H100, H200,
//     A100) see it, and without one of them it is the prior.
// Every GPU runs at its sustained matrix rates (sustained_rates.h: large torch.mm throughput of
// its own, of its same-chip siblings or of its architecture class, against the datasheet), so
// the efficiencies are what ViT's GEMMs in eager PyTorch reach of those rates; the kGemm rows
// set the rates and are no rows of the objective.
// No efficiency may exceed 1 (they are fitted in logit space).
#pragma once

#include <string>
#include <vector>

#include "calibrate/gpu_evidence.h"
#include "calibrate/sustained_rates.h"
#include "costmodel/device_spec.h"
#include "costmodel/gpu_transfer.h"

namespace vitsim::calibrate {

// First-principles launch cost: a CUDA kernel launch costs ~5 us of host time and PyTorch's
// eager dispatcher adds a few more per operator (docs/cost-model.md section 4 cites both).
inline constexpr double kLaunchPriorS = 10e-6;
inline constexpr double kLaunchPriorSpread = 3.0;  // one sigma: a factor of 3 either way
// A ten-thousandth of one GPU's vote: a tie-breaker that keeps the cost finite where no row is
// dispatch-bound, never a pull against rows that measure it (docs/cost-model.md section 4).
inline constexpr double kLaunchPriorWeight = 1e-4;
// First-principles tile cost: before its first product a GEMM tile waits one trip to device
// memory through the operand pipeline (~500-700 cycles on Volta to Hopper, Jia et al.'s
// microbenchmarks), after its last it writes 128 x 128 results, 32-64 KB, at ~64 B per cycle
// and SM (~500-1000 cycles): ~1000 cycles, within a factor of 3, with the launch prior's weight.
inline constexpr double kTileOverheadPriorCycles = 1000.0;
inline constexpr double kTileOverheadPriorSpread = 3.0;

// The model's times of one evidence row (its kernels' loads precomputed: a fit re-evaluates them
// hundreds of times).
class EvidenceModel {
 public:
  EvidenceModel(const GpuEvidence& row, const costmodel::DeviceSpec& spec);
  double forward_s(const costmodel::TransferParams& p) const;
  double backward_s(const costmodel::TransferParams& p) const;
  double optimizer_s(const costmodel::TransferParams& p) const;
  // forward + backward + optimizer for training rows, the forward for forward-only rows.
  double total_s(const costmodel::TransferParams& p) const;

 private:
  struct Pass {
    costmodel::PassLoad load;
    double count = 1;  // identical layers (the encoder blocks)
  };
  double sum(const std::vector<Pass>& passes, const costmodel::TransferParams& p) const;
  std::vector<Pass> forward_, backward_;
  double parameters_ = 0;
  double optimizer_bytes_ = 0;
  bool training_ = true;
  costmodel::DeviceSpec spec_;
};

struct TransferFit {
  costmodel::TransferParams params;
  SustainedRates rates;                // from the kGemm rows: the specs the params apply to
  std::vector<std::string> fitted_on;  // GPUs with evidence, in id order
  int rows = 0;
  double objective = 0;
};

// "eta_fp32 0.502, eta_tensor 1.000, eta_mem 0.608, launch 28.0 us, tile 1000 cycles, eta_opt
// 0.334": the fitted parameters as every report prints them.
std::string params_text(const costmodel::TransferParams& p);

// Throws std::invalid_argument without step rows, or for a row whose GPU the catalog lacks.
TransferFit fit_transfer(const std::vector<GpuEvidence>& rows,
                         const costmodel::DeviceCatalog& catalog);

}  // namespace vitsim::calibrate
