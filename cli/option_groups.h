// The option groups `vitsim predict`, `advise` and `sweep` share: each option is declared once,
// with one help text, here (the model options are clikit/model_options.h, the cost options
// cli/cost_options.h). `predict` and `advise` take one value of each (Values::kOne); `sweep`
// takes comma-separated lists of the options it searches over (Values::kList), and the help
// says which. Values are parsed once, in parse_run_options.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clikit/model_options.h"
#include "costmodel/collective.h"
#include "plan/sweep_goal.h"
#include "schema/output_rule.h"
#include "schema/prediction.h"
#include "schema/scenario.h"

namespace vitsim::cli {

// kOne: a single value per option (predict, advise); kList: the searched options take lists.
enum class Values { kOne, kList };

// The files a simulation reads.
struct InputArgs {
  std::string cluster, costs, gpus_json, transports;  // defaults set by add_input_options
};

// `required`: --cluster and --costs must be given (predict); sweep checks them itself (not with
// --merge).
void add_input_options(CLI::App& app, InputArgs& a, bool required);

// The files a simulation reads, named by their options, and the price table (`prices`, the cost
// options' --prices): the inputs a command declares to its outputs (schema/output_rule.h).
std::vector<schema::NamedPath> input_files(const InputArgs& a, const std::string& prices);

// The training configuration and how it is simulated. The searched options (gpus, micro_batch,
// collective, bucket_mb, overlap, zero_stage, checkpointing) hold the option's text: one value, or
// with Values::kList a comma-separated list.
struct RunArgs {
  std::optional<int64_t> nodes, gpus_per_node;
  std::string gpus;  // kOne: empty = the --hosts count, else 1; kList: default "1,2,4,8"
  std::string micro_batch = "16", collective = "ring", overlap = "off";
  std::string zero_stage = "0", checkpointing = "off";  // searched too (docs/sharding.md)
  std::string bucket_mb;  // set by add_run_options: costmodel::kDefaultBucketBytes in MiB
  std::string precision = "fp32", level = "auto", optimizer = "adamw", epoch = "later";
  int64_t accumulation = 1;
  std::optional<int64_t> images;  // default: the --dataset's, else 50000
  std::string dataset;            // empty: none (costmodel/dataset.h)
  double data_fraction = 1.0;
  int steps = 3;
  bool force = false;
};

struct RunOptions {  // options a command ties to its own (e.g. predict: --gpus-per-node vs --hosts)
  CLI::Option* gpus = nullptr;
  CLI::Option* gpus_per_node = nullptr;
};

RunOptions add_run_options(CLI::App& app, RunArgs& a, Values values);

// The parsed values: the searched options as lists (one item each with Values::kOne), the rest in
// `base` (precision, level, optimizer, accumulation, images, data fraction, epoch, nodes, GPUs per
// node).
struct RunValues {
  std::vector<int64_t> gpus;  // empty: not given (predict)
  std::vector<int64_t> micro_batches;
  std::vector<costmodel::Collective> collectives;
  std::vector<double> bucket_bytes;  // bytes (the option is MiB)
  std::vector<bool> overlaps;
  std::vector<int> zero_stages;
  std::vector<bool> checkpointing;
  std::vector<costmodel::Regime> precisions;  // base.precision: the first
  schema::TrainingConfig base;
};

// std::invalid_argument naming the option for a value that does not parse, or for --images
// given with --dataset.
RunValues parse_run_options(const RunArgs& a);

// std::invalid_argument naming the options when the configuration's global batch (--micro-batch x
// --gpus x --accumulation) holds more images than its epoch (--dataset or --images, x
// --data-fraction; costmodel::epoch_batch_shortfall): an error, not a warning, since no step of
// it is whole and every rate would count images the data set does not have. predict checks its
// configuration; sweep skips each such configuration, saying why (sim::predict refuses it).
void check_epoch_holds_a_batch(const schema::TrainingConfig& config,
                               const std::string& dataset = "");

// The model of `model` with the classes of the --dataset (std::invalid_argument when --classes
// says otherwise).
costmodel::ViTConfig resolve_model(const RunArgs& a, const clikit::ModelOptions& model);

// The one value of a list of Values::kOne (the option's validator allows no comma for counts;
// enum options are checked here): std::invalid_argument naming the option otherwise.
template <typename T>
T single_value(const std::vector<T>& values, const std::string& option) {
  if (values.size() != 1)
    throw std::invalid_argument("--" + option +
                                " takes one value here (vitsim sweep takes a list)");
  return values.front();
}

// The goal and what it is held to. predict and advise (Values::kOne) take the limits, which they
// check the configuration against; sweep (Values::kList) also the goal and --min-speedup.
struct GoalArgs {
  std::string goal = "fastest-epoch";
  double min_speedup = 0;
  int64_t max_global_batch = 0;  // set to the default by add_goal_options
  std::string deadline, budget;  // empty: none
};

void add_goal_options(CLI::App& app, GoalArgs& a, Values values);

// The limits (`epochs`: the run's, --epochs); std::invalid_argument naming the option for a
// deadline or budget that does not parse.
plan::GoalLimits parse_goal_limits(const GoalArgs& a, int64_t epochs);

// "300", "300s", "5min", "2h", "1.5d" (a bare number is seconds) with an optional "/epoch" or
// "/run" (default: per run of --epochs epochs): the deadline.
schema::PerEpochOrRun parse_deadline(const std::string& text);
// "50", "0.5/epoch", "120/run" (USD; default per run): the budget.
schema::PerEpochOrRun parse_budget(const std::string& text);

}  // namespace vitsim::cli
