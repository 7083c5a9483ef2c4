// Writers never emit what their readers refuse: every format's writer, fed the example and then
// values at the edges of the physical bounds, writes a file its reader takes back unchanged; and
// the one writer beneath them all refuses a NaN (which would be written as null) instead of
// leaving a file no reader accepts. (Outputs of the real producers, import-deepspeed, calibrate
// and simulate, are read back in tests/app/reproduce_test.cpp and the trainer's tests.)
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <filesystem>

#include "catalogs.h"  // tests/support/
#include "costmodel/physical_bounds.h"
#include "schema/cluster.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/prediction.h"
#include "schema/profile.h"
#include "schema/run_log.h"
#include "schema/scenario.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace round_trip_test {
namespace {

using testing::example_path;

// Writes `doc` to a file as vitsim does, reads it with `read`, writes that again: same JSON.
template <typename Read, typename Write>
void expect_round_trip(const Json& doc, Read read, Write write, const std::string& what) {
  const std::string path = testing::scratch_path("round_trip.json");
  write_json_output(path, doc);
  Json again;
  ASSERT_NO_THROW(again = write(read(Node::parse_file(path)))) << what;
  EXPECT_EQ(again, doc) << what;
}

TEST(RoundTrip, EveryFormatsExample) {
  const auto cluster = read_cluster(example_path("cluster"));
  expect_round_trip(
      write_cluster_json(cluster), [](const Node& n) { return read_cluster(n); },
      [](const ClusterSpec& c) { return write_cluster_json(c); }, "cluster");
  const auto profile = read_profile(example_path("profile"));
  expect_round_trip(
      write_profile_json(profile), [](const Node& n) { return read_profile(n); },
      [](const Profile& p) { return write_profile_json(p); }, "profile");
  const auto log = read_run_log(example_path("run_log"));
  expect_round_trip(
      write_run_log_json(log), [](const Node& n) { return read_run_log(n); },
      [](const RunLog& l) { return write_run_log_json(l); }, "run log");
  const auto costs = read_cost_model(example_path("cost_model"));
  expect_round_trip(
      write_cost_model_json(costs), [](const Node& n) { return read_cost_model(n); },
      [](const CostModelFile& f) { return write_cost_model_json(f); }, "cost model");
  const auto pred = read_prediction(example_path("prediction"));
  expect_round_trip(
      write_prediction_json(pred), [](const Node& n) { return read_prediction(n); },
      [](const PredictionFile& f) { return write_prediction_json(f); }, "prediction");
  // A scenario's configurations and the device catalog's devices have writers of their own.
  for (const auto& c : read_scenario(example_path("scenario")).configurations) {
    const Json j = write_training_config(c);
    EXPECT_EQ(write_training_config(read_training_config(Node(j, "c.json", ""), {})), j);
  }
  for (const auto& d : read_gpus(example_path("gpus")).devices) {
    const Json j = write_device_spec(d);
    EXPECT_EQ(write_device_spec(read_device_spec(Node(j, "d.json", ""))), j);
  }
}

// The shipped device catalog reads back whole: every device object of platforms/gpus.json, read
// and written again by vitsim's own writer, is the object in the file, key for key and figure for
// figure, and the catalog holds one device per object, in the file's order.
TEST(RoundTrip, ShippedCatalog) {
  const Json file =
      Node::parse_file(std::string(VITSIM_SOURCE_DIR) + "/platforms/gpus.json").json();
  const costmodel::DeviceCatalog& catalog = vitsim::test::shipped_catalog();
  ASSERT_EQ(catalog.devices.size(), file["devices"].size());
  ASSERT_GE(catalog.devices.size(), 14u);  // the datasheet rows of data/gpu_specs.csv
  for (size_t i = 0; i < catalog.devices.size(); ++i) {
    EXPECT_EQ(write_device_spec(catalog.devices[i]), file["devices"][i]) << "device " << i;
  }
}

// Values at the bounds, and the smallest normal double: the writer's text reads back exactly.
TEST(RoundTrip, ValuesAtTheBounds) {
  ClusterSpec cluster = read_cluster(example_path("cluster"));
  for (double bw : {costmodel::kLinkBandwidthBytesPerS.min, costmodel::kLinkBandwidthBytesPerS.max})
    for (double lat : {0.0, costmodel::kLinkLatencyS.min, costmodel::kLinkLatencyS.max}) {
      cluster.nodes[0].nic.bandwidth_bytes_per_s = bw;
      cluster.nodes[0].nic.latency_s = lat;
      expect_round_trip(
          write_cluster_json(cluster), [](const Node& n) { return read_cluster(n); },
          [](const ClusterSpec& c) { return write_cluster_json(c); }, "cluster at bounds");
    }
  cluster.nodes[0].count = costmodel::kNodes.max;  // a million host names: once
  cluster.nodes[0].gpus[0].count = costmodel::kGpusPerNode.max;
  expect_round_trip(
      write_cluster_json(cluster), [](const Node& n) { return read_cluster(n); },
      [](const ClusterSpec& c) { return write_cluster_json(c); }, "cluster of the most nodes");
  Profile profile = read_profile(example_path("profile"));
  for (double t : {0.0, DBL_MIN, costmodel::kDurationS.max}) {
    profile.compute[0].optimizer_time_s = t;
    profile.compute[0].layers[0].forward_spread_s = t;
    profile.compute[0].peak_memory_bytes = t > 1 ? costmodel::kBytes.max : 0.0;
    expect_round_trip(
        write_profile_json(profile), [](const Node& n) { return read_profile(n); },
        [](const Profile& p) { return write_profile_json(p); }, "profile at bounds");
  }
  CostModelFile costs = read_cost_model(example_path("cost_model"));
  for (double slope : {-costmodel::kDurationS.max, -DBL_MIN, DBL_MIN, 1e-15}) {
    costs.costs.devices[0].data_wait.per_unit_s = slope;
    expect_round_trip(
        write_cost_model_json(costs), [](const Node& n) { return read_cost_model(n); },
        [](const CostModelFile& f) { return write_cost_model_json(f); }, "cost model at bounds");
  }
}

TEST(RoundTrip, WriterRefusesWhatReadersRefuse) {
  const std::string path = testing::scratch_path("nan_profile.json");
  std::filesystem::remove(path);
  Profile profile = read_profile(example_path("profile"));
  profile.compute[0].layers[2].backward_time_s = std::nan("");
  try {
    write_profile(path, profile);
    FAIL() << "a NaN was written";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("/compute/0/layers/2/backward_time_s: refusing to write a "
                                         "NaN or infinity"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  profile.compute[0].layers[2].backward_time_s = 1e-310;
  EXPECT_THROW(write_profile(path, profile), std::logic_error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace round_trip_test
}  // namespace vitsim::schema
