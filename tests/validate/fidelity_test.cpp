// The fidelity check (validate/fidelity.h) on the reference study: every shipped log is predicted
// from a calibration without it, every development row is predicted, the held-out public nccl-tests
// rows are compared, each with the naive formula beside the simulator where it applies; and one
// table lists the error per class; the recorded emulated-cluster runs are re-simulated, one row per
// configuration, and a missing or corrupt record is refused naming the file. A log left out
// leaves nothing of itself in the others' profiles (the 1-rank logs' local gradient work).
#include "validate/fidelity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "app/reproduce.h"
#include "app/study_steps.h"
#include "present/measured_runs.h"
#include "schema/gpus_io.h"
#include "schema/input_error.h"
#include "schema/study.h"
#include "schema/transports_io.h"
#include "validate/simulate_measured.h"

namespace vitsim::validate {
namespace fidelity_test {
namespace {

namespace fs = std::filesystem;

// The distinct configurations the recorded run logs measured (repeats count once).
size_t recorded_configurations(const std::string& folder) {
  std::set<present::ConfigKey> keys;
  for (const auto& e : fs::directory_iterator(fs::path(folder) / "runs")) {
    for (const auto& m : present::read_measured(e.path().string())) keys.insert(m.key);
  }
  return keys.size();
}

TEST(Fidelity, EveryLogDevelopmentRowAndHeldOutDatasetHasARow) {
  const schema::Study study = schema::read_study(app::kReferenceStudy);
  const FidelityResult r = fidelity_check(study, {});
  int loo = 0, dev = 0, nccl = 0, emulated = 0;
  for (const auto& row : r.rows) {
    EXPECT_GT(row.measured, 0) << row.what;
    if (row.check == "leave-one-out") ++loo;
    if (row.check == "development") ++dev;
    if (row.check == "nccl-tests") ++nccl;
    if (row.check == "emulated") ++emulated;
    if (!row.note.empty()) continue;
    EXPECT_GT(row.simulated, 0) << row.what;
    EXPECT_EQ(row.naive.has_value(), row.check != "nccl-tests") << row.what;
    // The naive formula overlaps nothing and leaves out data and overheads: on one rank it is the
    // bare compute, below the simulated step.
    if (row.naive && row.what.find(" 1 GPU ") != std::string::npos)
      EXPECT_LT(*row.naive, row.simulated) << row.what;
  }
  EXPECT_EQ(loo, 4);  // the study's four DeepSpeed logs
  EXPECT_EQ(dev, 7);  // dev_epoch_times.csv
  EXPECT_GE(nccl, 5);
  ASSERT_FALSE(study.emulated_runs.empty());
  EXPECT_EQ(emulated, static_cast<int>(recorded_configurations(study.emulated_runs)));
  ASSERT_FALSE(r.classes.empty());
  const std::string text = format_fidelity(r);
  EXPECT_NE(text.find("per class"), std::string::npos);
  EXPECT_NE(text.find("tesla inter-node fp32 strong"), std::string::npos) << text;
  EXPECT_NE(text.find("vector intra-node fp32 strong"), std::string::npos) << text;
}

// A copy of the recorded folder to break, in a folder of its own.
struct RecordCopy {
  fs::path dir = fs::temp_directory_path() / ("vitsim-emulated-" + std::to_string(::getpid()));
  RecordCopy() {
    fs::remove_all(dir);
    fs::copy(schema::read_study(app::kReferenceStudy).emulated_runs, dir,
             fs::copy_options::recursive);
  }
  ~RecordCopy() { fs::remove_all(dir); }
};

std::vector<FidelityRow> check(const std::string& folder) {
  const schema::Study study = schema::read_study(app::kReferenceStudy);
  sim::SimOptions options;
  options.transports = schema::read_transports(study.transports);
  return emulated_check(folder, schema::read_gpus(study.gpus), options);
}

TEST(Fidelity, ALeftOutOneRankLogLendsItsLocalGradientWorkToNoProfile) {
  const schema::Study study = schema::read_study(app::kReferenceStudy);
  const auto catalog = schema::read_gpus(study.gpus);
  const auto moved = [](const app::Imported& imp, const std::string& stem) {
    for (const auto& [cluster, s] : imp.logs) {  // the DeepSpeed format's own record
      if (fs::path(s.file).stem() != stem) continue;
      const auto& moved = s.summary.at("local_gradient_work_moved_s");
      return moved.is_null() ? std::optional<double>() : moved.get<double>();
    }
    ADD_FAILURE() << stem << " not imported";
    return std::optional<double>();
  };
  const app::Imported all = app::import_study(study, catalog, "", {});
  // The 1-GPU RTX 3070 log's bwd_allreduce (3.76 ms, DeepSpeed's local gradient work) leaves the
  // 2-GPU log's all-reduce point for its step overhead; the T4's likewise (6.50 ms).
  ASSERT_TRUE(moved(all, "tesla_rtx3070_2gpu_10gbe_b16_fp32"));
  EXPECT_NEAR(*moved(all, "tesla_rtx3070_2gpu_10gbe_b16_fp32"), 0.00376, 5e-5);
  ASSERT_TRUE(moved(all, "vector_t4_2gpu_intranode_b64_fp32"));
  EXPECT_NEAR(*moved(all, "vector_t4_2gpu_intranode_b64_fp32"), 0.00650, 5e-5);
  const app::Imported without =
      app::import_study(study, catalog, "", {}, "tesla_rtx3070_1gpu_b16_fp32");
  EXPECT_EQ(without.logs.size(), all.logs.size() - 1);
  EXPECT_FALSE(moved(without, "tesla_rtx3070_2gpu_10gbe_b16_fp32"));
  EXPECT_TRUE(moved(without, "vector_t4_2gpu_intranode_b64_fp32"));
}

TEST(FidelityEmulated, OneRowPerRecordedConfigurationWithFiniteErrors) {
  const std::string folder = schema::read_study(app::kReferenceStudy).emulated_runs;
  const std::vector<FidelityRow> rows = check(folder);
  ASSERT_EQ(rows.size(), recorded_configurations(folder));
  for (const auto& r : rows) {
    EXPECT_EQ(r.check, "emulated");
    EXPECT_TRUE(r.note.empty()) << r.what << ": " << r.note;
    EXPECT_EQ(r.cls.rfind("emulated-", 0), 0u) << r.cls;  // the run's cluster leads its class
    EXPECT_EQ(r.unit, "s/epoch");
    ASSERT_TRUE(r.naive.has_value()) << r.what;
    for (double v : {r.measured, r.simulated, *r.naive}) {
      EXPECT_TRUE(std::isfinite(v) && v > 0) << r.what << ": " << v;
    }
  }
}

// Repeats of one configuration make one row at their median (as `vitsim validate` groups them).
TEST(FidelityEmulated, RepeatsMakeOneRowAtTheirMedian) {
  const RecordCopy copy;
  const size_t configurations = check(copy.dir.string()).size();
  const fs::path first = *fs::directory_iterator(copy.dir / "runs");
  nlohmann::json log = nlohmann::json::parse(std::ifstream(first));
  const double t_s = log["epochs"][0]["epoch_time_s"].get<double>();
  ASSERT_EQ(log["epochs"].size(), 1u);
  // The record's other runs of the first log's configuration go; the original and two copies,
  // twice and three times as slow, stay: their median is twice the original.
  std::vector<fs::path> same;
  for (const auto& e : fs::directory_iterator(copy.dir / "runs")) {
    if (e.path() == first) continue;
    if (nlohmann::json::parse(std::ifstream(e.path()))["config"] == log["config"])
      same.push_back(e.path());
  }
  for (const auto& path : same) fs::remove(path);
  for (int k : {2, 3}) {
    log["epochs"][0]["epoch_time_s"] = k * t_s;
    std::ofstream(copy.dir / "runs" / ("repeat-" + std::to_string(k) + ".json")) << log.dump(2);
  }
  const std::vector<FidelityRow> rows = check(copy.dir.string());
  ASSERT_EQ(rows.size(), configurations);
  int at_median = 0;
  for (const auto& r : rows) {
    if (r.measured != 2 * t_s) continue;
    ++at_median;
    EXPECT_NE(r.what.find("(median of 3)"), std::string::npos) << r.what;
  }
  EXPECT_EQ(at_median, 1);
}

TEST(FidelityEmulated, MissingOrCorruptPartsAreRefusedNamingTheFile) {
  auto refused = [](const fs::path& dir, const std::string& names) {
    try {
      check(dir.string());
    } catch (const schema::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted a broken record; expected an error naming " << names;
  };
  refused("/nonexistent/vitsim-record", "/nonexistent/vitsim-record");
  {
    const RecordCopy copy;
    const fs::path run = *fs::directory_iterator(copy.dir / "runs");
    std::ofstream(run) << "{\"schema\": \"vitsim.run_log\", \"schema_version\": 1, \"epo";
    refused(copy.dir, run.filename().string());
  }
  {
    const RecordCopy copy;
    fs::remove_all(copy.dir / "runs");
    refused(copy.dir, (copy.dir / "runs").string());
  }
  {
    const RecordCopy copy;
    fs::remove(copy.dir / "costs.json");
    refused(copy.dir, "costs.json");
  }
  {
    const RecordCopy copy;
    for (const auto& e : fs::directory_iterator(copy.dir)) {
      if (e.path().filename().string().rfind("scenario-", 0) == 0) fs::remove(e.path());
    }
    refused(copy.dir, "scenario-*.json");
  }
}

TEST(SimulateMeasured, PlacementDecidesTheHosts) {
  schema::ClusterSpec c;
  c.host_sets[2] = {"a", "b"};
  present::MeasuredRun run;
  run.key.cluster = "x";
  run.key.gpus = 4;
  run.key.micro_batch = 32;
  run.key.placement = "intra-node";
  run.key.data_fraction_ppm = 500000;
  EXPECT_EQ(config_of(run, c).gpus_per_node, 4);
  EXPECT_DOUBLE_EQ(config_of(run, c).data_fraction, 0.5);
  run.key.placement = "inter-node";
  EXPECT_EQ(config_of(run, c).gpus_per_node, 1);
  run.key.gpus = 2;  // the cluster's host set for 2 ranks places them
  EXPECT_FALSE(config_of(run, c).gpus_per_node.has_value());
}

}  // namespace
}  // namespace fidelity_test
}  // namespace vitsim::validate
