// Physical bounds at the readers (costmodel/physical_bounds.h): the absurd values of issue 11 are
// refused with file, JSON pointer, the bound and its reason, before any simulation or fit sees
// them; values at the bounds themselves are accepted.
#include "costmodel/physical_bounds.h"

#include <gtest/gtest.h>

#include <string>

#include "schema/cluster.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/model_io.h"
#include "schema/profile.h"
#include "schema/run_log.h"
#include "schema/scenario.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace physical_bounds_test {
namespace {

using testing::example_with;

template <typename Reader>
std::string error_with(const std::string& format, const std::string& from, const std::string& to,
                       Reader reader) {
  return testing::text_error(example_with(format, from, to), "bad.json", reader);
}

void cluster(const Node& n) {
  read_cluster(n);
}
void scenario(const Node& n) {
  read_scenario(n);
}

// Issue 11: a NIC bandwidth of 1e-300 or a latency of 1e308 made SimGrid detect a deadlock and
// segfault.
TEST(PhysicalBounds, ClusterLinkFigures) {
  const std::string nic = "\"bandwidth_bytes_per_s\":1250000000.0";
  std::string e = error_with("cluster", nic, "\"bandwidth_bytes_per_s\":1e-300", cluster);
  EXPECT_EQ(
      e,
      "bad.json: /nodes/0/nic/bandwidth_bytes_per_s: expected a bandwidth in bytes/s: 1e3 .. "
      "1e14, got number 1e-300, below 1000 (hint: write 1.25e9 for 10 Gbit/s; below 1 kB/s or "
      "above 100 TB/s is no real link)");
  e = error_with("cluster", "\"latency_s\":2.5e-05", "\"latency_s\":1e308", cluster);
  EXPECT_NE(e.find("bad.json: /nodes/0/nic/latency_s: expected a latency in seconds: 0 or 1e-9 .. "
                   "10, got number 1e+308, above 10 (hint: "),
            std::string::npos)
      << e;
  e = error_with("cluster", "\"latency_s\":2.5e-05", "\"latency_s\":1e-12", cluster);
  EXPECT_NE(e.find("below 1e-09"), std::string::npos) << e;
  EXPECT_EQ(error_with("cluster", "\"latency_s\":2.5e-05", "\"latency_s\":0", cluster), "");
  EXPECT_EQ(error_with("cluster", nic, "\"bandwidth_bytes_per_s\":1e14", cluster), "");
}

// Issue 11: a GPU count of 1e9 grew memory without limit.
TEST(PhysicalBounds, ClusterCounts) {
  std::string e =
      error_with("cluster", "\"gpus\":[{\"count\":2", "\"gpus\":[{\"count\":1000000000", cluster);
  EXPECT_NE(e.find("bad.json: /nodes/0/gpus/0/count: expected a GPU count per node 1 .. 1024, got "
                   "number 1000000000, above 1024"),
            std::string::npos)
      << e;
  e = error_with("cluster", "[{\"count\":2,", "[{\"count\":1000000001,", cluster);
  EXPECT_NE(e.find("/nodes/0/count: expected a node count 1 .. 1000000"), std::string::npos) << e;
  e = error_with("cluster", "\"host_sets\":{\"2\"", "\"host_sets\":{\"99999999999999999999\"",
                 cluster);
  EXPECT_NE(e.find("/host_sets/99999999999999999999: expected a key that is a rank count"),
            std::string::npos)
      << e;
}

TEST(PhysicalBounds, ScenarioCountsAndAnEpochOfNoImage) {
  std::string e = error_with("scenario", "\"micro_batch\":16", "\"micro_batch\":1e9", scenario);
  EXPECT_NE(e.find("bad.json: /defaults/micro_batch: expected a micro-batch 1 .. 1000000"),
            std::string::npos)
      << e;
  e = error_with("scenario", "\"micro_batch\":16", "\"micro_batch\":16,\"accumulation\":1000000000",
                 scenario);
  EXPECT_NE(e.find("/defaults/accumulation: expected an accumulation 1 .. 1000000"),
            std::string::npos)
      << e;
  e = error_with("scenario", "\"gpus\":1,", "\"gpus\":10000000,", scenario);
  EXPECT_NE(e.find("/configurations/0/gpus: expected a rank count 1 .. 1000000"), std::string::npos)
      << e;
  e = error_with("scenario", "\"gpus\":1,", "\"gpus\":1,\"images\":10,\"data_fraction\":0.01,",
                 scenario);
  EXPECT_NE(e.find("/configurations/0: expected data_fraction x images >= one global batch"),
            std::string::npos)
      << e;
  e = error_with("scenario", "\"micro_batch\":16", "\"micro_batch\":16,\"bucket_bytes\":1e300",
                 scenario);
  EXPECT_NE(e.find("/defaults/bucket_bytes: expected a size in bytes: 1 .. 1e15"),
            std::string::npos)
      << e;
}

// Issue 11: --mlp-ratio 1e17 gave negative memory and compute times; the same model in a file.
TEST(PhysicalBounds, ModelDimensions) {
  const auto model_error = [](const Json& m) {
    return testing::error_of([&] { read_model(Node(m, "m.json", "/model")); });
  };
  EXPECT_NE(model_error({{"preset", "vit_b_16"}, {"mlp_ratio", 1e17}}).find("m.json: /model: "),
            std::string::npos);
  EXPECT_NE(model_error({{"preset", "vit_b_16"}, {"mlp_ratio", 1e17}}).find("mlp_ratio must be"),
            std::string::npos);
  EXPECT_NE(model_error({{"preset", "vit_b_16"}, {"depth", 1000000000}}).find("depth must be in"),
            std::string::npos);
  EXPECT_NE(model_error({{"preset", "vit_b_16"}, {"width", 1 << 20}, {"heads", 1}})
                .find("width must be in"),
            std::string::npos);
  EXPECT_EQ(model_error({{"preset", "vit_b_16"}, {"depth", 1024}}), "");
}

TEST(PhysicalBounds, RunLogShapeCannotOverflow) {
  // 2^21 x 2^21 x 2^21 = 2^63 would overflow the global-batch product; each is bounded first.
  const std::string e = error_with("run_log", "\"world_size\":2", "\"world_size\":2097152",
                                   [](const Node& n) { read_run_log(n); });
  EXPECT_NE(e.find("/config/world_size: expected a rank count 1 .. 1000000"), std::string::npos)
      << e;
}

TEST(PhysicalBounds, ProfileCostModelAndCatalogFigures) {
  std::string e = error_with("profile", "\"time_s\":0.01", "\"time_s\":1e-12",
                             [](const Node& n) { read_profile(n); });
  EXPECT_NE(e.find("/allreduce/0/points/0/time_s: expected a duration in seconds: 1e-9 .. 1e7"),
            std::string::npos)
      << e;
  e = error_with("profile", "\"optimizer_time_s\":0.0015", "\"optimizer_time_s\":1e9",
                 [](const Node& n) { read_profile(n); });
  EXPECT_NE(e.find("/compute/0/optimizer_time_s: expected a duration in seconds: 0 .. 1e7"),
            std::string::npos)
      << e;
  e = error_with("cost_model", "\"latency_s\":5e-05", "\"latency_s\":1e308",
                 [](const Node& n) { read_cost_model(n); });
  EXPECT_NE(e.find("/links/0/latency_s: expected a latency in seconds"), std::string::npos) << e;
  e = error_with("gpus", "\"memory_bytes\":8589934592", "\"memory_bytes\":1e20",
                 [](const Node& n) { read_gpus(n); });
  EXPECT_NE(e.find("/memory_bytes: expected a size in bytes: 1 .. 1e15, got number 1e+20"),
            std::string::npos)
      << e;
}

// A pass whose layers all read 0 s is no measurement (an import of timers reading 0).
TEST(PhysicalBounds, ProfilePassesTakeTime) {
  Json doc = testing::load_example("profile");
  for (auto& l : doc["compute"][0]["layers"]) l["forward_time_s"] = 0.0;
  const std::string e = testing::read_error(doc, [](const Node& n) { read_profile(n); });
  EXPECT_NE(e.find("bad.json: /compute/0/layers: expected layers whose forward and backward times "
                   "add up to more than 0 s"),
            std::string::npos)
      << e;
}

TEST(PhysicalBounds, BoundViolationWords) {
  EXPECT_EQ(costmodel::bound_violation(costmodel::kDurationS, 0), "");
  EXPECT_EQ(costmodel::bound_violation(costmodel::kDurationS, -1), "below 0");
  EXPECT_EQ(costmodel::bound_violation(costmodel::kLinkLatencyS, 5e-324),
            "a denormal number (no precision left)");
  EXPECT_EQ(costmodel::bound_violation(costmodel::kLinkBandwidthBytesPerS, 0), "below 1000");
  EXPECT_EQ(costmodel::bound_violation(costmodel::kRanks, 0), "below 1");
  EXPECT_EQ(costmodel::bound_violation(costmodel::kRanks, 1000001), "above 1000000");
}

}  // namespace
}  // namespace physical_bounds_test
}  // namespace vitsim::schema
