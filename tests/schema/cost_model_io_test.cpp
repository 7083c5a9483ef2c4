// Cost model format: the minimal example reads, write->read round-trips, bad input is refused with
// file and JSON pointer, and the cross-field rules hold (docs/formats/cost-model.md).
#include "schema/cost_model_io.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace cost_model_io_test {
namespace {

using testing::load_example;

std::string cost_model_error(const Json& doc) {
  return testing::read_error(doc, [](const Node& n) { read_cost_model(n); });
}

TEST(CostModelIo, ReadsMinimalExample) {
  const CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  ASSERT_EQ(f.costs.devices.size(), 1u);
  const costmodel::DeviceCosts& d = f.costs.devices[0];
  EXPECT_EQ(d.device, "rtx3070");
  EXPECT_EQ(d.source, costmodel::CostSource::kImported);
  ASSERT_EQ(d.layers.size(), 2u);
  EXPECT_EQ(d.layers[1].kind, costmodel::LayerKind::kMlp);
  EXPECT_DOUBLE_EQ(d.layers[1].forward.per_unit_s, 0.00005);
  EXPECT_DOUBLE_EQ(d.data_wait.per_unit_s, -0.000001);
  EXPECT_EQ(d.micro_batches, std::vector<int>{16});
  ASSERT_NE(f.costs.find_link("tesla-10gbe"), nullptr);
  EXPECT_DOUBLE_EQ(f.costs.find_link("tesla-10gbe")->bandwidth_bytes_per_s, 1.1e9);
  ASSERT_EQ(f.costs.roofline.size(), 1u);
  EXPECT_EQ(f.costs.roofline[0].fitted_on, std::vector<std::string>{"rtx3070"});
}

TEST(CostModelIo, RoundTripsThroughAFile) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  costmodel::DeviceCosts t4 = f.costs.devices[0];
  t4.device = "t4";
  t4.source = costmodel::CostSource::kTransferred;
  t4.micro_batches.clear();
  f.costs.devices.push_back(t4);
  const std::string path = testing::scratch_path("cost_model.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  EXPECT_EQ(write_cost_model_json(back), write_cost_model_json(f));
  EXPECT_EQ(back.costs.devices[1].source, costmodel::CostSource::kTransferred);
  EXPECT_EQ(testing::read_text(path).rfind("{\n  \"schema\": \"vitsim.cost_model\"", 0), 0u);
}

TEST(CostModelIo, SiblingEntriesAndTheKernelClassTransferRoundTrip) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  costmodel::DeviceCosts h200 = f.costs.devices[0];
  h200.device = "h200-sxm";
  h200.source = costmodel::CostSource::kSibling;
  h200.micro_batches.clear();
  h200.transfer_summary = "sibling of the measured h100-sxm amp-bf16; uncertainty 7 %";
  f.costs.devices.push_back(h200);
  f.costs.roofline[0].form = costmodel::RooflineForm::kKernelClasses;
  const std::string path = testing::scratch_path("cost_model_sibling.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  EXPECT_EQ(write_cost_model_json(back), write_cost_model_json(f));
  EXPECT_EQ(back.costs.devices[1].source, costmodel::CostSource::kSibling);
  EXPECT_EQ(back.costs.devices[1].transfer_summary, h200.transfer_summary);
  EXPECT_EQ(back.costs.roofline[0].form, costmodel::RooflineForm::kKernelClasses);
  // A measured entry has no summary, and writes none.
  EXPECT_FALSE(write_cost_model_json(back)["devices"][0].contains("transfer_summary"));
}

TEST(CostModelIo, BasicRefusals) {
  Json doc = load_example("cost_model");
  doc["devices"][0]["layers"][0]["forward"].erase("floor_s");
  EXPECT_NE(cost_model_error(doc).find(
                "bad.json: /devices/0/layers/0/forward/floor_s: expected key \"floor_s\""),
            std::string::npos);
  doc = load_example("cost_model");
  doc["links"][0]["latency_s"] = "50us";
  EXPECT_NE(cost_model_error(doc).find("/links/0/latency_s: expected number, got string \"50us\""),
            std::string::npos);
  doc = load_example("cost_model");
  doc["roofline"][0]["efficiency"] = 0.5;
  EXPECT_NE(cost_model_error(doc).find("/roofline/0/efficiency: expected one of the keys"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["schema_version"] = 3;
  EXPECT_NE(cost_model_error(doc).find("/schema_version: expected schema_version 2, got number 3"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["schema"] = "vitsim.gpus";
  EXPECT_NE(cost_model_error(doc).find("/schema: expected \"vitsim.cost_model\""),
            std::string::npos);
  doc = load_example("cost_model");
  doc["devices"][0]["memory_per_sample_bytes"] = -5;
  EXPECT_NE(cost_model_error(doc).find("/devices/0/memory_per_sample_bytes: expected number >= 0"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["links"][0]["bandwidth_bytes_per_s"] = Json(NAN);
  EXPECT_EQ(cost_model_error(doc),
            "bad.json: /links/0/bandwidth_bytes_per_s: expected number, got null");
  doc = load_example("cost_model");
  doc["links"][0]["source"] = "guessed";
  EXPECT_NE(cost_model_error(doc).find(
                "/links/0/source: expected one of measured, imported, transferred"),
            std::string::npos);
}

TEST(CostModelIo, SlopesAndEfficiencies) {
  Json doc = load_example("cost_model");
  doc["devices"][0]["layers"][0]["backward"]["per_unit_s"] = -1e-6;  // compute cannot shrink with b
  EXPECT_NE(
      cost_model_error(doc).find("/devices/0/layers/0/backward/per_unit_s: expected number >= 0"),
      std::string::npos);
  doc = load_example("cost_model");
  doc["devices"][0]["step_overhead"]["per_unit_s"] = -1e-6;  // near-constant cost: allowed
  EXPECT_EQ(cost_model_error(doc), "");
  doc["devices"][0]["step_overhead"]["fixed_s"] = -1e-3;
  EXPECT_NE(cost_model_error(doc).find("/devices/0/step_overhead/fixed_s: expected number >= 0"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["roofline"][0]["compute_efficiency"] = 1.2;
  EXPECT_NE(cost_model_error(doc).find(
                "/roofline/0/compute_efficiency: expected number in [0, 1], got number 1.2"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["links"][0]["bandwidth_bytes_per_s"] = 0;
  EXPECT_NE(cost_model_error(doc).find("/links/0/bandwidth_bytes_per_s: expected number > 0"),
            std::string::npos);
}

// A measured layer pass keeps its medians as knots: they round-trip, must ascend in x, and are two
// or more (docs/formats/cost-model.md).
TEST(CostModelIo, KnotsRoundTripAndAscend) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  f.costs.devices[0].layers[1].forward.knots = {{{8, 0.001}}, {{16, 0.0018}}};
  const std::string path = testing::scratch_path("cost_model_knots.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  EXPECT_EQ(back.costs.devices[0].layers[1].forward.knots,
            f.costs.devices[0].layers[1].forward.knots);
  EXPECT_TRUE(back.costs.devices[0].layers[1].backward.knots.empty());
  Json doc = load_example("cost_model");
  doc["devices"][0]["layers"][1]["forward"]["knots"] = Json::parse("[[16, 0.002], [8, 0.001]]");
  EXPECT_NE(cost_model_error(doc).find("/devices/0/layers/1/forward/knots/1/0: expected an x "
                                       "above the previous knot's"),
            std::string::npos)
      << cost_model_error(doc);
  doc["devices"][0]["layers"][1]["forward"]["knots"] = Json::parse("[[16, 0.002]]");
  EXPECT_NE(cost_model_error(doc).find("/devices/0/layers/1/forward/knots: expected two or more "
                                       "knots, or none"),
            std::string::npos)
      << cost_model_error(doc);
  doc["devices"][0]["layers"][1]["forward"]["knots"] = Json::parse("[[16, -0.002], [32, 0.004]]");
  EXPECT_NE(cost_model_error(doc).find("/devices/0/layers/1/forward/knots/0/1"), std::string::npos)
      << cost_model_error(doc);
}

TEST(CostModelIo, TheOptimizerAfterAWaitRoundTripsAndNeedsAWait) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  EXPECT_EQ(f.costs.devices[0].optimizer_wait_s, 0);  // not measured: not written
  EXPECT_FALSE(write_cost_model_json(f)["devices"][0].contains("optimizer_after_wait"));
  f.costs.devices[0].optimizer_after_wait.per_unit_s = 1e-9;
  f.costs.devices[0].optimizer_wait_s = 0.02;
  const std::string path = testing::scratch_path("cost_model_after_wait.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  EXPECT_EQ(back.costs.devices[0].optimizer_wait_s, 0.02);
  EXPECT_EQ(back.costs.devices[0].optimizer_after_wait.per_unit_s, 1e-9);
  Json doc = load_example("cost_model");
  doc["devices"][0]["optimizer_after_wait"] =
      Json::parse(R"({"cost": {"fixed_s": 0, "per_unit_s": 1e-9, "floor_s": 0}, "wait_s": 0})");
  EXPECT_NE(cost_model_error(doc).find("/devices/0/optimizer_after_wait/wait_s: expected a wait > "
                                       "0 s"),
            std::string::npos)
      << cost_model_error(doc);
}

// The data wait after that wait: written where measured, read back; without the wait it stands
// beside, refused naming the field.
TEST(CostModelIo, TheDataWaitAfterAWaitRoundTripsBesideTheWait) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  f.costs.devices[0].optimizer_wait_s = 0.02;
  f.costs.devices[0].data_after_wait = costmodel::LinearCost{};
  f.costs.devices[0].data_after_wait->fixed_s = 3e-4;
  const std::string path = testing::scratch_path("cost_model_data_after_wait.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  ASSERT_TRUE(back.costs.devices[0].data_after_wait.has_value());
  EXPECT_EQ(back.costs.devices[0].data_after_wait->fixed_s, 3e-4);
  Json doc = load_example("cost_model");
  doc["devices"][0]["data_after_wait"] =
      Json::parse(R"({"fixed_s": 3e-4, "per_unit_s": 0, "floor_s": 0})");
  EXPECT_NE(cost_model_error(doc).find("/devices/0/data_after_wait: expected data_after_wait "
                                       "beside optimizer_after_wait, got no optimizer_after_wait"),
            std::string::npos)
      << cost_model_error(doc);
}

// The copy into the buckets: written where measured, read back; a negative slope refused naming
// the field.
TEST(CostModelIo, TheBucketCopyRoundTripsWhereMeasured) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  EXPECT_FALSE(write_cost_model_json(f)["devices"][0].contains("bucket_copy"));
  f.costs.devices[0].bucket_copy = costmodel::LinearCost{};
  f.costs.devices[0].bucket_copy->per_unit_s = 2e-9;
  const std::string path = testing::scratch_path("cost_model_bucket_copy.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  ASSERT_TRUE(back.costs.devices[0].bucket_copy.has_value());
  EXPECT_EQ(back.costs.devices[0].bucket_copy->per_unit_s, 2e-9);
  Json doc = load_example("cost_model");
  doc["devices"][0]["bucket_copy"] =
      Json::parse(R"({"fixed_s": 0, "per_unit_s": -1e-9, "floor_s": 0})");
  EXPECT_NE(cost_model_error(doc).find("/devices/0/bucket_copy/per_unit_s"), std::string::npos)
      << cost_model_error(doc);
}

// Sharding's costs (docs/sharding.md, "Simulated"): a device's recompute, unit_gather and
// unit_free and a link's reduce-scatter / all-gather fits, written only where measured and read
// back; an operation listed twice, or one that is no ZeRO collective, refused naming the field.
TEST(CostModelIo, ShardingCostsRoundTripWhereMeasured) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  const Json plain = write_cost_model_json(f);
  EXPECT_FALSE(plain["devices"][0].contains("recompute"));
  EXPECT_FALSE(plain["links"][0].contains("operations"));
  f.costs.devices[0].recompute = costmodel::LinearCost{};
  f.costs.devices[0].recompute->per_unit_s = 0.012;
  f.costs.devices[0].unit_gather = costmodel::LinearCost{};
  f.costs.devices[0].unit_gather->per_unit_s = 2e-10;
  f.costs.devices[0].unit_free = costmodel::LinearCost{};
  f.costs.devices[0].unit_free->per_unit_s = 2e-12;
  f.costs.links[0].operations.push_back(
      {costmodel::CollectiveOp::kReduceScatter, 1e-5, 2.5e9, 0.04, "fit"});
  f.costs.links[0].operations.push_back(
      {costmodel::CollectiveOp::kAllGather, 2e-5, 5e9, 0.02, "fit"});
  const std::string path = testing::scratch_path("cost_model_sharding.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  const costmodel::DeviceCosts& d = back.costs.devices[0];
  ASSERT_TRUE(d.recompute && d.unit_gather && d.unit_free);
  EXPECT_EQ(d.recompute->per_unit_s, 0.012);
  EXPECT_EQ(d.unit_gather->per_unit_s, 2e-10);
  EXPECT_EQ(d.unit_free->per_unit_s, 2e-12);
  const costmodel::OperationLinkCost* rs =
      back.costs.links[0].find_operation(costmodel::CollectiveOp::kReduceScatter);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->bandwidth_bytes_per_s, 2.5e9);
  EXPECT_EQ(rs->latency_s, 1e-5);
  EXPECT_EQ(back.costs.links[0].find_operation(costmodel::CollectiveOp::kAllGather)->latency_s,
            2e-5);
  Json doc = write_cost_model_json(f);
  doc["links"][0]["operations"][1]["operation"] = "reduce-scatter";
  EXPECT_NE(cost_model_error(doc).find("/links/0/operations/1/operation: expected an operation "
                                       "not listed before"),
            std::string::npos)
      << cost_model_error(doc);
  doc["links"][0]["operations"][1]["operation"] = "all-reduce";
  EXPECT_NE(cost_model_error(doc).find("/links/0/operations/1/operation: expected one of"),
            std::string::npos)
      << cost_model_error(doc);
}

// The process part of the launch spread: written only where measured, read back; above the
// launch spread it is a part of, refused naming the field.
TEST(CostModelIo, TheProcessSpreadRoundTripsWithinTheLaunchSpread) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  EXPECT_FALSE(
      write_cost_model_json(f)["devices"][0]["uncertainty"].contains("process_spread_rel"));
  f.costs.devices[0].launch_spread_rel = 0.07;
  f.costs.devices[0].process_spread_rel = 0.05;
  const std::string path = testing::scratch_path("cost_model_process_spread.json");
  write_cost_model(path, f);
  EXPECT_EQ(read_cost_model(path).costs.devices[0].process_spread_rel, 0.05);
  Json doc = write_cost_model_json(f);
  doc["devices"][0]["uncertainty"]["process_spread_rel"] = 0.08;
  EXPECT_NE(cost_model_error(doc).find("/devices/0/uncertainty/process_spread_rel: expected a "
                                       "number <= launch_spread_rel"),
            std::string::npos)
      << cost_model_error(doc);
}

// A link's fits by ring shape: written only where the class has them, read back; a shape listed
// twice or a ring of one rank is refused naming the field.
TEST(CostModelIo, ALinksFitsByRingShapeRoundTrip) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  EXPECT_FALSE(write_cost_model_json(f)["links"][0].contains("rings"));
  f.costs.links[0].rings.push_back({4, 1, 2e-5, 1.0e9, 0.01, "fit of the 4-rank points"});
  f.costs.links[0].rings.push_back({2, 1, 3e-5, 1.2e9, 0.02, "fit of the 2-rank points"});
  const std::string path = testing::scratch_path("cost_model_rings.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  EXPECT_EQ(write_cost_model_json(back), write_cost_model_json(f));
  const costmodel::RingLinkCost* r = back.costs.links[0].find_ring(2, 1);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->bandwidth_bytes_per_s, 1.2e9);
  EXPECT_EQ(back.costs.links[0].find_ring(2, 2), nullptr);
  Json doc = write_cost_model_json(f);
  doc["links"][0]["rings"][1]["ranks"] = 4;
  EXPECT_NE(cost_model_error(doc).find("/links/0/rings/1/ranks: expected a ring shape"),
            std::string::npos)
      << cost_model_error(doc);
  doc["links"][0]["rings"][1]["ranks"] = 1;
  EXPECT_NE(cost_model_error(doc).find("/links/0/rings/1/ranks: expected a ring of 2 or more"),
            std::string::npos)
      << cost_model_error(doc);
}

// The process's start per sample: written only where it grows with the micro-batch, read back,
// refused below 0 naming the field.
TEST(CostModelIo, TheProcessStartPerSampleRoundTripsWhereItIsMeasured) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  EXPECT_EQ(f.costs.devices[0].process_start_per_sample_s, 0);
  EXPECT_FALSE(write_cost_model_json(f)["devices"][0].contains("process_start_per_sample_s"));
  f.costs.devices[0].process_start_per_sample_s = 0.029;
  const std::string path = testing::scratch_path("cost_model_process_start.json");
  write_cost_model(path, f);
  EXPECT_EQ(read_cost_model(path).costs.devices[0].process_start_per_sample_s, 0.029);
  Json doc = load_example("cost_model");
  doc["devices"][0]["process_start_per_sample_s"] = -0.1;
  EXPECT_NE(cost_model_error(doc).find("/devices/0/process_start_per_sample_s"), std::string::npos)
      << cost_model_error(doc);
}

TEST(CostModelIo, LayerCostsMustBelongToTheModel) {
  Json doc = load_example("cost_model");
  doc["devices"][0]["layers"][1]["layer"] = "blocks.3.mlp";
  EXPECT_NE(cost_model_error(doc).find(
                "bad.json: /devices/0/layers/1/layer: expected a layer of the model"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["devices"][0]["layers"][1]["kind"] = "head";
  EXPECT_NE(cost_model_error(doc).find("/devices/0/layers/1/kind: expected \"mlp\" (the kind of "
                                       "blocks.0.mlp), got string \"head\""),
            std::string::npos);
  doc = load_example("cost_model");
  doc["devices"][0]["layers"][1] = doc["devices"][0]["layers"][0];
  EXPECT_NE(cost_model_error(doc).find(
                "/devices/0/layers/1/layer: expected a layer after blocks.0.attention"),
            std::string::npos);
}

TEST(CostModelIo, CrossFieldUniqueness) {
  Json doc = load_example("cost_model");
  doc["devices"].push_back(doc["devices"][0]);
  EXPECT_NE(cost_model_error(doc).find(
                "/devices/1/device: expected a (device, precision) pair not listed before"),
            std::string::npos);
  doc["devices"][1]["precision"] = "amp-fp16";  // same device, other regime: fine
  EXPECT_EQ(cost_model_error(doc), "");
  doc = load_example("cost_model");
  doc["links"].push_back(doc["links"][0]);
  EXPECT_NE(
      cost_model_error(doc).find("/links/1/link_class: expected a link class not listed before"),
      std::string::npos);
  doc = load_example("cost_model");
  doc["devices"][0]["source"] = "measured";
  doc["devices"][0]["micro_batches"] = Json::array();
  EXPECT_NE(cost_model_error(doc).find(
                "/devices/0/micro_batches: expected the micro-batches the fit saw"),
            std::string::npos);
  doc = load_example("cost_model");
  doc["devices"][0]["micro_batches"] = {32, 16};
  EXPECT_NE(cost_model_error(doc).find("/devices/0/micro_batches/1: expected a micro-batch > 32"),
            std::string::npos);
}

TEST(CostModelIo, DocumentationShowsTheExample) {
  EXPECT_EQ(testing::doc_example("cost-model.md"), load_example("cost_model"));
}

}  // namespace
}  // namespace cost_model_io_test
}  // namespace vitsim::schema
