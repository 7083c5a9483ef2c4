// The 2-rank half of nccl_core_test: started by the test under `mpirun -np 2`, one GPU per rank
// (chosen from the local rank). Each rank fills a buffer with rank-dependent values, then checks
// an NCCL sum, broadcast, reduce-scatter and all-gather (in place and not, as ZeRO's flat
// parameters use them) against the values computed on the host. Exits 0 when every
// rank agrees, 1 (with the first mismatch on stderr) otherwise; a CUDA/NCCL/MPI failure prints
// the call and file:line.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "trainer/nccl_core.h"

namespace {

using vitsim::trainer::NcclCore;

// Rank r holds (r + 1) * (i % 97) at index i: sums and averages are exact in fp32.
float value(int rank, size_t i) {
  return static_cast<float>((rank + 1) * static_cast<int>(i % 97));
}

int check(const char* what, const std::vector<float>& got, const std::vector<float>& want,
          int rank) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      std::fprintf(stderr, "rank %d: %s[%zu] = %g, expected %g\n", rank, what, i, got[i], want[i]);
      return 1;
    }
  }
  return 0;
}

int run() {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int device =
      vitsim::trainer::device_for_local_rank(vitsim::trainer::mpi_local_rank(MPI_COMM_WORLD));
  NcclCore core(MPI_COMM_WORLD, device);
  const size_t n = (1u << 18) + 5;
  std::vector<float> host(n), sum(n), root1(n);
  for (size_t i = 0; i < n; ++i) {
    host[i] = value(rank, i);
    root1[i] = value(1, i);
    sum[i] = 0.0f;
    for (int r = 0; r < size; ++r) sum[i] += value(r, i);
  }
  cudaStream_t stream = nullptr;
  VITSIM_CUDA_CHECK(cudaStreamCreate(&stream));
  float *a = nullptr, *b = nullptr;
  VITSIM_CUDA_CHECK(cudaMalloc(&a, n * sizeof(float)));
  VITSIM_CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
  VITSIM_CUDA_CHECK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  core.all_reduce_sum(a, b, n, ncclFloat32, stream);
  core.all_reduce_sum(a, a, n, ncclFloat32, stream);  // in place, as the trainer's buckets
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> got(n);
  int bad = 0;
  VITSIM_CUDA_CHECK(cudaMemcpy(got.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
  bad |= check("sum", got, sum, rank);
  VITSIM_CUDA_CHECK(cudaMemcpy(got.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  bad |= check("in-place sum", got, sum, rank);
  VITSIM_CUDA_CHECK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  core.broadcast(a, a, n, ncclFloat32, /*root=*/1, stream);
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  VITSIM_CUDA_CHECK(cudaMemcpy(got.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  bad |= check("broadcast", got, root1, rank);
  // Reduce-scatter: rank r receives block r of the sum; all-gather puts every block back.
  const size_t block = n / static_cast<size_t>(size);
  const size_t whole = block * static_cast<size_t>(size);
  VITSIM_CUDA_CHECK(cudaMemcpy(a, host.data(), whole * sizeof(float), cudaMemcpyHostToDevice));
  core.reduce_scatter_sum(a, b, block, ncclFloat32, stream);
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> mine(block),
      want_block(sum.begin() + rank * block, sum.begin() + (rank + 1) * block);
  VITSIM_CUDA_CHECK(cudaMemcpy(mine.data(), b, block * sizeof(float), cudaMemcpyDeviceToHost));
  bad |= check("reduce-scatter", mine, want_block, rank);
  // In place: this rank's block already at its offset of the whole buffer.
  VITSIM_CUDA_CHECK(
      cudaMemcpy(a + rank * block, b, block * sizeof(float), cudaMemcpyDeviceToDevice));
  core.all_gather(a + rank * block, a, block, ncclFloat32, stream);
  VITSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> gathered(whole), want_whole(sum.begin(), sum.begin() + whole);
  VITSIM_CUDA_CHECK(cudaMemcpy(gathered.data(), a, whole * sizeof(float), cudaMemcpyDeviceToHost));
  bad |= check("all-gather", gathered, want_whole, rank);
  cudaFree(a);
  cudaFree(b);
  cudaStreamDestroy(stream);
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("nccl_core_mpi_check: %d ranks, %s\n", size, any_bad ? "FAIL" : "ok");
  return any_bad;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 1;
  try {
    rc = run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nccl_core_mpi_check: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
