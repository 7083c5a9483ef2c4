// How gradients are summed across ranks. Two implementations: MpiCommunicator (MPI_Allreduce on
// a communication thread, CPU tensors; works everywhere) and NcclCommunicator (ncclAllReduce on
// CUDA tensors; built only with a CUDA LibTorch and NCCL). The gradient reducer and
// bench-allreduce talk only to this.
//
// Collective order: every rank must start the same all-reduces in the same order (MPI and NCCL
// both match collectives by order, not by name).
#pragma once

#include <ATen/ATen.h>

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
  // Blocks until the all-reduce is done (guarded by the watchdog).
  virtual void wait(Handle handle) = 0;
  // Sends rank root's tensor to every rank, in place (initial parameters).
  virtual void broadcast(const at::Tensor& tensor, int root) = 0;
  // Blocks until the device work queued so far is done (CUDA streams); no-op on CPU.
  virtual void synchronize() {}

  // Bytes handed to the all-reduce calls so far (elements x element size of every buffer given
  // to MPI_Allreduce / ncclAllReduce): what the gradients put on the wire, counted where they
  // leave, so tests and the trainer's summary can check the regime's bytes per parameter.
  int64_t allreduce_bytes() const { return allreduce_bytes_.load(); }

 protected:
  void count_allreduce(const at::Tensor& buffer) {
    allreduce_bytes_ += buffer.numel() * static_cast<int64_t>(buffer.element_size());
  }

 private:
  std::atomic<int64_t> allreduce_bytes_{0};  // the MPI communicator counts on its thread
};

// backend "mpi" or "nccl"; device "cpu" or "cuda". Throws std::invalid_argument for a backend
// that this build does not have.
std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world,
                                                MpiWait wait = MpiWait::kSpin);

}  // namespace vitsim::trainer
