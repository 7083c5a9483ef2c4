// Issue 68, class 4: names (cluster, hosts, configuration labels) holding the characters each
// format treats specially reach every writer of XML, CSV, gnuplot and HTML, and each writer
// escapes them itself:
//  - `platform --export-xml`: well-formed XML (xmllint) whose ids are the names exactly (read back
//    by Python's xml.etree); a name XML cannot hold (a control byte) is refused with exit 2;
//  - the report's figures: a host named with '"' keeps its bar in the breakdown and a label with
//    '"' its place on the time-cost front (the drawn SVG shows them), and report.html shows them
//    escaped;
//  - `simulate --out`: the CSVs read back by Python's csv module (RFC 4180) give the names exactly.
// The cluster is the Tesla cluster with two hosts renamed; everything is in the test's folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vitsim_cli.h"  // tests/support/

namespace escaping_cli_test {
namespace {

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;
using vitsim::test::quoted;

using vitsim::test::run_vitsim;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
const std::string kQuoteHost = "h\"x";         // tesla0 (p4), rank 0 with 4 GPUs
const std::string kMarkupHost = "a<b&c'd";     // tesla1 (rtx3070)
const std::string kClusterName = "q\"lab<&>";  // the platform's zone

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Escaping : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("escaping_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write_cluster(kQuoteHost, kMarkupHost, kClusterName);
    nlohmann::json s = nlohmann::json::parse(slurp(kSrc + "/scenarios/tesla-strong.json"));
    s["cluster"] = path("cluster.json");
    s["configurations"] = {{{"label", "1 GPU, \"one\""}, {"gpus", 1}},
                           {{"label", "2 GPUs, \"two\""}, {"gpus", 2}},
                           {{"label", "4 GPUs, \"four\""}, {"gpus", 4}}};
    std::ofstream(path("scenario.json")) << s.dump(1);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The Tesla cluster with tesla0 and tesla1 renamed (host sets too).
  void write_cluster(const std::string& host0, const std::string& host1,
                     const std::string& name) const {
    nlohmann::json c = nlohmann::json::parse(slurp(kSrc + "/platforms/tesla.json"));
    auto rename = [&](nlohmann::json& h) {
      if (h == "tesla0") h = host0;
      if (h == "tesla1") h = host1;
    };
    c["name"] = name;
    for (auto& n : c["nodes"]) rename(n["name"]);
    for (auto& [k, set] : c["host_sets"].items())
      for (auto& h : set) rename(h);
    std::ofstream(path("cluster.json")) << c.dump(1);
  }
  Result python(const std::string& program) const {
    return vitsim::test::run_command("/usr/bin/python3 -c " + quoted(program));
  }
  fs::path dir_;
};

TEST_F(Escaping, TheExportedXmlIsWellFormedAndHoldsTheNamesExactly) {
  const Result r =
      run_vitsim("platform " + path("cluster.json") + " --export-xml " + path("p.xml"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    const Result lint = vitsim::test::run_command("xmllint --noout --nonet " + path("p.xml"));
    EXPECT_EQ(lint.exit_code, 0) << lint.output;
  }
  const Result ids = python(
      "import xml.etree.ElementTree as E\n"
      "t = E.parse('" +
      path("p.xml") +
      "')\n"
      "print('|'.join(sorted(z.get('id') for z in t.iter('zone'))[:3]))\n"
      "print('|'.join(sorted(h.get('id') for h in t.iter('host'))[:2]))\n");
  ASSERT_EQ(ids.exit_code, 0) << ids.output;
  EXPECT_EQ(ids.output, "a<b&c'd|h\"x|q\"lab<&>.network\na<b&c'd.gpu0|h\"x.gpu0\n");
  // A control byte has no place in XML 1.0: refused, nothing written.
  write_cluster("h\x01x", kMarkupHost, kClusterName);
  const Result bad =
      run_vitsim("platform " + path("cluster.json") + " --export-xml " + path("b.xml"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--export-xml " + path("b.xml") + ": the name 'h\\x01x"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(path("b.xml")));
}

TEST_F(Escaping, TheCsvOutputsReadBackToTheNamesExactly) {
  const Result r = run_vitsim("simulate " + path("scenario.json") + " --costs " + kCosts +
                              " --out " + path("p"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Result rows = python(
      "import csv\n"
      "c = list(csv.DictReader(open('" +
      path("p.csv") +
      "')))\n"
      "print('|'.join(r['label'] for r in c))\n"
      "k = list(csv.DictReader(open('" +
      path("p.ranks.csv") +
      "')))\n"
      "print('|'.join(sorted(set(r['host'] for r in k))))\n");
  ASSERT_EQ(rows.exit_code, 0) << rows.output;
  EXPECT_EQ(rows.output,
            "1 GPU, \"one\"|2 GPUs, \"two\"|4 GPUs, \"four\"\n"
            "a<b&c'd|h\"x|tesla2|tesla4\n");
}

TEST_F(Escaping, AQuoteInAHostNameOrALabelKeepsItsPlaceInTheFigures) {
  Result r = run_vitsim("simulate " + path("scenario.json") + " --costs " + kCosts + " --out " +
                        path("p"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_vitsim("report --predicted " + path("p.json") + " --out " + path("r"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path fig = dir_ / "r" / "figures";
  // The breakdown's two bars: rank 0 on h"x, and the three others; each a row of data.
  const std::string data = slurp(fig / "s0-tesla_strong-breakdown.dat");
  EXPECT_EQ(std::count(data.begin(), data.end(), '\n'), 3) << data;
  const std::string svg = slurp(fig / "s0-tesla_strong-breakdown.svg");
  EXPECT_TRUE(svg.find("r0 h&quot;x p4") != std::string::npos ||
              svg.find("r0 h\"x p4") != std::string::npos)
      << "the bar of rank 0 lost its name";
  EXPECT_NE(svg.find("3 ranks: 1-3 rtx3070"), std::string::npos);
  // The time-cost front names its points by their labels, quotes and all.
  const std::string pareto = slurp(fig / "s0-tesla_strong-pareto.svg");
  EXPECT_TRUE(pareto.find("1 GPU, &quot;one&quot;") != std::string::npos ||
              pareto.find("1 GPU, \"one\"") != std::string::npos)
      << "a label on the front lost its quotes";
  const std::string html = slurp(dir_ / "r" / "report.html");
  EXPECT_NE(html.find("4 GPUs, &quot;four&quot;"), std::string::npos);
  EXPECT_EQ(html.find("4 GPUs, \"four\""), std::string::npos) << "a label reached the page raw";
}

}  // namespace
}  // namespace escaping_cli_test
