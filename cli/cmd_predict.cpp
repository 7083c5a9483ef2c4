// vitsim predict: one training configuration on a cluster, simulated (sim::predict). Prints a table
// (with a units row) and the per-rank split, or with --json one JSON object
// (docs/formats/prediction.md, "vitsim predict --json"). With --explain (and as `vitsim advise`)
// also why the step takes what it takes and the simulated what-ifs that would help most
// (sim/step_breakdown.h, plan/advisor.h).
#include <iostream>
#include <utility>

#include "cli/commands.h"
#include "cli/cost_options.h"
#include "cli/file_options.h"
#include "cli/option_groups.h"
#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/progress.h"
#include "clikit/run_app.h"
#include "plan/advisor.h"
#include "plan/fit_advisor.h"
#include "plan/sweep_goal.h"
#include "present/answers_text.h"
#include "present/prediction_table.h"
#include "present/run_cost.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"
#include "sim/simulator.h"

namespace vitsim::cli {
namespace {

struct PredictArgs {
  InputArgs input;
  RunArgs run;
  GoalArgs goal;
  std::string hosts, per_rank, trace;
  std::string network_model = "CM02", engine = "auto", progress = "auto";
  bool json = false, crosstraffic = false, explain = false, quiet = false;
  int64_t what_ifs = 3;
};

void add_options(CLI::App& app, PredictArgs& a, CostArgs& cost, clikit::ModelOptions& model) {
  add_input_options(app, a.input, true);
  const RunOptions run = add_run_options(app, a.run, Values::kOne);
  app.add_option("--hosts", a.hosts,
                 "explicit hosts, one per rank, comma-separated (sets the rank count; a host "
                 "with 2 GPUs is listed twice)")
      ->excludes(run.gpus_per_node);
  clikit::add_model_options(app, model);
  add_goal_options(app, a.goal, Values::kOne);
  app.add_option("--per-rank-micro-batch", a.per_rank,
                 "micro-batch of each rank, comma-separated (what-if; instead of --micro-batch)")
      ->excludes("--micro-batch");
  app.add_option("--network-model", a.network_model, "SimGrid network/model (CM02, LV08, ...)")
      ->capture_default_str();
  app.add_flag("--crosstraffic", a.crosstraffic, "SimGrid network/crosstraffic on");
  app.add_option("--engine", a.engine,
                 "auto | closed-form | classes | ranks: every rank alike (or one rank): one "
                 "rank's timeline, all-reduces from exact equations or simulated once; one actor "
                 "per class of equivalent ranks (flow level, CM02); or per rank (the reference); "
                 "auto: the first that applies")
      ->capture_default_str();
  app.add_option("--trace", a.trace, "write the simulated timeline as a Chrome trace (JSON)");
  app.add_flag("--json", a.json, "print one JSON object instead of the table");
  app.add_flag("--explain", a.explain,
               "also print why the step takes what it takes and simulate what-ifs (= vitsim "
               "advise)");
  app.add_option("--what-ifs", a.what_ifs,
                 "what-ifs that help kept, those that shorten the epoch most (the others are "
                 "listed under their own heading)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{20}));
  add_quiet_option(app, a.quiet);
  clikit::add_progress_option(app, a.progress, "advise's what-ifs (--explain)", "what-if");
  add_cost_options(app, cost);
}

schema::TrainingConfig to_config(const PredictArgs& a) {
  const RunValues v = parse_run_options(a.run);
  schema::TrainingConfig c = v.base;
  c.hosts = clikit::split_list(a.hosts, "hosts");  // a host twice: two of its GPUs
  const auto listed = static_cast<int64_t>(c.hosts.size());
  c.gpus = v.gpus.empty() ? (listed > 0 ? listed : 1) : single_value(v.gpus, "gpus");
  if (listed > 0 && listed != c.gpus) {
    throw std::invalid_argument("--hosts lists " + std::to_string(listed) + " hosts for --gpus " +
                                std::to_string(c.gpus) +
                                " (hint: one host per rank; leave --gpus out and --hosts sets it)");
  }
  c.micro_batch = single_value(v.micro_batches, "micro-batch");
  c.per_rank_micro_batch =
      clikit::parse_list<int64_t>(a.per_rank, "per-rank-micro-batch",
                                  clikit::parse_positive_integer, true, clikit::Repeats::kAllowed);
  c.overlap = single_value(v.overlaps, "overlap");
  c.collective = single_value(v.collectives, "collective");
  c.bucket_bytes = single_value(v.bucket_bytes, "bucket-mb");
  c.zero_stage = single_value(v.zero_stages, "zero-stage");
  c.activation_checkpointing = single_value(v.checkpointing, "activation-checkpointing");
  c.precision = single_value(v.precisions, "precision");
  c.label = "predict";
  check_epoch_holds_a_batch(c, a.run.dataset);
  return c;
}

// What would make an out-of-memory configuration fit, each priced as predict prices its own.
std::vector<schema::FitOption> fit_options_with_costs(std::vector<plan::FitCandidate> candidates,
                                                      const CostArgs& cost,
                                                      const costmodel::DeviceCatalog& catalog,
                                                      const schema::ClusterSpec& cluster,
                                                      const std::string& tool) {
  std::vector<schema::ConfigPrediction> priced;
  for (const auto& c : candidates) priced.push_back(c.prediction);
  attach_costs(priced, cost, sim::merged_catalog(catalog, cluster), present::devices_of(cluster),
               tool);
  for (size_t i = 0; i < candidates.size(); ++i) candidates[i].prediction = priced[i];
  return plan::fit_options(candidates);
}

// predict, or with `advise` the same with --explain always on.
int run_predict(int argc, char** argv, bool advise) {
  CLI::App app{
      advise ? "Simulate one data-parallel training configuration, say why its step takes what it "
               "takes (the slowest rank's compute, waiting for stragglers, exposed communication "
               "per saturated link) and simulate the what-ifs that would shorten the epoch most."
             : "Simulate one data-parallel training configuration on a cluster (SimGrid) and "
               "predict its step and epoch time, with the per-rank split into compute, exposed "
               "communication and idle waiting, and whether it fits in device memory.",
      advise ? "vitsim advise" : "vitsim predict"};
  PredictArgs a;
  a.explain = advise;
  CostArgs cost;
  clikit::ModelOptions model;
  add_options(app, a, cost, model);
  const std::vector<std::string> args(argv, argv + argc);
  return clikit::run_app(app, argc, argv, [&] {
    schema::OutputGroup written(input_files(a.input, cost.prices), {{"--trace", a.trace}});
    const schema::ClusterSpec cluster = schema::read_cluster(a.input.cluster);
    const costmodel::DeviceCatalog catalog = schema::read_gpus(a.input.gpus_json);
    warn_cluster_fabric(advise ? "vitsim advise" : "vitsim predict", {cluster}, catalog);
    const schema::CostModelFile costs = schema::read_cost_model(a.input.costs);
    check_price_devices(cost, cluster);
    sim::SimOptions options;
    options.network_model = a.network_model;
    options.crosstraffic = a.crosstraffic;
    options.simulated_steps = a.run.steps;
    options.force = a.run.force;
    options.trace_path = a.trace;
    options.outputs = &written;
    options.argv = args;
    options.transports = schema::read_transports(a.input.transports);
    const schema::TrainingConfig config = to_config(a);
    const plan::GoalLimits limits = parse_goal_limits(a.goal, cost.epochs);
    options.engine = sim::parse_engine(a.engine);
    const costmodel::ViTConfig vit = resolve_model(a.run, model);
    schema::ConfigPrediction p = sim::predict(cluster, catalog, vit, config, costs.costs, options);
    if (a.explain) {
      // A line on a terminal once the what-ifs run over a second; nothing when piped.
      clikit::ProgressLine line(
          advise ? "vitsim advise" : "vitsim predict --explain", "what-ifs",
          clikit::parse_option(a.progress, "progress", clikit::parse_progress_mode));
      plan::AdviceRequest q{&cluster, &catalog, &vit, &config, &costs.costs, &options, &p, {}};
      q.progress = [&](size_t done, size_t total) { line.update(done, total); };
      p.advice = plan::advise(q, static_cast<size_t>(a.what_ifs));
      p.fit_options = fit_options_with_costs(plan::what_would_fit(q), cost, catalog, cluster,
                                             advise ? "vitsim advise" : "vitsim predict");
    }
    // Moved, never copied: a row per rank (a million GPUs' rows are most of the memory).
    std::vector<schema::ConfigPrediction> one;
    one.push_back(std::move(p));
    attach_costs(one, cost, sim::merged_catalog(catalog, cluster), present::devices_of(cluster),
                 "vitsim " + std::string(advise ? "advise" : "predict"));
    const std::string tool = advise ? "vitsim advise" : "vitsim predict";
    // advise explains the step; its warnings stay one line each unless --explain is given.
    print_unmeasured(tool, one, app.count("--explain") > 0, a.quiet);
    if (a.json) {
      // A prediction document with one configuration: what vitsim validate reads.
      schema::PredictionFile file;
      file.context = schema::make_context("vitsim", args, {{"model", schema::write_model(vit)}});
      file.scenario = "predict";
      file.selection = plan::to_selection(plan::SweepGoal::kFastestEpoch, limits);
      const std::string flags = present::limits_text(one.front(), limits);
      file.configurations = std::move(one);
      if (!flags.empty()) std::cerr << tool << ": " << flags;
      std::cout << present::dump_with_head_first(schema::write_prediction_json(file));
    } else {
      const schema::ConfigPrediction& q = one.front();
      std::cout << present::prediction_table(one) << "\n" << present::rank_table(q);
      std::cout << "\n" << present::answers_text(q, a.explain) << present::limits_text(q, limits);
    }
    written.commit();
    if (!a.trace.empty())
      std::cerr << "vitsim predict: wrote the Chrome trace to " << a.trace
                << " (open it in ui.perfetto.dev or chrome://tracing)\n";
    return 0;
  });
}

}  // namespace

int cmd_predict(int argc, char** argv) {
  return run_predict(argc, argv, false);
}
int cmd_advise(int argc, char** argv) {
  return run_predict(argc, argv, true);
}

}  // namespace vitsim::cli
