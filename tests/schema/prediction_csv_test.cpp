// The two CSV views of predictions (schema/prediction_csv.h): each example on
// docs/formats/predictions-csv.md is what the writer makes of
// tests/schema/examples/prediction.json, and a label with a comma and quotes survives the round
// trip through the reader.
#include "schema/prediction_csv.h"

#include <gtest/gtest.h>

#include "schema/csv_table.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace prediction_csv_test {
namespace {

// The n-th ```csv block of the page (0-based), "" when there is none.
std::string doc_csv(size_t n) {
  const std::string text =
      testing::read_text(std::string(VITSIM_SOURCE_DIR) + "/docs/formats/predictions-csv.md");
  const std::string open = "```csv\n";
  size_t start = 0;
  for (size_t i = 0; i <= n; ++i) {
    start = text.find(open, i == 0 ? 0 : start + open.size());
    if (start == std::string::npos) return "";
  }
  const size_t end = text.find("```", start + open.size());
  return text.substr(start + open.size(), end - start - open.size());
}

PredictionFile example() {
  return read_prediction(testing::example_path("prediction"));
}

TEST(PredictionCsv, PageExamplesAreWhatTheWriterWrites) {
  EXPECT_EQ(configurations_csv({example()}), doc_csv(0));
  EXPECT_EQ(ranks_csv(example()), doc_csv(1));
}

TEST(PredictionCsv, OneRowPerConfigurationOrPerRank) {
  PredictionFile two = example();
  two.configurations.push_back(two.configurations.front());
  EXPECT_EQ(CsvTable::parse(configurations_csv({two}), "c.csv").rows(), 2u);
  EXPECT_EQ(CsvTable::parse(ranks_csv(two), "r.csv").rows(), 4u);
}

TEST(PredictionCsv, LabelsWithCommasAndQuotesRoundTrip) {
  PredictionFile p = example();
  p.configurations[0].config.label = "2 GPUs, \"fast\" link";
  schema::ComputeProvenance t4;
  t4.device = "t4";
  t4.precision = costmodel::Regime::kDsFp16;
  t4.source = costmodel::CostSource::kTransferred;
  t4.ranks = 1;
  p.configurations[0].provenance.compute.push_back(t4);
  const CsvTable c = CsvTable::parse(configurations_csv({p}), "c.csv");
  EXPECT_EQ(c.at(0, "label"), "2 GPUs, \"fast\" link");
  EXPECT_EQ(c.at(0, "provenance"),
            "rtx3070/fp32=measured; t4/ds-fp16=transferred; example-1gbe=modelled");
  const CsvTable r = CsvTable::parse(ranks_csv(p), "r.csv");
  EXPECT_EQ(r.at(1, "configuration"), "2 GPUs, \"fast\" link");
  EXPECT_EQ(r.at(1, "host"), "node1");
}

// Both views carry $ and kWh per epoch and per run with the price's check state; a configuration
// without a cost (no price, out of memory) leaves the cells empty.
TEST(PredictionCsv, CostColumnsFilledWithACostEmptyWithout) {
  PredictionFile p = example();
  p.configurations.push_back(p.configurations.front());
  RunCost c;
  c.mode = "cloud";
  c.epoch_usd = 0.25;
  c.run_usd = 2.5;
  c.epochs = 10;
  c.epoch_kwh = 0.125;
  c.run_kwh = 1.25;
  c.price_status = "unverified";
  p.configurations[0].cost = c;
  const CsvTable t = CsvTable::parse(configurations_csv({p}), "c.csv");
  const CsvTable r = CsvTable::parse(ranks_csv(p), "r.csv");
  for (const CsvTable* v : {&t, &r}) {
    EXPECT_DOUBLE_EQ(v->number(0, "epoch_usd"), 0.25);
    EXPECT_DOUBLE_EQ(v->number(0, "run_usd"), 2.5);
    EXPECT_EQ(v->at(0, "epochs"), "10");
    EXPECT_DOUBLE_EQ(v->number(0, "epoch_kwh"), 0.125);
    EXPECT_DOUBLE_EQ(v->number(0, "run_kwh"), 1.25);
    EXPECT_EQ(v->at(0, "price_status"), "unverified");
  }
  EXPECT_EQ(t.at(1, "epoch_usd"), "");
  EXPECT_EQ(t.at(1, "price_status"), "");
  EXPECT_EQ(r.at(2, "run_kwh"), "");  // ranks 2 and 3 are the second configuration's
}

}  // namespace
}  // namespace prediction_csv_test
}  // namespace vitsim::schema
