// vitsim-train bench-allreduce: all-reduce (reduce-scatter, all-gather) time over message sizes
// (nccl-tests style) -> profile.
#include <iostream>

#include "clikit/run_app.h"
#include "schema/json_file.h"
#include "trainer/allreduce_bench.h"
#include "trainer/commands.h"
#include "trainer/mpi_wait.h"
#include "trainer/run_context.h"
#include "trainer/torch_errors.h"

namespace vitsim::trainer {

int cmd_bench_allreduce(int argc, char** argv) {
  CLI::App app(
      "Times the all-reduce (or --collective reduce-scatter | all-gather) across message sizes "
      "(run under mpirun -np N >= 2).",
      argv[0]);
  AllreduceBenchOptions o;
  std::string min_bytes = "4K", max_bytes = "512M", out, device = "cpu", backend = "auto",
              device_id, collective = "all-reduce";
  MpiWait mpi_wait = MpiWait::kSpin;
  double timeout_s = 60;
  app.add_option("--min-bytes", min_bytes, "smallest message (K, M, G = binary)")
      ->capture_default_str();
  app.add_option("--max-bytes", max_bytes, "largest message")->capture_default_str();
  app.add_option("--out", out, "profile JSON to write (rank 0)");
  app.add_option("--warmup", o.warmup, "untimed iterations per size")->capture_default_str();
  app.add_option("--iterations", o.iterations, "timed iterations per size (max)")
      ->capture_default_str();
  app.add_option("--repeat-blocks", o.repeat_blocks,
                 "each size's timed iterations in this many independent blocks (at most its "
                 "iterations), the sizes in turn; 1: no run-to-run spread recorded")
      ->capture_default_str();
  app.add_option("--collective", collective,
                 "all-reduce | reduce-scatter | all-gather (ZeRO's; size = the whole buffer of n "
                 "blocks, busbw = algbw x (n-1)/n, as nccl-tests)")
      ->check(CLI::IsMember({"all-reduce", "reduce-scatter", "all-gather"}))
      ->capture_default_str();
  app.add_option("--link-class", o.link_class,
                 "link class recorded (default on one host: the name vitsim cluster init gives "
                 "its fabric, <cluster>-<device-id>-shm, or <device-id>-shm without --cluster; "
                 "network otherwise)");
  app.add_option("--cluster", o.cluster,
                 "cluster name, as vitsim cluster init --name (names the link class)");
  app.add_option("--intra", o.intra_kind,
                 "fabric of the ranks on one host: pcie-host | pcie-p2p | nvlink (names the link "
                 "class)")
      ->check(CLI::IsMember({"pcie-host", "pcie-p2p", "nvlink"}))
      ->capture_default_str();
  app.add_option("--device", device, "cpu | cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--device-id", device_id, "device id recorded (default: the device)");
  app.add_option("--backend", backend, "auto | mpi | nccl")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}))
      ->capture_default_str();
  app.add_option("--compute-before-s", o.compute_before_s,
                 "CPU busy this long before each iteration, as a step's compute (0 = back to back)")
      ->capture_default_str();
  app.add_flag("--compute-beside", o.compute_beside,
               "a second thread keeps a CPU busy during each collective, as a backward beside a "
               "prefetched or overlapped collective (under a CPU quota the two share it)");
  add_mpi_wait_option(app, mpi_wait);
  app.add_option("--collective-timeout-s", timeout_s, "end the job when one all-reduce hangs, s")
      ->capture_default_str();
  std::vector<std::string> args(argv, argv + argc);
  args[0] = "vitsim-train";
  args.insert(args.begin() + 1, "bench-allreduce");
  return clikit::run_app(app, argc, argv, [&] {
    return without_torch_backtrace([&] {
      o.min_bytes = parse_bytes(min_bytes);
      o.max_bytes = parse_bytes(max_bytes);
      o.collective = costmodel::parse_collective_op(collective);
      if (o.iterations < 1 || o.iterations > 1000000 || o.warmup < 0 || o.warmup > 1000000) {
        throw std::invalid_argument("--iterations must be in 1..1000000, --warmup in 0..1000000");
      }
      if (!(o.compute_before_s >= 0 && o.compute_before_s <= 3600)) {
        throw std::invalid_argument("--compute-before-s must be in [0, 3600] seconds");
      }
      if (o.repeat_blocks < 1 || o.repeat_blocks > 1000000)
        throw std::invalid_argument("--repeat-blocks must be in 1..1000000");
      if (o.min_bytes > o.max_bytes) throw std::invalid_argument("--min-bytes exceeds --max-bytes");
      // Its times are the collective's while compute shares the CPU, not the link's figures: a
      // profile of them would be calibrated as the link (docs/trainer.md).
      if (o.compute_beside && !out.empty())
        throw std::invalid_argument(
            "--compute-beside: the times are not a link's figures; read the table, no --out");
      if (!(timeout_s >= 1e-3 && timeout_s <= 1e7)) {
        throw std::invalid_argument("--collective-timeout-s must be in [0.001, 1e7] seconds");
      }
      if (backend == "auto") backend = device == "cuda" ? "nccl" : "mpi";
      o.device_id = device_id.empty() ? device : device_id;
      MpiWorld world(nullptr, nullptr);
      world.start_watchdog(timeout_s);
      configure_threads(1);
      auto comm = make_communicator(backend, world, mpi_wait);
      schema::Profile p;
      schema::AllreduceProfile measured = run_allreduce_bench(o, world, *comm, device);
      switch (o.collective) {
        case costmodel::CollectiveOp::kReduceScatter:
          p.reduce_scatter.push_back(std::move(measured));
          break;
        case costmodel::CollectiveOp::kAllGather:
          p.all_gather.push_back(std::move(measured));
          break;
        default:
          p.allreduce.push_back(std::move(measured));
      }
      if (world.rank() == 0 && !out.empty()) {
        p.device = device_id.empty() ? device : device_id;
        p.device_name = device_name(device);
        p.source = costmodel::CostSource::kMeasured;
        p.context = trainer_context(args, {{"device", p.device},
                                           {"mpi_library", MpiWorld::library_version()},
                                           {"hosts", world.hosts()}});
        schema::write_profile(out, p);
        std::cout << "vitsim-train bench-allreduce: written to " << out << "\n";
      }
      return 0;
    });
  });
}

}  // namespace vitsim::trainer
