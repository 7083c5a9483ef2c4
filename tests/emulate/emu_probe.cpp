// emu_probe: a plain MPI program (no LibTorch, no vitsim code) that checks an emulated cluster from
// the inside: which host each rank runs on, how long an all-reduce takes over the shaped links,
// how fast each rank computes under its CPU quota. Used by emulate_cluster_test and by hand:
//   scripts/emulate-cluster --hosts 2 -- emu_probe allreduce 4000000 5
// Prints one line per rank, gathered on rank 0, as `key=value` fields (easy to parse in a test):
//   rank=0 host=node0 time_s=0.0123
// Modes:
//   hosts                   host name of each rank
//   allreduce BYTES REPS    median time of MPI_Allreduce(float sum) of BYTES, after one warm-up
//   spin ITERS              wall time of a fixed floating-point loop, all ranks at once
//   chunks CPU_MS COUNT     wall time of COUNT chunks of CPU_MS of CPU time each (quota check)
//   step CPU_MS BYTES REPS  a training step's tail, REPS times: CPU_MS of CPU time (the optimizer),
//                           then an all-reduce of BYTES (vitsim-train's per-step agreement: 40);
//                           per rank the all-reduce's median and mean wall time
//   sleep SECONDS           barrier, then sleep (for teardown tests)
//   memory MIB SECONDS      wall time per pass of a sum over a MIB-MiB buffer, passed over and
//                           over for SECONDS: memory-bound work, whose speed under a CPU quota
//                           the host can spoil where a spin's cannot (validate_local_test.cpp)
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "probe_clock.h"

namespace {

using vitsim::emulate_test::median;
using vitsim::emulate_test::steady_s;
using vitsim::emulate_test::thread_cpu_s;

volatile double g_sink = 0;  // keeps spin()'s result alive

// A dependent chain of multiply-adds: the compiler cannot vectorize or drop it.
void spin(long iters) {
  volatile double seed = 1.0;
  double x = seed;
  for (long i = 0; i < iters; ++i) x = x * 0.999999 + 1e-7;
  g_sink = x;
}

// Spins until this thread has run for `cpu_s` of CPU time, however long that takes in wall time.
void spin_cpu(double cpu_s) {
  const double end = thread_cpu_s() + cpu_s;
  while (thread_cpu_s() < end) spin(1000);
}

// Sums `buffer` over and over for `seconds` of wall time; the wall time per pass.
double memory_pass_s(std::vector<double>& buffer, double seconds) {
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<double>(i % 1000);
  const double t0 = steady_s();
  long passes = 0;
  double sum = 0;
  while (steady_s() - t0 < seconds) {
    for (double v : buffer) sum += v;
    ++passes;
  }
  g_sink = sum;
  return (steady_s() - t0) / static_cast<double>(passes);
}

// Rank 0 prints one line per rank: host and value.
void report(double value, int rank, int size) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::vector<char> hosts(rank == 0 ? 256 * size : 0);
  std::vector<double> values(rank == 0 ? size : 0);
  MPI_Gather(host, 256, MPI_CHAR, hosts.data(), 256, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Gather(&value, 1, MPI_DOUBLE, values.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      std::printf("rank=%d host=%s time_s=%.6f\n", r, &hosts[256 * r], values[r]);
    }
    std::fflush(stdout);
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: emu_probe hosts | allreduce BYTES REPS | spin ITERS | chunks CPU_MS COUNT | "
               "step CPU_MS BYTES REPS | sleep SECONDS | memory MIB SECONDS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mode = argc > 1 ? argv[1] : "";
  int rc = 0;
  if (mode == "hosts") {
    report(0.0, rank, size);
  } else if (mode == "allreduce" && argc == 4) {
    const long bytes = std::atol(argv[2]);
    const int reps = std::atoi(argv[3]);
    std::vector<float> send(bytes / sizeof(float), 1.0f);
    std::vector<float> recv(send.size());
    std::vector<double> times;
    for (int i = 0; i <= reps; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = steady_s();
      MPI_Allreduce(send.data(), recv.data(), static_cast<int>(send.size()), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
      if (i > 0) times.push_back(steady_s() - t0);  // the first one sets up connections
    }
    if (!recv.empty() && recv[0] != static_cast<float>(size)) rc = 1;  // the sum must be right
    report(median(times), rank, size);
  } else if (mode == "spin" && argc == 3) {
    const long iters = std::atol(argv[2]);
    // All ranks at once: with quotas that sum to at most the machine's cores, each rank gets
    // exactly its quota, so the time measures the quota (not the other ranks' polling).
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = steady_s();
    spin(iters);
    const double elapsed = steady_s() - t0;
    report(elapsed, rank, size);
  } else if (mode == "chunks" && argc == 4) {
    const double chunk_cpu_s = std::atof(argv[2]) * 1e-3;
    const int count = std::atoi(argv[3]);
    std::vector<double> walls;
    const double t0 = steady_s(), c0 = thread_cpu_s();
    for (int i = 0; i < count; ++i) {
      const double t = steady_s();
      spin_cpu(chunk_cpu_s);
      walls.push_back(steady_s() - t);
    }
    const double wall = steady_s() - t0, cpu = thread_cpu_s() - c0;
    const double mean = std::accumulate(walls.begin(), walls.end(), 0.0) / walls.size();
    // One line per rank, printed by each rank (no gathering: the ranks are independent here).
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    std::printf("rank=%d host=%s chunk_cpu_s=%.6f median_s=%.6f mean_s=%.6f cpu_share=%.4f\n", rank,
                host, chunk_cpu_s, median(walls), mean, cpu / wall);
    std::fflush(stdout);
  } else if (mode == "step" && argc == 5) {
    const double cpu_s = std::atof(argv[2]) * 1e-3;
    const long bytes = std::atol(argv[3]);
    const int reps = std::atoi(argv[4]);
    std::vector<double> send(std::max(1L, bytes / static_cast<long>(sizeof(double))), 1.0);
    std::vector<double> recv(send.size());
    std::vector<double> times;
    MPI_Allreduce(send.data(), recv.data(), static_cast<int>(send.size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);  // sets up connections; the ranks leave it together
    for (int i = 0; i < reps; ++i) {
      spin_cpu(cpu_s);
      const double t0 = steady_s();
      MPI_Allreduce(send.data(), recv.data(), static_cast<int>(send.size()), MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
      times.push_back(steady_s() - t0);
    }
    const double mean = std::accumulate(times.begin(), times.end(), 0.0) / times.size();
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    std::printf("rank=%d host=%s cpu_ms=%.1f bytes=%ld median_s=%.6f mean_s=%.6f\n", rank, host,
                cpu_s * 1e3, bytes, median(times), mean);
    std::fflush(stdout);
  } else if (mode == "memory" && argc == 4) {
    const long mib = std::atol(argv[2]);
    const double seconds = std::atof(argv[3]);
    if (mib < 1 || mib > 1024 || !(seconds > 0 && seconds <= 600)) {
      rc = usage();
    } else {
      std::vector<double> buffer(static_cast<size_t>(mib) * 1024 * 1024 / sizeof(double));
      report(memory_pass_s(buffer, seconds), rank, size);
    }
  } else if (mode == "sleep" && argc == 3) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf("sleeping\n");
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(argv[2])));
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    rc = usage();
  }
  MPI_Finalize();
  return rc;
}
