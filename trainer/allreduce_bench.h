// `vitsim-train bench-allreduce`: all-reduce (or, with --collective, reduce-scatter or all-gather:
// ZeRO's collectives) time over message sizes, reported like nccl-tests (size, count, time, algbw,
// busbw; busbw = algbw x 2(n-1)/n for the all-reduce, x (n-1)/n for the other two, the per-link
// figure of a ring, see docs/trainer.md; the size of a reduce-scatter or an all-gather is the
// whole buffer of n blocks, as nccl-tests counts it). Each size: warm-up, then timed iterations,
// each started after a barrier (and the compute before it, if asked) and timed from the last rank's
// start until the last rank has the sum (on rank 0's clock: times_from_last_arrival); the mean is
// reported (what an epoch of all-reduces pays, and what nccl-tests reports: its time is a timed
// loop's over its iterations). The timed iterations come in independent blocks, the sizes in
// turn, whose means are recorded too.
#pragma once

#include <cstdint>
#include <string>

#include "schema/profile.h"
#include "trainer/communicator.h"
#include "trainer/mpi_world.h"

namespace vitsim::trainer {

struct AllreduceBenchOptions {
  double min_bytes = 4096;                      // first message size
  double max_bytes = 512.0 * 1024 * 1024;       // last message size (sizes double)
  int64_t warmup = 2;                           // untimed iterations per size
  int64_t iterations = 20;                      // timed iterations per size, fewer for large sizes
  double bytes_per_size = 256.0 * 1024 * 1024;  // large sizes: iterations = this / size (>= 3)
  std::string link_class;                       // recorded; default from where the ranks are
  // On one host the default link class is the one vitsim cluster init gives that host's fabric
  // (schema::intra_link_class: "<cluster>-<device>-shm"; "<device>-shm" without a cluster).
  std::string cluster, device_id, intra_kind = "pcie-host";
  // Before each iteration every rank keeps its CPU busy this long (wall time), as a training
  // step's forward and backward do before its all-reduce: the links idle meanwhile, so what idle
  // does to them (a token bucket refilling, TCP restarting its window) is in the time. 0 = back
  // to back, as nccl-tests.
  double compute_before_s = 0;
  // A second thread of the process keeps a CPU busy during each collective, started (and
  // running) before the collective's timer and stopped once it is done, as a backward's compute
  // runs beside a prefetched or overlapped collective: under a CPU quota (an emulated host) the
  // two share it (docs/sharding.md, "Against the emulated cluster").
  bool compute_beside = false;
  costmodel::CollectiveOp collective = costmodel::CollectiveOp::kAllReduce;
  // Each size's timed iterations in this many independent blocks (at most its iterations), the
  // sizes in turn: their means' spread is the link's run-to-run spread (block_times_s).
  int64_t repeat_blocks = 4;
};

// "4K", "16M", "512M", "1G" (binary multiples, like nccl-tests), or plain bytes.
double parse_bytes(const std::string& text);  // throws std::invalid_argument

// The collective of `options` over message sizes; fills the entry the profile keeps for it.
schema::AllreduceProfile run_allreduce_bench(const AllreduceBenchOptions& options, MpiWorld& world,
                                             Communicator& comm, const std::string& device);

}  // namespace vitsim::trainer
