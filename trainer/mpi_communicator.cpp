// MPI communicator (mpi_communicator.h) and the backend factory.
#include "trainer/mpi_communicator.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "trainer/bf16_sum.h"

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
}  // namespace

MpiCommunicator::MpiCommunicator(MpiWorld& world, MpiWait wait)
    : world_(world), wait_(wait), bf16_sum_(create_bf16_sum_op()) {
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

// fp32 buffers use MPI's own sum; bf16 buffers (ds-bf16) travel as 2-byte MPI_UINT16_T elements
// summed by the custom op of bf16_sum.h, since Open MPI 4.1 has no bf16 datatype.
void MpiCommunicator::reduce(const at::Tensor& buffer) {
  wait_for_peers();
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
  poll_until_done(request);
}

// Open MPI's blocking collectives busy-poll: a rank that reaches the all-reduce first spins on its
// core until the slowest peer arrives. With one core per rank and anything else on the machine,
// that spinning takes CPU from the peers that are still computing (gloo sleeps in the kernel
// instead). So the ranks first meet in a non-blocking barrier, polled with MPI_Test: a short spin
// (peers already there: the barrier takes microseconds), then sleeps that double from 20 us to
// 200 us. The all-reduce then starts with every rank present and only moves data.
// Measured in bench/RESULTS.md ("Trainer on a CPU": under load).
void MpiCommunicator::wait_for_peers() {
  if (world_.size() < 2) return;
  MPI_Request request;
  VITSIM_MPI_CHECK(MPI_Ibarrier(world_.comm(), &request));
  poll_until_done(request);
}

void MpiCommunicator::poll_until_done(MPI_Request& request) {
  int done = 0;
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  while (!done && std::chrono::steady_clock::now() < spin_until) {
    VITSIM_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  }
  int sleep_us = 20;
  while (!done) {
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    sleep_us = std::min(2 * sleep_us, 200);
    VITSIM_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  }
}

void MpiCommunicator::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = queue_.front();  // stays queued while reduced: wait() sees it pending
    lock.unlock();
    reduce(job.buffer);
    lock.lock();
    queue_.pop_front();
    done_.insert(job.handle);
    cv_.notify_all();
  }
}

Communicator::Handle MpiCommunicator::start_allreduce(const at::Tensor& buffer) {
  check_buffer(buffer);
  std::lock_guard<std::mutex> lock(mutex_);
  const Handle h = next_++;
  queue_.push_back({h, buffer});
  cv_.notify_all();
  return h;
}

void MpiCommunicator::wait(Handle handle) {
  WatchdogScope guard(world_.watchdog(), "MPI_Allreduce of a gradient bucket");
  std::unique_lock<std::mutex> lock(mutex_);
  if (!thread_.joinable()) {
    // No communication thread: reduce everything up to this handle here, in order.
    while (!done_.count(handle)) {
      if (queue_.empty()) throw std::logic_error("MpiCommunicator::wait: unknown handle");
      Job job = queue_.front();
      queue_.pop_front();
      reduce(job.buffer);
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
