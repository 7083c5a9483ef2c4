// Kernel-level evidence of how fast a GPU's matrix units run under load, against its datasheet
// (docs/cost-model.md section 4, "Sustained matrix rates and architecture classes"): public
// throughput tables of one large torch.mm per datatype (data/public-benchmarks/
// gemm_throughput.csv: square products of 1024-10240, the best size, in fp32, TF32, fp16 and
// bf16) give each GPU's sustained fraction of its datasheet peak, per matrix unit:
//   - fp32: the fp32 units (a datacenter die's one FP32 pipe per core reaches 0.72-0.98 of its
//     peak, a GA10x/AD10x/GB20x die's two datapaths, one shared with INT32, 0.61-0.69 (0.51 in
//     the 350-W L40S), a 70-W card whatever clock its power limit leaves (0.51-0.90);
//   - 16-bit: the tensor cores in fp16 and bf16 (one datasheet peak for both);
//   - tf32: the tensor cores in TF32.
// The kernel-class transfer runs each GPU at (fitted efficiency) x (sustained fraction) x
// (datasheet peak): the efficiencies it fits say what ViT's GEMMs in eager PyTorch lose against
// one large product, the fractions what the silicon, its clocks and its power limit give. A GPU
// without rows of a unit takes, in this order, its same-chip siblings' rows (the A100 variants,
// the H100 and H200), for TF32 its own (or its siblings') 16-bit rows (the same tensor cores at
// half the rate), its architecture class's GPUs' (DeviceSpec::arch_class: each GPU one vote), for
// TF32 its class's 16-bit rows, and else first principles: 1, the datasheet's boost clock at full
// issue, which says nothing of a power limit (the entry's range is widened and says why).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "calibrate/gpu_evidence.h"
#include "costmodel/device_spec.h"
#include "schema/csv_table.h"

namespace vitsim::calibrate {

enum class MatrixUnit { kFp32, kTensor16, kTf32 };
const char* to_string(MatrixUnit u);
// The unit a math type's matrix work runs on (fp16 and bf16: the 16-bit tensor cores; Pascal's
// fp16 has none: the caller asks DeviceSpec::tensor_math first).
MatrixUnit matrix_unit(costmodel::MathType m);

// The unit `spec` runs `regime`'s GEMMs on: the fp32 units where the datasheet gives the regime's
// math no tensor peak (Pascal's fp16), else matrix_unit of its math type.
MatrixUnit unit_of(const costmodel::DeviceSpec& spec, costmodel::Regime regime);

// Whether a step row of `rows` (is_step) was measured on a GPU of `target`'s architecture class
// on the same matrix unit as `target` runs `regime` on (a GPU's own rows included). False for a
// GPU without a class.
bool class_has_step_evidence(const std::vector<GpuEvidence>& rows,
                             const costmodel::DeviceCatalog& catalog,
                             const costmodel::DeviceSpec& target, costmodel::Regime regime);

// Whether `table` is a GEMM throughput table (columns gpu, dtype, tflops).
bool is_gemm_table(const schema::CsvTable& table);
// Its rows as evidence of kind kGemm: gpu a catalog id (rows of other GPUs are skipped), dtype
// fp32 / tf32 / fp16 / bf16 (as regimes fp32, tf32, ds-fp16, ds-bf16), tflops > 0. A row whose
// datatype the catalog gives the GPU no peak for is no evidence of those units (a T4's "tf32" is
// fp32, a P4's "fp16" runs on its fp32 units) and is skipped.
std::vector<GpuEvidence> evidence_from_gemm_table(const schema::CsvTable& table,
                                                  const costmodel::DeviceCatalog& catalog);

struct SustainedFraction {
  double value = 1;       // achieved / datasheet peak
  std::string from;       // "own: median of 3 rows", "class datacenter (a100-..., h100-sxm)", ...
  bool evidence = false;  // false: first principles (1)
};

class SustainedRates {
 public:
  SustainedRates() = default;
  // From the kGemm rows of `rows` (other rows are ignored).
  SustainedRates(const std::vector<GpuEvidence>& rows, const costmodel::DeviceCatalog& catalog);

  SustainedFraction fraction(const costmodel::DeviceSpec& spec, MatrixUnit unit) const;
  // `spec` with its fp32, 16-bit and TF32 peaks multiplied by its fractions: what the transfer's
  // arithmetic runs on (the datasheet's own figures stay in the catalog and in distances).
  costmodel::DeviceSpec apply(const costmodel::DeviceSpec& spec) const;
  // "fp32 0.78 (own: ...), 16-bit 0.77 (...), tf32 0.81 (...)" for derived_from texts.
  std::string describe(const costmodel::DeviceSpec& spec) const;
  // The fp32 fraction per class with evidence, as reports print it: "datacenter 0.90, ...".
  std::string classes_text(MatrixUnit unit) const;

 private:
  // Median of a GPU's own rows, per unit.
  std::map<std::string, std::map<MatrixUnit, double>> own_;
  std::map<std::string, std::map<MatrixUnit, int>> count_;
  std::vector<costmodel::DeviceSpec> specs_;  // of the GPUs with rows (class, chip)
};

}  // namespace vitsim::calibrate
