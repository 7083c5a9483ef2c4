// The Torch-free core of vitsim-train's NCCL path: raw device pointers, element counts and types,
// cudaStream_t. It bootstraps an NCCL communicator (rank 0's ncclUniqueId sent over MPI with
// MPI_Bcast of its bytes, then ncclCommInitRank), enqueues all-reduces (sum, average) and
// broadcasts, reduce-scatters and all-gathers (ZeRO stages 1-3) on a caller's stream, picks a
// rank's GPU from its local rank, and times device work with CUDA events. NcclCommunicator
// (nccl_communicator.h) is the Torch glue around it; the logic lives here so that it compiles, and
// is tested, wherever the CUDA toolkit and NCCL are installed, with or without a CUDA LibTorch
// (library vitsim_nccl_core, VITSIM_HAVE_NCCL_CORE).
//
// Not here: stream/allocator bookkeeping of tensors (the glue's job) and any synchronisation with
// a compute stream (callers order their streams with events).
//
// Errors: every CUDA and NCCL call goes through VITSIM_CUDA_CHECK / VITSIM_NCCL_CHECK, which throw
// NcclError naming the call, file:line and the library's message. Nothing here aborts: a caller
// that runs under mpirun decides whether to MPI_Abort (the trainer does; tests report).
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 10, 0)
#error "vitsim_nccl_core needs NCCL >= 2.10 (ncclBfloat16, the ds-bf16 wire)"
#endif

#define VITSIM_NCCL_CHECK(call)                                                               \
  do {                                                                                        \
    const ncclResult_t vitsim_nccl_rc_ = (call);                                              \
    if (vitsim_nccl_rc_ != ncclSuccess)                                                       \
      ::vitsim::trainer::nccl_core_fail(#call, ncclGetErrorString(vitsim_nccl_rc_), __FILE__, \
                                        __LINE__);                                            \
  } while (0)

#define VITSIM_CUDA_CHECK(call)                                                               \
  do {                                                                                        \
    const cudaError_t vitsim_cuda_rc_ = (call);                                               \
    if (vitsim_cuda_rc_ != cudaSuccess)                                                       \
      ::vitsim::trainer::nccl_core_fail(#call, cudaGetErrorString(vitsim_cuda_rc_), __FILE__, \
                                        __LINE__);                                            \
  } while (0)

namespace vitsim::trainer {

// A failed CUDA, NCCL or MPI call of the NCCL path; what() is "CALL failed at FILE:LINE: WHY".
class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void nccl_core_fail(const char* call, const char* why, const char* file, int line);

// How many CUDA devices this process sees. Never throws: with no driver, no device or a driver
// older than the runtime, returns 0 and says why in *why (for test skips and error hints).
int cuda_device_count(std::string* why = nullptr);

// This rank's index among the ranks of its host: OMPI_COMM_WORLD_LOCAL_RANK when Open MPI's
// launcher set it, else MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) on `comm` (collective then).
int mpi_local_rank(MPI_Comm comm);

// The GPU for a rank: local_rank modulo the visible devices (so CUDA_VISIBLE_DEVICES narrowed to
// one device per rank works too). Throws NcclError when no device is visible.
int device_for_local_rank(int local_rank);

// Rank root's ncclUniqueId on every rank of comm (root calls ncclGetUniqueId, then MPI_Bcast of
// the id's bytes). Collective over comm.
ncclUniqueId broadcast_unique_id(MPI_Comm comm, int root);

size_t nccl_type_size_bytes(ncclDataType_t type);

// One NCCL communicator on one device. Not copyable; destroying it destroys the communicator
// (without waiting: callers synchronise their streams first if the results matter).
class NcclCore {
 public:
  // Collective over the ranks of `comm`: selects `device`, broadcasts rank 0's id over MPI and
  // joins the NCCL communicator with this rank's MPI rank and size.
  NcclCore(MPI_Comm comm, int device);
  // Without MPI: joins the communicator `id` as `rank` of `size` (1-rank jobs, tests, or ids sent
  // by other means).
  NcclCore(const ncclUniqueId& id, int size, int rank, int device);
  ~NcclCore();
  NcclCore(const NcclCore&) = delete;
  NcclCore& operator=(const NcclCore&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  ncclComm_t comm() const { return comm_; }

  // Enqueue on `stream`; send == recv is an in-place operation. `count` is in elements of `type`.
  void all_reduce_sum(const void* send, void* recv, size_t count, ncclDataType_t type,
                      cudaStream_t stream);
  // recv (recv_count elements) receives this rank's block of the sum of every rank's send
  // (size() x recv_count elements). In place when recv is send + rank() x recv_count.
  void reduce_scatter_sum(const void* send, void* recv, size_t recv_count, ncclDataType_t type,
                          cudaStream_t stream);
  // recv (size() x send_count elements) receives rank r's send at r x send_count. In place when
  // send is recv + rank() x send_count.
  void all_gather(const void* send, void* recv, size_t send_count, ncclDataType_t type,
                  cudaStream_t stream);
  // recv on every rank receives root's send (send is read on root only).
  void broadcast(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                 cudaStream_t stream);

 private:
  void init(const ncclUniqueId& id);
  void all_reduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                  cudaStream_t stream);

  int rank_ = 0, size_ = 1, device_ = 0;
  ncclComm_t comm_ = nullptr;
};

// Elapsed device time between two points of one stream (cudaEventElapsedTime: ~0.5 us
// resolution). start() and stop() enqueue; elapsed_s() waits for stop.
class CudaEventTimer {
 public:
  CudaEventTimer();
  ~CudaEventTimer();
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  double elapsed_s();

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace vitsim::trainer
