// Profile format: the minimal example reads, write->read round-trips, and every kind of bad input
// is refused with file, JSON pointer, expected and got (docs/formats/profile.md).
#include "schema/profile.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace profile_test {
namespace {

using testing::load_example;
using testing::read_error;

std::string profile_error(const Json& doc) {
  return read_error(doc, [](const Node& n) { read_profile(n); });
}

TEST(Profile, ReadsMinimalExample) {
  const Profile p = read_profile(testing::example_path("profile"));
  EXPECT_EQ(p.device, "rtx3070");
  EXPECT_EQ(p.source, costmodel::CostSource::kMeasured);
  EXPECT_EQ(p.precision, costmodel::Regime::kFp32);
  ASSERT_TRUE(p.model.has_value());
  EXPECT_EQ(p.model->depth, 1);
  EXPECT_EQ(p.model->image_size, 32);
  ASSERT_EQ(p.compute.size(), 1u);
  EXPECT_EQ(p.compute[0].micro_batch, 16);
  ASSERT_EQ(p.compute[0].layers.size(), 5u);
  EXPECT_EQ(p.compute[0].layers[1].kind, costmodel::LayerKind::kAttention);
  EXPECT_DOUBLE_EQ(p.compute[0].layers[1].backward_time_s, 0.0023);
  ASSERT_TRUE(p.compute[0].peak_memory_bytes.has_value());
  EXPECT_DOUBLE_EQ(*p.compute[0].peak_memory_bytes, 52428800);
  ASSERT_EQ(p.allreduce.size(), 1u);
  EXPECT_EQ(p.allreduce[0].points.size(), 2u);
  EXPECT_EQ(p.context["host"], "tesla1");
}

TEST(Profile, RoundTripsThroughAFile) {
  const Profile p = read_profile(testing::example_path("profile"));
  const std::string path = testing::scratch_path("profile.json");
  write_profile(path, p);
  const Profile back = read_profile(path);
  EXPECT_EQ(write_profile_json(back), write_profile_json(p));
  // Every file opens with schema, schema_version, context (in that order).
  const std::string text = testing::read_text(path);
  EXPECT_EQ(text.rfind(
                "{\n  \"schema\": \"vitsim.profile\",\n  \"schema_version\": 3,\n  \"context\"", 0),
            0u)
      << text.substr(0, 120);
}

TEST(Profile, OptionalPartsMayBeAbsent) {
  Json doc = load_example("profile");
  doc.erase("model");
  doc["compute"] = Json::array();
  const Profile p = read_profile(Node(doc, "allreduce-only.json", ""));
  EXPECT_FALSE(p.model.has_value());
  Json no_peak = load_example("profile");
  no_peak["compute"][0].erase("peak_memory_bytes");
  EXPECT_FALSE(read_profile(Node(no_peak, "p.json", "")).compute[0].peak_memory_bytes.has_value());
  // Round trip keeps them absent.
  const Json out = write_profile_json(read_profile(Node(doc, "a.json", "")));
  EXPECT_FALSE(out.contains("model"));
}

TEST(Profile, MissingKey) {
  Json doc = load_example("profile");
  doc["compute"][0].erase("optimizer_time_s");
  EXPECT_EQ(profile_error(doc),
            "bad.json: /compute/0/optimizer_time_s: expected key \"optimizer_time_s\", got nothing "
            "(missing) (hint: see the format's page in docs/)");
}

TEST(Profile, WrongType) {
  Json doc = load_example("profile");
  doc["compute"][0]["micro_batch"] = "16";
  EXPECT_EQ(profile_error(doc),
            "bad.json: /compute/0/micro_batch: expected integer, got string \"16\"");
  doc = load_example("profile");
  doc["allreduce"][0]["points"][0]["time_s"] = "10 ms";
  EXPECT_NE(profile_error(doc).find(
                "/allreduce/0/points/0/time_s: expected number, got string \"10 ms\""),
            std::string::npos);
}

TEST(Profile, UnknownKey) {
  Json doc = load_example("profile");
  doc["compute"][0]["layers"][0]["forward_time_ms"] = 0.2;
  const std::string e = profile_error(doc);
  EXPECT_NE(
      e.find("bad.json: /compute/0/layers/0/forward_time_ms: expected one of the keys name, kind"),
      std::string::npos)
      << e;
  EXPECT_NE(e.find("got unknown key \"forward_time_ms\""), std::string::npos) << e;
  doc = load_example("profile");
  doc["comment"] = "x";
  EXPECT_NE(profile_error(doc).find("bad.json: /comment: expected one of the keys"),
            std::string::npos);
}

TEST(Profile, ContextIsFreeFormButAnObject) {
  Json doc = load_example("profile");
  doc["context"]["anything"] = {{"nested", 1}};
  EXPECT_EQ(profile_error(doc), "");
  doc["context"] = "none";
  EXPECT_NE(profile_error(doc).find("bad.json: /context: expected object"), std::string::npos);
}

TEST(Profile, UnknownVersionAndWrongSchema) {
  Json doc = load_example("profile");
  doc["schema_version"] = 4;
  EXPECT_NE(
      profile_error(doc).find("bad.json: /schema_version: expected schema_version 3, got number 4"),
      std::string::npos);
  doc = load_example("profile");
  doc["schema"] = "vitsim.run_log";
  EXPECT_NE(profile_error(doc).find(
                "bad.json: /schema: expected \"vitsim.profile\", got string \"vitsim.run_log\""),
            std::string::npos);
}

TEST(Profile, PreRegimeVersionReadsFp32AndRefusesBareHalfTypes) {
  // Version 1 said fp32/fp16/bf16: fp32 means the same, fp16/bf16 could be autocast or DeepSpeed.
  Json doc = load_example("profile");
  doc["schema_version"] = 1;
  EXPECT_EQ(profile_error(doc), "");
  doc["precision"] = "fp16";
  const std::string e = profile_error(doc);
  EXPECT_NE(e.find("bad.json: /precision:"), std::string::npos) << e;
  EXPECT_NE(e.find("amp-fp16"), std::string::npos) << e;
  EXPECT_NE(e.find("ds-fp16"), std::string::npos) << e;
  doc["schema_version"] = 2;
  doc["precision"] = "ds-bf16";
  EXPECT_EQ(profile_error(doc), "");
}

TEST(Profile, AVersionTwoMeasuredProfilesEpochStartIsItsProcessStart) {
  // Version 2's vitsim-train timed the process's first step under epoch_start_time_s; an imported
  // log's was, and is, the loader's restart.
  Json doc = load_example("profile");
  doc["compute"][0]["epoch_start_time_s"] = 0.9;
  doc["compute"][0]["process_start_time_s"] = 1.5;
  Profile p = read_profile(Node(doc, "v3.json", ""));
  EXPECT_EQ(p.compute[0].epoch_start_time_s, 0.9);
  EXPECT_EQ(p.compute[0].process_start_time_s, 1.5);
  doc["schema_version"] = 2;
  const std::string e = profile_error(doc);
  EXPECT_NE(e.find("bad.json: /compute/0/process_start_time_s: expected no process_start_time_s "
                   "before schema_version 3"),
            std::string::npos)
      << e;
  doc["compute"][0].erase("process_start_time_s");
  p = read_profile(Node(doc, "v2.json", ""));
  EXPECT_FALSE(p.compute[0].epoch_start_time_s.has_value());
  EXPECT_EQ(p.compute[0].process_start_time_s, 0.9);
  // Written back, it says so in version 3's words.
  const Json back = write_profile_json(p);
  EXPECT_EQ(back["schema_version"], 3);
  EXPECT_FALSE(back["compute"][0].contains("epoch_start_time_s"));
  EXPECT_EQ(back["compute"][0]["process_start_time_s"], 0.9);
  doc["source"] = "imported";
  p = read_profile(Node(doc, "v2-imported.json", ""));
  EXPECT_EQ(p.compute[0].epoch_start_time_s, 0.9);
  EXPECT_FALSE(p.compute[0].process_start_time_s.has_value());
}

TEST(Profile, TheOptimizerAfterAWaitComesWithItsWait) {
  Json doc = load_example("profile");
  doc["compute"][0]["optimizer_after_wait_time_s"] = 0.007;
  doc["compute"][0]["optimizer_wait_s"] = 0.02;
  const Profile p = read_profile(Node(doc, "wait.json", ""));
  EXPECT_EQ(p.compute[0].optimizer_after_wait_time_s, 0.007);
  EXPECT_EQ(p.compute[0].optimizer_wait_s, 0.02);
  const Json back = write_profile_json(p);
  EXPECT_EQ(back["compute"][0]["optimizer_after_wait_time_s"], 0.007);
  EXPECT_EQ(back["compute"][0]["optimizer_wait_s"], 0.02);
  EXPECT_FALSE(back["compute"][0].contains("data_after_wait_time_s"));
  // The next step's data wait beside them.
  doc["compute"][0]["data_after_wait_time_s"] = 0.0004;
  const Profile with_data = read_profile(Node(doc, "wait.json", ""));
  EXPECT_EQ(with_data.compute[0].data_after_wait_time_s, 0.0004);
  EXPECT_EQ(write_profile_json(with_data)["compute"][0]["data_after_wait_time_s"], 0.0004);
  // Not measured (the example as shipped): absent, and not written.
  const Profile plain = read_profile(Node(load_example("profile"), "plain.json", ""));
  EXPECT_FALSE(plain.compute[0].optimizer_after_wait_time_s.has_value());
  EXPECT_FALSE(write_profile_json(plain)["compute"][0].contains("optimizer_wait_s"));
  // One without the other: the measurement's condition is missing.
  doc["compute"][0].erase("optimizer_wait_s");
  const std::string e = profile_error(doc);
  EXPECT_NE(e.find("bad.json: /compute/0/optimizer_after_wait_time_s: expected "
                   "optimizer_after_wait_time_s and optimizer_wait_s together, got one without "
                   "the other"),
            std::string::npos)
      << e;
  doc["compute"][0].erase("optimizer_after_wait_time_s");
  const std::string e2 = profile_error(doc);
  EXPECT_NE(e2.find("bad.json: /compute/0/data_after_wait_time_s: expected data_after_wait_time_s "
                    "beside optimizer_wait_s, got no optimizer_wait_s"),
            std::string::npos)
      << e2;
}

// The copy into the buckets of a 2+-rank step: read and written where measured, absent where not,
// a negative time refused naming the field.
TEST(Profile, TheBucketCopyRoundTripsWhereMeasured) {
  Json doc = load_example("profile");
  EXPECT_FALSE(read_profile(Node(doc, "plain.json", "")).compute[0].bucket_copy_time_s.has_value());
  EXPECT_FALSE(write_profile_json(read_profile(Node(doc, "plain.json", "")))["compute"][0].contains(
      "bucket_copy_time_s"));
  doc["compute"][0]["bucket_copy_time_s"] = 0.0042;
  const Profile p = read_profile(Node(doc, "copy.json", ""));
  EXPECT_EQ(p.compute[0].bucket_copy_time_s, 0.0042);
  EXPECT_EQ(write_profile_json(p)["compute"][0]["bucket_copy_time_s"], 0.0042);
  doc["compute"][0]["bucket_copy_time_s"] = -0.001;
  const std::string e = profile_error(doc);
  EXPECT_NE(e.find("bad.json: /compute/0/bucket_copy_time_s"), std::string::npos) << e;
}

// The independent blocks' mean steps and all-reduce times (the run-to-run spread): read and
// written where measured, absent in older profiles (the spread unknown), refused with fewer than
// two blocks or a block of 0 s, naming the field.
TEST(Profile, TheBlocksMeanTimesRoundTripWhereMeasuredAndNeedTwo) {
  Json doc = load_example("profile");
  EXPECT_TRUE(read_profile(Node(doc, "old.json", "")).compute[0].block_step_times_s.empty());
  EXPECT_FALSE(write_profile_json(read_profile(Node(doc, "old.json", "")))["compute"][0].contains(
      "block_step_times_s"));
  doc["compute"][0]["block_step_times_s"] = {0.0101, 0.0097, 0.0112};
  const Profile p = read_profile(Node(doc, "blocks.json", ""));
  EXPECT_EQ(p.compute[0].block_step_times_s, (std::vector<double>{0.0101, 0.0097, 0.0112}));
  EXPECT_EQ(write_profile_json(p)["compute"][0]["block_step_times_s"],
            Json({0.0101, 0.0097, 0.0112}));
  doc["compute"][0]["block_step_times_s"] = {0.0101};
  const std::string one = profile_error(doc);
  EXPECT_NE(one.find("bad.json: /compute/0/block_step_times_s: expected two or more blocks' mean "
                     "times"),
            std::string::npos)
      << one;
  doc["compute"][0]["block_step_times_s"] = {0.0101, 0.0};
  const std::string zero = profile_error(doc);
  EXPECT_NE(zero.find("bad.json: /compute/0/block_step_times_s/1"), std::string::npos) << zero;
  doc["compute"][0]["block_step_times_s"] = 0.01;
  EXPECT_NE(profile_error(doc).find("/compute/0/block_step_times_s"), std::string::npos);
  // An all-reduce point's blocks alike.
  doc = load_example("profile");
  doc["allreduce"][0]["points"][1]["block_times_s"] = {0.031, 0.033};
  const Profile a = read_profile(Node(doc, "ar.json", ""));
  EXPECT_TRUE(a.allreduce[0].points[0].block_times_s.empty());
  EXPECT_EQ(a.allreduce[0].points[1].block_times_s, (std::vector<double>{0.031, 0.033}));
  EXPECT_EQ(write_profile_json(a)["allreduce"][0]["points"][1]["block_times_s"],
            Json({0.031, 0.033}));
  EXPECT_FALSE(write_profile_json(a)["allreduce"][0]["points"][0].contains("block_times_s"));
  doc["allreduce"][0]["points"][1]["block_times_s"] = Json::array();
  EXPECT_NE(profile_error(doc).find("bad.json: /allreduce/0/points/1/block_times_s: expected two"),
            std::string::npos);
}

TEST(Profile, NegativeTimeAndSize) {
  Json doc = load_example("profile");
  doc["compute"][0]["layers"][2]["backward_time_s"] = -0.001;
  EXPECT_EQ(
      profile_error(doc),
      "bad.json: /compute/0/layers/2/backward_time_s: expected number >= 0, got number -0.001 "
      "(hint: times and sizes cannot be negative)");
  doc = load_example("profile");
  doc["compute"][0]["peak_memory_bytes"] = -1;
  EXPECT_NE(profile_error(doc).find("/compute/0/peak_memory_bytes: expected number >= 0"),
            std::string::npos);
  doc = load_example("profile");
  doc["allreduce"][0]["points"][0]["message_bytes"] = 0;
  EXPECT_NE(profile_error(doc).find("/allreduce/0/points/0/message_bytes: expected number > 0"),
            std::string::npos);
}

TEST(Profile, NonFiniteNumbers) {
  // NaN written by nlohmann becomes null on disk.
  Json doc = load_example("profile");
  doc["compute"][0]["data_time_s"] = Json(NAN);
  EXPECT_EQ(profile_error(doc), "bad.json: /compute/0/data_time_s: expected number, got null");
  // A NaN still held in memory is refused as non-finite.
  Json mem = load_example("profile");
  mem["compute"][0]["data_time_s"] = INFINITY;
  EXPECT_NE(testing::error_of([&] {
              read_profile(Node(mem, "m.json", ""));
            }).find("m.json: /compute/0/data_time_s: expected finite number"),
            std::string::npos);
  // 1e999 does not fit a double: the parser refuses the file.
  const std::string e = testing::error_of([] {
    read_profile(Node::parse_text(R"({"schema": "vitsim.profile", "x": 1e999})", "huge.json"));
  });
  EXPECT_NE(e.find("huge.json: /x: expected a finite number that fits a double"), std::string::npos)
      << e;
}

TEST(Profile, UnknownEnumValues) {
  Json doc = load_example("profile");
  doc["precision"] = "fp8";
  EXPECT_EQ(profile_error(doc).rfind("bad.json: /precision: expected a precision regime (fp32, "
                                     "amp-fp16, amp-bf16, ds-fp16, ds-bf16, ",
                                     0),
            0u);
  EXPECT_NE(profile_error(doc).find("got string \"fp8\""), std::string::npos);
  doc = load_example("profile");
  doc["compute"][0]["layers"][3]["kind"] = "layernorm";
  EXPECT_NE(
      profile_error(doc).find(
          "/compute/0/layers/3/kind: expected one of patch_embed, attention, mlp, norm, head"),
      std::string::npos);
  doc = load_example("profile");
  doc["source"] = "transferred";
  EXPECT_NE(profile_error(doc).find("/source: expected one of measured, imported"),
            std::string::npos);
  doc = load_example("profile");
  doc["allreduce"][0]["backend"] = "gloo";
  EXPECT_NE(
      profile_error(doc).find("/allreduce/0/backend: expected one of mpi, nccl, deepspeed-nccl"),
      std::string::npos);
}

TEST(Profile, RanksPerNodeIsOptionalAndAtMostTheRanks) {
  Json doc = load_example("profile");
  EXPECT_EQ(read_profile(Node(doc, "p.json", "")).allreduce[0].ranks_per_node, 1);  // absent
  doc["allreduce"][0]["ranks"] = 16;
  for (auto& point : doc["allreduce"][0]["points"]) {  // busbw = algbw x 2(n-1)/n for n = 16
    point["busbw_bytes_per_s"] = point["algbw_bytes_per_s"].get<double>() * 30 / 16;
  }
  doc["allreduce"][0]["ranks_per_node"] = 8;
  const Profile p = read_profile(Node(doc, "p.json", ""));
  EXPECT_EQ(p.allreduce[0].ranks_per_node, 8);
  EXPECT_EQ(write_profile_json(p)["allreduce"][0]["ranks_per_node"], 8);
  doc["allreduce"][0]["ranks_per_node"] = 17;
  EXPECT_NE(profile_error(doc).find("/allreduce/0/ranks_per_node: expected at most ranks (16), got "
                                    "number 17 (hint: the ranks on the host that held the fewest)"),
            std::string::npos)
      << profile_error(doc);
  doc["allreduce"][0]["ranks_per_node"] = 0;
  EXPECT_NE(profile_error(doc).find("/allreduce/0/ranks_per_node: expected"), std::string::npos);
}

// The ranks that shared the host while the profile measured (mpirun -np K vitsim-train profile
// --shared-host): absent reads as 1 (one profiler alone), written only above 1, held to 1 .. 1024.
TEST(Profile, RanksPerHostIsOptionalAndBounded) {
  Json doc = load_example("profile");
  const Profile alone = read_profile(Node(doc, "p.json", ""));
  EXPECT_EQ(alone.ranks_per_host, 1);
  EXPECT_FALSE(write_profile_json(alone).contains("ranks_per_host"));
  doc["ranks_per_host"] = 2;
  const Profile shared = read_profile(Node(doc, "p.json", ""));
  EXPECT_EQ(shared.ranks_per_host, 2);
  EXPECT_EQ(write_profile_json(shared)["ranks_per_host"], 2);
  for (const Json bad : {Json(0), Json(1025), Json(1.5), Json("2")}) {
    doc["ranks_per_host"] = bad;
    EXPECT_NE(profile_error(doc).find("bad.json: /ranks_per_host: expected"), std::string::npos)
        << profile_error(doc);
  }
  doc["ranks_per_host"] = 1025;
  EXPECT_NE(profile_error(doc).find("expected a rank count per host 1 .. 1024, got number 1025"),
            std::string::npos)
      << profile_error(doc);
}

// ZeRO's collectives (bench-allreduce --collective): optional lists of the all-reduce's entries,
// busbw with nccl-tests' factor of each, (n-1)/n, which the reader holds them to.
TEST(Profile, ReduceScatterAndAllGatherEntriesRoundTripWithTheirOwnBusFactor) {
  Json doc = load_example("profile");
  Json entry = doc["allreduce"][0];
  entry["ranks"] = 4;
  for (auto& point : entry["points"])  // algbw x 3/4 for n = 4
    point["busbw_bytes_per_s"] = point["algbw_bytes_per_s"].get<double>() * 3 / 4;
  doc["reduce_scatter"] = Json::array({entry});
  doc["all_gather"] = Json::array({entry});
  const Profile p = read_profile(Node(doc, "p.json", ""));
  ASSERT_EQ(p.reduce_scatter.size(), 1u);
  ASSERT_EQ(p.all_gather.size(), 1u);
  EXPECT_EQ(p.all_gather[0].ranks, 4);
  const Json written = write_profile_json(p);
  EXPECT_EQ(written["all_gather"][0]["ranks"], 4);
  EXPECT_DOUBLE_EQ(written["reduce_scatter"][0]["points"][1]["busbw_bytes_per_s"].get<double>(),
                   9.375e7);
  EXPECT_EQ(write_profile_json(read_profile(Node(written, "again.json", ""))), written);
  EXPECT_DOUBLE_EQ(costmodel::bus_factor(costmodel::CollectiveOp::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(costmodel::bus_factor(costmodel::CollectiveOp::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(costmodel::bus_factor(costmodel::CollectiveOp::kAllGather, 2), 0.5);
  // The all-reduce's factor on a reduce-scatter is refused, naming the formula.
  doc["reduce_scatter"][0]["points"][0]["busbw_bytes_per_s"] = 1.5e8;
  EXPECT_NE(profile_error(doc).find("/reduce_scatter/0/points/0/busbw_bytes_per_s: expected algbw "
                                    "* (n-1)/n (n = 4) = 7.5e+07"),
            std::string::npos)
      << profile_error(doc);
  // Without them the file is as before (no empty lists written).
  EXPECT_FALSE(write_profile_json(read_profile(testing::example_path("profile")))
                   .contains("reduce_scatter"));
}

TEST(Profile, TheRecomputationAndAUnitsGatherRoundTripWhereMeasured) {
  Json doc = load_example("profile");
  EXPECT_FALSE(read_profile(Node(doc, "p.json", "")).compute[0].recompute_time_s.has_value());
  doc["compute"][0]["recompute_time_s"] = 0.004;
  doc["compute"][0]["unit_gather_time_s"] = 0.0002;
  doc["compute"][0]["unit_free_time_s"] = 1e-6;
  const Profile p = read_profile(Node(doc, "p.json", ""));
  EXPECT_DOUBLE_EQ(*p.compute[0].recompute_time_s, 0.004);
  EXPECT_DOUBLE_EQ(*p.compute[0].unit_free_time_s, 1e-6);
  EXPECT_EQ(write_profile_json(p)["compute"][0]["unit_gather_time_s"], 0.0002);
  doc["compute"][0]["unit_gather_time_s"] = -1;
  EXPECT_NE(profile_error(doc).find("/compute/0/unit_gather_time_s"), std::string::npos);
}

TEST(Profile, TheLocalGradientWorkIsOptionalAndAPartOfTheStepOverhead) {
  Json doc = load_example("profile");
  EXPECT_FALSE(read_profile(Node(doc, "p.json", "")).compute[0].gradient_local_time_s);
  const double overhead = doc["compute"][0]["step_overhead_time_s"].get<double>();
  doc["compute"][0]["gradient_local_time_s"] = overhead / 2;
  const Profile p = read_profile(Node(doc, "p.json", ""));
  ASSERT_TRUE(p.compute[0].gradient_local_time_s);
  EXPECT_EQ(*p.compute[0].gradient_local_time_s, overhead / 2);
  EXPECT_EQ(write_profile_json(p)["compute"][0]["gradient_local_time_s"], overhead / 2);
  doc["compute"][0]["gradient_local_time_s"] = overhead * 2;
  const std::string e = profile_error(doc);
  EXPECT_NE(e.find("/compute/0/gradient_local_time_s: expected a part of step_overhead_time_s"),
            std::string::npos)
      << e;
  doc["compute"][0]["gradient_local_time_s"] = -1;
  EXPECT_NE(profile_error(doc).find("/compute/0/gradient_local_time_s: expected"),
            std::string::npos);
}

TEST(Profile, FewestRanksPerHostCountsTheHostThatHeldTheFewest) {
  EXPECT_EQ(fewest_ranks_per_host({"a", "a", "b", "b", "b"}), 2);
  EXPECT_EQ(fewest_ranks_per_host({"a", "a", "a"}), 3);  // one host
  EXPECT_EQ(fewest_ranks_per_host({"a", "b"}), 1);
  EXPECT_EQ(fewest_ranks_per_host({}), 1);
  // From counts per host (the simulator's, per node): hosts without ranks do not count.
  EXPECT_EQ(fewest_ranks_on_a_host({2, 0, 3}), 2);
  EXPECT_EQ(fewest_ranks_on_a_host({0, 0}), 1);
  EXPECT_EQ(fewest_ranks_on_a_host({}), 1);
}

TEST(Profile, LayersMustBelongToTheModel) {
  Json doc = load_example("profile");
  doc["compute"][0]["layers"][2]["name"] = "blocks.1.mlp";  // the model has depth 1
  const std::string e = profile_error(doc);
  EXPECT_NE(e.find("bad.json: /compute/0/layers/2/name: expected a layer of the model"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("got string \"blocks.1.mlp\""), std::string::npos) << e;
  doc = load_example("profile");
  doc["compute"][0]["layers"][2]["kind"] = "attention";
  EXPECT_NE(profile_error(doc).find(
                "/compute/0/layers/2/kind: expected \"mlp\" (the kind of blocks.0.mlp)"),
            std::string::npos);
  doc = load_example("profile");
  std::swap(doc["compute"][0]["layers"][1], doc["compute"][0]["layers"][2]);
  EXPECT_NE(profile_error(doc).find(
                "/compute/0/layers/2/name: expected a layer after blocks.0.mlp in execution order"),
            std::string::npos);
}

TEST(Profile, CrossFieldChecks) {
  Json doc = load_example("profile");
  doc.erase("model");
  EXPECT_NE(
      profile_error(doc).find("bad.json: /compute: expected a \"model\" next to layer timings"),
      std::string::npos);
  doc = load_example("profile");
  doc["compute"] = Json::array();
  doc["allreduce"] = Json::array();
  EXPECT_NE(profile_error(doc).find("/compute: expected at least one compute or collective entry"),
            std::string::npos);
  doc = load_example("profile");
  doc["compute"].push_back(doc["compute"][0]);
  EXPECT_NE(
      profile_error(doc).find("/compute/1/micro_batch: expected a micro_batch not listed before"),
      std::string::npos);
  doc = load_example("profile");
  doc["allreduce"][0]["points"][0]["algbw_bytes_per_s"] = 2.0e8;  // 1e6 B in 10 ms is 1e8 B/s
  EXPECT_NE(profile_error(doc).find(
                "/allreduce/0/points/0/algbw_bytes_per_s: expected message_bytes / time_s = 1e+08"),
            std::string::npos);
  doc = load_example("profile");
  doc["allreduce"][0]["ranks"] = 4;  // busbw would be 1.5 x algbw
  EXPECT_NE(
      profile_error(doc).find(
          "/allreduce/0/points/0/busbw_bytes_per_s: expected algbw * 2(n-1)/n (n = 4) = 1.5e+08"),
      std::string::npos);
  doc = load_example("profile");
  std::swap(doc["allreduce"][0]["points"][0], doc["allreduce"][0]["points"][1]);
  EXPECT_NE(profile_error(doc).find(
                "/allreduce/0/points/1/message_bytes: expected message_bytes > 4e+06"),
            std::string::npos);
}

TEST(Profile, DocumentationShowsTheExample) {
  EXPECT_EQ(testing::doc_example("profile.md"), load_example("profile"));
}

}  // namespace
}  // namespace profile_test
}  // namespace vitsim::schema
