// vitsim simulate: every configuration of a scenario (scenarios/*.json) on its cluster; a table
// with a units row on stdout; with --out PREFIX the prediction JSON (PREFIX.json), a CSV row per
// configuration (PREFIX.csv) and per rank (PREFIX.ranks.csv); with --trace the Chrome trace of
// every configuration's simulated steps.
#include <iostream>

#include "cli/commands.h"
#include "cli/cost_options.h"
#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/progress.h"
#include "clikit/run_app.h"
#include "present/prediction_table.h"
#include "present/run_cost.h"
#include "schema/cost_model_io.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/prediction_csv.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"
#include "sim/simulator.h"

namespace vitsim::cli {

int cmd_simulate(int argc, char** argv) {
  CLI::App app{
      "Simulate every configuration of a scenario (SimGrid): epoch and step time, the step split "
      "into compute, exposed communication and idle waiting per rank, throughput, speedup and "
      "parallel efficiency against the scenario's 1-GPU configuration, memory fit.",
      "vitsim simulate"};
  std::string scenario_path, costs_path, out_prefix, trace, gpus_json;
  std::string transports = schema::default_transports_path();
  std::string network_model = "CM02";
  bool crosstraffic = false, explain = false, quiet = false;
  int steps = 3;
  std::string progress = "auto";
  app.add_option("scenario", scenario_path, "scenario file (scenarios/*.json)")
      ->required()
      ->check(CLI::ExistingFile);
  add_costs_option(app, costs_path)->required();
  app.add_option("--out", out_prefix,
                 "write PREFIX.json (predictions), PREFIX.csv (per configuration) and "
                 "PREFIX.ranks.csv (per rank)");
  app.add_option("--trace", trace, "write the simulated timelines as a Chrome trace (JSON)");
  add_gpus_json_option(app, gpus_json);
  app.add_option("--transports", transports,
                 "transport model parameters, for link classes the costs did not measure")
      ->default_str(schema::data_default("platforms/transports.json"));
  app.add_option("--steps", steps, "steps simulated per configuration")->capture_default_str();
  app.add_option("--network-model", network_model, "SimGrid network/model (CM02, LV08, ...)")
      ->capture_default_str();
  app.add_flag("--crosstraffic", crosstraffic, "SimGrid network/crosstraffic on");
  app.add_flag("--explain", explain,
               "print each warning about an unmeasured part in full: how it was modelled and how "
               "to measure it");
  add_quiet_option(app, quiet);
  bool force = false;
  app.add_flag(
      "--force", force,
      "simulate even what the size guard estimates to take too long (not too much memory)");
  clikit::add_progress_option(app, progress, "the simulations", "configuration");
  CostArgs cost;
  add_cost_options(app, cost);
  const std::vector<std::string> args(argv, argv + argc);
  return clikit::run_app(app, argc, argv, [&] {
    const std::vector<schema::NamedPath> read = {{"scenario", scenario_path},
                                                 {"--costs", costs_path},
                                                 {"--gpus-json", gpus_json},
                                                 {"--transports", transports},
                                                 {"--prices", cost.prices}};
    std::vector<schema::NamedPath> outputs =
        schema::named_paths("--out", schema::prediction_output_paths(out_prefix));
    outputs.push_back({"--trace", trace});
    schema::OutputGroup written(read, outputs);
    const schema::Scenario scenario = schema::read_scenario(scenario_path);
    const std::string cluster_path = schema::scenario_cluster_path(scenario);
    written.add_input({"the scenario's cluster", cluster_path});
    const schema::ClusterSpec cluster = schema::read_cluster(cluster_path);
    const costmodel::DeviceCatalog catalog = schema::read_gpus(gpus_json);
    warn_cluster_fabric("vitsim simulate", {cluster}, catalog);
    const schema::CostModelFile costs = schema::read_cost_model(costs_path);
    check_price_devices(cost, schema::apply_overrides(scenario, cluster));
    sim::SimOptions options;
    options.network_model = network_model;
    options.crosstraffic = crosstraffic;
    options.simulated_steps = steps;
    options.force = force;
    options.trace_path = trace;
    options.outputs = &written;
    options.argv = args;
    options.transports = schema::read_transports(transports);
    std::cerr << "vitsim simulate: " << scenario.name << ": " << scenario.configurations.size()
              << " configuration(s) on " << cluster.name << "\n";
    schema::PredictionFile p;
    {
      clikit::ProgressLine line(
          "vitsim simulate", "configurations",
          clikit::parse_option(progress, "progress", clikit::parse_progress_mode));
      options.progress = [&](size_t done, size_t total) { line.update(done, total); };
      p = sim::simulate_scenario(scenario, cluster, catalog, costs.costs, options);
    }
    print_unmeasured("vitsim simulate", p.configurations, explain, quiet);
    p.context = schema::make_context(
        "vitsim", args,
        {{"scenario_file", scenario_path},
         {"costs_file", costs_path},
         {"model", schema::write_model(scenario.model)}});  // validate checks run logs with it
    const schema::ClusterSpec changed = schema::apply_overrides(scenario, cluster);
    attach_costs(p.configurations, cost, sim::merged_catalog(catalog, changed),
                 present::devices_of(changed), "vitsim simulate");
    std::cout << scenario.name << " (" << cluster.name << ")\n"
              << present::prediction_table(p.configurations) << "\n";
    // Each configuration's bottleneck in one sentence (the JSON has the whole breakdown).
    for (const auto& c : p.configurations) {
      if (c.breakdown) std::cout << c.config.label << ": " << c.breakdown->bottleneck << "\n";
    }
    schema::add_prediction_outputs(written, out_prefix, "", p);
    written.commit();
    if (!out_prefix.empty()) {
      std::cerr << "vitsim simulate: wrote " << out_prefix << ".json, " << out_prefix
                << ".csv (per configuration) and " << out_prefix << ".ranks.csv (per rank)\n";
    }
    if (!trace.empty())
      std::cerr << "vitsim simulate: wrote the Chrome trace to " << trace
                << " (open it in ui.perfetto.dev or chrome://tracing)\n";
    return 0;
  });
}

}  // namespace vitsim::cli
