// The MPI communicator's reduce-scatter (ZeRO stages 2-3 on a CPU) as NCCL's ring: N-1 steps, in
// each of which every rank sends one block to its right neighbour (rank + 1) and receives one from
// its left (rank - 1), adds its own contribution to that block and passes the sum on at the next
// step; after the last step each rank holds its own block of the sum. Each rank sends and
// receives (N-1)/N of the whole buffer, the count the simulator's ring assumes
// (docs/sharding.md, "What is measured"). Open MPI 4.1's MPI_(I)reduce_scatter_block is a
// reduce to rank 0 and a scatter, several times those bytes through rank 0's link.
// The order follows NCCL's ring (src/device/reduce_scatter.h, runRing): at step 1 rank r sends
// its own block r-1; block b's sum starts at rank b+1 and ends at rank b, each addition rounded
// in the element type. How a step waits follows MpiWait (mpi_wait.h): kSpin MPI_Sendrecv, kPoll
// MPI_Isend/MPI_Irecv tested with sleeps (mpi_poll.h). No Torch.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "trainer/mpi_wait.h"

namespace vitsim::trainer {

enum class RingElement { kFloat32, kBfloat16 };  // bf16 as 2-byte words, summed as bf16_sum.h

class RingReduceScatter {
 public:
  RingReduceScatter(MPI_Comm comm, MpiWait wait) : comm_(comm), wait_(wait) {}

  // `send`: size(comm) blocks of `block_count` elements, block b destined for rank b; `recv`:
  // this rank's block of the element-wise sum over ranks. The two must not overlap. Every rank
  // calls it with the same block_count and element (as MPI's collectives require). Throws
  // std::invalid_argument for a negative count, one above MPI's int count, or overlapping buffers.
  void run(const void* send, void* recv, int64_t block_count, RingElement element);

 private:
  // Sends `out` to the right neighbour while receiving `in` from the left, `count` elements.
  void exchange(const void* out, void* in, int count, MPI_Datatype type);

  MPI_Comm comm_;
  MpiWait wait_;
  std::vector<unsigned char> scratch_;  // the second of the two blocks a step alternates between
};

// inout[i] += in[i] for i < count, in the element type (bf16: bf16_sum.h's rounding).
void add_block(const void* in, void* inout, int64_t count, RingElement element);

}  // namespace vitsim::trainer
