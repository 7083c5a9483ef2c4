// SYNTHETIC cost model for tests and benchmarks (written to fixtures/costs.json): every device and
// precision the shipped scenarios use, with layer times from a plain roofline at a fixed fraction
// of the datasheet peak. Not a measurement, not a calibration, not a prediction of any real run:
// it only gives the simulator plausible inputs. Regenerate the file with
//   VITSIM_REGEN_FIXTURES=1 build-sim/bin/sim_tests --gtest_filter=Fixture.*
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/layer_graph.h"

namespace vitsim::sim::test {

struct SyntheticDevice {
  const char* id;
  costmodel::Regime precision;
  double peak_flop_per_s;  // datasheet matrix peak at that precision (platforms/gpus.json,
                           // nebula.json)
};

inline const std::vector<SyntheticDevice>& synthetic_devices() {
  static const std::vector<SyntheticDevice> d = {
      {"p4", costmodel::Regime::kFp32, 5.5e12},
      {"rtx3070", costmodel::Regime::kFp32, 20.3e12},
      {"gtx1070", costmodel::Regime::kFp32, 6.5e12},
      {"t4", costmodel::Regime::kFp32, 8.1e12},
      {"rtx-a4500", costmodel::Regime::kFp32, 23.7e12},
      {"h200-sxm", costmodel::Regime::kAmpBf16, 989.4e12},
      {"h200-sxm", costmodel::Regime::kFp32, 67e12},
      // The study's mixed-precision scenarios (*-ds-fp16.json): fp16 tensor peaks; Pascal has no
      // tensor cores, so its fp32 peak.
      {"p4", costmodel::Regime::kDsFp16, 5.5e12},
      {"rtx3070", costmodel::Regime::kDsFp16, 40.6e12},
      {"gtx1070", costmodel::Regime::kDsFp16, 6.5e12},
      {"t4", costmodel::Regime::kDsFp16, 65e12},
      {"rtx-a4500", costmodel::Regime::kDsFp16, 94.6e12}};
  return d;
}

inline costmodel::CostModel synthetic_costs() {
  constexpr double kEfficiency = 0.4;  // achieved / peak, one figure for every device (synthetic)
  constexpr double kLaunch_s = 2e-5;   // per layer and pass
  costmodel::CostModel m;
  const costmodel::ViTConfig model = costmodel::vit_preset("vit_b_16");
  const costmodel::LayerGraph g = costmodel::build_layer_graph(model);
  for (const auto& dev : synthetic_devices()) {
    costmodel::DeviceCosts c;
    c.device = dev.id;
    c.precision = dev.precision;
    c.source = costmodel::CostSource::kTransferred;
    c.derived_from =
        "SYNTHETIC test fixture: roofline at 40% of the datasheet peak; not a measurement";
    c.model = model;
    const double flop_per_s = kEfficiency * dev.peak_flop_per_s;
    for (const auto& l : g.layers) {
      costmodel::LayerCost lc;
      lc.layer = l.name;
      lc.kind = l.kind;
      lc.forward = {kLaunch_s, l.forward_flop_per_sample() / flop_per_s, 0};
      lc.backward = {2 * kLaunch_s, 2 * l.forward_flop_per_sample() / flop_per_s, 0};
      c.layers.push_back(lc);
    }
    // AdamW touches ~16 bytes per parameter (weights, gradient, two states) at ~1/40 of the peak
    // rate in bytes: an order of magnitude, not a fit.
    c.optimizer = {1e-4, 16.0 / (dev.peak_flop_per_s / 40), 0};
    c.host_to_device = {5e-5, 602112.0 / 1.2e10, 0};  // one 3x224x224 fp32 image over ~12 GB/s
    c.data_wait = {1e-3, 0, 0};
    c.step_overhead = {2e-3, 0, 0};
    m.devices.push_back(c);
  }
  return m;
}

}  // namespace vitsim::sim::test
