// vitsim calibrate: profiles -> cost model (schema "vitsim.cost_model"). Fits per device and
// precision, alpha-beta links, the kernel-class transfer to every device/precision the clusters use
// (docs/cost-model.md, docs/calibration.md). Many profiles are read under a progress line on a
// terminal (--progress, clikit/progress.h).
#include <fmt/format.h>

#include <iostream>

#include "calibrate/calibrator.h"
#include "calibrate/run_overhead.h"
#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/progress.h"
#include "clikit/run_app.h"
#include "costmodel/regime.h"
#include "schema/cluster.h"
#include "schema/cost_model_io.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/transports_io.h"
#include "validate/run_learning.h"

namespace vitsim::cli {

namespace {

void print_costs(const costmodel::CostModel& c) {
  const char* row = "{:<12} {:<6} {:<12} {:>6} {:>10} {:>10} {:>9} {:>9}\n";
  std::cout << fmt::format(row, "device", "prec", "source", "b", "fwd", "bwd", "optimizer",
                           "overhead");
  std::cout << fmt::format(row, "", "", "", "", "ms", "ms", "ms", "ms");
  for (const auto& d : c.devices) {
    const auto graph = costmodel::build_layer_graph(d.model);
    const double b = d.micro_batches.empty() ? 16 : d.micro_batches.front();
    const auto t = costmodel::layer_times(d, graph, b);
    std::cout << fmt::format(
        "{:<12} {:<6} {:<12} {:>6} {:>10.2f} {:>10.2f} {:>9.2f} {:>9.2f}\n", d.device,
        costmodel::to_string(d.precision), costmodel::to_string(d.source), b,
        t.forward_total_s() * 1e3, t.backward_total_s() * 1e3,
        d.optimizer.at(static_cast<double>(graph.parameters())) * 1e3,
        (d.step_overhead.at(b) + d.data_wait.at(b) + d.host_to_device.at(b)) * 1e3);
  }
  std::cout << fmt::format("\n{:<16} {:<12} {:>12} {:>12}\n", "link class", "source", "latency",
                           "bandwidth");
  std::cout << fmt::format("{:<16} {:<12} {:>12} {:>12}\n", "", "", "us", "GB/s");
  for (const auto& l : c.links) {
    std::cout << fmt::format("{:<16} {:<12} {:>12.1f} {:>12.3f}\n", l.link_class,
                             costmodel::to_string(l.source), l.latency_s * 1e6,
                             l.bandwidth_bytes_per_s / 1e9);
    for (const auto& t : l.run_overheads) {
      std::cout << fmt::format(
          "  learned from runs: {} {} x{} on one host: compute x{:.4f}, {:+.3f} ms per step "
          "(spread {:.3f} ms)\n",
          t.device, costmodel::to_string(t.precision), t.ranks_per_node, t.compute_scale,
          t.overhead_s * 1e3, t.spread_s * 1e3);
    }
    for (const auto& r : l.rings) {
      std::cout << fmt::format("{:<16} {:<12} {:>12.1f} {:>12.3f}\n",
                               fmt::format("  {} ranks, {}/node", r.ranks, r.ranks_per_node), "",
                               r.latency_s * 1e6, r.bandwidth_bytes_per_s / 1e9);
    }
  }
  std::cout << fmt::format("\n{:<6} {:>8} {:>8} {:>12}  fitted on\n", "prec", "eta_c", "eta_m",
                           "launch us");
  for (const auto& r : c.roofline) {
    std::string on;
    for (const auto& f : r.fitted_on) on += (on.empty() ? "" : "; ") + f;
    std::cout << fmt::format("{:<6} {:>8.3f} {:>8.3f} {:>12.2f}  {}\n",
                             costmodel::to_string(r.precision), r.compute_efficiency,
                             r.memory_efficiency, r.launch_overhead_s * 1e6, on);
  }
}

}  // namespace

int cmd_calibrate(int argc, char** argv) {
  CLI::App app{
      "Fit cost functions from profiles: per-layer time against micro-batch per device and "
      "precision (Eigen least squares), memory, alpha-beta link costs; transfer to every "
      "device/precision the clusters use by the kernel-class transfer (docs/cost-model.md).",
      "vitsim calibrate"};
  std::vector<std::string> inputs, clusters;
  // Every regime a cost model is keyed by (the allreduce-fp32 variants compute as their base).
  std::string out,
      gpus_path = schema::default_gpus_path(),
      precisions = costmodel::joined(
          costmodel::names_of(costmodel::kRegimeNames, costmodel::is_compute_regime), ",");
  const std::string bench = schema::data_file("data/public-benchmarks/");
  std::string timm = bench + "timm_train_benchmarks.csv," + bench + "timm_infer_benchmarks.csv," +
                     bench + "vit_inference_aitemplate_a100.csv," + bench + "gemm_throughput.csv";
  app.add_option("profiles", inputs, "profile JSON files (vitsim-train, import-deepspeed)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", out, "cost model JSON to write")->required();
  app.add_option("--clusters", clusters, "cluster files whose devices must all get costs")
      ->check(CLI::ExistingFile);
  app.add_option("--precisions", precisions, "precision regimes to cover for the clusters' devices")
      ->capture_default_str();
  app.add_option("--gpus", gpus_path, "device catalog")
      ->default_str(schema::data_default("platforms/gpus.json"));
  app.add_option("--tensor-evidence", timm,
                 "public benchmark CSVs, comma-separated: timm's (training and inference rows), "
                 "AITemplate's PyTorch baseline (a latency_ms column) and GEMM throughput tables "
                 "(dtype and tflops columns: each GPU's sustained matrix rate): GPU evidence of "
                 "the kernel-class transfer besides the profiles, and timm's training rows' "
                 "tensor-core efficiency for a regime transfer's fp16/bf16 (\"\" = none)")
      ->default_str(schema::data_default(
          "data/public-benchmarks/{timm_train_benchmarks,timm_infer_benchmarks,"
          "vit_inference_aitemplate_a100,gemm_throughput}.csv"));
  std::vector<std::string> run_logs;
  app.add_option("--run-logs", run_logs,
                 "vitsim-train run logs of ranks sharing one host of --clusters: each run set "
                 "against the simulator's prediction of it, its compute as a factor and the rest "
                 "of its step as seconds per step, becomes a correction of the host's link class "
                 "for one-host jobs of its device, precision and ranks "
                 "(docs/learning-from-runs.md)")
      ->check(CLI::ExistingFile);
  std::string progress = "auto";
  clikit::add_progress_option(app, progress, "reading the profiles", "profile");
  bool accept_suspect = false;
  app.add_flag("--accept-suspect", accept_suspect,
               "use profiles the evidence check refuses (superseded ones, ones whose host phases "
               "exceed their compute), each named in a warning (docs/calibration.md)");
  return clikit::run_app(app, argc, argv, [&] {
    clikit::refuse_repeated_files(inputs, "profiles");
    clikit::refuse_repeated_files(clusters, "--clusters");
    clikit::refuse_repeated_files(run_logs, "--run-logs");
    if (!run_logs.empty() && clusters.empty())
      throw std::invalid_argument(
          "--run-logs: needs --clusters, the cluster file of the runs' "
          "host (its link class and device)");
    std::vector<schema::NamedPath> read = schema::named_paths("profiles", inputs);
    for (const auto& f : clusters) read.push_back({"--clusters", f});
    for (const auto& f : run_logs) read.push_back({"--run-logs", f});
    for (const auto& f : clikit::split_list(timm, "tensor-evidence"))
      read.push_back({"--tensor-evidence", f});
    read.push_back({"--gpus", gpus_path});
    schema::OutputGroup written(read, {{"-o", out}});
    const clikit::ProgressMode mode = clikit::progress_option(progress);
    const auto catalog = schema::read_gpus(gpus_path);
    std::vector<schema::ProfileInput> profiles;
    {
      clikit::ProgressLine line("vitsim calibrate", "profiles read", mode);
      for (const auto& f : inputs) {
        profiles.push_back({f, schema::read_profile(f)});
        line.update(profiles.size(), inputs.size());
      }
    }
    calibrate::CalibrateOptions opt;
    opt.accept_suspect = accept_suspect;
    opt.precisions = clikit::parse_list<costmodel::Regime>(precisions, "precisions",
                                                           costmodel::parse_regime, true);
    for (const auto& f : clusters) opt.clusters.push_back(schema::read_cluster(f));
    warn_cluster_fabric("vitsim calibrate", opt.clusters, catalog);
    const schema::ProfileInput* with_model = nullptr;
    for (const auto& p : profiles) {
      if (p.profile.model && !with_model) with_model = &p;
    }
    for (const auto& csv : clikit::split_list(timm, "tensor-evidence")) {
      if (csv.empty() || !with_model) continue;
      const auto table = schema::CsvTable::read(csv);
      auto rows = calibrate::evidence_from_public_table(table, catalog, *with_model->profile.model);
      opt.public_evidence.insert(opt.public_evidence.end(), rows.begin(), rows.end());
      // The regime transfer's eta_c: the first table with training rows of the model.
      if (!opt.tensor_evidence && calibrate::is_timm_table(table))
        opt.tensor_evidence =
            calibrate::tensor_efficiency_from_timm(table, catalog, *with_model->profile.model);
    }
    calibrate::Calibration cal = calibrate::calibrate(profiles, catalog, opt);
    // Each run against its own prediction with the costs just fitted, before any run's term.
    const std::vector<calibrate::RunLogInput> runs = validate::predicted_runs(
        run_logs, cal.costs, opt.clusters, catalog, schema::default_transports_path());
    for (auto& n : calibrate::add_run_overheads(cal.costs, runs, opt.clusters))
      cal.notes.push_back(std::move(n));
    for (const auto& n : cal.notes) std::cerr << "vitsim calibrate: note: " << n << "\n";
    for (const auto& w : cal.warnings) std::cerr << "vitsim calibrate: warning: " << w << "\n";
    schema::CostModelFile file;
    file.costs = cal.costs;
    file.context =
        schema::make_context("vitsim calibrate", std::vector<std::string>(argv, argv + argc),
                             {{"profiles", inputs},
                              {"clusters", clusters},
                              {"run_logs", run_logs},
                              {"notes", cal.notes},
                              {"warnings", cal.warnings}});
    schema::add_json(written, out, schema::write_cost_model_json(file));
    written.commit();
    print_costs(cal.costs);
    std::cout << "\nwrote " << out << " (" << cal.costs.devices.size()
              << " device/precision costs, " << cal.costs.links.size() << " link classes)\n";
    return 0;
  });
}

}  // namespace vitsim::cli
