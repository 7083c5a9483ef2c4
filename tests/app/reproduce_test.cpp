// End to end: `vitsim reproduce` on the reference study (data/vit-deepspeed-study/study.json) into
// a temporary folder. Checks that every output exists, reads back, and that the development set's
// errors are no worse than docs/calibration.md ("Result on the development set") says.
#include "app/reproduce.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "read_text.h"  // tests/support/
#include "schema/cost_model_io.h"
#include "schema/profile.h"

namespace vitsim::app {
namespace reproduce_test {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {  // tests/support/read_text.h
  return vitsim::test::read_text(p.string());
}

// Runs the test from another working directory and comes back, however it ends.
struct CwdGuard {
  explicit CwdGuard(const fs::path& to) : from(fs::current_path()) { fs::current_path(to); }
  ~CwdGuard() { fs::current_path(from); }
  fs::path from;
};

// The development set's figures as docs/calibration.md states them, and the bounds this test holds
// the job to: those figures rounded up to the next 0.1 %. The bounds move with the docs (a change
// that makes the prediction worse must restate the figures there, in review) and the development
// set is never used for tuning: nothing is fitted to it, these are upper bounds only.
constexpr const char* kDocMedian = "median absolute error 3.52 %";
constexpr const char* kDocWorst = "worst absolute error 4.96 %";
constexpr double kMedianBoundPct = 3.6;
constexpr double kWorstBoundPct = 5.0;

TEST(Reproduce, WritesEveryOutputAndValidates) {
  // A relative output folder, as `make run` passes it (out): the report's gnuplot runs must cope.
  const CwdGuard cwd(fs::temp_directory_path());
  const fs::path dir = "vitsim-reproduce-" + std::to_string(::getpid());
  fs::remove_all(dir);
  ReproduceOptions o;
  o.out_dir = dir.string();
  std::vector<std::string> progress;
  o.progress = [&](const std::string& line) { progress.push_back(line); };
  const ReproduceResult r = reproduce(o);
  EXPECT_EQ(progress.size(), 5u);  // one line per stage
  for (const auto& f : {r.costs_path, r.predictions_csv, r.validation_txt, r.report_html}) {
    EXPECT_TRUE(fs::exists(f)) << f;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "profiles"), fs::directory_iterator()), 5);
  // Every JSON written reads back through the schema readers (which refuse what they would
  // misread).
  for (const auto& e : fs::directory_iterator(dir / "profiles")) {
    EXPECT_NO_THROW(schema::read_profile(e.path().string())) << e.path();
  }
  const auto costs = schema::read_cost_model(r.costs_path).costs;
  for (const char* device : {"rtx3070", "t4", "p4", "gtx1070"}) {
    EXPECT_NE(costs.find(device, costmodel::Regime::kFp32), nullptr) << device;
  }
  EXPECT_EQ(costs.find("gtx1070", costmodel::Regime::kFp32)->source,
            costmodel::CostSource::kTransferred);
  EXPECT_NE(costs.find_link("tesla-10gbe"), nullptr);
  for (const auto& f : r.prediction_files) EXPECT_NO_THROW(schema::read_prediction(f)) << f;
  ASSERT_FALSE(r.prediction_files.empty()) << "no scenarios/*.json simulated";
  ASSERT_GE(r.validation.rows.size(), 1u) << read(r.validation_txt);
  EXPECT_EQ(r.validation.rows.size(), 7u);  // the rows the docs' figures are over
  EXPECT_LE(r.validation.median_abs_error_pct, kMedianBoundPct) << read(r.validation_txt);
  EXPECT_LE(r.validation.worst_abs_error_pct, kWorstBoundPct) << read(r.validation_txt);
  EXPECT_GE(r.validation.worst_abs_error_pct, r.validation.median_abs_error_pct);
  const std::string docs = read(fs::path(VITSIM_SOURCE_DIR) / "docs/calibration.md");
  EXPECT_NE(docs.find(kDocMedian), std::string::npos) << "docs/calibration.md lost its figures";
  EXPECT_NE(docs.find(kDocWorst), std::string::npos) << "docs/calibration.md lost its figures";
  EXPECT_GE(r.validation.spearman, -1.0);
  EXPECT_LE(r.validation.spearman, 1.0);
  const std::string text = read(r.validation_txt);
  EXPECT_NE(text.find("median absolute error"), std::string::npos);
  EXPECT_NE(text.find("node to node"), std::string::npos);  // the variation is stated, not hidden
  const std::string csv = read(r.predictions_csv);
  EXPECT_EQ(csv.rfind("scenario,cluster,label,gpus", 0), 0u);
  // Cost and energy per epoch: the T4 scenarios at the T4's cloud price, labelled unverified
  // (platforms/prices.json), in the CSV and in the report's tables.
  EXPECT_NE(csv.find(",epoch_usd,run_usd,epochs,epoch_kwh,run_kwh,price_status,cost_mode,"
                     "cost_missing\n"),
            std::string::npos);
  EXPECT_NE(csv.find(",unverified,cloud,\n"), std::string::npos) << csv;
  const std::string html = read(r.report_html);
  EXPECT_NE(html.find("<th>$/epoch (cloud)</th><th>kWh/epoch</th>"), std::string::npos);
  EXPECT_NE(html.find("* cost from a price not checked"), std::string::npos);
  EXPECT_NE(html.find("data:image/png;base64,"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace reproduce_test
}  // namespace vitsim::app
