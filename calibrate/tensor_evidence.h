// Imported evidence of tensor-core efficiency under mixed precision: the study measured fp32 only,
// so the fp16/bf16 roofline needs an efficiency eta_c relative to the tensor peak. The public timm
// training benchmarks (data/public-benchmarks/timm_train_benchmarks.csv: RTX 3090, torch autocast
// fp16, eager) give it for the same architecture: eta_c = images/s * 3 * forward FLOP per image /
// fp16 tensor peak (forward + backward = 3x forward FLOPs; the step also holds timm's SGD update,
// a few percent, so this errs on the low side). docs/cost-model.md, "Mixed precision".
#pragma once

#include <optional>
#include <string>

#include "costmodel/device_spec.h"
#include "costmodel/vit_config.h"
#include "schema/csv_table.h"

namespace vitsim::calibrate {

struct TensorEfficiencyEvidence {
  double compute_efficiency = 0;  // median over the rows used, all step time counted as compute
  int rows = 0;
  std::string description;  // what was used, for derived_from
  double spread_rel = 0;    // (max - min) / (2 median) of the rows' efficiencies
  // What the additive form needs to take the element-wise traffic out of the step time: one
  // image's step time at the median rate, its FLOP, its 16-bit layer traffic, and the GPU's
  // datasheet figures.
  double image_time_s = 0;
  double flop_per_image = 0;
  double bytes_per_image = 0;
  double peak_flop_per_s = 0;
  double bandwidth_bytes_per_s = 0;
};

// Training rows (tensor_evidence.cpp: training_row) with precision "amp", a timm model of `model`'s
// architecture (vit_{tiny,small,base,large}_ patch16_<size>, same width/depth/heads/patch) and a
// GPU of the catalog with a tensor peak. nullopt when there is none.
std::optional<TensorEfficiencyEvidence> tensor_efficiency_from_timm(
    const schema::CsvTable& table, const costmodel::DeviceCatalog& catalog,
    const costmodel::ViTConfig& model);

}  // namespace vitsim::calibrate
