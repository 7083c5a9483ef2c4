// vitsim sweep: simulate every combination of GPU counts, micro-batches, collectives, bucket sizes
// and overlap on one cluster; print them (table with a units row, cost per epoch) and the best
// for a goal (sim/sweep_goal.h) with why its step takes what it takes.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/cost_options.h"
#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/run_app.h"
#include "costmodel/buckets.h"
#include "costmodel/layer_graph.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/prediction_csv.h"
#include "schema/prices_io.h"
#include "sim/answers_text.h"
#include "sim/prediction_table.h"
#include "sim/rank_plan.h"
#include "sim/subset_search.h"
#include "sim/sweep.h"
#include "sim/sweep_goal.h"

namespace vitsim::cli {
namespace {

struct SweepArgs {
  std::string cluster, costs, out_prefix, gpus_json = schema::default_gpus_path();
  std::string gpus = "1,2,4,8", micro_batches = "16", collectives = "ring", buckets = "500";
  std::string overlaps = "off", goal = "fastest-epoch", precision = "fp32", level = "auto";
  std::string hosts_from, devices;
  std::optional<int64_t> nodes, gpus_per_node;
  int64_t images = 50000;
  double data_fraction = 1.0, min_speedup = 0;
  int64_t max_global_batch = sim::kDefaultMaxGlobalBatch;
};

void add_options(CLI::App& app, SweepArgs& a, CostArgs& cost, clikit::ModelOptions& model) {
  app.add_option("--cluster", a.cluster, "cluster file")->required()->check(CLI::ExistingFile);
  app.add_option("--costs", a.costs, "cost model")->required()->check(CLI::ExistingFile);
  app.add_option("--gpus-json", a.gpus_json, "device catalog")->capture_default_str();
  app.add_option("--nodes", a.nodes, "node count of the cluster's node template");
  app.add_option("--gpus-per-node", a.gpus_per_node, "ranks per node");
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
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--max-global-batch", a.max_global_batch,
                 "global batches above this are flagged, never recommended (default: ViT-B/16's "
                 "4096, Dosovitskiy et al. 2021)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--precision", a.precision, "fp32 | fp16 | bf16")->capture_default_str();
  app.add_option("--images", a.images, "training images")->capture_default_str();
  app.add_option("--data-fraction", a.data_fraction, "fraction of the images used")
      ->capture_default_str();
  app.add_option("--hosts-from", a.hosts_from,
                 "search subsets of these hosts (comma-separated; 'all': every host), each with "
                 "all its GPUs, as counts per class of identical hosts (the first value of each "
                 "other list is used)");
  app.add_option("--devices", a.devices,
                 "search these device types in place of the cluster's GPUs (comma-separated ids "
                 "of the device catalog), with --hosts-from or on every host");
  app.add_option("--out", a.out_prefix, "write PREFIX.json and PREFIX.csv");
  clikit::add_model_options(app, model);
  add_cost_options(app, cost);
}

sim::SweepSpec to_spec(const SweepArgs& a) {
  sim::SweepSpec spec;
  spec.base.nodes = a.nodes;
  spec.base.gpus_per_node = a.gpus_per_node;
  spec.base.precision = clikit::parse_option(a.precision, "precision", costmodel::parse_precision);
  spec.base.images = a.images;
  spec.base.data_fraction = a.data_fraction;
  spec.base.collective_level =
      clikit::parse_option(a.level, "collective-level", costmodel::parse_collective_level);
  spec.gpus = clikit::parse_list<int64_t>(a.gpus, "gpus", clikit::parse_integer);
  spec.micro_batches =
      clikit::parse_list<int64_t>(a.micro_batches, "micro-batch", clikit::parse_integer);
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
  std::cout << sim::prediction_table(r.predictions.configurations);
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
            << sim::answers_text(b);
}

}  // namespace

// --hosts-from / --devices: the subset and device search (sim/subset_search.h).
sim::SweepResult search(const SweepArgs& a, const sim::SweepSpec& spec,
                        const schema::ClusterSpec& cluster, const costmodel::DeviceCatalog& catalog,
                        const costmodel::ViTConfig& vit, const costmodel::CostModel& costs,
                        const CostArgs& cost) {
  sim::SubsetSearch s;
  if (a.hosts_from != "all") s.hosts = clikit::split_list(a.hosts_from);
  s.devices = clikit::split_list(a.devices);
  s.base = spec.base;
  s.base.micro_batch = spec.micro_batches.front();
  s.base.collective = spec.collectives.front();
  s.base.bucket_bytes = spec.bucket_bytes.front();
  s.base.overlap = spec.overlaps.front();
  s.goal = spec.goal;
  s.limits = {spec.min_speedup, spec.max_global_batch};
  // Quietly here: attach_costs, after the search, warns once per missing price.
  const schema::PriceTable prices = schema::read_prices(cost.prices);
  const sim::CostOptions cost_options = to_cost_options(cost);
  const costmodel::DeviceCatalog devices = sim::merged_catalog(catalog, cluster);
  auto attach = [&](schema::ConfigPrediction& p) {
    p.cost = sim::run_cost(p, prices, devices, cost_options);
  };
  sim::SubsetResult found = sim::search_subsets(s, cluster, catalog, vit, costs, {}, attach);
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
    const sim::SweepSpec spec = to_spec(a);
    const schema::ClusterSpec cluster = schema::read_cluster(a.cluster);
    const costmodel::DeviceCatalog catalog = schema::read_gpus(a.gpus_json);
    const schema::CostModelFile costs = schema::read_cost_model(a.costs);
    sim::SimOptions options;
    const costmodel::ViTConfig vit = model.resolve();
    const bool subsets = !a.hosts_from.empty() || !a.devices.empty();
    sim::SweepResult r = subsets
                             ? search(a, spec, cluster, catalog, vit, costs.costs, cost)
                             : sim::run_sweep(spec, cluster, catalog, vit, costs.costs, options);
    r.predictions.context = schema::make_context("vitsim", args);
    attach_costs(r.predictions.configurations, cost, sim::merged_catalog(catalog, cluster),
                 "vitsim sweep");
    // Cost goals need the costs just attached: pick again with them.
    const sim::BestPick pick = sim::pick_best(r.predictions.configurations, r.requested, spec.goal,
                                              {spec.min_speedup, spec.max_global_batch});
    r.best = pick.best;
    r.notes = pick.notes;
    print_sweep(r, spec, vit);
    if (!a.out_prefix.empty()) {
      schema::write_prediction(a.out_prefix + ".json", r.predictions);
      schema::write_file_atomic(a.out_prefix + ".csv",
                                schema::ranks_csv(r.predictions.configurations));
    }
    return 0;
  });
}

}  // namespace vitsim::cli
