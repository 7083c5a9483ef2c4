// vitsim sweep: simulate every combination of GPU counts, micro-batches, collectives, bucket sizes
// and overlap on one cluster; print them (table with a units row) and the best for a goal.
#include <iostream>

#include "cli/commands.h"
#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/run_app.h"
#include "costmodel/buckets.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/prediction_csv.h"
#include "sim/prediction_table.h"
#include "sim/sweep.h"

namespace vitsim::cli {
namespace {

struct SweepArgs {
  std::string cluster, costs, out_prefix, gpus_json = schema::default_gpus_path();
  std::string gpus = "1,2,4,8", micro_batches = "16", collectives = "ring", buckets = "500";
  std::string overlaps = "off", goal = "fastest-epoch", precision = "fp32", level = "auto";
  std::optional<int64_t> nodes, gpus_per_node;
  int64_t images = 50000;
  double data_fraction = 1.0;
};

void add_options(CLI::App& app, SweepArgs& a, clikit::ModelOptions& model) {
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
  app.add_option("--goal", a.goal, "fastest-epoch | best-efficiency")->capture_default_str();
  app.add_option("--precision", a.precision,
                 "precision regime: fp32 | amp-fp16 | amp-bf16 | ds-fp16 | ds-bf16 | "
                 "ds-fp16-allreduce-fp32 | ds-bf16-allreduce-fp32")
      ->capture_default_str();
  app.add_option("--images", a.images, "training images")->capture_default_str();
  app.add_option("--data-fraction", a.data_fraction, "fraction of the images used")
      ->capture_default_str();
  app.add_option("--out", a.out_prefix, "write PREFIX.json and PREFIX.csv");
  clikit::add_model_options(app, model);
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
  return spec;
}

void print_sweep(const sim::SweepResult& r, sim::SweepGoal goal) {
  std::cout << sim::prediction_table(r.predictions.configurations);
  for (const auto& s : r.skipped) std::cerr << "vitsim sweep: skipped " << s << "\n";
  if (r.best < 0) {
    std::cout << "\nno configuration fits and runs\n";
    return;
  }
  const auto& b = r.predictions.configurations[static_cast<size_t>(r.best)];
  std::cout << "\nbest (" << sim::to_string(goal) << "): " << b.config.label << ": epoch "
            << b.epoch_time_s << " s, step " << b.step_time_s << " s, efficiency "
            << 100 * b.parallel_efficiency << " %\n";
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  CLI::App app{
      "Simulate ranges of GPU counts, micro-batches, collectives, bucket sizes and overlap on a "
      "cluster and print the best configuration for a goal (fastest epoch or best parallel "
      "efficiency against one GPU).",
      "vitsim sweep"};
  SweepArgs a;
  clikit::ModelOptions model;
  add_options(app, a, model);
  const std::vector<std::string> args(argv, argv + argc);
  return clikit::run_app(app, argc, argv, [&] {
    const sim::SweepSpec spec = to_spec(a);
    const schema::ClusterSpec cluster = schema::read_cluster(a.cluster);
    const costmodel::DeviceCatalog catalog = schema::read_gpus(a.gpus_json);
    const schema::CostModelFile costs = schema::read_cost_model(a.costs);
    sim::SimOptions options;
    sim::SweepResult r =
        sim::run_sweep(spec, cluster, catalog, model.resolve(), costs.costs, options);
    r.predictions.context = schema::make_context("vitsim", args);
    print_sweep(r, spec.goal);
    if (!a.out_prefix.empty()) {
      schema::write_prediction(a.out_prefix + ".json", r.predictions);
      schema::write_file_atomic(a.out_prefix + ".csv",
                                schema::ranks_csv(r.predictions.configurations));
    }
    return 0;
  });
}

}  // namespace vitsim::cli
