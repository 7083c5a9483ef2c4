// The option groups of predict, advise and sweep; see option_groups.h.
#include "cli/option_groups.h"

#include <fmt/format.h>

#include <cmath>

#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/run_app.h"
#include "costmodel/buckets.h"
#include "costmodel/dataset.h"
#include "costmodel/epoch.h"
#include "costmodel/physical_bounds.h"
#include "costmodel/regime.h"
#include "costmodel/sharding.h"
#include "plan/sweep.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/transports_io.h"
#include "sim/collective_registry.h"

namespace vitsim::cli {
namespace {

// The help of a searched option: its text, and with lists what a list means.
std::string searched(const std::string& help, Values values) {
  return values == Values::kList ? help + "; comma-separated, each value simulated" : help;
}

}  // namespace

void add_input_options(CLI::App& app, InputArgs& a, bool required) {
  a.transports = schema::default_transports_path();
  auto* cluster = app.add_option("--cluster", a.cluster,
                                 required ? "cluster file (platforms/*.json)"
                                          : "cluster file (platforms/*.json; not with --merge)");
  auto* costs = add_costs_option(app, a.costs, required ? "" : "not with --merge");
  cluster->check(CLI::ExistingFile);
  for (CLI::Option* o : {cluster, costs}) {
    if (required) o->required();
  }
  add_gpus_json_option(app, a.gpus_json);
  app.add_option("--transports", a.transports,
                 "transport model parameters, for link classes the costs did not measure")
      ->default_str(schema::data_default("platforms/transports.json"));
}

std::vector<schema::NamedPath> input_files(const InputArgs& a, const std::string& prices) {
  return {{"--cluster", a.cluster},
          {"--costs", a.costs},
          {"--gpus-json", a.gpus_json},
          {"--transports", a.transports},
          {"--prices", prices}};
}

RunOptions add_run_options(CLI::App& app, RunArgs& a, Values values) {
  const bool list = values == Values::kList;
  RunOptions o;
  app.add_option("--nodes", a.nodes, "node count of the cluster's node template")
      ->check(clikit::positive_count());
  o.gpus_per_node = app.add_option("--gpus-per-node", a.gpus_per_node,
                                   "ranks per node (default: the cluster's host set for the GPU "
                                   "count, else nodes filled in order)")
                        ->check(clikit::positive_count());
  if (list) {
    a.gpus = "1,2,4,8";
    o.gpus = app.add_option("--gpus", a.gpus, searched("ranks (one per GPU)", values))
                 ->capture_default_str();
  } else {
    o.gpus = app.add_option("--gpus", a.gpus,
                            "ranks (one per GPU) [default: the --hosts count, else 1]; with "
                            "--hosts it only checks the count")
                 ->check(clikit::positive_count());
  }
  auto* micro_batch = app.add_option("--micro-batch", a.micro_batch,
                                     searched("samples per rank and micro-step", values))
                          ->capture_default_str();
  if (!list) micro_batch->check(clikit::positive_count());
  app.add_option("--collective", a.collective,
                 searched("all-reduce algorithm: " + sim::collective_help(), values))
      ->capture_default_str();
  a.bucket_mb = fmt::format("{:g}", costmodel::kDefaultBucketBytes / costmodel::kMiB);
  app.add_option("--bucket-mb", a.bucket_mb,
                 searched("gradient bucket: closes once it holds >= this, MiB (2^20 bytes, as "
                          "PyTorch DDP's bucket_cap_mb and vitsim-train --bucket-mb)",
                          values))
      ->capture_default_str();
  app.add_option("--overlap", a.overlap,
                 searched("on | off: the all-reduce overlaps the backward", values))
      ->capture_default_str();
  app.add_option(
         "--zero-stage", a.zero_stage,
         searched("sharded data parallelism (docs/sharding.md): " + costmodel::zero_stage_values() +
                      "; 1 shards the optimizer states, 2 also the gradients, 3 also the "
                      "weights",
                  values))
      ->capture_default_str();
  app.add_option("--activation-checkpointing", a.checkpointing,
                 searched("on | off: each transformer block's forward recomputed in the backward "
                          "(its activations not kept)",
                          values))
      ->capture_default_str();
  app.add_option("--collective-level", a.level, "step | flow | auto (flow above 64 ranks)")
      ->capture_default_str();
  app.add_option(
         "--precision", a.precision,
         searched("precision regime: " +
                      costmodel::joined(costmodel::names_of(costmodel::kRegimeNames), " | "),
                  values))
      ->capture_default_str();
  app.add_option("--accumulation", a.accumulation, "micro-steps per optimizer step")
      ->capture_default_str()
      ->check(clikit::positive_count());
  app.add_option("--optimizer", a.optimizer, "adamw | sgd (memory: optimizer states)")
      ->capture_default_str();
  app.add_option("--images", a.images,
                 "training images before the data fraction [default: the --dataset's, else "
                 "50000]")
      ->check(clikit::positive_count());
  std::string names;
  for (const costmodel::Dataset& d : costmodel::datasets())
    names += (names.empty() ? "" : " | ") + d.name;
  app.add_option("--dataset", a.dataset,
                 names +
                     ": sets the training images and the classes of the model's head "
                     "(instead of --images and --classes)");
  app.add_option("--data-fraction", a.data_fraction, "fraction of the images used, (0, 1]")
      ->capture_default_str()
      ->check(clikit::unit_fraction());
  app.add_option("--epoch", a.epoch,
                 "later | first: the epoch predicted, one of many (its first step pays the "
                 "loader's restart) or the process's first (it pays the process's start)")
      ->capture_default_str()
      ->check(CLI::IsMember({"later", "first"}));
  a.steps = sim::SimOptions{}.simulated_steps;
  app.add_option("--steps", a.steps,
                 "steps simulated per configuration; the epoch extrapolates the last")
      ->capture_default_str()
      ->check(clikit::positive_count());
  app.add_flag("--force", a.force,
               "simulate even what the size guard estimates to take too long (not too much "
               "memory)");
  return o;
}

RunValues parse_run_options(const RunArgs& a) {
  RunValues v;
  v.gpus = clikit::parse_list<int64_t>(a.gpus, "gpus", clikit::parse_positive_integer, true);
  v.micro_batches =
      clikit::parse_list<int64_t>(a.micro_batch, "micro-batch", clikit::parse_positive_integer);
  v.collectives = clikit::parse_list<costmodel::Collective>(a.collective, "collective",
                                                            costmodel::parse_collective);
  v.bucket_bytes = clikit::parse_list<double>(a.bucket_mb, "bucket-mb", [](const std::string& s) {
    return clikit::parse_number(s) * costmodel::kMiB;
  });
  v.overlaps = clikit::parse_list<bool>(a.overlap, "overlap", clikit::parse_on_off);
  v.zero_stages = clikit::parse_list<int>(a.zero_stage, "zero-stage", costmodel::parse_zero_stage);
  v.checkpointing =
      clikit::parse_list<bool>(a.checkpointing, "activation-checkpointing", clikit::parse_on_off);
  schema::TrainingConfig& c = v.base;
  c.nodes = a.nodes;
  c.gpus_per_node = a.gpus_per_node;
  v.precisions =
      clikit::parse_list<costmodel::Regime>(a.precision, "precision", costmodel::parse_regime);
  c.precision = v.precisions.front();
  c.collective_level =
      clikit::parse_option(a.level, "collective-level", costmodel::parse_collective_level);
  c.optimizer = clikit::parse_option(a.optimizer, "optimizer", costmodel::parse_optimizer);
  c.accumulation = a.accumulation;
  if (!a.dataset.empty() && a.images)
    throw std::invalid_argument("--images and --dataset both set the training images: give one");
  c.images = a.images ? *a.images
             : a.dataset.empty()
                 ? c.images
                 : clikit::parse_option(a.dataset, "dataset", costmodel::find_dataset).train_images;
  c.data_fraction = a.data_fraction;
  c.first_epoch = a.epoch == "first";
  return v;
}

void check_epoch_holds_a_batch(const schema::TrainingConfig& c, const std::string& dataset) {
  const int64_t batch = schema::global_batch(c);
  const std::string shortfall = costmodel::epoch_batch_shortfall(c.data_fraction, c.images, batch);
  if (shortfall.empty()) return;
  const std::string micro = c.per_rank_micro_batch.empty()
                                ? "--micro-batch " + std::to_string(c.micro_batch)
                                : "--per-rank-micro-batch (sum)";
  throw std::invalid_argument(fmt::format(
      "{} x --gpus {} x --accumulation {} = a global batch of {} images, more than the epoch "
      "holds ({} x --data-fraction {:g} = {} images): no optimizer step of it is whole, and "
      "every rate would count images the data set does not have (hint: fewer --gpus, a smaller "
      "--micro-batch or --accumulation, or more images)",
      micro, c.gpus, c.accumulation, batch,
      dataset.empty() ? "--images " + std::to_string(c.images)
                      : "--dataset " + dataset + " (" + std::to_string(c.images) + " images)",
      c.data_fraction, costmodel::images_used(c.data_fraction, c.images)));
}

costmodel::ViTConfig resolve_model(const RunArgs& a, const clikit::ModelOptions& model) {
  if (a.dataset.empty()) return model.resolve();
  const costmodel::Dataset& d = clikit::parse_option(a.dataset, "dataset", costmodel::find_dataset);
  if (model.classes && *model.classes != d.classes)
    throw std::invalid_argument("--classes " + std::to_string(*model.classes) + " and --dataset " +
                                d.name + " (" + std::to_string(d.classes) +
                                " classes) disagree: give one");
  clikit::ModelOptions with = model;
  with.classes = d.classes;
  return with.resolve();
}

namespace {

// A limit given as "" would otherwise read as no limit at all: refused (exit 2).
CLI::Validator not_empty(const std::string& option, const std::string& none) {
  return CLI::Validator(
      [option, none](std::string& v) -> std::string {
        if (!v.empty()) return "";
        return "expected a value, got an empty one (hint: leave " + option + " out for " + none +
               ")";
      },
      "", "not empty");
}

}  // namespace

void add_goal_options(CLI::App& app, GoalArgs& a, Values values) {
  a.max_global_batch = plan::kDefaultMaxGlobalBatch;
  if (values == Values::kList) {
    app.add_option("--goal", a.goal,
                   "fastest-epoch | best-efficiency | cheapest-epoch | best-throughput-per-dollar")
        ->capture_default_str();
    app.add_option("--min-speedup", a.min_speedup,
                   "best-efficiency: only configurations with at least this speed-up")
        ->capture_default_str()
        ->check(clikit::number_in(0.0, 1e9));
  }
  app.add_option("--max-global-batch", a.max_global_batch,
                 "global batches above this are flagged, never recommended (default: ViT-B/16's "
                 "4096, Dosovitskiy et al. 2021)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--deadline", a.deadline,
                 "time the training may take: 300, 300s, 45min, 12h or 2d, per run of --epochs "
                 "epochs, or per epoch with /epoch (12h/run, 300s/epoch); longer ones are "
                 "flagged, never recommended")
      ->check(not_empty("--deadline", "no deadline"));
  app.add_option("--budget", a.budget,
                 "USD the training may cost, per run of --epochs epochs, or per epoch with "
                 "/epoch (50, 0.4/epoch); costlier ones are flagged, never recommended")
      ->check(not_empty("--budget", "no budget"));
}

namespace {

// "12h/run" -> {"12h", per run}; no suffix: per run.
std::pair<std::string, bool> split_per(const std::string& text, const std::string& option) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return {text, true};
  const std::string per = text.substr(slash + 1);
  if (per != "epoch" && per != "run")
    throw std::invalid_argument("--" + option + ": cannot read '" + text +
                                "': expected /epoch or /run after the value");
  return {text.substr(0, slash), per == "run"};
}

}  // namespace

schema::PerEpochOrRun parse_deadline(const std::string& text) {
  const auto [value, per_run] = split_per(text, "deadline");
  static const std::pair<const char*, double> kUnits[] = {
      {"min", 60}, {"s", 1}, {"h", 3600}, {"d", 86400}};
  double scale = 1;
  std::string number = value;
  for (const auto& [unit, seconds] : kUnits) {
    const std::string u = unit;
    if (number.size() > u.size() && number.compare(number.size() - u.size(), u.size(), u) == 0) {
      number = number.substr(0, number.size() - u.size());
      scale = seconds;
      break;
    }
  }
  double v = 0;
  try {
    v = clikit::parse_number(number);
  } catch (const std::exception&) {
    v = -1;
  }
  if (!(v > 0) || !std::isfinite(v))
    throw std::invalid_argument("--deadline: cannot read '" + text +
                                "': expected a positive time such as 300s, 45min, 12h or 2d, "
                                "with /epoch or /run");
  // 1e308d is a finite number of days and an infinite number of seconds (costmodel's bound).
  const double seconds = v * scale;
  if (!costmodel::bound_violation(costmodel::kDeadlineS, seconds).empty())
    throw std::invalid_argument("--deadline " + text + ": expected " + costmodel::kDeadlineS.what +
                                ", got " +
                                (std::isfinite(seconds) ? fmt::format("{:g} s", seconds)
                                                        : "more seconds than a number holds") +
                                " (hint: " + costmodel::kDeadlineS.why + ")");
  return {v * scale, per_run};
}

schema::PerEpochOrRun parse_budget(const std::string& text) {
  const auto [value, per_run] = split_per(text, "budget");
  double v = 0;
  try {
    v = clikit::parse_number(value);
  } catch (const std::exception&) {
    v = -1;
  }
  if (!(v > 0) || !std::isfinite(v))
    throw std::invalid_argument("--budget: cannot read '" + text +
                                "': expected a positive number of USD such as 50 or 0.4/epoch");
  if (!costmodel::bound_violation(costmodel::kBudgetUsd, v).empty())
    throw std::invalid_argument("--budget " + text + ": expected " + costmodel::kBudgetUsd.what +
                                ", got " + fmt::format("{:g}", v) +
                                " (hint: " + costmodel::kBudgetUsd.why + ")");
  return {v, per_run};
}

plan::GoalLimits parse_goal_limits(const GoalArgs& a, int64_t epochs) {
  plan::GoalLimits l;
  l.min_speedup = a.min_speedup;
  l.max_global_batch = a.max_global_batch;
  l.epochs = epochs;
  if (!a.deadline.empty()) l.deadline_s = parse_deadline(a.deadline);
  if (!a.budget.empty()) l.budget_usd = parse_budget(a.budget);
  return l;
}

}  // namespace vitsim::cli
