// Every GPU measurement the kernel-class transfer is fitted on, as rows of one kind
// (docs/cost-model.md section 4, "All GPU evidence in one fit"; docs/gpu-transfer.md lists the
// evidence per GPU). A row is one (GPU, regime, micro-batch[, software]) compute time per step:
//   - profiles of GPUs (vitsim-train's per-layer profiles, DeepSpeed logs and compute summaries
//     imported): forward, backward and optimizer measured apart, per micro-batch (several
//     profiles of one micro-batch: the median of each part);
//   - timm's training benchmark rows: forward + backward + SGD step, one number per batch;
//   - timm's inference rows: the forward alone, in eval mode under autocast (the same kernels as
//     a training forward: autocast casts the weights alike, dropout is 0 in ViT-B either way,
//     and keeping activations for backward costs no kernel).
// Only the model's own architecture at its image size is used (vit_base_patch16_224 for
// vit_b_16), eager rows only (torch.compile fuses the memory kernels the inventory counts), and
// only rows whose PyTorch version is known (it decides the attention kernels).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/device_fit.h"
#include "costmodel/device_spec.h"
#include "costmodel/kernel_inventory.h"
#include "costmodel/vit_config.h"
#include "schema/csv_table.h"

namespace vitsim::calibrate {

// kGemm: one large torch.mm's throughput (sustained_rates.h): kernel-level evidence of a GPU's
// matrix units, not a step of the model; the fit reads it as the GPU's sustained rate, no row of
// the fit's objective and none of the leave-one-GPU-out table.
enum class EvidenceKind { kTraining, kForwardOnly, kGemm };
const char* to_string(EvidenceKind k);

struct GpuEvidence {
  std::string gpu;  // catalog id
  costmodel::Regime regime = costmodel::Regime::kFp32;
  int64_t micro_batch = 0;
  costmodel::AttentionImpl attention = costmodel::AttentionImpl::kFused;
  EvidenceKind kind = EvidenceKind::kTraining;
  costmodel::ViTConfig model;
  // Measured apart where the source times them apart (0 = not measured apart).
  double forward_s = 0;
  double backward_s = 0;
  double optimizer_s = 0;
  double total_s = 0;  // the row's time: forward + backward + optimizer, or the forward alone
  double optimizer_bytes_per_parameter = 0;  // of the optimizer the measurement ran
  double gemm_flop_per_s = 0;                // kGemm rows: the product's measured rate
  std::string source;       // "profile", "timm training", "timm inference": what a weight splits
  std::string description;  // where exactly it comes from (file, versions)
};

// A row of a step of the model (training or forward), not a GEMM's throughput.
inline bool is_step(const GpuEvidence& e) {
  return e.kind != EvidenceKind::kGemm;
}

// Rows of every profile group (device, regime) whose device is a GPU of `catalog` (an SM count:
// emulated CPU devices are no GPU evidence). Profiles measured with PyTorch/LibTorch >= 2 (every
// GPU profile shipped: vitsim-train on LibTorch 2.11, the study's DeepSpeed 0.15 on PyTorch 2.x)
// run fused attention.
std::vector<GpuEvidence> evidence_from_profiles(const std::vector<schema::ProfileInput>& profiles,
                                                const costmodel::DeviceCatalog& catalog);

// Rows of a timm benchmark CSV (data/public-benchmarks/timm_{train,infer}_benchmarks.csv; each
// row's source_file says which: benchmark-train-* or benchmark-infer-*) for `model`. Precision
// amp -> amp-fp16, amp_bf16 -> amp-bf16, bf16 (a bf16 model) -> ds-bf16's kernels. GPU names are
// catalog ids or names, or timm's short names (4090, 5090, pro6000maxq). Rows of one (GPU,
// regime, batch, PyTorch version, kind) in both layouts (NCHW, NHWC) are one row at their median.
std::vector<GpuEvidence> evidence_from_timm(const schema::CsvTable& table,
                                            const costmodel::DeviceCatalog& catalog,
                                            const costmodel::ViTConfig& model);

// Rows of AITemplate's PyTorch baseline table (data/public-benchmarks/
// vit_inference_aitemplate_a100.csv: columns gpu, framework, model, mode, batch_size, latency_ms,
// source): an A100 40 GB, timm's VisionTransformer made half precision with `.half()` and run under
// torch.inference_mode (the repository's examples/04_vit/benchmark_pt.py), so the forward of a
// 16-bit model without autocast: ds-fp16's forward kernels; the PyTorch version of `framework`
// decides the attention kernels (1.12: unfused). Its ViT has no class token (196 tokens against
// vit_b_16's 197: 0.5 % fewer FLOP, not corrected). The GPU name says "A100-SXM?-40GB": it is
// taken as a100-sxm4-40gb, whose peak, bandwidth and SMs the PCIe card shares (the model cannot
// tell them apart). One row per (batch, model) of `model`'s architecture.
std::vector<GpuEvidence> evidence_from_aitemplate(const schema::CsvTable& table,
                                                  const costmodel::DeviceCatalog& catalog,
                                                  const costmodel::ViTConfig& model);

// Whether `table` is AITemplate's (it has a latency_ms column; timm's tables have
// samples_per_sec): forward rows only, so no training row for a regime transfer's eta_c.
bool is_aitemplate_table(const schema::CsvTable& table);
// Whether `table` is timm's (a samples_per_sec column): the only kind with training rows.
bool is_timm_table(const schema::CsvTable& table);

// A public table of any kind: AITemplate's, timm's, or a GEMM throughput table
// (sustained_rates.h: is_gemm_table).
std::vector<GpuEvidence> evidence_from_public_table(const schema::CsvTable& table,
                                                    const costmodel::DeviceCatalog& catalog,
                                                    const costmodel::ViTConfig& model);

// The GPUs with a step row whose matrix work runs on tensor cores (`tensor`) or on the fp32 units:
// the nearest measured GPU of a transfer is looked for among those of its own units (an RTX
// 4090's AMP rows say nothing about its fp32 units). In id order.
std::vector<const costmodel::DeviceSpec*> gpus_with_evidence(
    const std::vector<GpuEvidence>& rows, const costmodel::DeviceCatalog& catalog, bool tensor);

}  // namespace vitsim::calibrate
