// vitsim import-nccl-tests: the stdout of nccl-tests' all_reduce_perf (the table users run on
// every new cluster) -> a profile of all-reduce points for one link class (source "imported"),
// which `vitsim calibrate` fits into that class's link cost. Format: docs/formats/nccl-tests.md;
// procedure: docs/calibration.md ("Importing nccl-tests output").
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "clikit/list_options.h"
#include "clikit/run_app.h"
#include "import/nccl_tests_import.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"

namespace vitsim::cli {
namespace {

void print_summaries(const std::vector<import::NcclImportSummary>& all) {
  const char* row = "{:<44} {:>5} {:>6} {:>12} {:>12} {:>12}\n";
  std::cout << fmt::format(row, "output", "ranks", "points", "largest", "busbw there", "avg busbw");
  std::cout << fmt::format(row, "", "", "", "bytes", "GB/s", "GB/s");
  for (const auto& s : all) {
    const std::string name =
        s.file.size() > 44 ? "..." + s.file.substr(s.file.size() - 41) : s.file;
    std::cout << fmt::format("{:<44} {:>5} {:>6} {:>12.0f} {:>12.3f} {:>12}\n", name, s.ranks,
                             s.points, s.largest_bytes, s.largest_busbw_bytes_per_s / 1e9,
                             s.avg_busbw_bytes_per_s
                                 ? fmt::format("{:.3f}", *s.avg_busbw_bytes_per_s / 1e9)
                                 : std::string("-"));
  }
}

}  // namespace

int cmd_import_nccl_tests(int argc, char** argv) {
  CLI::App app{
      "Import the stdout of nccl-tests' all_reduce_perf (one run per file) into a profile of "
      "all-reduce points for one link class; vitsim calibrate then fits that class's bandwidth "
      "and latency from it (docs/calibration.md). reduce_scatter_perf and all_gather_perf "
      "outputs become the profile's reduce-scatter and all-gather points (docs/sharding.md).",
      "vitsim import-nccl-tests"};
  std::vector<std::string> inputs;
  std::string out, gpus_path = schema::default_gpus_path(), columns = "in-place";
  import::NcclImportOptions opt;
  std::optional<int64_t> ranks;
  app.add_option("inputs", inputs,
                 "all_reduce_perf (reduce_scatter_perf, all_gather_perf) output files (one run "
                 "each)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", out, "profile JSON to write")->required();
  app.add_option("--link-class", opt.link_class,
                 "link class the ranks talked over, as in the cluster file (e.g. tesla-10gbe)")
      ->required();
  app.add_option("--ranks", ranks,
                 "GPUs the test ran on, when the output has no \"#  Rank\" lines");
  app.add_option("--columns", columns,
                 "in-place | out-of-place: which timings to import (frameworks all-reduce "
                 "gradients in place)")
      ->capture_default_str();
  app.add_option("--gpu", opt.gpu, "device id recorded (default: the GPU the rank lines name)");
  app.add_option("--gpus", gpus_path, "device catalog")
      ->default_str(schema::data_default("platforms/gpus.json"));
  return clikit::run_app(app, argc, argv, [&] {
    clikit::refuse_repeated_files(inputs, "inputs");
    std::vector<schema::NamedPath> read = schema::named_paths("inputs", inputs);
    read.push_back({"--gpus", gpus_path});
    schema::OutputGroup written(read, {{"-o", out}});
    if (columns != "in-place" && columns != "out-of-place")
      throw std::invalid_argument("--columns must be in-place or out-of-place, not '" + columns +
                                  "'");
    opt.in_place = columns == "in-place";
    opt.ranks = ranks;
    const auto catalog = schema::read_gpus(gpus_path);
    std::vector<import::NcclTestsOutput> outputs;
    for (const auto& f : inputs) outputs.push_back(import::parse_nccl_tests_file(f));
    import::NcclImportResult r = import::import_nccl_tests(outputs, catalog, opt);
    print_summaries(r.summaries);
    nlohmann::json found = nlohmann::json::array();
    for (size_t i = 0; i < outputs.size(); ++i) {
      found.push_back({{"file", outputs[i].file},
                       {"collective", outputs[i].collective},
                       {"version", outputs[i].version_line},
                       {"hosts", outputs[i].hosts},
                       {"devices", outputs[i].devices},
                       {"ranks", r.summaries[i].ranks},
                       {"columns", columns},
                       {"skipped_lines", outputs[i].skipped_lines}});
    }
    r.profile.context = schema::make_context(
        "vitsim import-nccl-tests", std::vector<std::string>(argv, argv + argc),
        {{"imported_from", inputs},
         {"nccl_tests", found},
         {"procedure", "docs/calibration.md#importing-nccl-tests-output"}});
    schema::add_json(written, out, schema::write_profile_json(r.profile));
    written.commit();
    std::cout << fmt::format(
        "wrote {} ({} all-reduce, {} reduce-scatter, {} all-gather entr{} over {})\n", out,
        r.profile.allreduce.size(), r.profile.reduce_scatter.size(), r.profile.all_gather.size(),
        outputs.size() == 1 ? "y" : "ies", opt.link_class);
    return 0;
  });
}

}  // namespace vitsim::cli
