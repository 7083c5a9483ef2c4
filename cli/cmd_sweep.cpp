// vitsim sweep: simulate every combination of GPU counts, micro-batches, collectives, bucket sizes
// and overlap on one cluster, or subsets of its hosts and device types; print them (table with a
// units row, cost per epoch) and the best for a goal (plan/sweep_goal.h) with why its step takes
// what it takes. The configurations run in parallel (--jobs), or in slices on several machines
// (--shard) whose files --merge turns into the single-machine result (docs/sweeps.md).
// The modes' own parts: --shard and --merge in cmd_sweep_shards.cpp, the host-subset and device
// search in cmd_sweep_search.cpp (cmd_sweep.h).
#include "cli/cmd_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/progress.h"
#include "clikit/run_app.h"
#include "plan/sweep_goal.h"
#include "plan/sweep_jobs.h"
#include "present/answers_text.h"
#include "present/prediction_table.h"
#include "present/run_cost.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/prediction_csv.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"

namespace vitsim::cli {

void print_and_write(const SweepArgs& a, const plan::SweepResult& r, const plan::SweepSpec& spec,
                     const costmodel::ViTConfig& model, schema::OutputGroup& written) {
  const auto& all = r.predictions.configurations;
  std::cout << present::prediction_table(all);
  for (const auto& s : r.skipped) std::cerr << "vitsim sweep: skipped " << s << "\n";
  std::cout << "\n";
  for (const auto& n : plan::sweep_notes(spec, model)) std::cout << "note: " << n << "\n";
  for (const auto& n : r.pick.notes) std::cout << "note: " << n << "\n";
  std::cout << present::best_text(all, r.pick, spec.goal);
  const std::string front = present::pareto_text(all, r.requested, spec.limits);
  if (!front.empty()) std::cout << "\n" << front;
  print_unmeasured("vitsim sweep", all, a.explain, a.quiet);
  schema::add_prediction_outputs(written, a.out_prefix, a.json_path, r.predictions);
  written.commit();
}

int nothing_found(const plan::SweepResult& r) {
  size_t asked = 0;  // simulated and asked for (not a baseline the sweep added)
  for (size_t i = 0; i < r.predictions.configurations.size(); ++i)
    asked += i >= r.requested.size() || r.requested[i] ? 1 : 0;
  std::cerr << "vitsim sweep: no configuration to recommend: "
            << (asked == 0 ? fmt::format("nothing asked for could run: {} skipped (listed above)",
                                         r.skipped.size())
                           : fmt::format("{} simulated, {} skipped, and none fits and runs "
                                         "within the limits (notes above)",
                                         asked, r.skipped.size()))
            << "\n";
  return 2;
}

std::set<std::string> priced_devices(const std::vector<std::string>& searched,
                                     const schema::ClusterSpec& cluster) {
  return searched.empty() ? present::devices_of(cluster)
                          : std::set<std::string>(searched.begin(), searched.end());
}

namespace {

void add_options(CLI::App& app, SweepArgs& a, CostArgs& cost, clikit::ModelOptions& model) {
  add_input_options(app, a.input, false);
  app.add_flag("--explain", a.explain,
               "print each warning about an unmeasured part in full: how it was modelled and how "
               "to measure it");
  add_quiet_option(app, a.quiet);
  add_run_options(app, a.run, Values::kList);
  add_goal_options(app, a.goal, Values::kList);
  app.add_option("--out", a.out_prefix,
                 "write PREFIX.json, PREFIX.csv (one row per configuration) and PREFIX.ranks.csv "
                 "(one per rank); also when interrupted: the rows finished");
  clikit::add_progress_option(app, a.progress, "the sweep", "configuration");
  app.add_option("--json", a.json_path, "write the prediction (with --shard: the shard file)");
  app.add_option("--jobs", a.jobs,
                 "configurations simulated at once (default: the cores, fewer when that many "
                 "would not fit in memory); the output is the same for any value")
      ->check(clikit::positive_count());
  app.add_option("--shard", a.shard,
                 "I/N: simulate only configurations k with k % N == I (0 <= I < N) and write a "
                 "shard file; slurm: I and N from SLURM_ARRAY_TASK_ID/_MIN/_COUNT");
  app.add_option("--merge", a.merge,
                 "shard files of one sweep: check them and write the single-machine result")
      ->check(CLI::ExistingFile)
      ->excludes("--shard");
  app.add_option("--hosts-from", a.hosts_from,
                 "search subsets of these hosts (comma-separated; 'all': every host), each with "
                 "all its GPUs, as counts per class of identical hosts; every subset with each "
                 "value of the other lists (not with --gpus, --nodes, --gpus-per-node: the "
                 "subsets set the GPUs)");
  app.add_option("--devices", a.devices,
                 "search these device types in place of the cluster's GPUs (comma-separated ids "
                 "of the device catalog), with --hosts-from or on every host");
  clikit::add_model_options(app, model);
  add_cost_options(app, cost);
}

plan::SweepSpec to_spec(const SweepArgs& a, const CostArgs& cost) {
  const RunValues v = parse_run_options(a.run);
  plan::SweepSpec spec;
  spec.base = v.base;
  spec.gpus = v.gpus;
  if (spec.gpus.empty()) throw std::invalid_argument("--gpus needs at least one value");
  spec.micro_batches = v.micro_batches;
  spec.collectives = v.collectives;
  spec.bucket_bytes = v.bucket_bytes;
  spec.overlaps = v.overlaps;
  spec.zero_stages = v.zero_stages;
  spec.checkpointing = v.checkpointing;
  spec.precisions = v.precisions;
  spec.goal = clikit::parse_option(a.goal.goal, "goal", plan::parse_sweep_goal);
  spec.limits = parse_goal_limits(a.goal, cost.epochs);
  return spec;
}

// Options a merge takes: where the results go, and what the pick is held to (the shards
// simulated everything else; given here, it would change nothing).
const char* const kMergeOptions[] = {"--merge",    "--out",         "--json",
                                     "--progress", "--min-speedup", "--max-global-batch",
                                     "--deadline", "--budget"};
// Options that only the pick uses: given to a shard, they would change nothing.
const char* const kPickOptions[] = {"--min-speedup", "--max-global-batch", "--deadline",
                                    "--budget"};

// Exit 2 for an option given where it would change nothing (never dropped silently).
void refuse_options_that_do_nothing(const SweepArgs& a) {
  const auto in = [](const std::string& o, const auto& list) {
    return std::find(std::begin(list), std::end(list), o) != std::end(list);
  };
  for (const std::string& o : a.given) {
    if (!a.merge.empty() && !in(o, kMergeOptions))
      throw std::invalid_argument(o +
                                  " does not apply to --merge: the shards simulated the sweep "
                                  "(give it to every shard); the merge takes --out, --json and "
                                  "the pick's limits");
    if (!a.shard.empty() && in(o, kPickOptions))
      throw std::invalid_argument(o +
                                  " applies where the best is picked: give it to --merge, "
                                  "not to a shard");
    const bool subsets = !a.hosts_from.empty() || !a.devices.empty();
    if (subsets && o == "--shard")
      throw std::invalid_argument(
          "--shard does not combine with --hosts-from or --devices: "
          "the host-subset search runs on one machine");
    if (subsets && (o == "--gpus" || o == "--nodes" || o == "--gpus-per-node"))
      throw std::invalid_argument(o + " does not combine with --hosts-from or --devices: the " +
                                  "host subsets set the GPUs (each host with all its GPUs)");
  }
}

// The command's files, declared once before any work (schema/output_rule.h): what it reads
// (--cluster, --costs, --gpus-json, --transports, --prices, the --merge shards) and what it
// writes (--out's three files and --json; a shard: its one file).
schema::OutputGroup declare_files(const SweepArgs& a, const CostArgs& cost) {
  std::vector<schema::NamedPath> read = input_files(a.input, cost.prices);
  for (const auto& p : schema::named_paths("--merge", a.merge)) read.push_back(p);
  std::vector<schema::NamedPath> written;
  if (!a.shard.empty()) {
    written.push_back({a.json_path.empty() ? "--out" : "--json", shard_path(a)});
  } else {
    written = schema::named_paths("--out", schema::prediction_output_paths(a.out_prefix));
    written.push_back({"--json", a.json_path});
  }
  return schema::OutputGroup(read, written);
}

int sweep(const SweepArgs& a, const CostArgs& cost, const clikit::ModelOptions& model_options,
          const std::vector<std::string>& args, schema::OutputGroup& written) {
  if (a.input.cluster.empty())
    throw std::invalid_argument("--cluster is required (unless --merge)");
  if (a.input.costs.empty()) throw std::invalid_argument("--costs is required (unless --merge)");
  plan::SweepSpec spec = to_spec(a, cost);
  const schema::ClusterSpec cluster = schema::read_cluster(a.input.cluster);
  const costmodel::DeviceCatalog catalog = schema::read_gpus(a.input.gpus_json);
  warn_cluster_fabric("vitsim sweep", {cluster}, catalog);
  const schema::CostModelFile costs = schema::read_cost_model(a.input.costs);
  const costmodel::ViTConfig model = resolve_model(a.run, model_options);
  sim::SimOptions options;
  options.transports = schema::read_transports(a.input.transports);
  options.force = a.run.force;
  options.simulated_steps = a.run.steps;
  const std::vector<std::string> searched = resolve_searched(a.devices, catalog, cluster);
  check_price_devices(cost, cluster, searched);
  const std::vector<plan::SweepItem> items = plan::sweep_items(spec);
  spec.jobs = a.jobs > 0 ? a.jobs : plan::default_sweep_jobs(items, model, options);
  if (a.shard.empty()) {
    plan::SweepResult r;
    int interrupted_by = 0;
    {
      clikit::ProgressLine line(
          "vitsim sweep", "configurations",
          clikit::parse_option(a.progress, "progress", clikit::parse_progress_mode));
      clikit::StopOnSignal stop;
      spec.progress = [&](size_t done, size_t total) { line.update(done, total); };
      spec.stop_requested = [&] { return stop.requested(); };
      const bool subsets = !a.hosts_from.empty() || !a.devices.empty();
      r = subsets ? search(a, spec, cluster, catalog, model, costs.costs, options, cost, searched)
                  : plan::run_sweep(spec, cluster, catalog, model, costs.costs, options);
      interrupted_by = r.interrupted ? stop.signal() : 0;
    }
    r.predictions.context =
        schema::make_context("vitsim", args, {{"model", schema::write_model(model)}});
    if (r.interrupted) r.predictions.context["interrupted"] = true;
    attach_costs(r.predictions.configurations, cost, sim::merged_catalog(catalog, cluster),
                 priced_devices(searched, cluster), "vitsim sweep");
    // Cost goals need the costs just attached: pick again with them.
    plan::choose_best(r, spec.goal, spec.limits);
    print_and_write(a, r, spec, model, written);
    if (r.interrupted) {
      std::cerr << "vitsim sweep: interrupted (signal " << interrupted_by << ") after "
                << r.predictions.configurations.size() << " of " << r.total << " configurations; "
                << (a.out_prefix.empty() ? "the table above holds the finished ones"
                                         : "wrote the finished ones to " + a.out_prefix +
                                               ".json, .csv and .ranks.csv")
                << "\n";
      return 128 + interrupted_by;  // as a shell reports a process ended by that signal
    }
    return r.pick.best < 0 ? nothing_found(r) : 0;
  }
  return shard(a, spec, {cluster, catalog, model, costs.costs, options, searched}, cost, items,
               args, written);
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  CLI::App app{
      "Simulate ranges of GPU counts, micro-batches, collectives, bucket sizes and overlap on a "
      "cluster and print the best configuration for a goal (fastest epoch or best parallel "
      "efficiency against one GPU).",
      "vitsim sweep"};
  SweepArgs a;
  CostArgs cost;
  clikit::ModelOptions model;
  add_options(app, a, cost, model);
  const std::vector<std::string> args(argv, argv + argc);
  return clikit::run_app(app, argc, argv, [&] {
    for (const CLI::Option* o : app.get_options())
      if (o->count() > 0 && !o->get_lnames().empty()) a.given.push_back("--" + o->get_lnames()[0]);
    refuse_options_that_do_nothing(a);
    schema::OutputGroup written = declare_files(a, cost);
    return a.merge.empty() ? sweep(a, cost, model, args, written) : merge(a, model, args, written);
  });
}

}  // namespace vitsim::cli
