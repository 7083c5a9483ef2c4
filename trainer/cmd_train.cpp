// vitsim-train train: data-parallel training under `mpirun -np N` (trainer.h). Options come from
// the command line and optionally a DeepSpeed-style JSON (--config); the command line wins.
#include <iostream>

#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/run_app.h"
#include "costmodel/buckets.h"
#include "costmodel/regime.h"
#include "trainer/commands.h"
#include "trainer/memory_meter.h"
#include "trainer/mpi_wait.h"
#include "trainer/torch_errors.h"
#include "trainer/trainer.h"

namespace vitsim::trainer {
namespace {

struct TrainCli {
  TrainOptions o;
  clikit::ModelOptions model;
  std::string config, precision = "fp32", overlap = "auto", optimizer = "adamw", zero_stage = "0";
  double bucket_mb = costmodel::kDdpBucketBytes / costmodel::kMiB;  // DDP's bucket_cap_mb
};

// Config values fill in what the command line did not set.
void apply_config(const DeepSpeedConfig& c, TrainOptions& o, const CLI::App& app) {
  auto unset = [&](const char* name) { return app.count(name) == 0; };
  if (c.train_batch_size && unset("--train-batch-size")) o.train_batch_size = c.train_batch_size;
  if (c.micro_batch && unset("--micro-batch")) o.micro_batch = *c.micro_batch;
  if (c.accumulation && unset("--accumulation")) o.accumulation = *c.accumulation;
  if (c.optimizer && unset("--optimizer")) o.optimizer = *c.optimizer;
  if (c.learning_rate && unset("--lr")) o.learning_rate = *c.learning_rate;
  if (c.weight_decay && unset("--weight-decay")) o.weight_decay = *c.weight_decay;
  if (c.momentum) o.momentum = *c.momentum;
  if (c.beta1) o.beta1 = *c.beta1;
  if (c.beta2) o.beta2 = *c.beta2;
  if (c.adam_eps) o.adam_eps = *c.adam_eps;
  if (c.gradient_clipping && unset("--gradient-clipping"))
    o.gradient_clipping = *c.gradient_clipping;
  if (c.precision && unset("--precision")) o.precision = *c.precision;
  if (c.wall_clock_breakdown && unset("--wall-clock-breakdown"))
    o.wall_clock_breakdown = *c.wall_clock_breakdown;
  if (c.steps_per_print && unset("--steps-per-print")) o.steps_per_print = *c.steps_per_print;
  if (c.zero_stage && unset("--zero-stage")) o.zero_stage = *c.zero_stage;
  if (c.overlap && unset("--overlap")) o.overlap = *c.overlap;
}

void add_options(CLI::App& app, TrainCli& t) {
  TrainOptions& o = t.o;
  app.add_option("--data", o.data_dir, "dataset folder (CIFAR binary; see make-dataset)")
      ->required();
  clikit::add_model_options(app, t.model);
  app.add_option("--config", t.config, "DeepSpeed-style JSON config (command line overrides it)");
  app.add_option("--epochs", o.epochs, "epochs")->capture_default_str();
  app.add_option("--max-steps", o.max_steps, "stop after this many optimizer steps (0 = no cap)")
      ->capture_default_str();
  app.add_option("--micro-batch", o.micro_batch, "samples per micro-step per rank")
      ->capture_default_str();
  app.add_option("--accumulation", o.accumulation, "micro-steps per optimizer step")
      ->capture_default_str();
  app.add_option("--train-batch-size", o.train_batch_size,
                 "global batch; must equal micro-batch x accumulation x ranks");
  app.add_option("--optimizer", t.optimizer, "sgd | adamw")->capture_default_str();
  app.add_option("--lr", o.learning_rate, "learning rate (constant)")->capture_default_str();
  app.add_option("--weight-decay", o.weight_decay, "weight decay")->capture_default_str();
  app.add_option("--momentum", o.momentum, "SGD momentum")->capture_default_str();
  app.add_option("--gradient-clipping", o.gradient_clipping, "max gradient norm (0 = off)")
      ->capture_default_str();
  app.add_option("--adamw-kernel", o.adamw_kernel,
                 "AdamW step: foreach (one batched kernel per operation), fused (ATen's fused "
                 "kernel, LibTorch 2.1+ on CUDA), auto (fused on a GPU where available)")
      ->check(CLI::IsMember({"auto", "foreach", "fused"}))
      ->capture_default_str();
  app.add_option(
         "--precision", t.precision,
         costmodel::joined(costmodel::names_of(costmodel::kRegimeNames, trainer_runs), " | ") +
             " (tf32: fp32 with TF32 matmuls, Ampere and later; amp-*: autocast; ds-*: bf16 "
             "weights and gradients, fp32 master copy; "
             "docs/trainer.md)")
      ->capture_default_str();
  app.add_option("--data-fraction", o.data_fraction, "use the first floor(p*N) training images")
      ->capture_default_str();
  app.add_flag("--augment", o.augment, "random crop (pad 4) + horizontal flip");
  app.add_flag("!--no-eval", o.evaluate, "skip test accuracy after each epoch");
  app.add_option("--bucket-mb", t.bucket_mb,
                 "gradient bucket: closes once it holds >= this, MiB (2^20 bytes, as DDP's "
                 "bucket_cap_mb)")
      ->capture_default_str();
  app.add_option("--overlap", t.overlap,
                 "on: all-reduce buckets during backward; off: after; auto: on with --device "
                 "cuda, off on CPU (where the reduction competes with backward for the core)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_option("--zero-stage", t.zero_stage,
                 "ZeRO stage (docs/sharding.md): 0 plain data parallelism, 1 optimizer states "
                 "sharded, 2 also gradients (reduce-scatter), 3 also parameters (gathered per "
                 "block); or FSDP's NO_SHARD, SHARD_GRAD_OP, FULL_SHARD")
      ->capture_default_str();
  app.add_flag("--activation-checkpointing", o.activation_checkpointing,
               "keep only each block's input in the forward, recompute the block in the backward");
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_option("--threads", o.threads, "intra-op threads per rank")->capture_default_str();
  app.add_option("--device", o.device, "cpu | cuda")->capture_default_str();
  app.add_option("--backend", o.backend, "auto | mpi | nccl")->capture_default_str();
  add_mpi_wait_option(app, o.mpi_wait);
  app.add_option("--collective-timeout-s", o.collective_timeout_s,
                 "end the job when one collective takes longer, s")
      ->capture_default_str();
  app.add_option("--run-log", o.run_log, "write the run log JSON here");
  app.add_option("--cluster", o.cluster,
                 "cluster name recorded in the run log (a name: letters, digits, '.', '_', '-'; "
                 "vitsim validate --like looks up NAME.json)");
  app.add_option("--device-id", o.device_id, "device id recorded (default: cpu / cuda)");
  app.add_flag("--wall-clock-breakdown", o.wall_clock_breakdown,
               "print DeepSpeed-style [Rank r] time (ms) lines");
  app.add_option("--steps-per-print", o.steps_per_print, "breakdown every N steps")
      ->capture_default_str();
  app.add_flag("!--no-progress", o.progress, "no progress bar");
  app.add_option("--checkpoint-every", o.checkpoint_every, "checkpoint every N optimizer steps");
  app.add_option("--checkpoint-dir", o.checkpoint_dir, "checkpoint folder");
  app.add_option("--keep-checkpoints", o.keep_checkpoints,
                 "keep the newest K checkpoints in the folder, remove older ones (0: keep all)")
      ->capture_default_str();
  app.add_option("--resume", o.resume, "checkpoint file or folder to continue from");
  app.add_option("--dump-params", o.dump_params,
                 "write final parameters, raw fp32 (ds-*: the master copy); \"{rank}\" in the "
                 "path: one file per rank (tests)");
  app.add_option("--dump-init-params", o.dump_init_params,
                 "write initial parameters, raw fp32, and FILE.names (torchvision names, shapes)");
  app.add_option("--log-every", o.log_every, "print the step's loss every N steps (0 = never)");
  app.add_option("--debug-fault", o.debug_fault, "fault injection for tests: kill | hang");
  app.add_option("--debug-fault-rank", o.debug_fault_rank, "rank that misbehaves");
  app.add_option("--debug-fault-step", o.debug_fault_step, "optimizer step at which it does");
}

}  // namespace

int cmd_train(int argc, char** argv) {
  CLI::App app("Trains a ViT data-parallel: one process per device under mpirun -np N.", argv[0]);
  TrainCli t;
  add_options(app, t);
  std::vector<std::string> args(argv, argv + argc);
  args[0] = "vitsim-train";
  args.insert(args.begin() + 1, "train");
  return clikit::run_app(app, argc, argv, [&] {
    return without_torch_backtrace([&] {
      TrainOptions& o = t.o;
      o.model = t.model.resolve();
      o.precision = clikit::parse_option(t.precision, "precision", costmodel::parse_regime);
      o.optimizer = clikit::parse_option(t.optimizer, "optimizer", costmodel::parse_optimizer);
      o.bucket_bytes = t.bucket_mb * costmodel::kMiB;
      o.overlap = t.overlap == "on" || (t.overlap == "auto" && o.device == "cuda");
      o.zero_stage = parse_zero_stage(t.zero_stage);
      std::string batch_source = "command line";
      bool micro_given = app.count("--micro-batch") > 0;
      bool accumulation_given = app.count("--accumulation") > 0;
      if (!t.config.empty()) {
        std::string ignored;
        const DeepSpeedConfig config = read_deepspeed_config(t.config, &ignored);
        apply_config(config, o, app);
        micro_given = micro_given || config.micro_batch.has_value();
        accumulation_given = accumulation_given || config.accumulation.has_value();
        batch_source = t.config;
        if (!ignored.empty()) {
          std::cerr << "vitsim-train: " << t.config << ": ignoring DeepSpeed keys without effect "
                    << "here: " << ignored << "\n";
        }
      }
      if (o.device_id.empty()) o.device_id = o.device;
      o.config = t.config;
      validate_options(o);
      install_tensor_memory_counter();  // before the first tensor (memory_meter.h)
      MpiWorld world(nullptr, nullptr);
      world.start_watchdog(o.collective_timeout_s);
      resolve_batch(o, world.size(), batch_source, micro_given, accumulation_given);
      Trainer trainer(o, world, args);
      return trainer.run();
    });
  });
}

}  // namespace vitsim::trainer
