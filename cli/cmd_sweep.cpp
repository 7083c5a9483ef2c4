// vitsim sweep: simulate every combination of GPU counts, micro-batches, collectives, bucket sizes
// and overlap on one cluster, or subsets of its hosts and device types; print them (table with a
// units row, cost per epoch) and the best for a goal (sim/sweep_goal.h) with why its step takes
// what it takes. The configurations run in parallel (--jobs), or in slices on several machines
// (--shard) whose files --merge turns into the single-machine result (docs/sweeps.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

#include "cli/commands.h"
#include "cli/cost_options.h"
#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/progress.h"
#include "clikit/run_app.h"
#include "clikit/suggest.h"
#include "costmodel/buckets.h"
#include "costmodel/layer_graph.h"
#include "present/answers_text.h"
#include "present/prediction_table.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/prediction_csv.h"
#include "schema/prices_io.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"
#include "sim/subset_search.h"
#include "sim/sweep.h"
#include "sim/sweep_goal.h"
#include "sim/sweep_jobs.h"
#include "sim/sweep_shards.h"

namespace vitsim::cli {
namespace {

struct SweepArgs {
  std::string cluster, costs, out_prefix, json_path, shard, gpus_json = schema::default_gpus_path();
  std::vector<std::string> merge;
  int jobs = 0;  // 0: default_sweep_jobs
  std::string transports = schema::default_transports_path();
  std::string gpus = "1,2,4,8", micro_batches = "16", collectives = "ring", buckets = "500";
  std::string overlaps = "off", goal = "fastest-epoch", precision = "fp32", level = "auto";
  std::string progress = "auto";
  std::string hosts_from, devices;
  std::optional<int64_t> nodes, gpus_per_node;
  int64_t images = 50000;
  double data_fraction = 1.0, min_speedup = 0;
  int64_t max_global_batch = sim::kDefaultMaxGlobalBatch;
  bool force = false;
  int steps = sim::SimOptions{}.simulated_steps;
};

void add_options(CLI::App& app, SweepArgs& a, CostArgs& cost, clikit::ModelOptions& model) {
  app.add_option("--cluster", a.cluster, "cluster file (required unless --merge)")
      ->check(CLI::ExistingFile);
  app.add_option("--costs", a.costs, "cost model (required unless --merge)")
      ->check(CLI::ExistingFile);
  app.add_option("--gpus-json", a.gpus_json, "device catalog")->capture_default_str();
  app.add_option("--transports", a.transports,
                 "transport model parameters, for link classes the costs did not measure")
      ->capture_default_str();
  app.add_option("--nodes", a.nodes, "node count of the cluster's node template")
      ->check(clikit::positive_count());
  app.add_option("--gpus-per-node", a.gpus_per_node, "ranks per node")
      ->check(clikit::positive_count());
  app.add_option("--gpus", a.gpus, "GPU counts, comma-separated")->capture_default_str();
  app.add_option("--micro-batch", a.micro_batches, "micro-batches, comma-separated")
      ->capture_default_str();
  app.add_option("--collective", a.collectives, "collectives: ring,tree,hierarchical")
      ->capture_default_str();
  app.add_option("--bucket-mb", a.buckets,
                 "gradient bucket sizes, MiB (2^20 bytes, as vitsim predict), comma-separated")
      ->capture_default_str();
  app.add_option("--overlap", a.overlaps, "off,on")->capture_default_str();
  app.add_option("--collective-level", a.level, "step | flow | auto")->capture_default_str();
  app.add_option("--goal", a.goal,
                 "fastest-epoch | best-efficiency | cheapest-epoch | best-throughput-per-dollar")
      ->capture_default_str();
  app.add_option("--min-speedup", a.min_speedup,
                 "best-efficiency: only configurations with at least this speed-up")
      ->capture_default_str()
      ->check(clikit::number_in(0.0, 1e9));
  app.add_option("--max-global-batch", a.max_global_batch,
                 "global batches above this are flagged, never recommended (default: ViT-B/16's "
                 "4096, Dosovitskiy et al. 2021)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--precision", a.precision,
                 "precision regime: fp32 | amp-fp16 | amp-bf16 | ds-fp16 | ds-bf16 | "
                 "ds-fp16-allreduce-fp32 | ds-bf16-allreduce-fp32")
      ->capture_default_str();
  app.add_option("--images", a.images, "training images")
      ->capture_default_str()
      ->check(clikit::positive_count());
  app.add_option("--data-fraction", a.data_fraction, "fraction of the images used, (0, 1]")
      ->capture_default_str()
      ->check(clikit::unit_fraction());
  app.add_option("--steps", a.steps,
                 "steps simulated per configuration; the epoch extrapolates the last")
      ->capture_default_str()
      ->check(clikit::positive_count());
  app.add_option("--out", a.out_prefix,
                 "write PREFIX.json and PREFIX.csv (also when interrupted: the rows finished)");
  app.add_option("--progress", a.progress,
                 "auto (a line on stderr when it is a terminal and the sweep runs over 1 s) | "
                 "always (one line per configuration) | never")
      ->capture_default_str();
  app.add_option("--json", a.json_path, "write the prediction (with --shard: the shard file)");
  app.add_flag("--force", a.force,
               "simulate even configurations the size guard estimates to take too long (not too "
               "much memory)");
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
                 "all its GPUs, as counts per class of identical hosts (the first value of each "
                 "other list is used)");
  app.add_option("--devices", a.devices,
                 "search these device types in place of the cluster's GPUs (comma-separated ids "
                 "of the device catalog), with --hosts-from or on every host");
  clikit::add_model_options(app, model);
  add_cost_options(app, cost);
}

sim::SweepSpec to_spec(const SweepArgs& a) {
  sim::SweepSpec spec;
  spec.base.nodes = a.nodes;
  spec.base.gpus_per_node = a.gpus_per_node;
  spec.base.precision = clikit::parse_option(a.precision, "precision", costmodel::parse_regime);
  spec.base.images = a.images;
  spec.base.data_fraction = a.data_fraction;
  spec.base.collective_level =
      clikit::parse_option(a.level, "collective-level", costmodel::parse_collective_level);
  spec.gpus = clikit::parse_list<int64_t>(a.gpus, "gpus", clikit::parse_positive_integer);
  spec.micro_batches =
      clikit::parse_list<int64_t>(a.micro_batches, "micro-batch", clikit::parse_positive_integer);
  spec.collectives = clikit::parse_list<costmodel::Collective>(a.collectives, "collective",
                                                               costmodel::parse_collective);
  spec.bucket_bytes = clikit::parse_list<double>(a.buckets, "bucket-mb", [](const std::string& s) {
    return clikit::parse_number(s) * costmodel::kMiB;
  });
  spec.overlaps = clikit::parse_list<bool>(a.overlaps, "overlap", clikit::parse_on_off);
  spec.goal = clikit::parse_option(a.goal, "goal", sim::parse_sweep_goal);
  spec.min_speedup = a.min_speedup;
  spec.max_global_batch = a.max_global_batch;
  return spec;
}

// Overlap on and off give the same rows when one bucket holds the whole gradient: the all-reduce
// cannot start before the backward ends. Says so, with the bucket to try.
void overlap_note(const sim::SweepSpec& spec, const costmodel::ViTConfig& model) {
  if (spec.overlaps.size() < 2) return;
  const double gradient_bytes =
      static_cast<double>(costmodel::build_layer_graph(model).gradient_bytes(spec.base.precision));
  for (double bucket : spec.bucket_bytes) {
    if (bucket < gradient_bytes) continue;
    std::cout << fmt::format(
        "note: one {:g} MiB bucket holds the whole {:.0f} MiB gradient: overlap cannot start "
        "before the backward ends, so overlap on and off rows of that bucket are the same (try "
        "--bucket-mb 25)\n",
        bucket / costmodel::kMiB, gradient_bytes / costmodel::kMiB);
  }
}

void print_sweep(const sim::SweepResult& r, const sim::SweepSpec& spec,
                 const costmodel::ViTConfig& model) {
  std::cout << present::prediction_table(r.predictions.configurations);
  for (const auto& s : r.skipped) std::cerr << "vitsim sweep: skipped " << s << "\n";
  std::cout << "\n";
  overlap_note(spec, model);
  for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
  if (r.best < 0) {
    std::cout << "no configuration fits and runs\n";
    return;
  }
  const auto& b = r.predictions.configurations[static_cast<size_t>(r.best)];
  std::cout << fmt::format(
                   "best ({}): {}: epoch {:.1f} s, step {:.4f} s, speed-up {}, "
                   "efficiency {}, global batch {}",
                   sim::to_string(spec.goal), b.config.label, b.epoch_time_s, b.step_time_s,
                   b.speedup > 0 ? fmt::format("{:.2f}", b.speedup) : "-",
                   b.parallel_efficiency > 0 ? fmt::format("{:.0f} %", 100 * b.parallel_efficiency)
                                             : "-",
                   sim::global_batch(b))
            << "\n"
            << present::answers_text(b);
}

void write_outputs(const SweepArgs& a, const schema::PredictionFile& predictions) {
  schema::write_prediction_outputs(a.out_prefix, a.json_path, predictions);
}

// --merge takes every row from the shards (what they simulated, and their costs): an option that
// would change a row is refused, not dropped. What the merge itself decides (the pick's limits,
// where it writes) stays.
void refuse_options_merge_ignores(const CLI::App& app) {
  static const std::set<std::string> kUsed = {
      "--merge", "--json", "--out", "--min-speedup", "--max-global-batch", "--progress"};
  for (const CLI::Option* o : app.get_options()) {
    const std::string name = o->get_name();
    if (o->count() == 0 || kUsed.count(name) > 0) continue;
    throw std::invalid_argument(name +
                                " has no effect with --merge: the shards hold what was "
                                "simulated and its costs (hint: give it to each vitsim sweep "
                                "--shard run, or leave it out)");
  }
}

// A sweep with no best configuration answers nothing: exit 2, saying why (the skipped and the
// notes were printed above).
int nothing_found(const sim::SweepResult& r) {
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

int merge(const SweepArgs& a, const clikit::ModelOptions& model_options,
          const std::vector<std::string>& args) {
  std::vector<schema::ShardFile> shards;
  for (const std::string& path : a.merge) shards.push_back(schema::read_shard(path));
  const std::vector<schema::SweepEntry> entries = sim::merge_shards(shards, a.merge);
  const sim::SweepGoal goal = sim::parse_sweep_goal(shards.front().shard.goal);
  sim::SweepSpec spec;  // the goal only: the shards hold what the sweep simulated
  spec.goal = goal;
  // The shards simulate, the merge picks: the limits on the pick are the merge's options.
  sim::SweepResult r = sim::assemble_sweep(entries, goal, {a.min_speedup, a.max_global_batch});
  r.predictions.context = schema::make_context("vitsim", args);
  // The model the shards simulated (the digest, equal for all, covers it): validate checks it.
  const schema::Json& first = shards.front().context;
  if (first.is_object() && first.contains("model")) r.predictions.context["model"] = first["model"];
  print_sweep(r, spec, model_options.resolve());
  for (const auto& w : sim::unmeasured_warnings(r.predictions.configurations))
    std::cerr << "vitsim sweep: warning: " << w << "\n";
  write_outputs(a, r.predictions);
  return r.best < 0 ? nothing_found(r) : 0;
}

sim::SweepResult search(const SweepArgs& a, const sim::SweepSpec& spec,
                        const schema::ClusterSpec& cluster, const costmodel::DeviceCatalog& catalog,
                        const costmodel::ViTConfig& vit, const costmodel::CostModel& costs,
                        const sim::SimOptions& options, const CostArgs& cost);

// What a shard's configurations are simulated with (not owned).
struct ShardInputs {
  const schema::ClusterSpec& cluster;
  const costmodel::DeviceCatalog& catalog;
  const costmodel::ViTConfig& model;
  const costmodel::CostModel& costs;
  const sim::SimOptions& options;
};

int shard(const SweepArgs& a, const sim::SweepSpec& spec, const ShardInputs& in,
          const CostArgs& cost, const std::vector<sim::SweepItem>& items,
          const std::vector<std::string>& args);

int sweep(const SweepArgs& a, const CostArgs& cost, const clikit::ModelOptions& model_options,
          const std::vector<std::string>& args) {
  if (a.cluster.empty()) throw std::invalid_argument("--cluster is required (unless --merge)");
  if (a.costs.empty()) throw std::invalid_argument("--costs is required (unless --merge)");
  sim::SweepSpec spec = to_spec(a);
  const schema::ClusterSpec cluster = schema::read_cluster(a.cluster);
  const costmodel::DeviceCatalog catalog = schema::read_gpus(a.gpus_json);
  const schema::CostModelFile costs = schema::read_cost_model(a.costs);
  const costmodel::ViTConfig model = model_options.resolve();
  sim::SimOptions options;
  options.transports = schema::read_transports(a.transports);
  options.force = a.force;
  options.simulated_steps = a.steps;
  check_price_devices(cost, cluster,
                      clikit::parse_list<std::string>(
                          a.devices, "devices", [](auto& d) { return d; }, true));
  const std::vector<sim::SweepItem> items = sim::sweep_items(spec);
  spec.jobs = a.jobs > 0 ? a.jobs : sim::default_sweep_jobs(items, model, options);
  if (a.shard.empty()) {
    sim::SweepResult r;
    int interrupted_by = 0;
    {
      clikit::ProgressLine line(
          "vitsim sweep", "configurations",
          clikit::parse_option(a.progress, "progress", clikit::parse_progress_mode));
      clikit::StopOnSignal stop;
      spec.progress = [&](size_t done, size_t total) { line.update(done, total); };
      spec.stop_requested = [&] { return stop.requested(); };
      const bool subsets = !a.hosts_from.empty() || !a.devices.empty();
      r = subsets ? search(a, spec, cluster, catalog, model, costs.costs, options, cost)
                  : sim::run_sweep(spec, cluster, catalog, model, costs.costs, options);
      interrupted_by = r.interrupted ? stop.signal() : 0;
    }
    r.predictions.context =
        schema::make_context("vitsim", args, {{"model", schema::write_model(model)}});
    if (r.interrupted) r.predictions.context["interrupted"] = true;
    attach_costs(r.predictions.configurations, cost, sim::merged_catalog(catalog, cluster),
                 "vitsim sweep");
    // Cost goals need the costs just attached: pick again with them.
    const sim::BestPick pick = sim::pick_best(r.predictions.configurations, r.requested, spec.goal,
                                              {spec.min_speedup, spec.max_global_batch});
    r.best = pick.best;
    r.notes = pick.notes;
    print_sweep(r, spec, model);
    for (const auto& w : sim::unmeasured_warnings(r.predictions.configurations))
      std::cerr << "vitsim sweep: warning: " << w << "\n";
    write_outputs(a, r.predictions);
    if (r.interrupted) {
      std::cerr << "vitsim sweep: interrupted (signal " << interrupted_by << ") after "
                << r.predictions.configurations.size() << " of " << r.total << " configurations; "
                << (a.out_prefix.empty() ? "the table above holds the finished ones"
                                         : "wrote the finished ones to " + a.out_prefix +
                                               ".json and " + a.out_prefix + ".csv")
                << "\n";
      return 128 + interrupted_by;  // as a shell reports a process ended by that signal
    }
    return r.best < 0 ? nothing_found(r) : 0;
  }
  if (!a.hosts_from.empty() || !a.devices.empty())
    throw std::invalid_argument(
        "--shard: --hosts-from and --devices search subsets, which are not split into shards "
        "(hint: run the search on one machine, with --jobs)");
  return shard(a, spec, {cluster, catalog, model, costs.costs, options}, cost, items, args);
}

// --shard I/N: simulates the slice and writes the shard file, only when the slice is whole (a
// partial shard cannot merge): interrupted, it writes nothing and exits 128 + the signal.
int shard(const SweepArgs& a, const sim::SweepSpec& spec, const ShardInputs& in,
          const CostArgs& cost, const std::vector<sim::SweepItem>& items,
          const std::vector<std::string>& args) {
  const std::string path = !a.json_path.empty() ? a.json_path : a.out_prefix + ".json";
  if (a.json_path.empty() && a.out_prefix.empty())
    throw std::invalid_argument("--shard needs --json FILE (the shard file to merge)");
  const sim::ShardSlice slice =
      sim::parse_shard(a.shard, [](const char* n) { return std::getenv(n); });
  schema::ShardFile shard;
  shard.shard = {slice.index,
                 slice.count,
                 static_cast<int64_t>(items.size()),
                 sim::sweep_digest(items, spec.goal, in.model, in.options, cost_row_options(cost),
                                   {a.cluster, a.costs, a.gpus_json, a.transports, cost.prices}),
                 sim::to_string(spec.goal),
                 ""};  // the contents digest: written by write_shard
  const std::vector<int64_t> indices = sim::shard_indices(shard.shard.total_configurations, slice);
  bool interrupted = false;
  int signal = 0;
  {
    clikit::ProgressLine line(
        "vitsim sweep", "configurations",
        clikit::parse_option(a.progress, "progress", clikit::parse_progress_mode));
    clikit::StopOnSignal stop;
    sim::SweepContext context(in.cluster, in.catalog, in.model, in.costs, in.options);
    context.progress = [&](size_t done, size_t total) { line.update(done, total); };
    context.stop_requested = [&] { return stop.requested(); };
    context.interrupted = &interrupted;
    shard.entries = sim::simulate_sweep_items(items, indices, context, spec.jobs);
    signal = interrupted ? stop.signal() : 0;
  }
  if (interrupted) {
    std::cerr << "vitsim sweep: interrupted (signal " << signal << ") after "
              << shard.entries.size() << " of " << indices.size() << " configurations of shard "
              << slice.index << "/" << slice.count << "; " << path
              << " not written (a shard merges only whole: run it again)\n";
    return 128 + signal;  // as a shell reports a process ended by that signal
  }
  // Costs travel in the shard, so that the merged result is the single run's, cost goals included.
  for (schema::SweepEntry& e : shard.entries) {
    if (!e.prediction) continue;
    std::vector<schema::ConfigPrediction> one = {*e.prediction};
    attach_costs(one, cost, sim::merged_catalog(in.catalog, in.cluster), "vitsim sweep");
    e.prediction = one.front();
  }
  shard.context = schema::make_context("vitsim", args, {{"model", schema::write_model(in.model)}});
  schema::write_shard(path, shard);
  std::cout << "shard " << slice.index << "/" << slice.count << ": " << shard.entries.size()
            << " of " << items.size() << " configurations, written to " << path << "\n";
  return 0;
}

// --hosts-from / --devices: the subset and device search (sim/subset_search.h).
sim::SweepResult search(const SweepArgs& a, const sim::SweepSpec& spec,
                        const schema::ClusterSpec& cluster, const costmodel::DeviceCatalog& catalog,
                        const costmodel::ViTConfig& vit, const costmodel::CostModel& costs,
                        const sim::SimOptions& options, const CostArgs& cost) {
  sim::SubsetSearch s;
  if (a.hosts_from != "all")
    s.hosts =
        clikit::parse_list<std::string>(a.hosts_from, "hosts-from", [](auto& h) { return h; });
  s.devices = clikit::parse_list<std::string>(
      a.devices, "devices", [](auto& d) { return d; }, true);
  const costmodel::DeviceCatalog devices = sim::merged_catalog(catalog, cluster);
  std::vector<std::string> names;  // "A100" names four ids: only an id is exact
  for (const auto& d : devices.devices) names.push_back(d.name);
  for (const std::string& d : s.devices) {  // an id nobody has would only skip every subset
    const std::vector<std::string> ids = devices.ids();
    if (std::find(ids.begin(), ids.end(), d) == ids.end())
      throw std::invalid_argument(
          clikit::unknown_name("devices", "device", "the catalog", d, ids, names));
  }
  s.base = spec.base;
  s.base.micro_batch = spec.micro_batches.front();
  s.base.collective = spec.collectives.front();
  s.base.bucket_bytes = spec.bucket_bytes.front();
  s.base.overlap = spec.overlaps.front();
  s.goal = spec.goal;
  s.limits = {spec.min_speedup, spec.max_global_batch};
  // Quietly here: attach_costs, after the search, warns once per missing price.
  const schema::PriceTable prices = schema::read_prices(cost.prices);
  const present::CostOptions cost_options = to_cost_options(cost);
  auto attach = [&](schema::ConfigPrediction& p) {
    p.cost = present::run_cost(p, prices, devices, cost_options);
  };
  sim::SubsetResult found = sim::search_subsets(s, cluster, catalog, vit, costs, options, attach);
  std::cout << (found.greedy ? fmt::format("greedy search (more than {} host subsets)\n",
                                           sim::kMaxExhaustiveSubsets)
                             : fmt::format("exhaustive search: {} host subset(s) per device\n",
                                           found.combinations));
  sim::SweepResult r;
  r.predictions = std::move(found.predictions);
  r.requested = found.requested;
  r.skipped = found.skipped;
  return r;
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
    if (a.merge.empty()) return sweep(a, cost, model, args);
    refuse_options_merge_ignores(app);
    return merge(a, model, args);
  });
}

}  // namespace vitsim::cli
