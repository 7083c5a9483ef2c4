// End to end: `vitsim reproduce` on the repository's data, platforms and scenarios into a temporary
// folder. Checks that every output exists and that validation compared predictions with the
// development epoch times (numbers computed, finite, in range). The accuracy itself is reported
// by reproduce, not asserted here: the development set is for looking at, not for tuning.
#include "app/reproduce.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "schema/cost_model_io.h"
#include "schema/profile.h"

namespace vitsim::app {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the test from another working directory and comes back, however it ends.
struct CwdGuard {
  explicit CwdGuard(const fs::path& to) : from(fs::current_path()) { fs::current_path(to); }
  ~CwdGuard() { fs::current_path(from); }
  fs::path from;
};

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
    EXPECT_NE(costs.find(device, costmodel::Precision::kFp32), nullptr) << device;
  }
  EXPECT_EQ(costs.find("gtx1070", costmodel::Precision::kFp32)->source,
            costmodel::CostSource::kTransferred);
  EXPECT_NE(costs.find_link("tesla-10gbe"), nullptr);
  for (const auto& f : r.prediction_files) EXPECT_NO_THROW(schema::read_prediction(f)) << f;
  ASSERT_FALSE(r.prediction_files.empty()) << "no scenarios/*.json simulated";
  ASSERT_GE(r.validation.rows.size(), 1u) << read(r.validation_txt);
  EXPECT_TRUE(std::isfinite(r.validation.median_abs_error_pct));
  EXPECT_GE(r.validation.worst_abs_error_pct, r.validation.median_abs_error_pct);
  EXPECT_GE(r.validation.spearman, -1.0);
  EXPECT_LE(r.validation.spearman, 1.0);
  const std::string text = read(r.validation_txt);
  EXPECT_NE(text.find("median absolute error"), std::string::npos);
  EXPECT_NE(text.find("node to node"), std::string::npos);  // the variation is stated, not hidden
  const std::string csv = read(r.predictions_csv);
  EXPECT_EQ(csv.rfind("scenario,cluster,label,gpus", 0), 0u);
  EXPECT_NE(read(r.report_html).find("data:image/png;base64,"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vitsim::app
