// How gradients are summed across ranks. Two implementations: MpiCommunicator (MPI_Allreduce on
// a communication thread, CPU tensors; works everywhere) and NcclCommunicator (ncclAllReduce on
// CUDA tensors; built only with a CUDA LibTorch and NCCL). The gradient reducer and
// bench-allreduce talk only to this.
//
// Collective order: every rank must start the same all-reduces in the same order (MPI and NCCL
// both match collectives by order, not by name).
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>

namespace vitsim::trainer {

class MpiWorld;

class Communicator {
 public:
  using Handle = int64_t;
  virtual ~Communicator() = default;

  virtual const char* backend() const = 0;  // "mpi" | "nccl"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Starts summing `buffer` (contiguous fp32, on this communicator's device) across ranks, in
  // place. The buffer must stay alive and untouched until wait() returns.
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
};

// backend "mpi" or "nccl"; device "cpu" or "cuda". Throws std::invalid_argument for a backend
// that this build does not have.
std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world);

}  // namespace vitsim::trainer
