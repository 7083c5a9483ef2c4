// DeepSpeed-style configuration and the batch-size rule (train_options.h).
#include "trainer/train_options.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "costmodel/buckets.h"
#include "costmodel/physical_bounds.h"
#include "costmodel/sharding.h"
#include "schema/json_node.h"
#include "schema/safe_name.h"

namespace vitsim::trainer {
namespace {

// DeepSpeed keys that a config may carry but that do not change a data-parallel fp32/AMP run of
// vitsim-train (or that we report instead of honouring).
const char* const kIgnoredKeys[] = {"scheduler",
                                    "zero_allow_untested_optimizer",
                                    "prescale_gradients",
                                    "gradient_predivide_factor",
                                    "sparse_gradients",
                                    "tensorboard",
                                    "wandb",
                                    "csv_monitor",
                                    "flops_profiler",
                                    "activation_checkpointing",
                                    "dump_state",
                                    "amp"};

void read_optimizer(const schema::Node& node, DeepSpeedConfig& c) {
  node.expect_keys({"type", "params"});
  const std::string type = node["type"].one_of({"AdamW", "Adam", "SGD", "adamw", "adam", "sgd"});
  c.optimizer =
      (type == "SGD" || type == "sgd") ? costmodel::Optimizer::kSgd : costmodel::Optimizer::kAdamW;
  if (type == "Adam" || type == "adam") {
    // DeepSpeed's FusedAdam defaults to adam_w_mode=True, i.e. AdamW.
  }
  if (auto params = node.get("params")) {
    params->expect_keys(
        {"lr", "betas", "eps", "weight_decay", "momentum", "torch_adam", "adam_w_mode"});
    if (auto v = params->get("lr")) c.learning_rate = v->positive();
    if (auto v = params->get("eps")) c.adam_eps = v->positive();
    if (auto v = params->get("weight_decay")) c.weight_decay = v->nonnegative();
    if (auto v = params->get("momentum")) c.momentum = v->in_range(0, 1);
    if (auto v = params->get("betas")) {
      const auto b = v->items();
      if (b.size() != 2) v->fail("an array of two numbers [beta1, beta2]", v->describe());
      c.beta1 = b[0].in_range(0, 1);
      c.beta2 = b[1].in_range(0, 1);
    }
  }
}

// zero_optimization keys that tune DeepSpeed's own buffers and leave the stage's arithmetic as
// vitsim-train runs it (docs/sharding.md): accepted and listed; offloading is refused.
const char* const kIgnoredZeroKeys[] = {"contiguous_gradients",
                                        "reduce_scatter",
                                        "reduce_bucket_size",
                                        "allgather_partitions",
                                        "allgather_bucket_size",
                                        "round_robin_gradients",
                                        "sub_group_size",
                                        "stage3_prefetch_bucket_size",
                                        "stage3_param_persistence_threshold",
                                        "stage3_max_live_parameters",
                                        "stage3_max_reuse_distance",
                                        "stage3_gather_16bit_weights_on_model_save",
                                        "elastic_checkpoint",
                                        "load_from_fp32_weights",
                                        "ignore_unused_parameters"};

void read_zero(const schema::Node& z, DeepSpeedConfig& c, std::string& ignored) {
  std::vector<std::string> allowed = {"stage", "overlap_comm", "offload_optimizer", "offload_param",
                                      "cpu_offload"};
  for (const char* k : kIgnoredZeroKeys) allowed.push_back(k);
  z.expect_keys(allowed);
  if (auto v = z.get("stage")) {
    c.zero_stage = v->integer();
    if (*c.zero_stage < 0 || *c.zero_stage > 3)
      v->fail("a ZeRO stage 0, 1, 2 or 3", v->describe(),
              "1 shards optimizer states, 2 also gradients, 3 also parameters");
  }
  if (auto v = z.get("overlap_comm")) c.overlap = v->boolean();
  for (const char* k : {"offload_optimizer", "offload_param", "cpu_offload"}) {
    if (z.has(k)) {
      z[k].fail("no offloading (vitsim-train keeps every state on the device)", z[k].describe(),
                "remove " + std::string(k));
    }
  }
  for (const char* k : kIgnoredZeroKeys) {
    if (z.has(k)) ignored += (ignored.empty() ? "" : ", ") + std::string("zero_optimization.") + k;
  }
}

bool read_enabled(const schema::Node& node) {
  // fp16 blocks carry loss-scaling knobs; we use dynamic loss scaling with DeepSpeed's defaults.
  node.expect_keys({"enabled", "loss_scale", "initial_scale_power", "loss_scale_window",
                    "hysteresis", "min_loss_scale", "auto_cast", "consecutive_hysteresis"});
  return node.has("enabled") && node["enabled"].boolean();
}

}  // namespace

DeepSpeedConfig read_deepspeed_config(const std::string& path, std::string* ignored) {
  return read_deepspeed_config(schema::Node::parse_file(path), ignored);
}

DeepSpeedConfig read_deepspeed_config(const schema::Node& root, std::string* ignored) {
  std::vector<std::string> allowed = {"communication_data_type",
                                      "fp32_allreduce",
                                      "train_batch_size",
                                      "train_micro_batch_size_per_gpu",
                                      "gradient_accumulation_steps",
                                      "optimizer",
                                      "fp16",
                                      "bf16",
                                      "wall_clock_breakdown",
                                      "steps_per_print",
                                      "gradient_clipping",
                                      "zero_optimization"};
  for (const char* k : kIgnoredKeys) allowed.push_back(k);
  root.expect_keys(allowed);
  DeepSpeedConfig c;
  if (auto v = root.get("train_batch_size")) c.train_batch_size = v->integer_at_least(1);
  if (auto v = root.get("train_micro_batch_size_per_gpu")) c.micro_batch = v->integer_at_least(1);
  if (auto v = root.get("gradient_accumulation_steps")) c.accumulation = v->integer_at_least(1);
  if (auto v = root.get("steps_per_print")) c.steps_per_print = v->integer_at_least(1);
  if (auto v = root.get("wall_clock_breakdown")) c.wall_clock_breakdown = v->boolean();
  if (auto v = root.get("gradient_clipping")) c.gradient_clipping = v->nonnegative();
  if (auto v = root.get("optimizer")) read_optimizer(*v, c);
  const bool fp16 = root.has("fp16") && read_enabled(root["fp16"]);
  const bool bf16 = root.has("bf16") && read_enabled(root["bf16"]);
  if (fp16 && bf16) {
    root["bf16"].fail("at most one of fp16 and bf16 enabled", "both enabled");
  }
  // DeepSpeed's fp16/bf16 blocks are its own mixed precision: the ds-* regimes (regime.h).
  // communication_data_type "fp32" (or the older top-level fp32_allreduce: true) makes DeepSpeed
  // cast the 16-bit gradients to fp32 before the all-reduce: the -allreduce-fp32 variants.
  bool fp32_comm = false;
  if (auto v = root.get("communication_data_type"))
    fp32_comm = v->one_of({"fp32", "fp16", "bf16"}) == "fp32";
  if (auto v = root.get("fp32_allreduce")) fp32_comm = fp32_comm || v->boolean();
  if (fp16) c.precision = costmodel::deepspeed_regime(costmodel::MathType::kFp16, fp32_comm);
  if (bf16) c.precision = costmodel::deepspeed_regime(costmodel::MathType::kBf16, fp32_comm);
  std::string skipped;
  for (const char* k : kIgnoredKeys) {
    if (root.has(k)) skipped += (skipped.empty() ? "" : ", ") + std::string(k);
  }
  if (root.has("zero_optimization")) read_zero(root["zero_optimization"], c, skipped);
  if (ignored) *ignored = skipped;
  return c;
}

int64_t parse_zero_stage(const std::string& text) {
  try {
    return costmodel::parse_zero_stage(text);  // the one table of names (costmodel/sharding.h)
  } catch (const std::invalid_argument& e) {
    // The words of clikit::parse_option, as vitsim predict and sweep say it.
    throw std::invalid_argument("--zero-stage: cannot read '" + text + "': " + e.what());
  }
}

void resolve_batch(TrainOptions& o, int64_t world, const std::string& source, bool micro_given,
                   bool accumulation_given) {
  if (!o.train_batch_size) return;
  const int64_t train = *o.train_batch_size;
  auto explain = [&](const std::string& got, const std::string& hint) {
    return schema::InputError::at(
        source, "/train_batch_size",
        "train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x world "
        "size (" +
            std::to_string(world) + " ranks)",
        got, hint);
  };
  if (!accumulation_given && micro_given) {
    if (train % (o.micro_batch * world) != 0) {
      throw explain(std::to_string(train) + ", not a multiple of " + std::to_string(o.micro_batch) +
                        " x " + std::to_string(world),
                    "choose a train_batch_size divisible by micro-batch x ranks");
    }
    o.accumulation = train / (o.micro_batch * world);
  } else if (!micro_given) {
    if (train % (o.accumulation * world) != 0) {
      throw explain(std::to_string(train) + ", not a multiple of " +
                        std::to_string(o.accumulation) + " x " + std::to_string(world),
                    "choose a train_batch_size divisible by accumulation x ranks");
    }
    o.micro_batch = train / (o.accumulation * world);
  }
  // A derived micro-batch or accumulation is held to the bounds the given ones are.
  for (const auto& [value, bound] : {std::pair{o.micro_batch, costmodel::kMicroBatch},
                                     std::pair{o.accumulation, costmodel::kAccumulation}}) {
    if (!costmodel::bound_violation(bound, value).empty()) {
      throw explain(
          std::to_string(train) + ", which makes " + bound.what + " " + std::to_string(value),
          bound.why);
    }
  }
  if (o.global_batch(world) != train) {
    throw explain(std::to_string(train) + " with " + std::to_string(o.micro_batch) + " x " +
                      std::to_string(o.accumulation) + " x " + std::to_string(world) + " = " +
                      std::to_string(o.global_batch(world)),
                  "fix one of the three, or drop train_batch_size so that it is derived");
  }
}

bool trainer_runs(costmodel::Regime regime) {
  return !(costmodel::is_deepspeed(regime) &&
           costmodel::math_type(regime) == costmodel::MathType::kFp16);
}

void validate_threads(int64_t threads) {
  // More threads than CPUs only oversubscribe them (notes: 1.25-3x slower); 100,000 hung in the
  // thread pool's start.
  const unsigned cpus = std::thread::hardware_concurrency();
  const int64_t max = cpus > 0 ? static_cast<int64_t>(cpus) : 1024;
  if (threads < 1 || threads > max) {
    throw std::invalid_argument("--threads must be in 1.." + std::to_string(max) + ", got " +
                                std::to_string(threads) +
                                " (this machine's CPUs; more threads only oversubscribe them)");
  }
}

namespace {

// A real option in [lo, hi] (finite); the message names the option, the range and the value.
void check_range(const char* option, double value, double lo, double hi, const char* hint) {
  if (std::isfinite(value) && value >= lo && value <= hi) return;
  std::ostringstream os;
  os << option << " must be in [" << lo << ", " << hi << "], got " << value << " (" << hint << ")";
  throw std::invalid_argument(os.str());
}

void check_count(const char* option, int64_t value, const costmodel::CountBound& bound) {
  const std::string why = costmodel::bound_violation(bound, value);
  if (!why.empty()) {
    throw std::invalid_argument(std::string(option) + ": expected " + bound.what + ", got " +
                                std::to_string(value) + " (" + bound.why + ")");
  }
}

// The optimizer's numbers: refused here in one line, before LibTorch refuses them with a stack
// trace (--weight-decay -1) or trains on NaN (--momentum nan).
void validate_optimizer(const TrainOptions& o) {
  // Any positive, finite rate: the tests train with 1e-30 (parameters that must not move) and
  // 1e12 (a divergence, stopped at run time by the NaN-loss check).
  if (!(std::isfinite(o.learning_rate) && o.learning_rate > 0)) {
    std::ostringstream os;
    os << "--lr must be a finite number > 0, got " << o.learning_rate;
    throw std::invalid_argument(os.str());
  }
  check_range("--weight-decay", o.weight_decay, 0, 100, "0 = off; typical 0.01 .. 0.1");
  check_range("--momentum", o.momentum, 0, 0.999999, "SGD momentum, below 1");
  check_range("beta1", o.beta1, 0, 0.999999, "AdamW betas are below 1");
  check_range("beta2", o.beta2, 0, 0.999999, "AdamW betas are below 1");
  check_range("eps", o.adam_eps, 1e-30, 1, "AdamW's epsilon, > 0");
  check_range("--gradient-clipping", o.gradient_clipping, 0, 1e12, "0 = off");
}

}  // namespace

void validate_options(const TrainOptions& o) {
  auto fail = [](const std::string& m) { throw std::invalid_argument(m); };
  if (o.data_dir.empty()) fail("--data: a dataset folder is required");
  if (o.epochs < 1 || o.epochs > 1000000) fail("--epochs must be in 1..1000000");
  if (o.max_steps < 0) fail("--max-steps must be >= 0 (0 = no cap)");
  check_count("--micro-batch", o.micro_batch, costmodel::kMicroBatch);
  check_count("--accumulation", o.accumulation, costmodel::kAccumulation);
  if (o.train_batch_size)
    check_count("--train-batch-size", *o.train_batch_size, costmodel::kImages);
  if (!(o.data_fraction > 0 && o.data_fraction <= 1)) fail("--data-fraction must be in (0, 1]");
  validate_optimizer(o);
  check_range("--bucket-mb", o.bucket_bytes / costmodel::kMiB, 1.0 / costmodel::kMiB, 1e9,
              "gradient bucket cap in MiB");
  validate_threads(o.threads);
  check_range("--collective-timeout-s", o.collective_timeout_s, 1e-3, 1e7, "seconds");
  if (o.steps_per_print < 1) fail("--steps-per-print must be >= 1");
  if (o.log_every < 0) fail("--log-every must be >= 0 (0 = never)");
  if (o.checkpoint_every < 0) fail("--checkpoint-every must be >= 0");
  if (o.keep_checkpoints < 0) fail("--keep-checkpoints must be >= 0 (0: keep every checkpoint)");
  if (o.checkpoint_every > 0 && o.checkpoint_dir.empty())
    fail("--checkpoint-every needs --checkpoint-dir");
  if (o.device != "cpu" && o.device != "cuda") fail("--device must be cpu or cuda");
  if (o.backend != "auto" && o.backend != "mpi" && o.backend != "nccl")
    fail("--backend must be auto, mpi or nccl");
  if (o.backend == "nccl" && o.device != "cuda") fail("--backend nccl needs --device cuda");
  if (o.backend == "mpi" && o.device == "cuda")
    fail("--backend mpi works on CPU tensors: use --backend nccl (or auto) with --device cuda");
  if (o.precision == costmodel::Regime::kTf32 && o.device != "cuda")
    fail(
        "--precision tf32 needs --device cuda (TF32 is a mode of NVIDIA's tensor cores, Ampere "
        "and later)");
  if (costmodel::math_type(o.precision) == costmodel::MathType::kFp16 && o.device != "cuda")
    fail(
        "--precision amp-fp16/ds-fp16: fp16 needs --device cuda (CPU autocast supports bf16 only)");
  if (!trainer_runs(o.precision))
    fail(std::string("--precision ") + costmodel::to_string(o.precision) +
         ": vitsim-train implements the DeepSpeed-style regime in bf16 only (ds-fp16 needs "
         "DeepSpeed's dynamic loss scaler on fp16 weights, not implemented); use ds-bf16, "
         "amp-fp16 or fp32 (a DeepSpeed config's fp16 block selects ds-fp16: pass --precision to "
         "override)");
  if (o.zero_stage < 0 || o.zero_stage > 3) fail("--zero-stage must be 0, 1, 2 or 3");
  // The run log records it for vitsim validate --like, which looks it up as NAME.json.
  if (!o.cluster.empty() && !schema::is_safe_name(o.cluster))
    fail("--cluster: expected a cluster's name, not a path (letters, digits, '.', '_', '-'), got " +
         schema::unsafe_name_reason(o.cluster));
  if (!o.debug_fault.empty() && o.debug_fault != "kill" && o.debug_fault != "hang")
    fail("--debug-fault must be kill or hang");
}

}  // namespace vitsim::trainer
