// Answers a buyer can act on, round 2 (issue 67), run as a user would: the catalog's intra-node
// fabric as cluster init's default and the loud warning on a file that joins SXM parts over PCIe
// (docs/formats/gpus.md, docs/formats/cluster.md "Fabric inside a host"); one device-name
// resolver that refuses an ambiguous name with its ids in every command (docs/formats/gpus.md,
// "Device names"); `sweep --devices` on every host without --hosts-from. Costs from the synthetic
// tests/sim/fixtures/costs.json.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "read_text.h"     // tests/support/
#include "study_import.h"  // tests/support/
#include "vitsim_cli.h"    // tests/support/

namespace answers2_cli_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
// The Tesla lab and the synthetic costs: what most cases ask about.
const std::string kTesla = "--cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts;

using Result = vitsim::test::CommandResult;
using vitsim::test::has;
using vitsim::test::import_study_t4;

// `vitsim ARGS` of this build, stdout and stderr together.
auto* const run = &vitsim::test::run_vitsim;

std::string fresh_dir(const std::string& name) {
  return vitsim::test::fresh_dir("answers2_" + name);
}

// The study's T4 log imported into DIR/t4.json (which must succeed), then calibrated in fp32 for
// the cluster file `cluster` into DIR/costs.json: what calibrate said.
Result calibrate_t4_for(const std::string& dir, const std::string& cluster) {
  const Result imported = run(import_study_t4(dir + "/t4.json"));
  EXPECT_EQ(imported.exit_code, 0) << imported.output;
  return run("calibrate " + dir + "/t4.json --clusters " + cluster + " --precisions fp32 -o " +
             dir + "/costs.json");
}

const std::string kAmbiguous =
    "'a100' names 4 devices of the catalog: a100-pcie-40gb, a100-sxm4-40gb, a100-pcie-80gb, "
    "a100-sxm4-80gb (give one of these ids)";

TEST(CatalogFabric, ClusterInitJoinsSxmPartsByNvlinkAndCardsByPcie) {
  const std::string dir = fresh_dir("fabric");
  Result r =
      run("cluster init --name a100node --host a1:8xa100-sxm4-40gb:100gbe --host "
          "t1:8xt4:10gbe -o " +
          dir + "/c.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(has(r.output, "warning")) << r.output;
  const auto c = nlohmann::json::parse(vitsim::test::read_text(dir + "/c.json"));
  EXPECT_EQ(c["nodes"][0]["intra_node"]["kind"], "nvlink");
  EXPECT_EQ(c["nodes"][0]["intra_node"]["transport"], "nvlink");
  EXPECT_EQ(c["nodes"][0]["intra_node"]["link_class"], "a100node-a100-sxm4-40gb-nvlink");
  EXPECT_EQ(c["nodes"][1]["intra_node"]["kind"], "pcie-host");
  // The catalog carries it, with its source.
  const auto gpus = nlohmann::json::parse(vitsim::test::read_text(kSrc + "/platforms/gpus.json"));
  for (const auto& d : gpus["devices"]) {
    const std::string id = d["id"];
    const bool sxm = id == "v100-sxm2" || id == "a100-sxm4-40gb" || id == "a100-sxm4-80gb" ||
                     id == "h100-sxm" || id == "h200-sxm" || id == "b200";
    EXPECT_EQ(d["intra_node_fabric"], sxm ? "nvlink" : "pcie") << id;
    EXPECT_TRUE(has(d["source"].get<std::string>(), sxm ? "fabric nvlink: " : "fabric pcie: "))
        << id;
  }
}

TEST(CatalogFabric, SxmPartsOverPcieAreLoudOnEveryCommandThatReadsTheFile) {
  const std::string dir = fresh_dir("fabric_pcie");
  const std::string file = dir + "/a100p.json";
  Result r =
      run("cluster init --name a100node --host a1:8xa100-sxm4-40gb:100gbe --intra "
          "pcie-host -o " +
          file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string warning = "warning: " + file + ": host a1: 8 x a100-sxm4-40gb are SXM parts";
  EXPECT_TRUE(has(r.output, "vitsim cluster init: " + warning)) << r.output;
  r = run("platform " + file);
  EXPECT_TRUE(has(r.output, "vitsim platform: " + warning)) << r.output;
  // predict warns before anything else, whatever happens next (these costs lack the A100).
  r = run("predict --cluster " + file + " --costs " + kCosts + " --gpus 8");
  EXPECT_TRUE(has(r.output, "vitsim predict: " + warning)) << r.output;
  r = run("advise --cluster " + file + " --costs " + kCosts + " --gpus 8");
  EXPECT_TRUE(has(r.output, "vitsim advise: " + warning)) << r.output;
  r = run("sweep --cluster " + file + " --costs " + kCosts + " --gpus 8");
  EXPECT_TRUE(has(r.output, "vitsim sweep: " + warning)) << r.output;
  r = calibrate_t4_for(dir, file);
  EXPECT_TRUE(has(r.output, "vitsim calibrate: " + warning)) << r.output;
  // The same host on NVLink: quiet.
  r = run("cluster init --name a100node --host a1:8xa100-sxm4-40gb:100gbe -o " + dir + "/n.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run("platform " + dir + "/n.json");
  EXPECT_FALSE(has(r.output, "SXM parts")) << r.output;
}

// `sweep --devices` asks what another part would do in these hosts: an SXM part comes on its
// NVLink baseboard (before: the T4 host's PCIe path, 0.15 s of a step's all-reduce), a card
// where SXM modules were comes in a PCIe host; cluster init joins each SXM part at its own
// NVLink rate (before: NVLink 4's for every part).
TEST(CatalogFabric, APartBringsItsOwnFabricToSweepDevicesAndClusterInit) {
  const std::string dir = fresh_dir("fabric_devices");
  Result r = run("sweep --cluster " + kSrc + "/platforms/vector.json --costs " + kCosts +
                 " --devices h200-sxm --hosts-from vector0 --precision fp32 --micro-batch 64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output,
                  "note: h200-sxm brings its own fabric inside a host: nvlink at 450 GB/s per "
                  "direction (catalog: the part's NVLink), in place of host vector0's pcie-host"))
      << r.output;
  EXPECT_TRUE(has(r.output, "vector-h200-sxm-nvlink=modelled")) << r.output;
  r = run("cluster init --name old --host a1:8xv100-sxm2:100gbe -o " + dir + "/v.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto c = nlohmann::json::parse(vitsim::test::read_text(dir + "/v.json"));
  EXPECT_DOUBLE_EQ(c["nodes"][0]["intra_node"]["bandwidth_bytes_per_s"].get<double>(), 1.5e11);
  r = run("cluster init --name x --host a1:8xl4:100gbe --intra nvlink -o " + dir + "/l.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--host a1: --intra nvlink: l4 has no NVLink")) << r.output;
}

TEST(DeviceNames, AnAmbiguousNameIsRefusedEverywhereWithItsIds) {
  const std::string dir = fresh_dir("names");
  // cluster init
  Result r = run("cluster init --name x --host h1:2xa100:10gbe -o " + dir + "/x.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--host h1: " + kAmbiguous)) << r.output;
  // sweep --devices
  r = run("sweep " + kTesla + " --devices a100");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--devices: " + kAmbiguous)) << r.output;
  // A cluster file that names "a100" (as cluster init wrote before): predict and calibrate.
  const std::string file = dir + "/a100.json";
  {
    auto c = nlohmann::json::parse(vitsim::test::read_text(kSrc + "/platforms/tesla.json"));
    for (auto& n : c["nodes"]) n["gpus"][0]["device"] = "a100";
    std::ofstream(file) << c.dump(1);
  }
  r = run("predict --cluster " + file + " --costs " + kCosts + " --gpus 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, kAmbiguous)) << r.output;
  r = calibrate_t4_for(dir, file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, kAmbiguous)) << r.output;
  EXPECT_FALSE(has(r.output, "a100-pcie-40gb/")) << r.output;  // no costs for a guessed one
  // The importers' --gpu
  r = run(import_study_t4(dir + "/a.json", "a100"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--gpu: " + kAmbiguous)) << r.output;
  // A name only one device has still resolves, to its id.
  r = run("cluster init --name x --host h1:2x'Tesla T4':10gbe -o " + dir + "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto c = nlohmann::json::parse(vitsim::test::read_text(dir + "/t.json"));
  EXPECT_EQ(c["nodes"][0]["gpus"][0]["device"], "t4");
}

TEST(DeviceNames, SweepDevicesWithoutHostsFromSearchesEveryHost) {
  const Result r = run("sweep " + kTesla + " --devices rtx3070 --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "rtx3070 on tesla0..tesla2, tesla4, tesla3 ")) << r.output;
}

// A global batch larger than the epoch (docs/cost-model.md, "Steps per epoch"): predict refuses
// it naming the options (exit 2), a sweep skips that configuration saying why and answers the
// rest, and no rate counts more images than the epoch has.
TEST(PastTheDataset, AGlobalBatchLargerThanTheEpochIsAnErrorNamingTheOptions) {
  Result r = run("predict " + kTesla + " --gpus 4 --micro-batch 64 --images 200");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output,
                  "--micro-batch 64 x --gpus 4 x --accumulation 1 = a global batch of "
                  "256 images, more than the epoch holds (--images 200 x "
                  "--data-fraction 1 = 200 images)"))
      << r.output;
  r = run("predict " + kTesla +
          " --gpus 4 --micro-batch 64 --dataset cifar10 --data-fraction 0.001");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output,
                  "(--dataset cifar10 (50000 images) x --data-fraction 0.001 = 50 "
                  "images)"))
      << r.output;
  r = run("sweep " + kTesla + " --gpus 1,4 --micro-batch 32 --images 100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output,
                  "vitsim sweep: skipped 4x mb32 ring 500MiB no-overlap: a global batch "
                  "of 128 images (micro-batch x GPUs x accumulation) in an epoch of 100"))
      << r.output;
  // The 1-GPU row: 32 images a step of a 100-image epoch (4 steps, the last of 4 images).
  r = run("predict " + kTesla + " --gpus 1 --micro-batch 32 --images 100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')))["configurations"][0];
  EXPECT_NEAR(j["throughput_images_per_s"].get<double>(), 32 / j["step_time_s"].get<double>(),
              1e-6);
}

// Messages a user reads (issue 67 item 6): advise names the value; a device without the math
// type is told so; unmeasured parts one line each (--explain: whole, --quiet: none); the table's
// columns stay under their headings with long cells.
TEST(Messages, AdviseNamesTheMicroBatchItWouldGive) {
  const Result r = run("advise " + kTesla + " --gpus 4 --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "lower the micro-batch of tesla0 to 4: epoch")) << r.output;
  // advise explains the step, yet its warnings stay one line each without --explain.
  EXPECT_TRUE(has(r.output, "vitsim advise: warning: tesla-10gbe: modelled, not measured; used"))
      << r.output;
  EXPECT_FALSE(has(r.output, "not measured: run vitsim-train")) << r.output;
}

TEST(Messages, ADeviceWithoutThePrecisionsUnitsIsToldSo) {
  const Result r = run("predict " + kTesla + " --hosts tesla0 --precision amp-bf16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output,
                  "--precision amp-bf16: the Tesla P4 (p4, Pascal, host tesla0) has no bf16 "
                  "tensor cores"))
      << r.output;
  EXPECT_TRUE(has(r.output, "a precision it runs: fp32, amp-fp16, ds-fp16")) << r.output;
  EXPECT_FALSE(has(r.output, "calibrate this device")) << r.output;
}

// tf32 on a T4 (Turing: no TF32 units, as vitsim-train's refusal says): the same answer from
// every command that simulates it, never "calibrate this device": predict and advise exit 2, a
// sweep skips the tf32 rows with that warning and keeps the others (as for any precision).
TEST(Messages, AT4AskedForTf32IsToldItHasNoTf32Units) {
  const std::string vector = " --cluster " + kSrc + "/platforms/vector.json --costs " + kCosts;
  for (const std::string cmd : {"predict" + vector + " --gpus 8 --precision tf32",
                                "advise" + vector + " --gpus 8 --precision tf32",
                                "sweep" + vector + " --gpus 8,16 --precision fp32,tf32"}) {
    SCOPED_TRACE(cmd);
    const Result r = run(cmd);
    const bool sweep = cmd.rfind("sweep", 0) == 0;
    EXPECT_EQ(r.exit_code, sweep ? 0 : 2) << r.output;
    if (sweep)
      EXPECT_TRUE(has(r.output, "vitsim sweep: skipped 8x mb16 ring 500MiB no-overlap tf32: "))
          << r.output;
    EXPECT_TRUE(has(r.output, "--precision tf32: the Tesla T4 (t4, Turing, host")) << r.output;
    EXPECT_TRUE(has(r.output,
                    "has no TF32 tensor cores (the first architecture with them: "
                    "Ampere"))
        << r.output;
    EXPECT_FALSE(has(r.output, "calibrate this device")) << r.output;
  }
}

TEST(Messages, SweepAndSimulateWarnOneLineEachExplainOrQuiet) {
  const std::string sweep = "sweep " + kTesla + " --gpus 5";
  Result r = run(sweep);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "vitsim sweep: warning: tesla-10gbe: modelled, not measured; used by"))
      << r.output;
  EXPECT_TRUE(has(r.output, "vitsim sweep: (--explain: how each was modelled")) << r.output;
  r = run(sweep + " --explain");
  EXPECT_TRUE(has(r.output, "tesla-10gbe: modelled (socket transport over")) << r.output;
  r = run(sweep + " --quiet");
  EXPECT_FALSE(has(r.output, "not measured")) << r.output;
  r = run("simulate " + kSrc + "/scenarios/tesla-strong.json --costs " + kCosts + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(has(r.output, "not measured")) << r.output;
}

TEST(Messages, TableColumnsStayUnderTheirHeadingsWithLongCells) {
  const Result r =
      run("predict " + kTesla + " --gpus 5 --per-rank-micro-batch 4,16,16,16,16 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t head = r.output.find("configuration ");
  ASSERT_NE(head, std::string::npos) << r.output;
  const std::string heading = r.output.substr(head, r.output.find('\n', head) - head);
  const size_t row = r.output.find("\npredict ", head);
  ASSERT_NE(row, std::string::npos) << r.output;
  const std::string line = r.output.substr(row + 1, r.output.find('\n', row + 1) - row - 1);
  // "4/16/16/16/16" is wider than "micro-batch": the placement column moves for every line.
  EXPECT_EQ(heading.find(" placement "), line.find(" inter-node ")) << heading << "\n" << line;
  EXPECT_EQ(heading.find(" collective "), line.find(" ring/step ")) << heading << "\n" << line;
}

TEST(Messages, ASubsetSearchSaysHowManyCandidatesHadNoPrice) {
  const std::string dir = fresh_dir("unpriced");
  auto prices = nlohmann::json::parse(vitsim::test::read_text(kSrc + "/platforms/prices.json"));
  auto& devices = prices["devices"];
  for (auto it = devices.begin(); it != devices.end();)
    it = (*it)["device"] == "p4" ? devices.erase(it) : it + 1;
  std::ofstream(dir + "/prices.json") << prices.dump(1);
  const Result r =
      run("sweep " + kTesla + " --hosts-from all --micro-batch 16 --goal cheapest-epoch --prices " +
          dir + "/prices.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t note = r.output.find("candidate(s) have no price (a GPU without one in " + dir);
  ASSERT_NE(note, std::string::npos) << r.output;
  // Every subset with tesla0 (the P4) lacks one: at least one, not all.
  const size_t at = r.output.rfind("note: ", note);
  int unpriced = 0, all = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at, "note: %d of %d", &unpriced, &all), 2) << r.output;
  EXPECT_GT(unpriced, 0);
  EXPECT_LT(unpriced, all);
}

// advise's what-ifs take seconds on a large cluster: a progress line when asked (or on a
// terminal), none when piped.
TEST(Messages, AdviseShowsProgressWhenAskedAndIsQuietWhenPiped) {
  const std::string advise = "advise " + kTesla + " --gpus 4 --micro-batch 16 --quiet";
  Result r = run(advise + " --progress always");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "vitsim advise: 1/")) << r.output;
  EXPECT_TRUE(has(r.output, " what-ifs")) << r.output;
  r = run(advise);  // piped: auto draws nothing
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(has(r.output, " what-ifs,")) << r.output;
}

// The report's epoch-vs-GPUs figure of a host-subset search: one line per family of subsets (the
// devices they use), each GPU count once on a line, not a zig-zag through unrelated subsets.
TEST(Messages, ReportDrawsOneLinePerHostSubsetFamily) {
  const std::string dir = fresh_dir("report_family");
  Result r = run("sweep " + kTesla + " --hosts-from all --micro-batch 16 --quiet --json " + dir +
                 "/s.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run("report --predicted " + dir + "/s.json --out " + dir + "/r");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string data = vitsim::test::read_text(dir + "/r/figures/s0-subset_search-epoch.dat");
  EXPECT_TRUE(has(data, "# inter-node b16 fp32 p4+rtx3070 (predicted)\n2 ")) << data;
  std::istringstream in(data);
  std::string line;
  double last = 0;
  int lines = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      last = 0;
      lines += line.empty() ? 0 : 1;
      continue;
    }
    const double gpus = std::stod(line);
    EXPECT_GT(gpus, last) << line << "\n" << data;
    last = gpus;
  }
  EXPECT_GE(lines, 4) << data;
}

}  // namespace
}  // namespace answers2_cli_test
