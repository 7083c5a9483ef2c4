// The bf16 sum behind the DeepSpeed-style all-reduce (ds-bf16): Open MPI 4.1 has no bf16 datatype,
// so bf16 gradients travel as 2-byte MPI_UINT16_T elements and are summed by a user-defined,
// commutative MPI_Op whose function is here. Each pair of bf16 values is widened to fp32 (exact),
// added in fp32 and rounded back to bf16 to nearest, ties to even (the rounding LibTorch's
// c10::BFloat16 uses), so NaN and infinities pass through as IEEE addition says. No Torch.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace vitsim::trainer {

// bf16 bits -> fp32 (exact: bf16 is the upper half of an fp32).
float bf16_to_float(uint16_t bits);
// fp32 -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN with its sign.
uint16_t float_to_bf16(float value);
// inout[i] = bf16(fp32(in[i]) + fp32(inout[i])) for i < n.
void bf16_sum(const uint16_t* in, uint16_t* inout, size_t n);

// The MPI_User_function registered by bf16_sum_op(); `len` counts 2-byte elements.
extern "C" void vitsim_bf16_sum_user_fn(void* in, void* inout, int* len, MPI_Datatype* type);
// Creates the commutative op (MPI_Op_create); the caller frees it with MPI_Op_free before
// MPI_Finalize. Use it with MPI_UINT16_T.
MPI_Op create_bf16_sum_op();

}  // namespace vitsim::trainer
