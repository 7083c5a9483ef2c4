// A link's terms learned from training runs (`links[].run_overheads`, docs/formats/cost-model.md):
// written only where a class has one, read back as written (a negative term too: a run faster
// than its prediction), a file without `compute_scale` read as 1, a term listed twice or out of
// its bounds refused naming the field.
#include <gtest/gtest.h>

#include "schema/cost_model_io.h"
#include "schema/json_file.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace run_overhead_io_test {
namespace {

std::string cost_model_error(const Json& doc) {
  return testing::read_error(doc, [](const Node& n) { read_cost_model(n); });
}

TEST(RunOverheadIo, ALinksTermsLearnedFromRunsRoundTrip) {
  CostModelFile f = read_cost_model(testing::example_path("cost_model"));
  EXPECT_FALSE(write_cost_model_json(f)["links"][0].contains("run_overheads"));
  f.costs.links[0].run_overheads.push_back(
      {"cpu", costmodel::Regime::kFp32, 2, -0.0123, 1.07, 0.002, 186, "run log run.json"});
  const std::string path = testing::scratch_path("cost_model_run_overheads.json");
  write_cost_model(path, f);
  const CostModelFile back = read_cost_model(path);
  EXPECT_EQ(write_cost_model_json(back), write_cost_model_json(f));
  const costmodel::RunStepOverhead* t =
      back.costs.links[0].find_run_overhead("cpu", costmodel::Regime::kFp32, 2);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->overhead_s, -0.0123);
  EXPECT_EQ(t->compute_scale, 1.07);
  EXPECT_EQ(t->steps, 186);
  EXPECT_EQ(back.costs.links[0].find_run_overhead("cpu", costmodel::Regime::kFp32, 3), nullptr);
  EXPECT_EQ(back.costs.links[0].find_run_overhead("cpu", costmodel::Regime::kAmpBf16, 2), nullptr);

  Json doc = write_cost_model_json(f);
  doc["links"][0]["run_overheads"].push_back(doc["links"][0]["run_overheads"][0]);
  EXPECT_NE(cost_model_error(doc).find("/links/0/run_overheads/1/device: expected one term per"),
            std::string::npos)
      << cost_model_error(doc);
  doc = write_cost_model_json(f);
  doc["links"][0]["run_overheads"][0]["ranks_per_node"] = 1;
  EXPECT_NE(cost_model_error(doc).find("/links/0/run_overheads/0/ranks_per_node: expected 2 or"),
            std::string::npos)
      << cost_model_error(doc);
  doc = write_cost_model_json(f);
  doc["links"][0]["run_overheads"][0]["overhead_s"] = -2e7;
  EXPECT_NE(cost_model_error(doc).find("/links/0/run_overheads/0/overhead_s"), std::string::npos)
      << cost_model_error(doc);
  doc = write_cost_model_json(f);
  doc["links"][0]["run_overheads"][0]["compute_scale"] = 0;
  EXPECT_NE(cost_model_error(doc).find("/links/0/run_overheads/0/compute_scale"), std::string::npos)
      << cost_model_error(doc);
  doc = write_cost_model_json(f);  // written before 2026-12-07: no factor, as profiled
  doc["links"][0]["run_overheads"][0].erase("compute_scale");
  const std::string older = testing::scratch_path("cost_model_run_overheads_older.json");
  write_json_output(older, doc);
  EXPECT_EQ(read_cost_model(older).costs.links[0].run_overheads[0].compute_scale, 1);
}

}  // namespace
}  // namespace run_overhead_io_test
}  // namespace vitsim::schema
