// calibrate/calibrator.h: what the calibration itself returns besides the costs, so that every
// caller (vitsim calibrate, a study's reproduce) gets it: a CPU profile measured by one process
// alone, for a cluster that puts 2 ranks on its host, is one warning naming the cluster file
// (schema/host_sharing.h), once however often the cluster is given; a profile measured as 2 ranks
// share the host gives none.
#include "calibrate/calibrator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "costmodel/layer_graph.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace calibrator_test {
namespace {

costmodel::DeviceSpec cpu_device() {
  costmodel::DeviceSpec d;
  d.id = "cpu";
  d.name = "a CPU";
  d.architecture = "CPU";
  d.fp32_peak_flop_per_s = 1e12;
  d.memory_bandwidth_bytes_per_s = 50e9;
  d.memory_bytes = 16e9;
  return d;
}

// One host "here" holding 2 ranks of the CPU.
schema::ClusterSpec cluster() {
  schema::ClusterSpec c;
  c.name = "here";
  c.file = "here.json";
  c.devices.push_back(cpu_device());
  schema::NodeSpec n;
  n.name = "here";
  n.gpus.push_back({"cpu", 2});
  c.nodes.push_back(n);
  return c;
}

// Layer times linear in the micro-batch (a time per sample and a launch floor).
schema::ProfileInput cpu_profile(int64_t ranks_per_host) {
  const auto graph = costmodel::build_layer_graph(test::small_vit());
  schema::Profile p;
  p.device = "cpu";
  p.device_name = "a CPU";
  p.source = costmodel::CostSource::kMeasured;
  p.model = test::small_vit();
  p.ranks_per_host = ranks_per_host;
  for (int b : {4, 8, 16, 32}) {
    schema::MicroBatchProfile m;
    m.micro_batch = b;
    m.repetitions = 5;
    for (const auto& l : graph.layers) {
      schema::LayerTiming t;
      t.name = l.name;
      t.kind = l.kind;
      t.forward_time_s = 1e-5 + 2e-6 * b;
      t.backward_time_s = 2e-5 + 4e-6 * b;
      m.layers.push_back(t);
    }
    m.optimizer_time_s = 1e-3;
    m.step_overhead_time_s = 1e-3;
    m.peak_memory_bytes = 1e8 + 1e7 * b;
    p.compute.push_back(m);
  }
  return {"profile.json", p};
}

size_t count_containing(const std::vector<std::string>& lines, const std::string& what) {
  return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(what) != std::string::npos;
  }));
}

TEST(Calibrator, ACpuProfileOfOtherHostSharingIsWarnedAboutOnce) {
  CalibrateOptions opt;
  opt.clusters = {cluster(), cluster()};  // as a study's scenario clusters repeat their cluster's
  const std::string warning =
      "the profile profile.json measured device 'cpu' with 1 rank(s) sharing its host, the "
      "cluster file here.json places 2 on host 'here'";
  const Calibration alone = calibrate({cpu_profile(1)}, costmodel::DeviceCatalog{}, opt);
  EXPECT_EQ(count_containing(alone.warnings, warning), 1u);
  ASSERT_NE(alone.costs.find("cpu", costmodel::Regime::kFp32), nullptr);  // a figure all the same
  const Calibration shared = calibrate({cpu_profile(2)}, costmodel::DeviceCatalog{}, opt);
  EXPECT_EQ(count_containing(shared.warnings, "sharing its host"), 0u);
}

}  // namespace
}  // namespace calibrator_test
}  // namespace vitsim::calibrate
