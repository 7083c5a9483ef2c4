// All-reduce benchmark (allreduce_bench.h).
#include "trainer/allreduce_bench.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "costmodel/collective_op.h"
#include "costmodel/physical_bounds.h"
#include "schema/cluster_fabric.h"
#include "trainer/step_stats.h"

namespace vitsim::trainer {

double parse_bytes(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  double scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KiB" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "MiB")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  if (used == 0 || scale == 0 || !(value > 0) || !(value * scale <= costmodel::kBytes.max) ||
      value * scale < 1) {
    throw std::invalid_argument("message size '" + text +
                                "': expected 1 byte .. 1e15 bytes, a number with optional K, M or "
                                "G suffix (binary: 4K = 4096)");
  }
  return value * scale;
}

namespace {

// The buffers of one collective of `count` elements in all (n blocks of count / n for a
// reduce-scatter or an all-gather), and how to start it.
struct BenchBuffers {
  at::Tensor send, recv;  // the all-reduce: send only, in place
  Communicator::Handle start(Communicator& comm, costmodel::CollectiveOp c) const {
    switch (c) {
      case costmodel::CollectiveOp::kReduceScatter:
        return comm.start_reduce_scatter(send, recv);
      case costmodel::CollectiveOp::kAllGather:
        return comm.start_allgather(send, recv);
      default:
        return comm.start_allreduce(send);
    }
  }
};

BenchBuffers make_buffers(costmodel::CollectiveOp c, int64_t count, int ranks,
                          const at::TensorOptions& options) {
  const int64_t block = count / ranks;
  switch (c) {
    case costmodel::CollectiveOp::kReduceScatter:
      return {at::ones({count}, options), at::empty({block}, options)};
    case costmodel::CollectiveOp::kAllGather:
      return {at::ones({block}, options), at::empty({count}, options)};
    default:
      return {at::ones({count}, options), at::Tensor()};
  }
}

// The CPU busy for `seconds` of wall time (under a CPU quota it spends the quota as compute does).
void compute_for(double seconds) {
  const double end_s = MpiWorld::now_s() + seconds;
  volatile double sink = 0;
  while (MpiWorld::now_s() < end_s) {
    for (int i = 0; i < 1000; ++i) sink = sink + 1.0;
  }
}

// Keeps a CPU busy on a thread of its own from construction until destruction. The constructor
// returns once the thread runs, so that a timer started after it times the collective beside
// running compute, not the thread's start.
class BusyThread {
 public:
  explicit BusyThread(bool on) {
    if (!on) return;
    thread_ = std::thread([this] {
      running_ = true;
      volatile double sink = 0;
      while (!stop_.load(std::memory_order_relaxed)) {
        for (int i = 0; i < 1000; ++i) sink = sink + 1.0;
      }
    });
    while (!running_.load()) std::this_thread::yield();
  }
  ~BusyThread() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false}, running_{false};
  std::thread thread_;
};

// One message size: its iterations' times over every block, each block's mean.
struct SizeRun {
  int64_t count = 0;
  double message_bytes = 0;
  int64_t iterations = 0;
  std::vector<double> times;          // from the last rank's start, rank 0's clock
  std::vector<double> own_s;          // the slowest rank's own time from the barrier
  std::vector<double> block_means_s;  // the mean of `times` in each block
};

// `untimed` then `timed` iterations of one size, each after a barrier (and the compute before it).
void time_block(const AllreduceBenchOptions& o, MpiWorld& world, Communicator& comm,
                const BenchBuffers& buffers, int64_t untimed, int64_t timed, double clock_offset_s,
                SizeRun& r) {
  std::vector<double> starts, ends, own_s;
  for (int64_t i = 0; i < untimed + timed; ++i) {
    world.barrier();
    comm.synchronize();
    if (o.compute_before_s > 0) compute_for(o.compute_before_s);
    double t0 = 0, t1 = 0;
    {
      const BusyThread beside(o.compute_beside);  // running before the timer starts
      t0 = MpiWorld::now_s();
      comm.wait(buffers.start(comm, o.collective));
      comm.synchronize();
      t1 = MpiWorld::now_s();
    }
    if (i >= untimed) {
      starts.push_back(t0 + clock_offset_s);
      ends.push_back(t1 + clock_offset_s);
      own_s.push_back(t1 - t0);
    }
  }
  // A rank that leaves the barrier late (a CPU quota's throttled period, a descheduled process)
  // makes the others wait inside the all-reduce: the simulator adds that wait itself, for the
  // stragglers it models (docs/simulator.md, "Stragglers"), so the point is the transfer alone.
  const std::vector<double> times =
      times_from_last_arrival(world.allgather(starts), world.allgather(ends), world.size());
  // Printed beside it: the slowest rank's own time from the barrier (the late start counted in).
  world.allreduce_max(own_s);
  r.times.insert(r.times.end(), times.begin(), times.end());
  r.own_s.insert(r.own_s.end(), own_s.begin(), own_s.end());
  r.block_means_s.push_back(mean_and_spread(times).mean);
}

}  // namespace

schema::AllreduceProfile run_allreduce_bench(const AllreduceBenchOptions& o, MpiWorld& world,
                                             Communicator& comm, const std::string& device) {
  if (world.size() < 2) {
    throw std::invalid_argument("bench-allreduce needs at least 2 ranks (mpirun -np 2 ...)");
  }
  if (o.min_bytes < 4 || o.max_bytes < o.min_bytes) {
    throw std::invalid_argument("--min-bytes must be >= 4 and <= --max-bytes");
  }
  const int n = world.size();
  schema::AllreduceProfile profile;
  profile.ranks = n;
  profile.backend = comm.backend();
  profile.idle_before_s = o.compute_before_s;  // a token bucket's refill (calibrate reads it)
  profile.link_class = !o.link_class.empty() ? o.link_class
                       : world.single_host()
                           ? schema::intra_link_class(o.cluster, o.device_id, o.intra_kind)
                           : "network";
  // As nccl-tests' rank lines give it to the import: calibration reads a ring over hosts with a
  // NIC per GPU as that many channels.
  profile.ranks_per_node = schema::fewest_ranks_per_host(world.hosts());
  // One GPU per rank: local rank modulo the visible devices (as the NCCL communicator picks it).
  int cuda_index = 0;
  if (device == "cuda") {
    const int visible = static_cast<int>(torch::cuda::device_count());
    if (visible == 0)
      throw std::runtime_error("bench-allreduce: --device cuda, but no CUDA device is visible");
    cuda_index = world.local_rank() % visible;
  }
  const auto options =
      at::TensorOptions()
          .dtype(at::kFloat)
          .device(device == "cuda" ? at::Device(at::kCUDA, cuda_index) : at::Device(at::kCPU));
  // Every rank's readings on rank 0's clock, so that each iteration is timed from the last
  // rank's start (times_from_last_arrival).
  const double clock_offset_s = world.estimate_clock_offset_s();
  if (world.rank() == 0) {
    std::printf(
        "# vitsim-train bench-allreduce: %s, %d ranks, backend %s, link class %s, %.3f s of "
        "compute before each%s\n",
        costmodel::label_of(o.collective), n, comm.backend(), profile.link_class.c_str(),
        o.compute_before_s, o.compute_beside ? ", a busy thread beside each" : "");
    std::printf("#%13s %12s %8s %6s %12s %9s %9s %13s\n", "size", "count", "type", "redop", "time",
                "algbw", "busbw", "from barrier");
    std::printf("#%13s %12s %8s %6s %12s %9s %9s %13s\n", "(B)", "(elements)", "", "", "(us)",
                "(GB/s)", "(GB/s)", "(us)");
  }
  // Reduce-scatter and all-gather: whole buffers of n equal blocks (count a multiple of n).
  const int64_t granule = o.collective == costmodel::CollectiveOp::kAllReduce ? 1 : n;
  std::vector<SizeRun> sizes;
  for (double bytes = o.min_bytes; bytes <= o.max_bytes * (1 + 1e-9); bytes *= 2) {
    SizeRun r;
    r.count = std::max<int64_t>(1, static_cast<int64_t>(bytes / 4) / granule) * granule;
    r.message_bytes = static_cast<double>(r.count) * 4;
    r.iterations = std::clamp<int64_t>(static_cast<int64_t>(o.bytes_per_size / r.message_bytes), 3,
                                       o.iterations);
    sizes.push_back(r);
  }
  // The timed iterations of each size in up to `repeat_blocks` blocks, the sizes in turn within
  // each round: a size's blocks lie apart over the benchmark's span (docs/formats/profile.md,
  // block_times_s). The first block follows the warm-up, each later one a single untimed
  // iteration.
  for (int64_t k = 0; k < std::max<int64_t>(1, o.repeat_blocks); ++k) {
    for (SizeRun& r : sizes) {
      const int64_t blocks = std::clamp<int64_t>(o.repeat_blocks, 1, r.iterations);
      if (k >= blocks) continue;
      const int64_t timed = r.iterations / blocks + (k < r.iterations % blocks ? 1 : 0);
      time_block(o, world, comm, make_buffers(o.collective, r.count, n, options),
                 k == 0 ? o.warmup : std::min<int64_t>(1, o.warmup), timed, clock_offset_s, r);
    }
  }
  for (const SizeRun& r : sizes) {
    schema::AllreducePoint p;
    p.message_bytes = r.message_bytes;
    p.time_s = mean_and_spread(r.times).mean;  // a training step pays the mean, as nccl-tests times
    p.algbw_bytes_per_s = r.message_bytes / p.time_s;
    p.busbw_bytes_per_s = p.algbw_bytes_per_s * costmodel::bus_factor(o.collective, n);
    if (r.block_means_s.size() >= 2) p.block_times_s = r.block_means_s;
    profile.points.push_back(p);
    if (world.rank() == 0) {
      std::printf(" %13.0f %12lld %8s %6s %12.2f %9.3f %9.3f %13.2f\n", r.message_bytes,
                  static_cast<long long>(r.count), "float",
                  o.collective == costmodel::CollectiveOp::kAllGather ? "none" : "sum",
                  p.time_s * 1e6, p.algbw_bytes_per_s / 1e9, p.busbw_bytes_per_s / 1e9,
                  mean_and_spread(r.own_s).mean * 1e6);
      std::fflush(stdout);
    }
  }
  return profile;
}

}  // namespace vitsim::trainer
