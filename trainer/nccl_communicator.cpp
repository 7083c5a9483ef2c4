// NCCL communicator (nccl_communicator.h): Torch streams, events and allocator around NcclCore.
// Compiled only when VITSIM_HAVE_CUDA.
#include "trainer/nccl_communicator.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <utility>

namespace vitsim::trainer {

void nccl_fail(const char* what) {
  std::fprintf(stderr, "vitsim-train: %s\n", what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

namespace {

// Runs one NcclCore step; a failed CUDA/NCCL/MPI call ends the job (see nccl_fail).
template <typename Fn>
auto or_abort(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const NcclError& e) {
    nccl_fail(e.what());
  }
}

// The stream's device is fixed before the NcclCore exists; both use the same index.
c10::DeviceIndex pick_device(const MpiWorld& world) {
  // device_for_local_rank throws std::runtime_error (NcclError) with a hint when no GPU is
  // visible: that is a usage error reported like bad options, not a crash.
  return static_cast<c10::DeviceIndex>(device_for_local_rank(world.local_rank()));
}

}  // namespace

NcclCommunicator::NcclCommunicator(MpiWorld& world)
    : world_(world),
      stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/true, pick_device(world))) {
  const c10::DeviceIndex device = stream_.device_index();
  c10::cuda::set_device(device);
  // MPI_Bcast of the id, then ncclCommInitRank: both wait for every rank.
  WatchdogScope guard(world_.watchdog(), "NCCL bootstrap (MPI_Bcast of the id, ncclCommInitRank)");
  core_ = or_abort([&] { return std::make_unique<NcclCore>(world_.comm(), device); });
}

NcclCommunicator::~NcclCommunicator() = default;

void NcclCommunicator::check_tensor(const at::Tensor& tensor, const char* what) const {
  const bool dtype_ok = tensor.scalar_type() == at::kFloat ||
                        (tensor.scalar_type() == at::kBFloat16 && std::string(what) != "broadcast");
  if (!tensor.is_cuda() || !tensor.is_contiguous() || !dtype_ok ||
      tensor.device().index() != core_->device()) {
    throw std::invalid_argument(
        std::string("NcclCommunicator::") + what +
        ": expected a contiguous fp32 (collectives but broadcast: or bf16) tensor on cuda:" +
        std::to_string(core_->device()) + ", got " + tensor.toString() + " on " +
        tensor.device().str());
  }
}

template <typename Collective>
Communicator::Handle NcclCommunicator::enqueue(const at::Tensor& a, const at::Tensor& b,
                                               Collective&& collective) {
  c10::cuda::CUDAGuard guard(a.device());
  // The collective must start after the compute stream has produced the buffers.
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream());
  ready.block(stream_);
  or_abort([&] { collective(stream_.stream()); });
  // The caching allocator must not hand the buffers out again before NCCL is done with them.
  c10::cuda::CUDACachingAllocator::recordStream(a.storage().data_ptr(), stream_);
  if (b.defined()) c10::cuda::CUDACachingAllocator::recordStream(b.storage().data_ptr(), stream_);
  auto done = std::make_unique<at::cuda::CUDAEvent>();
  done->record(stream_);
  const Handle h = next_++;
  pending_.emplace(h, std::move(done));
  return h;
}

namespace {
// NCCL sums and moves bf16 natively (ncclBfloat16, NCCL >= 2.10): the ds-bf16 wire.
ncclDataType_t nccl_type(const at::Tensor& t) {
  return t.scalar_type() == at::kBFloat16 ? ncclBfloat16 : ncclFloat32;
}
}  // namespace

Communicator::Handle NcclCommunicator::start_allreduce(const at::Tensor& buffer) {
  check_tensor(buffer, "start_allreduce");
  count_allreduce(buffer);
  void* data = buffer.data_ptr();
  return enqueue(buffer, at::Tensor(), [&](cudaStream_t stream) {
    core_->all_reduce_sum(data, data, static_cast<size_t>(buffer.numel()), nccl_type(buffer),
                          stream);
  });
}

Communicator::Handle NcclCommunicator::start_reduce_scatter(const at::Tensor& send,
                                                            const at::Tensor& recv) {
  check_tensor(send, "start_reduce_scatter");
  check_tensor(recv, "start_reduce_scatter");
  check_block_shapes(send, recv, size(), /*gather=*/false);
  count_reduce_scatter(send);
  return enqueue(send, recv, [&](cudaStream_t stream) {
    core_->reduce_scatter_sum(send.data_ptr(), recv.data_ptr(), static_cast<size_t>(recv.numel()),
                              nccl_type(send), stream);
  });
}

Communicator::Handle NcclCommunicator::start_allgather(const at::Tensor& send,
                                                       const at::Tensor& recv) {
  check_tensor(send, "start_allgather");
  check_tensor(recv, "start_allgather");
  check_block_shapes(send, recv, size(), /*gather=*/true);
  count_allgather(recv);
  return enqueue(send, recv, [&](cudaStream_t stream) {
    core_->all_gather(send.data_ptr(), recv.data_ptr(), static_cast<size_t>(send.numel()),
                      nccl_type(send), stream);
  });
}

void NcclCommunicator::wait(Handle handle) {
  auto it = pending_.find(handle);
  if (it == pending_.end()) throw std::logic_error("NcclCommunicator::wait: unknown handle");
  {
    // Poll rather than block in cudaEventSynchronize, so the watchdog can end a job whose peer
    // died (NCCL would wait forever).
    WatchdogScope guard(world_.watchdog(), "an NCCL collective (gradient bucket or shard)");
    while (!it->second->query()) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  // Later compute-stream work (the optimizer) reads the reduced buffer.
  c10::cuda::CUDAGuard guard(stream_.device());
  it->second->block(c10::cuda::getCurrentCUDAStream());
  pending_.erase(it);
}

void NcclCommunicator::broadcast(const at::Tensor& tensor, int root) {
  check_tensor(tensor, "broadcast");
  c10::cuda::CUDAGuard guard(tensor.device());
  at::cuda::CUDAEvent ready;
  ready.record(c10::cuda::getCurrentCUDAStream());
  ready.block(stream_);
  void* data = tensor.data_ptr();
  or_abort([&] {
    core_->broadcast(data, data, static_cast<size_t>(tensor.numel()), ncclFloat32, root,
                     stream_.stream());
  });
  c10::cuda::CUDACachingAllocator::recordStream(tensor.storage().data_ptr(), stream_);
  WatchdogScope watch(world_.watchdog(), "ncclBroadcast of the initial parameters");
  stream_.synchronize();
}

void NcclCommunicator::synchronize() {
  c10::cuda::CUDAGuard guard(stream_.device());
  c10::cuda::getCurrentCUDAStream().synchronize();
  stream_.synchronize();
}

}  // namespace vitsim::trainer
