// Tiny clusters and SYNTHETIC costs built in C++ for golden simulations: every time is a round
// constant chosen by hand so that expected results follow from the formulas in docs/simulator.md.
// Nothing here is a measurement or a prediction of real hardware.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/layer_graph.h"
#include "costmodel/vit_config.h"
#include "schema/cluster.h"
#include "schema/prediction.h"
#include "schema/scenario.h"

namespace vitsim::sim::test {

// A small ViT so that the layer graph stays short; its gradient is M bytes (one bucket by default).
inline costmodel::ViTConfig tiny_model() {
  costmodel::ViTConfig c = costmodel::vit_preset("vit_ti_16");
  c.name = "vit_ti_16+overrides";
  c.image_size = 32;
  c.patch_size = 4;
  c.depth = 2;
  c.classes = 10;
  return c;
}

inline costmodel::DeviceSpec test_device(const std::string& id, double memory_bytes = 64e9) {
  costmodel::DeviceSpec d;
  d.id = id;
  d.name = "synthetic " + id;
  d.fp32_peak_flop_per_s = 1e13;
  d.bf16_tensor_peak_flop_per_s = 1e14;
  d.fp16_tensor_peak_flop_per_s = 1e14;
  d.memory_bandwidth_bytes_per_s = 1e12;
  d.memory_bytes = memory_bytes;
  d.source = "synthetic test device";
  return d;
}

// Every layer: forward `fwd_s`, backward 2 * fwd_s, independent of the micro-batch; data 1 ms,
// optimizer 3 ms, overhead 0; memory from the layer graph (no measured memory).
inline costmodel::DeviceCosts constant_costs(const std::string& device, double fwd_s,
                                             costmodel::Regime p = costmodel::Regime::kFp32) {
  costmodel::DeviceCosts c;
  c.device = device;
  c.precision = p;
  c.source = costmodel::CostSource::kTransferred;
  c.derived_from = "synthetic test costs";
  c.model = tiny_model();
  for (const auto& l : costmodel::build_layer_graph(c.model).layers) {
    costmodel::LayerCost lc;
    lc.layer = l.name;
    lc.kind = l.kind;
    lc.forward.fixed_s = fwd_s;
    lc.backward.fixed_s = 2 * fwd_s;
    c.layers.push_back(lc);
  }
  c.data_wait.fixed_s = 1e-3;
  c.optimizer.fixed_s = 3e-3;
  return c;
}

// A cost model of these devices' costs.
inline costmodel::CostModel costs_for(std::vector<costmodel::DeviceCosts> devices) {
  costmodel::CostModel c;
  c.devices = std::move(devices);
  return c;
}

// `nodes` nodes "n0".."n{nodes-1}", `gpus` GPUs of `device` each, NIC (bw, lat), intra-node
// fabric (intra_bw, intra_lat), star switch.
inline schema::ClusterSpec tiny_cluster(int nodes, int gpus, double bw, double lat,
                                        double intra_bw = 1e11, double intra_lat = 1e-6,
                                        const std::string& device = "testgpu") {
  schema::ClusterSpec c;
  c.name = "tiny";
  c.file = "tiny.json";
  c.devices.push_back(test_device(device));
  schema::NodeSpec n;
  n.name = "n";
  n.count = nodes;
  n.is_template = true;
  n.gpus.push_back({device, gpus});
  n.nic = {bw, lat, "test-nic"};
  n.intra_node = {"nvlink", {intra_bw, intra_lat, "test-fabric"}};
  c.nodes.push_back(n);
  return c;
}

inline schema::TrainingConfig ring_config(int gpus) {
  schema::TrainingConfig t;
  t.gpus = gpus;
  t.micro_batch = 4;
  t.images = 1000;
  t.collective = costmodel::Collective::kRing;
  t.collective_level = costmodel::CollectiveLevel::kStep;
  t.overlap = false;
  t.bucket_bytes = 1e12;  // one bucket
  return t;
}

// Two nodes n0, n1 of one `testgpu` each behind a NIC of `fast_nic` bytes/s, plus node "slow"
// with one GPU of `device` behind a NIC of `odd_nic` bytes/s (class "slow-nic"): a cluster whose
// bottleneck is known (the step breakdown and the advisor's what-ifs name "slow").
inline schema::ClusterSpec with_odd_node(double fast_nic, double odd_nic,
                                         const std::string& device) {
  auto cl = tiny_cluster(2, 1, fast_nic, 5e-5);
  schema::NodeSpec odd = cl.nodes[0];
  odd.name = "slow";
  odd.is_template = false;
  odd.count = 1;
  odd.gpus = {{device, 1}};
  odd.nic = {odd_nic, 5e-5, "slow-nic"};
  cl.nodes.push_back(odd);
  if (device != "testgpu") cl.devices.push_back(test_device(device));
  return cl;
}

// A ring over n0, n1 and slow (with_odd_node), one rank each.
inline schema::TrainingConfig three_hosts() {
  auto t = ring_config(3);
  t.hosts = {"n0", "n1", "slow"};
  return t;
}

inline double gradient_bytes() {
  return static_cast<double>(
      costmodel::build_layer_graph(tiny_model()).gradient_bytes(costmodel::Regime::kFp32));
}
inline int layer_count() {
  return static_cast<int>(costmodel::build_layer_graph(tiny_model()).layers.size());
}

// |a - b| relative to the larger; 0 when equal (both 0 included).
inline double relative_difference(double a, double b) {
  return a == b ? 0.0 : std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
}

// Two engines' predictions of one configuration agree in every figure, rank by rank, to 1e-9
// relative: step, epoch, first epoch, compute and exposed communication, and each rank's idle
// time to 1e-9 of the step (the class level and the closed form against rank by rank).
inline void expect_same_prediction(const schema::ConfigPrediction& ranks,
                                   const schema::ConfigPrediction& other) {
  const auto rel = relative_difference;
  EXPECT_LE(rel(ranks.step_time_s, other.step_time_s), 1e-9)
      << ranks.step_time_s << " vs " << other.step_time_s;
  EXPECT_LE(rel(ranks.epoch_time_s, other.epoch_time_s), 1e-9);
  EXPECT_LE(rel(ranks.first_epoch_time_s, other.first_epoch_time_s), 1e-9);
  EXPECT_LE(rel(ranks.compute_time_s, other.compute_time_s), 1e-9);
  EXPECT_LE(rel(ranks.exposed_comm_time_s, other.exposed_comm_time_s), 1e-9);
  ASSERT_EQ(ranks.ranks.size(), other.ranks.size());
  for (size_t r = 0; r < ranks.ranks.size(); ++r) {
    const auto &a = ranks.ranks[r], &b = other.ranks[r];
    EXPECT_LE(rel(a.compute_time_s, b.compute_time_s), 1e-9) << "rank " << r;
    EXPECT_LE(rel(a.exposed_comm_time_s, b.exposed_comm_time_s), 1e-9) << "rank " << r;
    EXPECT_NEAR(a.idle_time_s, b.idle_time_s, 1e-9 * ranks.step_time_s) << "rank " << r;
  }
}

}  // namespace vitsim::sim::test
