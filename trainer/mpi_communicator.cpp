// MPI communicator (mpi_communicator.h) and the backend factory.
#include "trainer/mpi_communicator.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <vector>

#include "trainer/bf16_sum.h"
#include "trainer/mpi_poll.h"

#ifdef VITSIM_HAVE_CUDA
#include "trainer/nccl_communicator.h"
#endif

namespace vitsim::trainer {
namespace {
void check_buffer(const at::Tensor& t) {
  if (!t.is_contiguous() || !t.device().is_cpu() ||
      (t.scalar_type() != at::kFloat && t.scalar_type() != at::kBFloat16)) {
    throw std::invalid_argument(
        "MpiCommunicator: expected a contiguous fp32 or bf16 CPU tensor, got " + t.toString());
  }
  if (t.numel() > INT_MAX) {
    throw std::invalid_argument("MpiCommunicator: buffer of " + std::to_string(t.numel()) +
                                " elements exceeds MPI's int count; use smaller buckets");
  }
}

// The rings' element type of a buffer check_buffer accepted (fp32 or bf16).
RingElement ring_element(const at::Tensor& t) {
  return t.scalar_type() == at::kBFloat16 ? RingElement::kBfloat16 : RingElement::kFloat32;
}
}  // namespace

MpiCommunicator::MpiCommunicator(MpiWorld& world, MpiWait wait)
    : world_(world), wait_(wait), bf16_sum_(create_bf16_sum_op()), ring_(world.comm(), wait) {
  if (world_.thread_level() >= MPI_THREAD_SERIALIZED) thread_ = std::thread([this] { loop(); });
}

MpiCommunicator::~MpiCommunicator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  MPI_Op_free(&bf16_sum_);
}

void Communicator::check_block_shapes(const at::Tensor& send, const at::Tensor& recv, int ranks,
                                      bool gather) {
  const at::Tensor& block = gather ? send : recv;
  const at::Tensor& whole = gather ? recv : send;
  if (send.scalar_type() != recv.scalar_type() || whole.numel() != block.numel() * ranks) {
    throw std::invalid_argument(
        std::string(gather ? "all-gather" : "reduce-scatter") + ": expected one dtype and a " +
        "whole buffer of " + std::to_string(ranks) + " x the block, got send " + send.toString() +
        " [" + std::to_string(send.numel()) + "] and recv " + recv.toString() + " [" +
        std::to_string(recv.numel()) + "]");
  }
}

// fp32 buffers use MPI's own sum; bf16 buffers (ds-bf16) travel as 2-byte MPI_UINT16_T elements
// summed by the custom op of bf16_sum.h, since Open MPI 4.1 has no bf16 datatype.
void MpiCommunicator::reduce(const at::Tensor& buffer) {
  const bool bf16 = buffer.scalar_type() == at::kBFloat16;
  count_allreduce(buffer);
  const int count = static_cast<int>(buffer.numel());
  const MPI_Datatype type = bf16 ? MPI_UINT16_T : MPI_FLOAT;
  const MPI_Op op = bf16 ? bf16_sum_ : MPI_SUM;
  if (wait_ == MpiWait::kSpin) {
    VITSIM_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, buffer.data_ptr(), count, type, op, world_.comm()));
    return;
  }
  MPI_Request request;
  VITSIM_MPI_CHECK(
      MPI_Iallreduce(MPI_IN_PLACE, buffer.data_ptr(), count, type, op, world_.comm(), &request));
  poll_until_done(&request, 1);
}

// ZeRO stages 2-3: each rank's block of the sum, as NCCL's ring (mpi_ring.h), not
// Open MPI's MPI_(I)reduce_scatter_block, whose reduce to rank 0 and scatter move 3-4x the ring's
// bytes through rank 0's link (docs/sharding.md, "Against the emulated cluster").
void MpiCommunicator::reduce_scatter(const at::Tensor& send, const at::Tensor& recv) {
  count_reduce_scatter(send);
  ring_.reduce_scatter(send.data_ptr(), recv.data_ptr(), recv.numel(), ring_element(send));
}

// ZeRO stages 1-3: every rank's block, as NCCL's ring (mpi_ring.h), not libnbc's linear
// MPI_Iallgather, whose N-1 simultaneous sends per rank took up to 1.8x the ring's time over the
// emulated links (docs/sharding.md, "Against the emulated cluster"). A send buffer that is this
// rank's own block of recv (the flat parameters of stages 1-2) is gathered in place.
void MpiCommunicator::allgather(const at::Tensor& send, const at::Tensor& recv) {
  count_allgather(recv);
  ring_.all_gather(send.data_ptr(), recv.data_ptr(), send.numel(), ring_element(send));
}

// Open MPI's blocking collectives busy-poll: a rank that reaches the all-reduce first spins on its
// core until the slowest peer arrives. With one core per rank and anything else on the machine,
// that spinning takes CPU from the peers that are still computing (gloo sleeps in the kernel
// instead). So the ranks first meet in a non-blocking barrier, polled with MPI_Test: a short spin
// (peers already there: the barrier takes microseconds), then sleeps that double from 20 us to
// 200 us. The all-reduce then starts with every rank present and only moves data.
// Measured in bench/RESULTS.md ("Trainer on a CPU": under load). A reduce-scatter's or
// all-gather's barrier wait is counted apart (barrier_wait_s): the run log's
// reduce_scatter_wait_time_s and allgather_wait_time_s; what follows it is the transfer. The
// all-reduce's is not: the run log's all-reduce wait is the readiness skew (communicator.h).
void MpiCommunicator::wait_for_peers(Collective op) {
  if (world_.size() < 2) return;
  const double arrived_s = MpiWorld::now_s();
  MPI_Request request;
  VITSIM_MPI_CHECK(MPI_Ibarrier(world_.comm(), &request));
  poll_until_done(&request, 1);
  if (op != Collective::kAllreduce) add_barrier_wait(op, MpiWorld::now_s() - arrived_s);
}

void MpiCommunicator::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = queue_.front();  // stays queued while reduced: wait() sees it pending
    lock.unlock();
    run(job);
    lock.lock();
    queue_.pop_front();
    done_.insert(job.handle);
    cv_.notify_all();
  }
}

// Every collective starts after the ranks meet (wait_for_peers).
void MpiCommunicator::run(const Job& job) {
  wait_for_peers(job.kind);
  switch (job.kind) {
    case Collective::kAllreduce:
      return reduce(job.buffer);
    case Collective::kReduceScatter:
      return reduce_scatter(job.buffer, job.recv);
    case Collective::kAllgather:
      return allgather(job.buffer, job.recv);
  }
}

Communicator::Handle MpiCommunicator::enqueue(Job job) {
  std::lock_guard<std::mutex> lock(mutex_);
  job.handle = next_++;
  queue_.push_back(std::move(job));
  cv_.notify_all();
  return queue_.back().handle;
}

Communicator::Handle MpiCommunicator::start_allreduce(const at::Tensor& buffer) {
  check_buffer(buffer);
  return enqueue({0, Collective::kAllreduce, buffer, {}});
}

Communicator::Handle MpiCommunicator::start_reduce_scatter(const at::Tensor& send,
                                                           const at::Tensor& recv) {
  check_buffer(send);
  check_buffer(recv);
  check_block_shapes(send, recv, world_.size(), /*gather=*/false);
  return enqueue({0, Collective::kReduceScatter, send, recv});
}

Communicator::Handle MpiCommunicator::start_allgather(const at::Tensor& send,
                                                      const at::Tensor& recv) {
  check_buffer(send);
  check_buffer(recv);
  check_block_shapes(send, recv, world_.size(), /*gather=*/true);
  return enqueue({0, Collective::kAllgather, send, recv});
}

void MpiCommunicator::wait(Handle handle) {
  WatchdogScope guard(world_.watchdog(), "an MPI collective (gradient bucket or parameter shard)");
  std::unique_lock<std::mutex> lock(mutex_);
  if (!thread_.joinable()) {
    // No communication thread: reduce everything up to this handle here, in order.
    while (!done_.count(handle)) {
      if (queue_.empty()) throw std::logic_error("MpiCommunicator::wait: unknown handle");
      Job job = queue_.front();
      queue_.pop_front();
      run(job);
      done_.insert(job.handle);
    }
  }
  cv_.wait(lock, [&] { return done_.count(handle) > 0; });
  done_.erase(handle);
}

void MpiCommunicator::broadcast(const at::Tensor& tensor, int root) {
  check_buffer(tensor);
  if (tensor.scalar_type() != at::kFloat)
    throw std::invalid_argument("MpiCommunicator::broadcast: expected fp32");
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return queue_.empty(); });  // SERIALIZED: the thread must be idle
  WatchdogScope guard(world_.watchdog(), "MPI_Bcast of the initial parameters");
  VITSIM_MPI_CHECK(MPI_Bcast(tensor.data_ptr<float>(), static_cast<int>(tensor.numel()), MPI_FLOAT,
                             root, world_.comm()));
}

std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world,
                                                MpiWait wait) {
  if (backend == "mpi") return std::make_unique<MpiCommunicator>(world, wait);
  if (backend == "nccl") {
#ifdef VITSIM_HAVE_CUDA
    return std::make_unique<NcclCommunicator>(world);
#else
    throw std::invalid_argument(
        "--backend nccl: this vitsim-train was built without CUDA/NCCL (CPU LibTorch); use mpi");
#endif
  }
  throw std::invalid_argument("unknown backend '" + backend + "' (expected mpi or nccl)");
}

}  // namespace vitsim::trainer
