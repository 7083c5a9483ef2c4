// Communicator over MPI: all-reduce and reduce-scatter (sum; fp32, or bf16 through the custom op of
// bf16_sum.h) and all-gather on contiguous CPU tensors, run in order by a communication thread, so
// that buckets are reduced while backward goes on (like gloo's and NCCL's background work). Before
// each collective the ranks meet in a barrier polled with sleeps, so a rank that arrives early
// does not spin on a core its peers need (mpi_communicator.cpp). The reduce-scatter and the
// all-gather are NCCL's rings over MPI point-to-point (mpi_ring.h); the all-reduce is Open MPI's.
// How they wait (mpi_wait.h):
// - MpiWait::kSpin (default): the blocking MPI_Allreduce (the rings' steps MPI_Sendrecv), which
//   busy-poll the core until the last byte arrives;
// - MpiWait::kPoll: MPI_Iallreduce (the rings' steps MPI_Isend/MPI_Irecv), tested with sleeps as
//   the barrier is (mpi_poll.h). Open MPI 4.1 runs the non-blocking all-reduce through libnbc,
//   which progresses only inside MPI calls: measured 5x slower than the blocking call for
//   messages >= 4 MB on fast links (docs/trainer.md), the same on the emulated 100-400 Mbit links,
//   where it leaves an emulated host's CPU quota to its compute.
// MPI is initialised SERIALIZED: the main thread calls MPI only when this thread is idle (all
// handles waited for). Without SERIALIZED support the collectives run inside wait() on the main
// thread.
#pragma once

#include <mpi.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "trainer/communicator.h"
#include "trainer/mpi_ring.h"
#include "trainer/mpi_world.h"

namespace vitsim::trainer {

class MpiCommunicator : public Communicator {
 public:
  explicit MpiCommunicator(MpiWorld& world, MpiWait wait = MpiWait::kSpin);
  ~MpiCommunicator() override;

  const char* backend() const override { return "mpi"; }
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  Handle start_allreduce(const at::Tensor& buffer) override;
  Handle start_reduce_scatter(const at::Tensor& send, const at::Tensor& recv) override;
  Handle start_allgather(const at::Tensor& send, const at::Tensor& recv) override;
  void progress() override {}
  void wait(Handle handle) override;
  void broadcast(const at::Tensor& tensor, int root) override;

 private:
  struct Job {
    Handle handle;
    Collective kind;
    at::Tensor buffer;  // all-reduce: in place; reduce-scatter and all-gather: the send buffer
    at::Tensor recv;    // reduce-scatter and all-gather only
  };
  Handle enqueue(Job job);
  void loop();
  void run(const Job& job);
  void reduce(const at::Tensor& buffer);
  void reduce_scatter(const at::Tensor& send, const at::Tensor& recv);
  void allgather(const at::Tensor& send, const at::Tensor& recv);
  void wait_for_peers(Collective op);  // the barrier, its wait counted under `op` (not all-reduce)

  MpiWorld& world_;
  MpiWait wait_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Job> queue_;  // started, not yet reduced (in start order)
  std::set<Handle> done_;  // reduced, not yet waited for
  Handle next_ = 0;
  bool stop_ = false;
  MPI_Op bf16_sum_;     // created with the communicator, freed before MPI_Finalize
  MpiRing ring_;        // run by the communication thread only
  std::thread thread_;  // not started without MPI_THREAD_SERIALIZED
};

}  // namespace vitsim::trainer
