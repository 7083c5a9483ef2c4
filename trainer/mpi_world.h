// The MPI side of a vitsim-train process: initialisation, who is where (rank, local rank, host),
// the small collectives the training loop needs (sums of a few numbers, gathers of timestamps,
// broadcast of a byte string) and the clock offset to rank 0 used to tell waiting for peers apart
// from transfer. Every blocking call is guarded by the collective watchdog (watchdog.h). No Torch.
#pragma once

#include <mpi.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "trainer/watchdog.h"

// Every MPI call goes through this: a failure names the call, file and line.
#define VITSIM_MPI_CHECK(call)                                                \
  do {                                                                        \
    const int vitsim_mpi_rc_ = (call);                                        \
    if (vitsim_mpi_rc_ != MPI_SUCCESS)                                        \
      ::vitsim::trainer::mpi_fail(#call, vitsim_mpi_rc_, __FILE__, __LINE__); \
  } while (0)

namespace vitsim::trainer {

[[noreturn]] void mpi_fail(const char* call, int rc, const char* file, int line);

class MpiWorld {
 public:
  // MPI_Init_thread (SERIALIZED: the main thread and the communicator's thread call MPI, never
  // at the same time). Works under mpirun and as a singleton (one rank, no mpirun).
  MpiWorld(int* argc, char*** argv);
  ~MpiWorld();  // MPI_Finalize
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the ranks of this host
  int local_size() const { return local_size_; }
  const std::string& host() const { return hosts_[rank_]; }
  const std::vector<std::string>& hosts() const { return hosts_; }  // host of each rank
  bool single_host() const;
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int thread_level() const { return thread_level_; }  // what MPI_Init_thread provided

  // Starts the collective watchdog; until then collectives are unguarded.
  void start_watchdog(double timeout_s);
  Watchdog* watchdog() { return watchdog_.get(); }

  void barrier();
  void allreduce_sum(std::vector<double>& values);
  void allreduce_max(std::vector<double>& values);
  // Every rank contributes values.size() numbers (the same count on all ranks); returns
  // size() * values.size() numbers, rank-major.
  std::vector<double> allgather(const std::vector<double>& values);
  void broadcast(std::string& bytes, int root);

  // Seconds to add to this rank's steady clock to get rank 0's (Cristian's algorithm, best of
  // several ping-pongs; 0 on rank 0). Collective.
  double estimate_clock_offset_s();
  static double now_s();  // steady clock, seconds

  static std::string library_version();

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, thread_level_ = 0;
  std::vector<std::string> hosts_;
  std::unique_ptr<Watchdog> watchdog_;
};

}  // namespace vitsim::trainer
