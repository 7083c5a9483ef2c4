// bf16 summation for the custom MPI_Op (bf16_sum.h).
#include "trainer/bf16_sum.h"

#include <cstring>

#include "trainer/mpi_world.h"

namespace vitsim::trainer {

float bf16_to_float(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint16_t float_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
    // NaN: keep sign and the top payload bits, force the quiet bit so truncation cannot turn a
    // NaN whose payload sits in the low half into an infinity.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit, then truncate. Finite
  // values beyond bf16's largest round to infinity, as IEEE rounding does.
  const uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

void bf16_sum(const uint16_t* in, uint16_t* inout, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    inout[i] = float_to_bf16(bf16_to_float(in[i]) + bf16_to_float(inout[i]));
  }
}

extern "C" void vitsim_bf16_sum_user_fn(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  bf16_sum(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(inout),
           static_cast<size_t>(*len));
}

MPI_Op create_bf16_sum_op() {
  MPI_Op op = MPI_OP_NULL;
  VITSIM_MPI_CHECK(MPI_Op_create(&vitsim_bf16_sum_user_fn, /*commute=*/1, &op));
  return op;
}

}  // namespace vitsim::trainer
