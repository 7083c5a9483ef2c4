// The report renders with all its figures: a report of a small hand-made prediction is rendered in
// headless Chromium (Debian's chromium, a listed dependency: scripts/install-deps), with a script
// appended to a copy of the page that records every image's naturalWidth after load; every figure
// must have decoded (naturalWidth > 0); the top of the page is saved as a screenshot
// (vitsim-report-top.png in the temporary folder, printed) for a person to look at. The page fits a
// 1280 px window (no sideways scrolling, every table in view), and reads in a minute: summary and
// contents first, study experiments before what-ifs, "-" where a value is undefined.
#include "present/report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "read_text.h"    // tests/support/
#include "run_command.h"  // tests/support/

namespace vitsim::present {
namespace report_test {
namespace {

namespace fs = std::filesystem;

// A configuration as a simulation writes it: its speed-up against the 700 s 1-GPU epoch (what
// costmodel::speedups gives), where its inputs came from (a long "inputs" cell, as a real cluster
// gives), an 80 % range and a cost.
schema::ConfigPrediction config(int64_t gpus, double epoch_s) {
  schema::ConfigPrediction p;
  p.cluster = "tesla";
  p.config.gpus = gpus;
  p.config.micro_batch = 16;
  p.config.placement = "inter-node";
  p.config.label = std::to_string(gpus) + "x mb16 ring 500MiB no-overlap";
  p.epoch_time_s = epoch_s;
  p.step_time_s = epoch_s / 100;
  p.throughput_images_per_s = 50000 / epoch_s;
  p.speedup = 700 / epoch_s;
  p.parallel_efficiency = p.speedup / static_cast<double>(gpus);
  p.range = costmodel::PredictionRange{};
  p.range->epoch_time_s = {0.9 * epoch_s, epoch_s, 1.1 * epoch_s};
  p.provenance.compute.push_back(
      {"rtx3070", costmodel::Regime::kFp32, costmodel::CostSource::kTransferred, "", 0, 0, gpus});
  for (const char* link : {"tesla-10gbe-with-a-long-name", "tesla-1gbe-onboard-port"}) {
    schema::LinkUse use;
    use.link.link_class = link;
    use.link.source = costmodel::LinkSource::kModelled;
    p.provenance.links.push_back(use);
  }
  schema::RunCost cost;
  cost.mode = "owned";
  cost.epoch_usd = 0.01 * epoch_s / 700 * static_cast<double>(gpus);
  p.cost = cost;
  for (int64_t r = 0; r < gpus; ++r) {
    schema::RankPrediction rp;
    rp.rank = r;
    rp.host = "tesla" + std::to_string(r + 1);
    rp.device = "rtx3070";
    rp.compute_time_s = 0.2;
    rp.exposed_comm_time_s = 0.05 * static_cast<double>(gpus - 1);
    rp.idle_time_s = r == 0 ? 0.01 : 0;
    p.ranks.push_back(rp);
  }
  return p;
}

// tests/support/read_text.h
constexpr auto read = &vitsim::test::read_text;

std::string run(const std::string& cmd) {  // its stdout (tests/support/run_command.h)
  return vitsim::test::run_shell(cmd).output;
}

TEST(Report, RendersWithAllFiguresInChromium) {
  ASSERT_EQ(::access("/usr/bin/chromium", X_OK), 0)
      << "chromium is missing: run scripts/install-deps (it installs Debian's chromium)";
  const fs::path dir =
      fs::temp_directory_path() / ("vitsim-report-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ReportInputs in;
  NamedPrediction p;
  p.file = "hand-made.json";
  p.prediction.scenario = "hand-made";
  p.prediction.configurations = {config(1, 700), config(2, 900), config(3, 750)};
  NamedPrediction whatif;  // a micro-batch sweep nothing measured: speedup undefined
  whatif.file = "what-if.json";
  whatif.prediction.scenario = "batch-what-if";
  for (int64_t b : {8, 16, 32}) {
    auto c = config(2, 900.0 * 16 / static_cast<double>(b) + 300);
    c.config.micro_batch = b;
    c.config.label = "2 GPU b" + std::to_string(b);
    c.throughput_images_per_s = 50000 / c.epoch_time_s;
    c.speedup = c.parallel_efficiency = 0;  // no 1-GPU configuration in this scenario
    whatif.prediction.configurations.push_back(c);
  }
  // The what-if records its selection as a sweep would: a global batch above 32 is flagged, so
  // its fastest row (b32: 2 x 32) is not its best.
  whatif.prediction.description = "What-if: micro-batches 8 to 32 on two GPUs. Nothing else.";
  whatif.prediction.selection = schema::Selection{};
  whatif.prediction.selection->max_global_batch = 32;
  in.predictions = {whatif, p};
  MeasuredRun m;
  m.key = key_of(p.prediction.configurations[0]);
  m.epoch_time_s = 712.956;
  m.source = "hand";
  in.measured = {m};
  in.notes = {"a <note> & an ampersand"};
  const ReportResult r = write_report(in, dir.string());
  ASSERT_TRUE(fs::exists(r.html_path));
  // hand-made: epoch, speedup, efficiency, breakdown, time against cost; what-if: micro-batch,
  // breakdown, time against cost. PNG + SVG.
  ASSERT_EQ(r.figure_files.size(), 16u);
  for (const auto& f : r.figure_files) EXPECT_GT(fs::file_size(f), 1000u) << f;
  std::string html = read(r.html_path);
  EXPECT_NE(html.find("a &lt;note&gt; &amp; an ampersand"), std::string::npos);
  // Summary and contents first; the study's scenario before the what-if given before it.
  const auto at = [&](const std::string& s) { return html.find(s); };
  EXPECT_LT(at("Contents:"), at("<h2 id=summary>"));
  EXPECT_LT(at("<h2 id=summary>"), at("<h2 id=measured>"));
  EXPECT_LT(at("<h2 id=study>"), at("<h2 id=whatif>"));
  EXPECT_LT(at("<h3 id=\"s1-hand_made\">"), at("<h3 id=\"s0-batch_what_if\">"));
  EXPECT_LT(at("<h2 id=whatif>"), at("<h2 id=notes>"));
  EXPECT_NE(at("compute: tesla1 (rtx3070) computes"), std::string::npos);
  // The summary: what each scenario asks, its best by the one rule (the file's limit applied;
  // the best of 2 or more GPUs too when one GPU is fastest).
  EXPECT_NE(at("<td class=l>What-if: micro-batches 8 to 32 on two GPUs.</td>"), std::string::npos);
  EXPECT_NE(at("<b>2 GPU b16</b>"), std::string::npos);
  EXPECT_NE(at("<td class=bad title=\"global batch 64 is above 32"), std::string::npos);
  EXPECT_NE(at("<b>1x mb16 ring 500MiB no-overlap</b>"), std::string::npos);
  EXPECT_NE(at("of 2 or more GPUs: 3x mb16 ring 500MiB no-overlap"), std::string::npos);
  EXPECT_NE(at("time against cost"), std::string::npos);
  EXPECT_NE(at("<td>-</td><td>-</td>"), std::string::npos);  // undefined speedup, efficiency
  EXPECT_EQ(at("<td>0.00</td>"), std::string::npos);
  EXPECT_NE(at("Spearman rank correlation - (needs two configurations)"), std::string::npos);
  EXPECT_NE(at("throughput against micro-batch"), std::string::npos);
  // After load: every image's width, and how wide the page and its widest table are.
  const std::string probe =
      "<script>window.addEventListener('load',()=>{document.body.setAttribute('data-widths',"
      "[...document.images].map(i=>i.complete?i.naturalWidth:0).join(','));"
      "document.body.setAttribute('data-fit',[document.documentElement.scrollWidth,"
      "window.innerWidth,Math.ceil(Math.max(...[...document.querySelectorAll('table')].map("
      "t=>t.getBoundingClientRect().right)))].join(','));});</script>";
  html.replace(html.rfind("</body>"), 7, probe + "</body>");
  const fs::path probe_page = dir / "probe.html";
  std::ofstream(probe_page) << html;
  const fs::path profile = dir / "chromium-profile";
  const std::string cmd =
      "/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--user-data-dir=" +
      profile.string() + " --window-size=1280,900 --virtual-time-budget=10000 --dump-dom file://" +
      probe_page.string() + " 2>/dev/null";
  const std::string dom = run(cmd);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(dom, match, std::regex("data-widths=\"([0-9,]*)\"")))
      << "Chromium printed no DOM with the probe's attribute:\n"
      << dom.substr(0, 400);
  const std::string widths = match[1];
  int images = 0;
  std::stringstream ss(widths);
  std::string w;
  while (std::getline(ss, w, ',')) {
    ++images;
    EXPECT_GT(std::stoi(w), 0) << "an image did not load: widths " << widths;
  }
  EXPECT_EQ(images, 8);
  // The page fits a 1280 px window: nothing to scroll sideways, every table whole in view.
  ASSERT_TRUE(std::regex_search(dom, match, std::regex("data-fit=\"([0-9]+),([0-9]+),([0-9]+)\"")))
      << dom.substr(0, 400);
  EXPECT_EQ(std::stoi(match[2]), 1280);
  EXPECT_LE(std::stoi(match[1]), 1280) << "the page scrolls sideways at 1280 px";
  EXPECT_LE(std::stoi(match[3]), 1280) << "a table reaches past the window at 1280 px";
  // The top of the page as a person first sees it.
  const fs::path shot = dir / "report-top.png";
  run("/usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars "
      "--user-data-dir=" +
      profile.string() + " --window-size=1280,1300 --screenshot=" + shot.string() + " file://" +
      r.html_path + " 2>/dev/null");
  ASSERT_TRUE(fs::exists(shot)) << "no screenshot";
  EXPECT_GT(fs::file_size(shot), 10000u);
  const fs::path kept = fs::temp_directory_path() / "vitsim-report-top.png";
  fs::copy_file(shot, kept, fs::copy_options::overwrite_existing);
  std::cout << "screenshot of the top of the page: " << kept.string() << "\n";
  if (::testing::Test::HasFailure()) return;  // keep the folder to look at
  fs::remove_all(dir);
}

}  // namespace
}  // namespace report_test
}  // namespace vitsim::present
