// The regime transfer (docs/cost-model.md section 4, "Regime transfer"): a device measured in one
// regime and needed in another (the study's RTX 3070, T4 and P4, imported in fp32, run in ds-fp16
// and amp-*) keeps its own measurement, moved by the layer-level roofline's ratio of the two
// regimes:
//   t(layer, pass, b) = roofline_target(layer, pass, b) x measured / roofline_fp32 (the device's
//                       own total layer time against the fleet's fp32 roofline)
// with the fp32 roofline fitted on the measured devices of the calibration's clusters
// (roofline.h) and the 16-bit one taking its tensor-core efficiency eta_c from public training
// rows of the same architecture (tensor_evidence.h: timm's RTX 3090, autocast fp16). This rule
// was checked against the study's held-back mixed-precision runs (within 5 %); the kernel-class
// transfer's tensor efficiency, fitted on every GPU at once, sits at its bound of 1 (the GeForce
// rows run above their datasheet clocks) and moved these entries by -1 to -21 % (diagnosis in
// docs/gpu-transfer.md). The kernel-class transfer keeps the devices without evidence of their
// own and the same-chip siblings (transfer_entry.h).
// Host-side costs, memory and the spreads other than the systematic one are the caller's.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/device_fit.h"
#include "calibrate/tensor_evidence.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"

namespace vitsim::calibrate {

class RegimeTransfer {
 public:
  using Key = std::pair<std::string, costmodel::Regime>;

  // `fleet`: the devices whose measurements the rooflines are fitted on (those the calibration's
  // clusters hold; every measured device when empty). `notes` collects the fits' lines.
  RegimeTransfer(const std::map<Key, DeviceFit>& measured, const costmodel::DeviceCatalog& catalog,
                 const std::set<std::string>& fleet,
                 std::optional<TensorEfficiencyEvidence> tensor_evidence,
                 std::vector<std::string>& notes);

  // The measured entry of `device` a regime transfer rests on (fp32 first), or nullptr.
  const DeviceFit* twin(const std::string& device) const;

  // fp16 and bf16 of one family (amp-fp16 / amp-bf16, ds-fp16 / ds-bf16) run the same kernels on
  // the same matrix units with 2-byte operands: where `spec`'s datasheet gives both the same
  // peak, the device's measured one of the pair, or nullptr.
  const DeviceFit* same_units_twin(const costmodel::DeviceSpec& spec,
                                   costmodel::Regime regime) const;
  // That measurement as `regime`'s costs, unchanged (source transferred, the reason said).
  static costmodel::DeviceCosts same_units_entry(const costmodel::DeviceSpec& spec,
                                                 costmodel::Regime regime, const DeviceFit& twin);

  // Layers, optimizer, source (transferred), derived_from, transfer_summary and uncertainty_rel /
  // uncertainty_from (the systematic part) of `spec` in `regime`, moved from `twin`. Throws
  // std::invalid_argument without a measured fp32 device in the fleet.
  costmodel::DeviceCosts entry(const costmodel::DeviceSpec& spec, costmodel::Regime regime,
                               const DeviceFit& twin);

  // The roofline of every regime an entry used, for the cost model's record.
  std::vector<costmodel::RooflineFit> used() const;

 private:
  const costmodel::RooflineFit& roofline(costmodel::Regime p);

  const std::map<Key, DeviceFit>& measured_;
  const costmodel::DeviceCatalog& catalog_;
  std::set<std::string> fleet_;
  std::optional<TensorEfficiencyEvidence> tensor_evidence_;
  std::map<costmodel::Regime, costmodel::RooflineFit> fits_;
  std::map<costmodel::Regime, std::string> how_;
  std::set<costmodel::Regime> used_;
};

}  // namespace vitsim::calibrate
