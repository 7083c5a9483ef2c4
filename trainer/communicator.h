// How gradients and parameters move across ranks: all-reduce (data parallelism), reduce-scatter
// (ZeRO stages 2-3: each rank receives the sum of its shard) and all-gather (ZeRO stages 1-3:
// every rank receives every rank's shard). Two implementations: MpiCommunicator (MPI on a
// communication thread, CPU tensors; works everywhere) and NcclCommunicator (NCCL on CUDA tensors;
// built only with a CUDA LibTorch and NCCL). The gradient reducer, the ZeRO engine
// (zero_engine.h) and bench-allreduce talk only to this.
//
// Collective order: every rank must start the same collectives in the same order (MPI and NCCL
// both match collectives by order, not by name). Handles of all three kinds share one sequence.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "trainer/mpi_wait.h"

namespace vitsim::trainer {

class MpiWorld;

class Communicator {
 public:
  using Handle = int64_t;
  enum class Collective { kAllreduce, kReduceScatter, kAllgather };
  virtual ~Communicator() = default;

  virtual const char* backend() const = 0;  // "mpi" | "nccl"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Starts summing `buffer` (contiguous fp32 or bf16, on this communicator's device) across
  // ranks, in place. The buffer must stay alive and untouched until wait() returns.
  virtual Handle start_allreduce(const at::Tensor& buffer) = 0;
  // Lets pending all-reduces advance without blocking (MPI's non-blocking collectives only move
  // when the library is called); cheap, called from the backward hooks.
  virtual void progress() = 0;
  // Starts the sum of every rank's `send` (contiguous, fp32 or bf16, size() x recv.numel()
  // elements) of which this rank receives block rank() in `recv` (recv.numel() elements, same
  // dtype, not overlapping send). Both stay alive and untouched until wait() returns.
  virtual Handle start_reduce_scatter(const at::Tensor& send, const at::Tensor& recv) = 0;
  // Starts gathering every rank's `send` (contiguous, fp32 or bf16) into `recv` (size() x
  // send.numel() elements, same dtype), rank r's block at r x send.numel(). `send` may be this
  // rank's own block of `recv` (in place, as ZeRO's flat parameters are).
  virtual Handle start_allgather(const at::Tensor& send, const at::Tensor& recv) = 0;
  // Blocks until the collective is done (guarded by the watchdog).
  virtual void wait(Handle handle) = 0;
  // Sends rank root's tensor to every rank, in place (initial parameters).
  virtual void broadcast(const at::Tensor& tensor, int root) = 0;
  // Blocks until the device work queued so far is done (CUDA streams); no-op on CPU.
  virtual void synchronize() {}

  // Bytes handed to the all-reduce calls so far (elements x element size of every buffer given
  // to MPI_Allreduce / ncclAllReduce): what the gradients put on the wire, counted where they
  // leave, so tests and the trainer's summary can check the regime's bytes per parameter.
  int64_t allreduce_bytes() const { return allreduce_bytes_.load(); }
  // The same for reduce-scatters and all-gathers, counting the whole buffer of size() blocks
  // (nccl-tests' "size" of both collectives).
  int64_t reduce_scatter_bytes() const { return reduce_scatter_bytes_.load(); }
  int64_t allgather_bytes() const { return allgather_bytes_.load(); }
  // Seconds the reduce-scatters (op kReduceScatter) or all-gathers (kAllgather) so far spent in
  // the barrier before each (MPI: waiting for the slowest peer to arrive, the skew; the transfer
  // is the rest of the call), summed over calls; 0 where the backend has no barrier (NCCL). The
  // run log's reduce_scatter_wait_time_s and allgather_wait_time_s (docs/formats/run-log.md).
  // The all-reduce's barrier is not counted (0): its run log wait, allreduce_wait_time_s, is the
  // gradients' readiness skew instead (step_stats.h, estimate_allreduce_waits), which NCCL has
  // too, so nothing would read it.
  double barrier_wait_s(Collective op) const {
    return 1e-9 * static_cast<double>(barrier_wait_ns_[index(op)].load());
  }

 protected:
  void count_allreduce(const at::Tensor& buffer) {
    allreduce_bytes_ += buffer.numel() * static_cast<int64_t>(buffer.element_size());
  }
  void count_reduce_scatter(const at::Tensor& whole) {
    reduce_scatter_bytes_ += whole.numel() * static_cast<int64_t>(whole.element_size());
  }
  void count_allgather(const at::Tensor& whole) {
    allgather_bytes_ += whole.numel() * static_cast<int64_t>(whole.element_size());
  }
  void add_barrier_wait(Collective op, double seconds) {
    barrier_wait_ns_[index(op)] += static_cast<int64_t>(seconds * 1e9);
  }
  // Throws std::invalid_argument unless `send` and `recv` fit a reduce-scatter (all-gather:
  // `gather`) over `ranks` ranks: same dtype, the whole buffer ranks x the block.
  static void check_block_shapes(const at::Tensor& send, const at::Tensor& recv, int ranks,
                                 bool gather);

 private:
  // the MPI communicator counts on its thread
  std::atomic<int64_t> allreduce_bytes_{0}, reduce_scatter_bytes_{0}, allgather_bytes_{0};
  std::array<std::atomic<int64_t>, 3> barrier_wait_ns_{};  // by Collective
  static size_t index(Collective op) { return static_cast<size_t>(op); }
};

// backend "mpi" or "nccl"; device "cpu" or "cuda". Throws std::invalid_argument for a backend
// that this build does not have.
std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world,
                                                MpiWait wait = MpiWait::kSpin);

}  // namespace vitsim::trainer
