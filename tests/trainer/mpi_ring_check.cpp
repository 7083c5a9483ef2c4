// The ranks' half of mpi_ring_test: started under `mpirun -np N` (N = 1..4), each rank runs the
// trainer's ring reduce-scatter and all-gather (trainer/mpi_ring.h) under both MpiWait modes on
// blocks of 0, 1, 5, 4099 and 100003 elements (odd counts: the rings must not assume even blocks)
// and checks them. The reduce-scatter against
// - fp32 integer-valued data, rank r holding 2^r x ((31 b + i) mod 97 + 1) in block b: exactly
//   Open MPI's MPI_Reduce_scatter_block with MPI_SUM, and the exact sum (a rank counted twice or
//   left out, or a block taken for another, changes it);
// - fp32 and bf16 non-integer data (a seeded generator): bit for bit the sum in NCCL's ring order
//   (block b starts at rank b+1 and ends at rank b, each addition rounded in the type), which a
//   ring turned the other way does not give at 3 ranks or more; and MPI's reduce-scatter (fp32:
//   MPI_SUM; bf16: the trainer's bf16_sum op) within the two summation orders' error bound.
// The all-gather, in place and from a separate block, bit for bit against MPI_Allgather and
// every rank's known block. Bad arguments (a negative count, overlapping buffers) are thrown as
// std::invalid_argument before any message.
// Prints "MPI ring: N ranks ok" from rank 0 and exits 0 when every rank agrees; exits 1 with the
// first mismatch of each rank on stderr otherwise.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "trainer/bf16_sum.h"
#include "trainer/mpi_ring.h"

namespace {

using vitsim::trainer::bf16_to_float;
using vitsim::trainer::float_to_bf16;
using vitsim::trainer::MpiRing;
using vitsim::trainer::MpiWait;
using vitsim::trainer::RingElement;

int g_rank = 0, g_size = 1;

float integer_value(int rank, int64_t block, int64_t i) {
  return static_cast<float>((1 << rank) * ((31 * block + i) % 97 + 1));
}

// A value in [-1, 1) from (seed, rank, index): splitmix64's mixing, deterministic on every rank.
float noise(uint64_t seed, int rank, int64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(rank) * 1000003u + index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<float>(static_cast<double>(z >> 40) / (1ULL << 23) - 1.0);
}

// Element i of rank r's whole buffer (n blocks of `count`), as the type's bits or value.
struct Data {
  RingElement element;
  bool integer;
  float value(int rank, int64_t count, int64_t i) const {
    const float v = integer ? integer_value(rank, i / count, i % count) : noise(7, rank, i);
    return element == RingElement::kBfloat16 ? bf16_to_float(float_to_bf16(v)) : v;
  }
};

int report(const char* what, int64_t count, int64_t i, double got, double want) {
  std::fprintf(stderr, "rank %d of %d: %s, block of %lld: element %lld is %.9g, expected %.9g\n",
               g_rank, g_size, what, static_cast<long long>(count), static_cast<long long>(i), got,
               want);
  return 1;
}

// One block count and data kind under one wait mode; returns the number of failed checks (0/1).
int check(const Data& d, int64_t count, MpiWait wait, const char* what) {
  const int n = g_size, r = g_rank;
  const bool bf16 = d.element == RingElement::kBfloat16;
  const size_t whole = static_cast<size_t>(count) * n;
  std::vector<float> send_f(whole), ring_f(count), mpi_f(count);
  std::vector<uint16_t> send_h(whole), ring_h(count), mpi_h(count);
  for (size_t i = 0; i < whole; ++i) {
    send_f[i] = d.value(r, count, static_cast<int64_t>(i));
    send_h[i] = float_to_bf16(send_f[i]);
  }
  MpiRing ring(MPI_COMM_WORLD, wait);
  ring.reduce_scatter(bf16 ? static_cast<void*>(send_h.data()) : send_f.data(),
                      bf16 ? static_cast<void*>(ring_h.data()) : ring_f.data(), count, d.element);
  MPI_Op bf16_sum = vitsim::trainer::create_bf16_sum_op();
  if (bf16)
    MPI_Reduce_scatter_block(send_h.data(), mpi_h.data(), static_cast<int>(count), MPI_UINT16_T,
                             bf16_sum, MPI_COMM_WORLD);
  else
    MPI_Reduce_scatter_block(send_f.data(), mpi_f.data(), static_cast<int>(count), MPI_FLOAT,
                             MPI_SUM, MPI_COMM_WORLD);
  MPI_Op_free(&bf16_sum);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t at = static_cast<int64_t>(r) * count + i;
    // NCCL's ring order: rank r+1's part first, rank r's last, rounded after each addition.
    float ordered = d.value((r + 1) % n, count, at), abs_sum = std::fabs(ordered);
    for (int k = 2; k <= n; ++k) {
      const float x = d.value((r + k) % n, count, at);
      ordered = bf16 ? bf16_to_float(float_to_bf16(ordered + x)) : ordered + x;
      abs_sum += std::fabs(x);
    }
    const float got = bf16 ? bf16_to_float(ring_h[i]) : ring_f[i];
    const float mpi = bf16 ? bf16_to_float(mpi_h[i]) : mpi_f[i];
    // Two summation orders of n terms differ by at most 2 (n-1) u sum|x| (u: 2^-24 fp32, 2^-8
    // bf16), the first-order bound of recursive summation.
    const double tolerance = 2.0 * (n - 1) * std::ldexp(1.0, bf16 ? -8 : -24) * abs_sum * 1.01;
    if (!(got == ordered)) return report(what, count, i, got, ordered);
    if (d.integer ? !(got == mpi) : !(std::fabs(got - mpi) <= tolerance))
      return report((std::string(what) + " against MPI").c_str(), count, i, got, mpi);
  }
  return 0;
}

// Every rank's block of rank-dependent noise, gathered by the ring (in place or from a separate
// block) and by MPI_Allgather: both bit for bit the blocks as their ranks made them.
int check_all_gather(RingElement element, int64_t count, MpiWait wait, bool in_place) {
  const int n = g_size;
  const bool bf16 = element == RingElement::kBfloat16;
  const size_t whole = static_cast<size_t>(count) * n, width = bf16 ? 2 : 4;
  std::vector<unsigned char> want(whole * width), mine(count * width), ring_out(whole * width),
      mpi_out(whole * width);
  for (int r = 0; r < n; ++r) {
    for (int64_t i = 0; i < count; ++i) {
      const float v = noise(11, r, i);
      const uint16_t h = float_to_bf16(v);
      std::memcpy(&want[(r * count + i) * width], bf16 ? static_cast<const void*>(&h) : &v, width);
    }
  }
  std::memcpy(mine.data(), &want[g_rank * count * width], count * width);
  unsigned char* own = &ring_out[g_rank * count * width];
  if (in_place) std::memcpy(own, mine.data(), count * width);
  MpiRing ring(MPI_COMM_WORLD, wait);
  ring.all_gather(in_place ? own : mine.data(), ring_out.data(), count, element);
  const MPI_Datatype type = bf16 ? MPI_UINT16_T : MPI_FLOAT;
  MPI_Allgather(mine.data(), static_cast<int>(count), type, mpi_out.data(), static_cast<int>(count),
                type, MPI_COMM_WORLD);
  for (size_t i = 0; i < whole; ++i) {
    if (std::memcmp(&ring_out[i * width], &want[i * width], width) != 0)
      return report(in_place ? "all-gather in place" : "all-gather", count, static_cast<int64_t>(i),
                    ring_out[i * width], want[i * width]);
    if (std::memcmp(&mpi_out[i * width], &want[i * width], width) != 0)
      return report("MPI_Allgather", count, static_cast<int64_t>(i), mpi_out[i * width],
                    want[i * width]);
  }
  return 0;
}

// A negative count and overlapping buffers are refused before any message is sent.
int check_bad_arguments() {
  std::vector<float> buffer(4 * static_cast<size_t>(g_size));
  MpiRing ring(MPI_COMM_WORLD, MpiWait::kSpin);
  int failures = 0;
  for (int c = 0; c < 3; ++c) {
    try {
      if (c == 0) ring.reduce_scatter(buffer.data(), buffer.data(), -1, RingElement::kFloat32);
      if (c == 1) ring.reduce_scatter(buffer.data(), buffer.data() + 1, 2, RingElement::kFloat32);
      if (c == 2) ring.all_gather(buffer.data() + 1, buffer.data(), 2, RingElement::kFloat32);
      std::fprintf(stderr, "rank %d: bad argument %d accepted\n", g_rank, c);
      ++failures;
    } catch (const std::invalid_argument&) {
    }
  }
  return failures;
}

int run_checks() {
  int failures = check_bad_arguments();
  const Data kinds[] = {{RingElement::kFloat32, true},
                        {RingElement::kFloat32, false},
                        {RingElement::kBfloat16, false}};
  const char* names[] = {"fp32 integers", "fp32", "bf16"};
  for (MpiWait wait : {MpiWait::kSpin, MpiWait::kPoll}) {
    for (int k = 0; k < 3; ++k) {
      for (int64_t count : {0, 1, 5, 4099, 100003}) {
        failures += check(kinds[k], count, wait, names[k]);
      }
    }
    for (RingElement element : {RingElement::kFloat32, RingElement::kBfloat16}) {
      for (int64_t count : {0, 1, 5, 4099, 100003}) {
        failures += check_all_gather(element, count, wait, /*in_place=*/false);
        failures += check_all_gather(element, count, wait, /*in_place=*/true);
      }
    }
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int failures = 0;
  try {
    failures = run_checks();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", g_rank, e.what());
    failures = 1;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0 && total == 0) std::printf("MPI ring: %d ranks ok\n", g_size);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
