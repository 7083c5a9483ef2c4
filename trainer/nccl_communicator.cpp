// NCCL communicator (nccl_communicator.h). Compiled only when VITSIM_HAVE_CUDA.
#include "trainer/nccl_communicator.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace vitsim::trainer {

void nccl_fail(const char* call, const char* what, const char* file, int line) {
  std::fprintf(stderr, "vitsim-train: %s failed at %s:%d: %s\n", call, file, line, what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

namespace {
int pick_device(const MpiWorld& world) {
  const int count = static_cast<int>(c10::cuda::device_count());
  if (count < 1) throw std::invalid_argument("--backend nccl: no CUDA device visible");
  return world.local_rank() % count;
}
}  // namespace

NcclCommunicator::NcclCommunicator(MpiWorld& world)
    : world_(world),
      device_(pick_device(world)),
      stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/true,
                                           static_cast<c10::DeviceIndex>(device_))) {
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(device_));
  ncclUniqueId id;
  if (world_.rank() == 0) VITSIM_NCCL_CHECK(ncclGetUniqueId(&id));
  std::string bytes(reinterpret_cast<const char*>(&id), sizeof(id));
  world_.broadcast(bytes, 0);
  std::memcpy(&id, bytes.data(), sizeof(id));
  WatchdogScope guard(world_.watchdog(), "ncclCommInitRank");
  VITSIM_NCCL_CHECK(ncclCommInitRank(&comm_, world_.size(), id, world_.rank()));
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_) ncclCommDestroy(comm_);
}

Communicator::Handle NcclCommunicator::start_allreduce(const at::Tensor& buffer) {
  if (!buffer.is_cuda() || !buffer.is_contiguous() || buffer.scalar_type() != at::kFloat) {
    throw std::invalid_argument("NcclCommunicator: expected a contiguous fp32 CUDA tensor");
  }
  c10::cuda::CUDAGuard guard(buffer.device());
  // The all-reduce must start after the compute stream has produced the buffer.
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream());
  ready.block(stream_);
  VITSIM_NCCL_CHECK(ncclAllReduce(buffer.data_ptr(), buffer.data_ptr(), buffer.numel(), ncclFloat,
                                  ncclSum, comm_, stream_.stream()));
  // The caching allocator must not hand the buffer out again before NCCL is done with it.
  c10::cuda::CUDACachingAllocator::recordStream(buffer.storage().data_ptr(), stream_);
  auto done = std::make_unique<at::cuda::CUDAEvent>();
  done->record(stream_);
  const Handle h = next_++;
  pending_.emplace(h, std::move(done));
  return h;
}

void NcclCommunicator::wait(Handle handle) {
  auto it = pending_.find(handle);
  if (it == pending_.end()) throw std::logic_error("NcclCommunicator::wait: unknown handle");
  {
    // Poll rather than block in cudaEventSynchronize, so the watchdog can end a job whose peer
    // died (NCCL would wait forever).
    WatchdogScope guard(world_.watchdog(), "ncclAllReduce of a gradient bucket");
    while (!it->second->query()) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  it->second->block(c10::cuda::getCurrentCUDAStream());
  pending_.erase(it);
}

void NcclCommunicator::broadcast(const at::Tensor& tensor, int root) {
  c10::cuda::CUDAGuard guard(tensor.device());
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream());
  ready.block(stream_);
  VITSIM_NCCL_CHECK(ncclBroadcast(tensor.data_ptr(), tensor.data_ptr(), tensor.numel(),
                                  ncclFloat, root, comm_, stream_.stream()));
  WatchdogScope watch(world_.watchdog(), "ncclBroadcast of the initial parameters");
  stream_.synchronize();
}

void NcclCommunicator::synchronize() {
  c10::cuda::getCurrentCUDAStream().synchronize();
  stream_.synchronize();
}

}  // namespace vitsim::trainer
