// Scenario files: the example and every shipped scenario read; defaults apply to configurations;
// malformed files name the place; node overrides apply to the cluster.
#include "schema/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace scenario_test {
namespace {

const std::string kExample = std::string(VITSIM_TEST_DATA_DIR) + "/examples/scenario.json";

std::string error_of(const std::string& text) {
  return testing::text_error(text, "s.json", [](const Node& n) { read_scenario(n); });
}

std::string with(const std::string& from, const std::string& to) {
  return testing::example_with("scenario", from, to);
}

TEST(Scenario, ExampleReadsWithDefaults) {
  const Scenario s = read_scenario(kExample);
  ASSERT_EQ(s.configurations.size(), 2u);
  EXPECT_EQ(s.configurations[0].micro_batch, 16);
  EXPECT_EQ(s.configurations[0].placement, "inter-node");
  EXPECT_FALSE(s.configurations[0].overlap);
  EXPECT_TRUE(s.configurations[1].overlap);
  EXPECT_EQ(s.configurations[1].collective, costmodel::Collective::kTree);
  EXPECT_EQ(s.configurations[1].optimizer, costmodel::Optimizer::kAdamW);
  // The bucket cap predict and sweep default to, 500 MiB (was 5e8 bytes here alone).
  EXPECT_EQ(s.configurations[0].bucket_bytes, 500.0 * 1024 * 1024);
  EXPECT_EQ(scenario_cluster_path(s), std::string(VITSIM_TEST_DATA_DIR) + "/examples/cluster.json");
  const ClusterSpec c = read_cluster(scenario_cluster_path(s));
  EXPECT_EQ(c.name, "example");
}

TEST(Scenario, ShippedScenariosRead) {
  int n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(VITSIM_SOURCE_DIR) + "/scenarios")) {
    const Scenario s = read_scenario(e.path().string());
    EXPECT_FALSE(s.configurations.empty()) << e.path();
    read_cluster(scenario_cluster_path(s));
    ++n;
  }
  EXPECT_GE(n, 11);
}

TEST(Scenario, MalformedFilesNameThePlace) {
  EXPECT_NE(error_of(with("\"gpus\":2", "\"gpus\":0"))
                .find("s.json: /configurations/1/gpus: expected integer >= 1"),
            std::string::npos);
  EXPECT_NE(error_of(with("\"collective\":\"tree\"", "\"collective\":\"mesh\""))
                .find("expected one of ring, tree"),
            std::string::npos);
  EXPECT_NE(error_of(with("\"gpus\":2", "\"gpus\":2,\"hosts\":[\"node0\"]"))
                .find("one entry per rank (2)"),
            std::string::npos);
  EXPECT_NE(error_of(with("\"micro_batch\":16", "\"micro_batch\":\"16\""))
                .find("/defaults/micro_batch: expected integer"),
            std::string::npos);
  EXPECT_NE(
      error_of(with("\"label\":\"1 GPU\"", "\"lable\":\"1 GPU\"")).find("unknown key \"lable\""),
      std::string::npos);
  EXPECT_NE(error_of(with("\"gpus\":2", "\"gpus\":2,\"epoch\":\"last\""))
                .find("s.json: /configurations/1/epoch: expected one of later, first"),
            std::string::npos);
}

TEST(Scenario, TheEpochPredictedIsALaterOneUnlessTheFirstIsAsked) {
  const Scenario later = read_scenario(kExample);
  EXPECT_FALSE(later.configurations[1].first_epoch);
  EXPECT_FALSE(write_training_config(later.configurations[1]).contains("epoch"));
  Json doc = testing::load_example("scenario");
  doc["configurations"][1]["epoch"] = "first";
  const Scenario first = read_scenario(Node(doc, "s.json", ""));
  EXPECT_FALSE(first.configurations[0].first_epoch);
  EXPECT_TRUE(first.configurations[1].first_epoch);
  const Json written = write_training_config(first.configurations[1]);
  EXPECT_EQ(written["epoch"], "first");
  EXPECT_TRUE(read_training_config(Node(written, "p.json", ""), TrainingConfig{}).first_epoch);
}

// The ZeRO stage and checkpointing (docs/sharding.md): written only where not 0 / false, read
// back; a stage outside 0-3 or a checkpointing that is not a boolean refused naming the key.
TEST(Scenario, TheStageAndCheckpointingAreKeysOfTheirOwn) {
  const Scenario plain = read_scenario(kExample);
  EXPECT_EQ(plain.configurations[1].zero_stage, 0);
  EXPECT_FALSE(write_training_config(plain.configurations[1]).contains("zero_stage"));
  EXPECT_FALSE(write_training_config(plain.configurations[1]).contains("activation_checkpointing"));
  Json doc = testing::load_example("scenario");
  doc["configurations"][1]["zero_stage"] = 3;
  doc["configurations"][1]["activation_checkpointing"] = true;
  const Scenario sharded = read_scenario(Node(doc, "s.json", ""));
  EXPECT_EQ(sharded.configurations[1].zero_stage, 3);
  EXPECT_TRUE(sharded.configurations[1].activation_checkpointing);
  EXPECT_EQ(sharded.configurations[0].zero_stage, 0);
  const Json written = write_training_config(sharded.configurations[1]);
  EXPECT_EQ(written["zero_stage"], 3);
  const TrainingConfig back = read_training_config(Node(written, "p.json", ""), TrainingConfig{});
  EXPECT_EQ(back.zero_stage, 3);
  EXPECT_TRUE(back.activation_checkpointing);
  doc["configurations"][1]["zero_stage"] = 4;
  const std::string e = testing::read_error(doc, [](const Node& n) { read_scenario(n); });
  EXPECT_NE(e.find("/configurations/1/zero_stage: expected a ZeRO stage 0, 1, 2 or 3"),
            std::string::npos)
      << e;
  doc["configurations"][1]["zero_stage"] = 1;
  doc["configurations"][1]["activation_checkpointing"] = "on";
  EXPECT_NE(testing::read_error(doc, [](const Node& n) { read_scenario(n); })
                .find("/configurations/1/activation_checkpointing: expected"),
            std::string::npos);
}

TEST(Scenario, NodeOverridesChangeTheCluster) {
  Scenario s = read_scenario(kExample);
  const ClusterSpec c = read_cluster(scenario_cluster_path(s));
  s.node_overrides.push_back({"node", LinkSpec{1.25e10, 5e-6, "example-100g", {}}, {}});
  EXPECT_EQ(apply_overrides(s, c).nodes[0].nic.link_class, "example-100g");
  // An override naming no transport keeps the replaced NIC's (socket, MTU 1500); one naming a
  // transport brings its own.
  EXPECT_EQ(apply_overrides(s, c).nodes[0].nic.transport.kind, costmodel::Transport::kSocket);
  EXPECT_EQ(apply_overrides(s, c).nodes[0].nic.transport.mtu_bytes, 1500);
  s.node_overrides[0].nic->transport.kind = costmodel::Transport::kNetIb;
  s.node_overrides[0].nic->transport.mtu_bytes = 4096;
  EXPECT_EQ(apply_overrides(s, c).nodes[0].nic.transport.mtu_bytes, 4096);
  const Node nic = Node::parse_text(
      R"({"bandwidth_bytes_per_s": 1.25e9, "latency_s": 2.5e-5, "link_class": "x",
          "mtu_bytes": 1500})",
      "o.json");
  EXPECT_NE(testing::error_of([&] {
              read_link_spec(nic, TransportRule::kOptional);
            }).find("o.json: /mtu_bytes: expected key \"transport\" next to \"mtu_bytes\""),
            std::string::npos);
  s.node_overrides[0].node = "nope";
  EXPECT_THROW(apply_overrides(s, c), InputError);
}

TEST(ScenarioDoc, PageExampleIsTheTestExample) {
  EXPECT_EQ(testing::doc_example("scenario.md"), testing::load_example("scenario"));
}

}  // namespace
}  // namespace scenario_test
}  // namespace vitsim::schema
