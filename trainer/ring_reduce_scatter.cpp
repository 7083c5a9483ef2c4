// The ring reduce-scatter (ring_reduce_scatter.h).
#include "trainer/ring_reduce_scatter.h"

#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include "trainer/bf16_sum.h"
#include "trainer/mpi_poll.h"
#include "trainer/mpi_world.h"

namespace vitsim::trainer {
namespace {

constexpr int kRingTag = 0x5253;  // the ring's messages; the trainer sends no other point-to-point

size_t element_bytes(RingElement element) {
  return element == RingElement::kFloat32 ? 4 : 2;
}

}  // namespace

void add_block(const void* in, void* inout, int64_t count, RingElement element) {
  if (element == RingElement::kBfloat16) {
    bf16_sum(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(inout),
             static_cast<size_t>(count));
    return;
  }
  const float* a = static_cast<const float*>(in);
  float* b = static_cast<float*>(inout);
  for (int64_t i = 0; i < count; ++i) b[i] += a[i];
}

void RingReduceScatter::exchange(const void* out, void* in, int count, MPI_Datatype type) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (wait_ == MpiWait::kSpin) {
    VITSIM_MPI_CHECK(MPI_Sendrecv(out, count, type, right, kRingTag, in, count, type, left,
                                  kRingTag, comm_, MPI_STATUS_IGNORE));
    return;
  }
  MPI_Request requests[2];
  VITSIM_MPI_CHECK(MPI_Irecv(in, count, type, left, kRingTag, comm_, &requests[0]));
  VITSIM_MPI_CHECK(MPI_Isend(out, count, type, right, kRingTag, comm_, &requests[1]));
  poll_until_done(requests, 2);
}

// Step j (1..n-1) receives the partial sum of block (r-1-j) mod n from the left and adds this
// rank's own part of it; the last step's block is r itself. The partial sums alternate between
// `recv` and a scratch block, so that a step never receives into the block it is sending, and
// the last one lands in `recv`.
void RingReduceScatter::run(const void* send, void* recv, int64_t block_count,
                            RingElement element) {
  int rank = 0, n = 1;
  VITSIM_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
  VITSIM_MPI_CHECK(MPI_Comm_size(comm_, &n));
  if (block_count < 0 || block_count > INT_MAX) {
    throw std::invalid_argument("ring reduce-scatter: block of " + std::to_string(block_count) +
                                " elements: expected 0 .. MPI's int count");
  }
  const size_t bytes = static_cast<size_t>(block_count) * element_bytes(element);
  const auto* whole = static_cast<const unsigned char*>(send);
  auto* mine = static_cast<unsigned char*>(recv);
  if (mine < whole + bytes * n && whole < mine + bytes) {
    throw std::invalid_argument("ring reduce-scatter: the receive block overlaps the send buffer");
  }
  const auto block = [&](int b) { return whole + static_cast<size_t>((b % n + n) % n) * bytes; };
  if (n == 1) {
    if (bytes > 0) std::memcpy(mine, whole, bytes);
    return;
  }
  scratch_.resize(bytes);
  const MPI_Datatype type = element == RingElement::kFloat32 ? MPI_FLOAT : MPI_UINT16_T;
  const void* out = block(rank - 1);  // step 1 sends this rank's own part of block r-1
  for (int j = 1; j < n; ++j) {
    unsigned char* in = (n - 1 - j) % 2 == 0 ? mine : scratch_.data();
    exchange(out, in, static_cast<int>(block_count), type);
    add_block(block(rank - 1 - j), in, block_count, element);
    out = in;
  }
}

}  // namespace vitsim::trainer
