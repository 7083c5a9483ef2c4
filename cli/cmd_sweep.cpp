// vitsim sweep: simulate every combination of GPU counts, micro-batches, collectives, bucket sizes
// and overlap on one cluster; print them (table with a units row) and the best for a goal.
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "cli/run_app.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "sim/prediction_table.h"
#include "sim/collectives.h"
#include "sim/sweep.h"

namespace vitsim::cli {
namespace {

template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& text, const char* what, Parse parse) {
  std::vector<T> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    try {
      out.push_back(parse(item));
    } catch (const std::exception&) {
      throw std::invalid_argument(std::string("--") + what + ": cannot read '" + item + "'");
    }
  }
  if (out.empty()) throw std::invalid_argument(std::string("--") + what + " needs at least one value");
  return out;
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  CLI::App app{"Simulate ranges of GPU counts, micro-batches, collectives, bucket sizes and overlap on a "
               "cluster and print the best configuration for a goal (fastest epoch or best parallel "
               "efficiency against one GPU).",
               "vitsim sweep"};
  std::string cluster_path, costs_path, out_prefix, gpus_json = schema::default_gpus_path();
  std::string gpus = "1,2,4,8", mbs = "16", colls = "ring", buckets = "500", overlaps = "off";
  std::string goal = "fastest-epoch", precision = "fp32", level = "auto";
  std::optional<int64_t> nodes, gpus_per_node;
  int64_t images = 50000;
  double fraction = 1.0;
  ModelOptions model;
  app.add_option("--cluster", cluster_path, "cluster file")->required()->check(CLI::ExistingFile);
  app.add_option("--costs", costs_path, "cost model")->required()->check(CLI::ExistingFile);
  app.add_option("--gpus-json", gpus_json, "device catalog")->capture_default_str();
  app.add_option("--nodes", nodes, "node count of the cluster's node template");
  app.add_option("--gpus-per-node", gpus_per_node, "ranks per node");
  app.add_option("--gpus", gpus, "GPU counts, comma-separated")->capture_default_str();
  app.add_option("--micro-batch", mbs, "micro-batches, comma-separated")->capture_default_str();
  app.add_option("--collective", colls, "collectives: ring,tree,hierarchical")->capture_default_str();
  app.add_option("--bucket-mb", buckets, "bucket sizes, MB (1e6 bytes), comma-separated")->capture_default_str();
  app.add_option("--overlap", overlaps, "off,on")->capture_default_str();
  app.add_option("--collective-level", level, "step | flow | auto")->capture_default_str();
  app.add_option("--goal", goal, "fastest-epoch | best-efficiency")->capture_default_str();
  app.add_option("--precision", precision, "fp32 | fp16 | bf16")->capture_default_str();
  app.add_option("--images", images, "training images")->capture_default_str();
  app.add_option("--data-fraction", fraction, "fraction of the images used")->capture_default_str();
  app.add_option("--out", out_prefix, "write PREFIX.json and PREFIX.csv");
  add_model_options(app, model);
  const std::vector<std::string> args(argv, argv + argc);
  return run_app(app, argc, argv, [&] {
    sim::SweepSpec spec;
    spec.base.nodes = nodes;
    spec.base.gpus_per_node = gpus_per_node;
    spec.base.precision = costmodel::parse_precision(precision);
    spec.base.images = images;
    spec.base.data_fraction = fraction;
    spec.base.collective_level = level;
    spec.gpus = parse_list<int64_t>(gpus, "gpus", [](const std::string& s) { return std::stoll(s); });
    spec.micro_batches = parse_list<int64_t>(mbs, "micro-batch", [](const std::string& s) { return std::stoll(s); });
    spec.collectives = parse_list<std::string>(colls, "collective", [](const std::string& s) {
      sim::parse_collective(s);
      return s;
    });
    spec.bucket_bytes = parse_list<double>(buckets, "bucket-mb", [](const std::string& s) { return std::stod(s) * 1e6; });
    spec.overlaps = parse_list<bool>(overlaps, "overlap", [](const std::string& s) {
      if (s != "on" && s != "off") throw std::invalid_argument(s);
      return s == "on";
    });
    spec.goal = goal;
    const schema::ClusterSpec cluster = schema::read_cluster(cluster_path);
    const costmodel::DeviceCatalog catalog = schema::read_gpus(gpus_json);
    const schema::CostModelFile costs = schema::read_cost_model(costs_path);
    sim::SimOptions options;
    sim::SweepResult r = sim::run_sweep(spec, cluster, catalog, model.resolve(), costs.costs, options);
    r.predictions.context = schema::make_context("vitsim", args);
    std::cout << sim::prediction_table(r.predictions.configurations);
    for (const auto& s : r.skipped) std::cerr << "vitsim sweep: skipped " << s << "\n";
    if (r.best < 0) {
      std::cout << "\nno configuration fits and runs\n";
    } else {
      const auto& b = r.predictions.configurations[static_cast<size_t>(r.best)];
      std::cout << "\nbest (" << goal << "): " << b.config.label << ": epoch " << b.epoch_time_s << " s, step "
                << b.step_time_s << " s, efficiency " << 100 * b.parallel_efficiency << " %\n";
    }
    if (!out_prefix.empty()) {
      schema::write_prediction(out_prefix + ".json", r.predictions);
      schema::write_file_atomic(out_prefix + ".csv", sim::prediction_csv(r.predictions.configurations));
    }
    return 0;
  });
}

}  // namespace vitsim::cli
