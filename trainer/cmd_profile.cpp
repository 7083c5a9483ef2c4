// vitsim-train profile: per-layer forward/backward times per micro-batch -> profile JSON; with
// --shared-host under mpirun -np K on one host, K ranks profiling together (profile_ranks.h).
#include <algorithm>
#include <iostream>
#include <memory>

#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/run_app.h"
#include "costmodel/regime.h"
#include "schema/profile.h"
#include "trainer/commands.h"
#include "trainer/layer_profiler.h"
#include "trainer/profile_ranks.h"
#include "trainer/torch_errors.h"
#include "trainer/train_options.h"

namespace vitsim::trainer {
namespace {

// Ranks profiling together wait for each other only at a block's start, where they differ by
// their drift over one block: a wait this long is a rank that failed or hangs, and ends the job.
constexpr double kProfileBarrierTimeoutS = 600;

}  // namespace

int cmd_profile(int argc, char** argv) {
  CLI::App app(
      "Times training steps per micro-batch, each layer's forward and backward within them; "
      "writes a profile JSON. With --shared-host under mpirun -np K (one host, CPU): K ranks "
      "profile at once, as K training ranks share the host, and rank 0 writes their pooled "
      "samples (ranks_per_host K).",
      argv[0]);
  ProfileOptions o;
  clikit::ModelOptions model;
  std::string sizes = "4,8,16", precision = "fp32", optimizer = "adamw", out;
  int64_t full_steps = 0;
  bool shared_host = false;
  clikit::add_model_options(app, model);
  app.add_option(
         "--micro-batches", sizes,
         "micro-batch sizes, comma-separated, profiled in this order (the first carries the "
         "process's start)")
      ->capture_default_str();
  app.add_option("--out", out, "profile JSON to write")->required();
  app.add_option("--warmup", o.warmup, "untimed training steps per micro-batch")
      ->capture_default_str();
  app.add_option("--repetitions", o.repetitions, "timed training steps per micro-batch (means)")
      ->capture_default_str();
  auto* blocks =
      app.add_option("--repeat-blocks", o.repeat_blocks,
                     "the timed steps in this many independent blocks, the micro-batches "
                     "in turn (1 to --repetitions; 1: no run-to-run spread recorded; "
                     "default: 4, at most --repetitions)");
  app.add_option("--full-steps", full_steps,
                 "no longer used (every timed repetition is a whole step); accepted for old "
                 "command lines");
  const auto profiled = [](costmodel::Regime r) {
    return trainer_runs(r) && costmodel::is_compute_regime(r);
  };
  app.add_option("--precision", precision,
                 costmodel::joined(costmodel::names_of(costmodel::kRegimeNames, profiled), " | ") +
                     " (tf32: fp32 with TF32 matmuls, Ampere and later; ds-*: bf16 model, fp32 "
                     "master step)")
      ->capture_default_str();
  app.add_option("--device", o.device, "cpu | cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--device-id", o.device_id, "device id recorded (gpus.json id, cpu-...)");
  app.add_option("--optimizer", optimizer, "sgd | adamw")
      ->check(CLI::IsMember({"sgd", "adamw"}))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "intra-op threads")->capture_default_str();
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_flag("--sharding-costs", o.sharding_costs,
               "also time the checkpointed blocks' recomputation and a block's gather and free "
               "(ZeRO stage 3) per micro-batch, in a few more steps (docs/sharding.md)");
  // Opt-in, not inferred from the launcher's environment: a script that mpirun started (one per
  // emulated host, scripts/emulate-cluster) runs a different profile in each rank, each alone on
  // its own CPU, and ranks that joined would wait for each other's different schedules.
  app.add_flag("--shared-host", shared_host,
               "under mpirun -np K on one host: the K ranks profile together, as K training ranks "
               "share the host's cores, memory bandwidth and caches, and rank 0 writes their "
               "pooled samples (ranks_per_host K; CPU only). Without it each rank profiles alone");
  std::vector<std::string> args(argv, argv + argc);
  args[0] = "vitsim-train";
  args.insert(args.begin() + 1, "profile");
  return clikit::run_app(app, argc, argv, [&] {
    return without_torch_backtrace([&] {
      o.model = model.resolve();
      o.micro_batches =
          clikit::parse_list<int64_t>(sizes, "micro-batches", clikit::parse_positive_integer);
      o.precision = clikit::parse_option(precision, "precision", costmodel::parse_regime);
      o.optimizer = clikit::parse_option(optimizer, "optimizer", costmodel::parse_optimizer);
      if (o.repetitions < 1 || o.warmup < 0) {
        throw std::invalid_argument("--repetitions must be >= 1, --warmup >= 0");
      }
      if (blocks->count() == 0) o.repeat_blocks = std::min<int64_t>(4, o.repetitions);
      if (o.repeat_blocks < 1 || o.repeat_blocks > o.repetitions) {
        throw std::invalid_argument("--repeat-blocks: expected 1 to --repetitions (" +
                                    std::to_string(o.repetitions) + "), got " +
                                    std::to_string(o.repeat_blocks) +
                                    " (hint: each block needs one timed step at least)");
      }
      validate_threads(o.threads);
      if (full_steps != 0) {
        std::cerr << "vitsim-train profile: --full-steps is no longer used: every one of the "
                     "--repetitions timed repetitions is a whole training step\n";
      }
      if (o.precision == costmodel::Regime::kTf32 && o.device != "cuda") {
        throw std::invalid_argument(
            "--precision tf32 needs --device cuda (TF32 is a mode of NVIDIA's tensor cores, "
            "Ampere and later)");
      }
      if (costmodel::math_type(o.precision) == costmodel::MathType::kFp16 && o.device != "cuda") {
        throw std::invalid_argument(
            "--precision amp-fp16 needs --device cuda (CPU autocast: bf16)");
      }
      if (!trainer_runs(o.precision)) {
        throw std::invalid_argument(std::string("--precision ") +
                                    costmodel::to_string(o.precision) +
                                    ": the profiler runs fp32, amp-bf16, amp-fp16 or ds-bf16 "
                                    "(vitsim-train has no ds-fp16 mode)");
      }
      // With --shared-host under mpirun -np K: K profilers sharing this host as K training ranks
      // would (profile_ranks.h). Alone (one rank): the plain profile.
      std::unique_ptr<MpiWorld> world;
      std::unique_ptr<ProfileRanks> ranks;
      if (const int64_t k = launched_ranks(); shared_host && k > 1) {
        if (o.device != "cpu")
          throw std::invalid_argument(
              "--shared-host --device " + o.device + " under mpirun -np " + std::to_string(k) +
              ": ranks on one host do not share a GPU; profile one device alone (no "
              "--shared-host)");
        world = std::make_unique<MpiWorld>(nullptr, nullptr);
        if (!world->single_host())
          throw std::invalid_argument(
              "mpirun placed the " + std::to_string(world->size()) +
              " ranks on several hosts: a profile describes the ranks sharing one host (hint: "
              "mpirun -np N --host HOST:N, N the ranks the run puts on each host)");
        world->start_watchdog(kProfileBarrierTimeoutS);
        ranks = std::make_unique<ProfileRanks>(*world);
        o.ranks = ranks.get();
        o.verbose = world->rank() == 0;
      }
      const schema::Profile p = run_profile(o, args);
      if (ranks && ranks->rank() != 0) return 0;
      schema::write_profile(out, p);
      std::cout << "vitsim-train profile: written to " << out
                << (ranks ? " (" + std::to_string(ranks->size()) + " ranks sharing this host)" : "")
                << "\n";
      return 0;
    });
  });
}

}  // namespace vitsim::trainer
