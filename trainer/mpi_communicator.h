// Communicator over MPI: blocking MPI_Allreduce (sum; fp32, or bf16 through the custom op of
// bf16_sum.h) on contiguous CPU tensors, run in
// order by a communication thread, so that buckets are reduced while backward goes on (like
// gloo's and NCCL's background work). Why not MPI_Iallreduce: Open MPI 4.1 runs non-blocking
// collectives through libnbc, which only progresses inside MPI calls and was measured 5x slower
// than the tuned blocking MPI_Allreduce for messages >= 4 MB here (docs/trainer.md). MPI is
// initialised SERIALIZED: the main thread calls MPI only when this thread is idle (all handles
// waited for). Without SERIALIZED support the all-reduce runs inside wait() on the main thread.
// Before each all-reduce the ranks meet in a barrier that is polled with sleeps, so a rank that
// arrives early does not spin on a core its peers need (mpi_communicator.cpp). With MpiWait::kPoll
// the all-reduce itself is MPI_Iallreduce polled the same way (libnbc; its ring, scripts/
// emulate-cluster's choice, moves the data between the tests: slower on fast links, the same on
// the emulated 100-400 Mbit ones).
#pragma once

#include <mpi.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "trainer/communicator.h"
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
  void progress() override {}
  void wait(Handle handle) override;
  void broadcast(const at::Tensor& tensor, int root) override;

 private:
  struct Job {
    Handle handle;
    at::Tensor buffer;
  };
  void loop();
  void reduce(const at::Tensor& buffer);
  void wait_for_peers();
  void poll_until_done(MPI_Request& request);  // MPI_Test, a short spin, then sleeps

  MpiWorld& world_;
  MpiWait wait_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Job> queue_;  // started, not yet reduced (in start order)
  std::set<Handle> done_;  // reduced, not yet waited for
  Handle next_ = 0;
  bool stop_ = false;
  MPI_Op bf16_sum_;     // created with the communicator, freed before MPI_Finalize
  std::thread thread_;  // not started without MPI_THREAD_SERIALIZED
};

}  // namespace vitsim::trainer
