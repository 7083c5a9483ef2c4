// The time-cost figure's Pareto labels (present/time_cost_figure.h) in the gnuplot script it
// writes: five configurations on the front, a fraction of a second and a tenth of a cent apart, as
// a sweep of collectives or buckets gives them. Their labels must not overlap: every label
// appears once, in a key beside the plot (screen coordinates, lines a font height apart); at the
// points only their ranks, neighbours' numbers on opposite sides of their points.
#include "present/time_cost_figure.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "read_text.h"  // tests/support/

namespace vitsim::present {
namespace time_cost_figure_test {
namespace {

namespace fs = std::filesystem;

schema::ConfigPrediction priced(const std::string& label, double epoch_s, double usd) {
  schema::ConfigPrediction p;
  p.cluster = "tesla";
  p.config.gpus = 4;
  p.config.micro_batch = 16;
  p.config.label = label;
  p.epoch_time_s = epoch_s;
  p.step_time_s = epoch_s / 100;
  schema::RunCost cost;
  cost.mode = "owned";
  cost.epoch_usd = usd;
  p.cost = cost;
  return p;
}

TEST(TimeCostFigure, CloseLabelsOfTheFrontDoNotOverlap) {
  const fs::path dir =
      fs::temp_directory_path() / ("vitsim-time-cost-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  schema::PredictionFile pred;
  pred.scenario = "close";
  const std::vector<std::string> names = {"4 GPUs ring 25MiB", "4 GPUs ring 50MiB",
                                          "4 GPUs tree 25MiB", "4 GPUs tree 50MiB",
                                          "4 GPUs hierarchical 25MiB"};
  for (size_t i = 0; i < names.size(); ++i)  // each slower and cheaper: all on the front
    pred.configurations.push_back(priced(names[i], 600 + 0.4 * static_cast<double>(i),
                                         1.000 - 0.001 * static_cast<double>(i)));
  schema::OutputGroup group;
  const FigureSink sink{&group, dir.string(), dir.string()};
  ASSERT_TRUE(draw_time_cost(pred, sink, "close").has_value());
  group.commit();
  const std::string script = vitsim::test::read_text((dir / "close-pareto.gp").string());
  std::vector<double> key_y;
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    const std::string text = "'" + std::to_string(i + 1) + "  " + names[i] + "'";
    // Once, and beside the plot: "set label '1  NAME' at screen X, screen Y".
    const size_t at = script.find("set label " + text + " at screen ");
    ASSERT_NE(at, std::string::npos) << script;
    EXPECT_EQ(script.find(names[i] + "'"), script.rfind(names[i] + "'")) << script;
    std::smatch m;
    const std::string line = script.substr(at, script.find('\n', at) - at);
    ASSERT_TRUE(std::regex_search(line, m, std::regex("screen ([0-9.]+), screen ([0-9.]+)")))
        << line;
    EXPECT_GE(std::stod(m[1]), 0.66) << "inside the plot: " << line;
    key_y.push_back(std::stod(m[2]));
  }
  for (size_t i = 1; i < key_y.size(); ++i)  // a font height (8 pt of 540 px) or more apart
    EXPECT_GE(std::fabs(key_y[i - 1] - key_y[i]), 0.03) << script;
  // At the points: the ranks, neighbours' on opposite sides.
  const std::regex mark(
      "set label '([0-9]+)' at first [^ ]+, first [^ ]+ (left|right) offset "
      "char ([-0-9.]+),([-0-9.]+)");
  std::vector<std::string> sides;
  for (auto it = std::sregex_iterator(script.begin(), script.end(), mark);
       it != std::sregex_iterator(); ++it) {
    EXPECT_EQ((*it)[1].str(), std::to_string(sides.size() + 1)) << script;
    sides.push_back((*it)[2].str() + " " + (*it)[3].str() + "," + (*it)[4].str());
  }
  ASSERT_EQ(sides.size(), names.size()) << script;
  for (size_t i = 1; i < sides.size(); ++i) EXPECT_NE(sides[i - 1], sides[i]) << script;
  EXPECT_NE(script.find("set rmargin at screen"), std::string::npos) << "no room for the key";
  EXPECT_TRUE(fs::exists(dir / "close-pareto.svg"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace time_cost_figure_test
}  // namespace vitsim::present
