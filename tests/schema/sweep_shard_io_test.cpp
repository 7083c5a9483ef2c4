// Sweep entries and shard files: the example reads and round-trips exactly; an entry keeps every
// rank; a shard whose entries are not its slice, whose prediction indices are wrong, or whose
// contents were edited after it was written, is refused naming the file and the field.
#include "schema/sweep_shard_io.h"

#include <gtest/gtest.h>

#include <limits>

#include "error_of.h"  // tests/support/
#include "schema/build_info.h"
#include "schema/json_file.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace sweep_shard_io_test {
namespace {

using testing::load_example;
using testing::read_error;

TEST(SweepShardIo, ExampleReadsAndRoundTrips) {
  const ShardFile f = read_shard(testing::example_path("sweep-shard"));
  EXPECT_EQ(f.shard.index, 0);
  EXPECT_EQ(f.shard.count, 2);
  EXPECT_EQ(f.shard.total_configurations, 3);
  ASSERT_EQ(f.entries.size(), 2u);
  ASSERT_TRUE(f.entries[0].prediction.has_value());
  EXPECT_EQ(f.entries[0].prediction->steps_per_epoch, 1563);
  EXPECT_FALSE(f.entries[1].prediction.has_value());
  EXPECT_EQ(f.entries[1].configuration, 2);
  EXPECT_NE(f.entries[1].skipped.find("hierarchical"), std::string::npos);
  const Json written = write_shard_json(f);
  EXPECT_EQ(write_shard_json(read_shard(Node::parse_text(written.dump(), "w.json"))), written);
  EXPECT_EQ(written, load_example("sweep-shard"));
  EXPECT_EQ(testing::doc_example("sweep-shard.md"), load_example("sweep-shard"));
}

TEST(SweepShardIo, EntryRoundTripKeepsEveryRank) {
  SweepEntry e;
  e.configuration = 5;
  e.requested = false;
  e.prediction = read_shard(testing::example_path("sweep-shard")).entries[0].prediction;
  RankPrediction r = e.prediction->ranks.back();
  for (int64_t k = 2; k < 3000; ++k) {
    r.rank = k;
    r.host = "node" + std::to_string(k / 8);
    e.prediction->ranks.push_back(r);
  }
  const SweepEntry back = read_sweep_entry(Node::parse_text(write_sweep_entry(e).dump(), "e"));
  EXPECT_EQ(back.configuration, 5);
  EXPECT_FALSE(back.requested);
  ASSERT_TRUE(back.prediction.has_value());
  EXPECT_EQ(back.prediction->ranks.size(), 3000u);
  EXPECT_EQ(back.prediction->ranks.back().host, "node374");
}

TEST(SweepShardIo, EntriesOutsideTheSliceAreRefused) {
  Json doc = load_example("sweep-shard");
  doc["shard"]["entries"][1]["configuration"] = 1;  // slice 0 of 2 holds 0 and 2
  std::string e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("bad.json: /shard/entries/1/configuration: expected 2, got 1"),
            std::string::npos)
      << e;
  doc = load_example("sweep-shard");
  doc["shard"]["total_configurations"] = 5;  // then configuration 4 is missing
  e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("/shard/entries: expected 3 entries"), std::string::npos) << e;
  doc = load_example("sweep-shard");
  doc["shard"]["index"] = 2;
  e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("/shard/index: expected an index below count (2)"), std::string::npos) << e;
}

// Slices of int64 extremes: refused with the count expected, no overflow on the way (UBSan's
// signed-overflow check fails the sanitizer build's run of this test otherwise).
TEST(SweepShardIo, HugeSliceNumbersAreRefusedWithoutOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Json doc = load_example("sweep-shard");
  doc["shard"]["count"] = max;
  doc["shard"]["index"] = max - 1;
  std::string e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("/shard/entries: expected 0 entries"), std::string::npos) << e;
  doc = load_example("sweep-shard");
  doc["shard"]["count"] = max;
  doc["shard"]["total_configurations"] = max;
  e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("/shard/entries: expected 1 entries"), std::string::npos) << e;
}

// Every goal of `vitsim sweep --goal` reads back: the cost goals' shards merge too.
TEST(SweepShardIo, EveryGoalRoundTrips) {
  for (const char* goal :
       {"fastest-epoch", "best-efficiency", "cheapest-epoch", "best-throughput-per-dollar"}) {
    Json doc = load_example("sweep-shard");
    doc["shard"]["goal"] = goal;
    doc["shard"]["contents_digest"] = shard_contents_digest(doc);  // an edit vitsim could write
    const ShardFile f = read_shard(Node::parse_text(doc.dump(), "goal.json"));
    EXPECT_EQ(f.shard.goal, goal);
    EXPECT_EQ(write_shard_json(f), doc);
  }
  Json doc = load_example("sweep-shard");
  doc["shard"]["goal"] = "fastest";
  EXPECT_NE(read_error(doc, [](const Node& n) { read_shard(n); }).find("/shard/goal"),
            std::string::npos);
}

TEST(SweepShardIo, PredictionIndicesMustMatchTheConfigurations) {
  Json doc = load_example("sweep-shard");
  doc["shard"]["entries"][0]["prediction"] = 1;
  std::string e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("/shard/entries/0/prediction: expected the index of an unused entry"),
            std::string::npos)
      << e;
  doc = load_example("sweep-shard");
  doc["shard"]["entries"][0].erase("prediction");
  e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("exactly one of \"prediction\" and \"skipped\""), std::string::npos) << e;
  doc = load_example("sweep-shard");
  doc.erase("shard");
  e = read_error(doc, [](const Node& n) { read_shard(n); });
  EXPECT_NE(e.find("a shard file"), std::string::npos) << e;
}

// A shard edited after it was written (a configuration's GPU count, a rank's time) still reads as
// a well-formed prediction: its contents digest says it is not what vitsim wrote (issue 27: such a
// shard merged). The digest ignores the free-form context.
TEST(SweepShardIo, AnEditedShardIsRefusedByItsContentsDigest) {
  const std::vector<std::pair<const char*, Json>> edits = {
      {"/configurations/0/config/label", "3 GPUs"},
      {"/configurations/0/ranks/1/host", "node7"},
      {"/configurations/0/compute_time_s", 0.25}};
  for (const auto& [pointer, value] : edits) {
    Json doc = load_example("sweep-shard");
    doc[Json::json_pointer(pointer)] = value;
    const std::string e = read_error(doc, [](const Node& n) { read_shard(n); });
    EXPECT_NE(e.find("bad.json: /shard/contents_digest: expected fnv1a64:"), std::string::npos)
        << pointer << ": " << e;
  }
  Json doc = load_example("sweep-shard");
  doc["context"]["note"] = "a note added later";
  EXPECT_EQ(read_error(doc, [](const Node& n) { read_shard(n); }), "");
}

// Issue 68, class 10: a shard another build wrote is refused, naming the field.
TEST(SweepShardIo, AShardOfAnotherVitsimIsRefused) {
  ShardFile f = read_shard(testing::example_path("sweep-shard"));
  auto refusal = [&] {
    return vitsim::test::error_of<InputError>([&] { check_shard_writer(f, "s.json"); });
  };
  f.context = make_context("vitsim", {"vitsim", "sweep"});  // this build's
  EXPECT_EQ(refusal(), "");
  f.context["tool_version"] = "0.0.9";
  EXPECT_NE(refusal().find("s.json: /context/tool_version: expected a shard written by vitsim "),
            std::string::npos)
      << refusal();
  f.context = make_context("vitsim", {"vitsim", "sweep"});
  if (std::string(build_info::git_sha()) != "unknown") {
    f.context["git_sha"] = "0123456789ab";
    EXPECT_NE(refusal().find("/context/git_sha: expected a shard written by commit "),
              std::string::npos)
        << refusal();
  }
  f.context = Json::object();  // a hand-made shard says nothing of its writer
  EXPECT_NE(refusal().find("got none"), std::string::npos) << refusal();
}

TEST(SweepShardIo, DigestIsStable) {
  // FNV-1a 64 of "" and "a": the published test vectors.
  EXPECT_EQ(digest_text(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(digest_text("a"), "fnv1a64:af63dc4c8601ec8c");
}

}  // namespace
}  // namespace sweep_shard_io_test
}  // namespace vitsim::schema
