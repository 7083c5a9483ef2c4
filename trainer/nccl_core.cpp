// NCCL bootstrap, collectives and CUDA event timing without Torch (nccl_core.h).
#include "trainer/nccl_core.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace vitsim::trainer {

void nccl_core_fail(const char* call, const char* why, const char* file, int line) {
  throw NcclError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  why);
}

namespace {

void mpi_check(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  nccl_core_fail(call, text, file, line);
}

#define VITSIM_CORE_MPI_CHECK(call) mpi_check((call), #call, __FILE__, __LINE__)

}  // namespace

int cuda_device_count(std::string* why) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    // No driver, no device, or a driver too old for this runtime: the process has no GPU.
    if (why) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(rc);
    cudaGetLastError();  // reset the runtime's last-error state; the failure is not sticky
    return 0;
  }
  if (why) *why = count == 0 ? "cudaGetDeviceCount: 0 devices" : "";
  return count;
}

int mpi_local_rank(MPI_Comm comm) {
  if (const char* env = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"); env && *env) {
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (end && *end == '\0' && value >= 0) return static_cast<int>(value);
  }
  MPI_Comm local = MPI_COMM_NULL;
  VITSIM_CORE_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  int rank = 0;
  VITSIM_CORE_MPI_CHECK(MPI_Comm_rank(local, &rank));
  MPI_Comm_free(&local);
  return rank;
}

int device_for_local_rank(int local_rank) {
  std::string why;
  const int count = cuda_device_count(&why);
  if (count < 1) {
    throw NcclError("no CUDA device visible for the NCCL communicator (" + why +
                    "; hint: check nvidia-smi and CUDA_VISIBLE_DEVICES)");
  }
  return local_rank % count;
}

ncclUniqueId broadcast_unique_id(MPI_Comm comm, int root) {
  int rank = 0;
  VITSIM_CORE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (rank == root) VITSIM_NCCL_CHECK(ncclGetUniqueId(&id));
  // The id is an opaque byte array (NCCL_UNIQUE_ID_BYTES): send it as bytes.
  VITSIM_CORE_MPI_CHECK(MPI_Bcast(&id, static_cast<int>(sizeof(id)), MPI_BYTE, root, comm));
  return id;
}

size_t nccl_type_size_bytes(ncclDataType_t type) {
  switch (type) {
    case ncclInt8:
    case ncclUint8:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:  // NCCL >= 2.10, required by nccl_core.h
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      throw NcclError("nccl_type_size_bytes: unsupported ncclDataType_t " +
                      std::to_string(static_cast<int>(type)));
  }
}

NcclCore::NcclCore(MPI_Comm comm, int device) : device_(device) {
  VITSIM_CORE_MPI_CHECK(MPI_Comm_rank(comm, &rank_));
  VITSIM_CORE_MPI_CHECK(MPI_Comm_size(comm, &size_));
  // Select the device before ncclGetUniqueId: the id's bootstrap runs on this device's context.
  VITSIM_CUDA_CHECK(cudaSetDevice(device_));
  init(broadcast_unique_id(comm, 0));
}

NcclCore::NcclCore(const ncclUniqueId& id, int size, int rank, int device)
    : rank_(rank), size_(size), device_(device) {
  if (size < 1 || rank < 0 || rank >= size) {
    throw NcclError("NcclCore: rank " + std::to_string(rank) + " outside [0, " +
                    std::to_string(size) + ")");
  }
  init(id);
}

void NcclCore::init(const ncclUniqueId& id) {
  VITSIM_CUDA_CHECK(cudaSetDevice(device_));
  VITSIM_NCCL_CHECK(ncclCommInitRank(&comm_, size_, id, rank_));
}

NcclCore::~NcclCore() {
  if (comm_) ncclCommDestroy(comm_);
}

void NcclCore::all_reduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                          ncclRedOp_t op, cudaStream_t stream) {
  if (count == 0) return;
  VITSIM_CUDA_CHECK(cudaSetDevice(device_));
  VITSIM_NCCL_CHECK(ncclAllReduce(send, recv, count, type, op, comm_, stream));
}

void NcclCore::all_reduce_sum(const void* send, void* recv, size_t count, ncclDataType_t type,
                              cudaStream_t stream) {
  all_reduce(send, recv, count, type, ncclSum, stream);
}

void NcclCore::reduce_scatter_sum(const void* send, void* recv, size_t recv_count,
                                  ncclDataType_t type, cudaStream_t stream) {
  if (recv_count == 0) return;
  VITSIM_CUDA_CHECK(cudaSetDevice(device_));
  VITSIM_NCCL_CHECK(ncclReduceScatter(send, recv, recv_count, type, ncclSum, comm_, stream));
}

void NcclCore::all_gather(const void* send, void* recv, size_t send_count, ncclDataType_t type,
                          cudaStream_t stream) {
  if (send_count == 0) return;
  VITSIM_CUDA_CHECK(cudaSetDevice(device_));
  VITSIM_NCCL_CHECK(ncclAllGather(send, recv, send_count, type, comm_, stream));
}

void NcclCore::broadcast(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                         cudaStream_t stream) {
  if (count == 0) return;
  if (root < 0 || root >= size_) {
    throw NcclError("NcclCore::broadcast: root " + std::to_string(root) + " outside [0, " +
                    std::to_string(size_) + ")");
  }
  VITSIM_CUDA_CHECK(cudaSetDevice(device_));
  VITSIM_NCCL_CHECK(ncclBroadcast(send, recv, count, type, root, comm_, stream));
}

CudaEventTimer::CudaEventTimer() {
  VITSIM_CUDA_CHECK(cudaEventCreate(&start_));
  VITSIM_CUDA_CHECK(cudaEventCreate(&stop_));
}

CudaEventTimer::~CudaEventTimer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}

void CudaEventTimer::start(cudaStream_t stream) {
  VITSIM_CUDA_CHECK(cudaEventRecord(start_, stream));
}

void CudaEventTimer::stop(cudaStream_t stream) {
  VITSIM_CUDA_CHECK(cudaEventRecord(stop_, stream));
}

double CudaEventTimer::elapsed_s() {
  VITSIM_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  VITSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace vitsim::trainer
