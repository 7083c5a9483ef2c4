// The MPI communicator's reduce-scatter and all-gather (ZeRO stages 1-3 on a CPU) as NCCL's rings
// over MPI point-to-point: N-1 steps, in each of which every rank sends one block to its right
// neighbour (rank + 1) and receives one from its left (rank - 1). Each rank sends and receives
// (N-1)/N of the whole buffer, one message at a time, the count and pattern the simulator's ring
// assumes (docs/sharding.md, "What is measured"). Open MPI 4.1's reduce-scatter is a reduce to
// rank 0 and a scatter, several times those bytes through rank 0's link; its non-blocking
// all-gather (libnbc) sends each block to all N-1 peers at once, which over the emulated
// cluster's shaped links took up to 1.8x the ring's time (docs/sharding.md, "Against the emulated
// cluster").
// - reduce_scatter: NCCL's order (src/device/reduce_scatter.h, runRing): at step 1 rank r sends
//   its own part of block r-1; each rank adds its part to the partial sum it receives and passes
//   it on, so block b's sum starts at rank b+1 and ends at rank b, each addition rounded in the
//   element type (bf16: bf16_sum.h's widen, add, round to nearest even).
// - all_gather: NCCL's order (src/device/all_gather.h, runRing): at step j rank r forwards block
//   r-j+1 and receives block r-j.
// How a step waits follows MpiWait (mpi_wait.h): kSpin MPI_Sendrecv, kPoll MPI_Isend/MPI_Irecv
// tested with sleeps (mpi_poll.h). No Torch.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "trainer/mpi_wait.h"

namespace vitsim::trainer {

enum class RingElement { kFloat32, kBfloat16 };  // bf16 as 2-byte words, summed as bf16_sum.h

class MpiRing {
 public:
  // Reads the communicator's rank and size once: a ring serves one communicator for its life.
  MpiRing(MPI_Comm comm, MpiWait wait);

  // `send`: size(comm) blocks of `block_count` elements, block b destined for rank b; `recv`:
  // this rank's block of the element-wise sum over ranks. The two must not overlap. Every rank
  // calls it with the same block_count and element (as MPI's collectives require). Throws
  // std::invalid_argument for a negative count, one above MPI's int count, or overlapping buffers.
  void reduce_scatter(const void* send, void* recv, int64_t block_count, RingElement element);

  // `send`: this rank's block of `block_count` elements, either apart from `recv` or exactly its
  // own block of it (in place); `recv`: size(comm) blocks, block b from rank b. Throws as above.
  void all_gather(const void* send, void* recv, int64_t block_count, RingElement element);

 private:
  // Sends `out` to the right neighbour while receiving `in` from the left, `count` elements.
  void exchange(const void* out, void* in, int count, MPI_Datatype type);
  void size_up(int64_t block_count, RingElement element);  // bytes_, type_; checks the count

  MPI_Comm comm_;
  MpiWait wait_;
  int rank_ = 0, n_ = 1;  // this rank and the ranks in comm_, read where the ring is made
  size_t bytes_ = 0;      // one block's
  MPI_Datatype type_ = MPI_FLOAT;
  std::vector<unsigned char> scratch_;  // the second of the two blocks a reduce-scatter alternates
};

// inout[i] += in[i] for i < count, in the element type (bf16: bf16_sum.h's rounding).
void add_block(const void* in, void* inout, int64_t count, RingElement element);

}  // namespace vitsim::trainer
