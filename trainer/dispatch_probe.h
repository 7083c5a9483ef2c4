// `vitsim-train probe-dispatch`: the host-side cost of launching work on a device, the floor
// under a launch-bound step (a small micro-batch on a fast GPU). Each probe calls one operation
// of the ViT's kinds on a tiny input `calls` times in a row and reports, per call, the host time
// the loop took before the device caught up (what LibTorch's dispatcher, the CUDA launch and,
// for the autograd probe, the engine cost the CPU) and the wall time to the device's last
// kernel. On a tiny input the device finishes each kernel faster than the host launches the
// next, so the host time is the dispatch floor per launch (docs/formats/dispatch-probe.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vitsim::trainer {

struct DispatchProbeOptions {
  std::string device = "cpu";  // "cpu" | "cuda"
  std::string device_id;       // recorded id (default: the device)
  std::string dtype = "fp32";  // "fp32" | "bf16": the tensors' type
  int64_t width = 768;         // features of the tiny (1 x width) input: ViT-B's width
  int64_t calls = 20000;       // timed calls per probe (the autograd probe: calls / 10)
  int64_t warmup = 500;        // untimed calls first
};

struct DispatchTiming {
  std::string op;
  int64_t kernels_per_call = 0;  // device kernels one call launches; 0 = not counted
  int64_t calls = 0;
  double host_us_per_call = 0;  // loop time on the host / calls
  double wall_us_per_call = 0;  // loop time until the device finished / calls
};

std::vector<DispatchTiming> probe_dispatch(const DispatchProbeOptions& options);
// The file `--out` writes: schema vitsim.dispatch_probe, the timings and the context block.
nlohmann::json dispatch_probe_json(const DispatchProbeOptions& options,
                                   const std::vector<DispatchTiming>& timings,
                                   const std::vector<std::string>& argv);

}  // namespace vitsim::trainer
