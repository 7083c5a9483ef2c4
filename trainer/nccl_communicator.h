// Communicator over NCCL for CUDA tensors: the Torch glue around NcclCore (nccl_core.h), which
// owns the NCCL logic (id bootstrap over MPI, ncclCommInitRank, ncclAllReduce, ncclBroadcast).
// This file adds what needs Torch: a dedicated high-priority c10 stream so that all-reduces
// overlap the backward running on the compute stream, CUDA events ordering the two streams, the
// caching allocator's recordStream, and the collective watchdog around every blocking wait.
// Built only with a CUDA LibTorch and NCCL (VITSIM_HAVE_CUDA); one GPU per rank, chosen from the
// rank's local rank like the trainer's device (local_rank modulo the visible devices).
#pragma once

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

#include <memory>
#include <unordered_map>

#include "trainer/communicator.h"
#include "trainer/mpi_world.h"
#include "trainer/nccl_core.h"

namespace vitsim::trainer {

// Prints "vitsim-train: CALL failed at FILE:LINE: WHY" and ends the whole MPI job: a rank that
// leaves a collective would leave its peers waiting in NCCL forever.
[[noreturn]] void nccl_fail(const char* what);

class NcclCommunicator : public Communicator {
 public:
  explicit NcclCommunicator(MpiWorld& world);
  ~NcclCommunicator() override;

  const char* backend() const override { return "nccl"; }
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  Handle start_allreduce(const at::Tensor& buffer) override;
  Handle start_reduce_scatter(const at::Tensor& send, const at::Tensor& recv) override;
  Handle start_allgather(const at::Tensor& send, const at::Tensor& recv) override;
  void progress() override {}  // NCCL kernels progress on their own
  void wait(Handle handle) override;
  void broadcast(const at::Tensor& tensor, int root) override;
  void synchronize() override;

 private:
  void check_tensor(const at::Tensor& tensor, const char* what) const;
  // Orders the communication stream after the compute stream's work so far (the buffers are
  // ready), enqueues `collective` on it, keeps the buffers from the caching allocator until it is
  // done, and returns its handle.
  template <typename Collective>
  Handle enqueue(const at::Tensor& a, const at::Tensor& b, Collective&& collective);

  MpiWorld& world_;
  std::unique_ptr<NcclCore> core_;
  c10::cuda::CUDAStream stream_;
  Handle next_ = 0;
  std::unordered_map<Handle, std::unique_ptr<at::cuda::CUDAEvent>> pending_;
};

}  // namespace vitsim::trainer
