// The ring reduce-scatter and all-gather (mpi_ring.h).
#include "trainer/mpi_ring.h"

#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include "trainer/bf16_sum.h"
#include "trainer/mpi_poll.h"
#include "trainer/mpi_world.h"

namespace vitsim::trainer {
namespace {

constexpr int kRingTag = 0x5253;  // the rings' messages; the trainer sends no other point-to-point

bool overlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  return x < y + b_bytes && y < x + a_bytes;
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

MpiRing::MpiRing(MPI_Comm comm, MpiWait wait) : comm_(comm), wait_(wait) {
  VITSIM_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  VITSIM_MPI_CHECK(MPI_Comm_size(comm_, &n_));
}

void MpiRing::size_up(int64_t block_count, RingElement element) {
  if (block_count < 0 || block_count > INT_MAX) {
    throw std::invalid_argument("MPI ring: block of " + std::to_string(block_count) +
                                " elements: expected 0 .. MPI's int count");
  }
  const bool fp32 = element == RingElement::kFloat32;
  bytes_ = static_cast<size_t>(block_count) * (fp32 ? 4 : 2);
  type_ = fp32 ? MPI_FLOAT : MPI_UINT16_T;
}

void MpiRing::exchange(const void* out, void* in, int count, MPI_Datatype type) {
  const int right = (rank_ + 1) % n_, left = (rank_ + n_ - 1) % n_;
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
void MpiRing::reduce_scatter(const void* send, void* recv, int64_t block_count,
                             RingElement element) {
  size_up(block_count, element);
  if (overlap(send, bytes_ * n_, recv, bytes_))
    throw std::invalid_argument(
        "MPI ring reduce-scatter: the receive block overlaps the send buffer");
  const auto* whole = static_cast<const unsigned char*>(send);
  auto* mine = static_cast<unsigned char*>(recv);
  const auto block = [&](int b) {
    return whole + static_cast<size_t>((b % n_ + n_) % n_) * bytes_;
  };
  if (n_ == 1) {
    if (bytes_ > 0) std::memcpy(mine, whole, bytes_);
    return;
  }
  scratch_.resize(bytes_);
  const void* out = block(rank_ - 1);  // step 1 sends this rank's own part of block r-1
  for (int j = 1; j < n_; ++j) {
    unsigned char* in = (n_ - 1 - j) % 2 == 0 ? mine : scratch_.data();
    exchange(out, in, static_cast<int>(block_count), type_);
    add_block(block(rank_ - 1 - j), in, block_count, element);
    out = in;
  }
}

// This rank's block goes into its place in `recv` (unless it is there already); step j
// (1..n-1) then forwards block (r-j+1) mod n and receives block (r-j) mod n, in place.
void MpiRing::all_gather(const void* send, void* recv, int64_t block_count, RingElement element) {
  size_up(block_count, element);
  auto* whole = static_cast<unsigned char*>(recv);
  const auto block = [&](int b) {
    return whole + static_cast<size_t>((b % n_ + n_) % n_) * bytes_;
  };
  if (send != block(rank_)) {
    if (overlap(send, bytes_, recv, bytes_ * n_))
      throw std::invalid_argument(
          "MPI ring all-gather: the send block overlaps the receive buffer other than as its own "
          "block");
    if (bytes_ > 0) std::memcpy(block(rank_), send, bytes_);
  }
  for (int j = 1; j < n_; ++j) {
    exchange(block(rank_ - j + 1), block(rank_ - j), static_cast<int>(block_count), type_);
  }
}

}  // namespace vitsim::trainer
