// Communicator over NCCL: ncclAllReduce (sum, fp32) on CUDA tensors, on a dedicated stream so that
// all-reduces overlap the backward running on the compute stream. The NCCL communicator is
// bootstrapped by broadcasting rank 0's ncclUniqueId over MPI. Built only with a CUDA LibTorch and
// NCCL (VITSIM_HAVE_CUDA); one GPU per rank, chosen by the rank's local rank.
#pragma once

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#include <nccl.h>

#include <memory>
#include <unordered_map>

#include "trainer/communicator.h"
#include "trainer/mpi_world.h"

// NCCL and CUDA calls name the call, file and line when they fail.
#define VITSIM_NCCL_CHECK(call)                                                              \
  do {                                                                                       \
    const ncclResult_t vitsim_nccl_rc_ = (call);                                             \
    if (vitsim_nccl_rc_ != ncclSuccess)                                                      \
      ::vitsim::trainer::nccl_fail(#call, ncclGetErrorString(vitsim_nccl_rc_), __FILE__,     \
                                   __LINE__);                                                \
  } while (0)

namespace vitsim::trainer {

[[noreturn]] void nccl_fail(const char* call, const char* what, const char* file, int line);

class NcclCommunicator : public Communicator {
 public:
  explicit NcclCommunicator(MpiWorld& world);
  ~NcclCommunicator() override;

  const char* backend() const override { return "nccl"; }
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  Handle start_allreduce(const at::Tensor& buffer) override;
  void progress() override {}  // NCCL kernels progress on their own
  void wait(Handle handle) override;
  void broadcast(const at::Tensor& tensor, int root) override;
  void synchronize() override;

 private:
  MpiWorld& world_;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  c10::cuda::CUDAStream stream_;
  Handle next_ = 0;
  std::unordered_map<Handle, std::unique_ptr<at::cuda::CUDAEvent>> pending_;
};

}  // namespace vitsim::trainer
