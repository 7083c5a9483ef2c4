// The cost-model entry of a device no profile measured in any regime (docs/cost-model.md
// section 4, docs/uncertainty.md "Transferred compute"), from the kernel-class transfer fitted
// on every GPU with evidence:
//   1. anchored on a same-chip sibling when one was measured (source `sibling`: the H200 from the
//      H100 profiles, the A100 variants from one another): the sibling's measured layers and
//      optimizer moved by the model's ratio;
//   2. otherwise the model alone (source `transferred`), its range from the leave-one-GPU-out
//      errors at the distance to the nearest GPU with evidence, widened to the widest miss of
//      that check where no GPU of its architecture class has a step on its matrix units.
// Either way the GPUs run at their sustained matrix rates (sustained_rates.h).
// A device measured in another regime is the regime transfer's (regime_transfer.h).
// Host-side costs, memory and the spreads other than the systematic one are the caller's.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/transfer_fit.h"
#include "calibrate/transfer_range.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"

namespace vitsim::calibrate {

struct TransferContext {
  const costmodel::DeviceCatalog* catalog = nullptr;
  // Measured and imported entries, uncertainty set (the anchors).
  const std::map<std::pair<std::string, costmodel::Regime>, costmodel::DeviceCosts>* measured =
      nullptr;
  TransferFit fit;
  RangeLaw law;                   // law.gpus == 0: no held-out error known
  double fallback_sigma_rel = 0;  // without a law: the fit's own RMS miss (likely too narrow)
  // GPUs with evidence on tensor cores and on fp32 units: a transfer's nearest measured GPU is
  // looked for among those of its own units (gpus_with_evidence).
  std::vector<const costmodel::DeviceSpec*> tensor_evidence_gpus, fp32_evidence_gpus;
  costmodel::ViTConfig model;  // the model of unanchored entries (the measured devices')
  // Every evidence row the fit saw: whether a target's architecture class has a step measured on
  // its matrix units (else its range is the law's widest miss: RangeLaw::unevidenced_sigma_rel).
  const std::vector<GpuEvidence>* evidence = nullptr;
};

// The same-chip sibling measurement a transfer of (spec, regime) rests on, or nullptr: its same
// regime first, then the same matrix units at the same peak, then fp32.
const costmodel::DeviceCosts* transfer_anchor(const costmodel::DeviceSpec& spec,
                                              costmodel::Regime regime,
                                              const TransferContext& context);

// Layers, optimizer, source, derived_from, transfer_summary and uncertainty_rel /
// uncertainty_from of the entry.
costmodel::DeviceCosts transferred_entry(const costmodel::DeviceSpec& spec,
                                         costmodel::Regime regime, const TransferContext& context);

// The device's own measurement `own` (another regime) moved into or out of tf32 by the
// kernel-class model's ratio, pass by pass (source transferred): tf32 changes the GEMMs' units
// and nothing else the model has, and the layer-level roofline of the regime transfer
// (regime_transfer.h) was checked between fp32 and the 16-bit regimes only.
costmodel::DeviceCosts own_measurement_moved(const costmodel::DeviceSpec& spec,
                                             costmodel::Regime regime,
                                             const costmodel::DeviceCosts& own,
                                             const TransferContext& context);

}  // namespace vitsim::calibrate
