// bf16 GEMMs on a CPU through fp32 kernels (cpu_bf16_gemm.h).
#include "trainer/cpu_bf16_gemm.h"

#include <c10/core/impl/LocalDispatchKeySet.h>

#include "trainer/autocast_compat.h"

namespace vitsim::trainer::gemm {
namespace {

// The operand as the bf16 GEMM sees it (rounded to bf16, as autocast would cast it), widened to
// fp32 exactly. Autograd carries the gradient back through both casts: rounded to bf16, then in
// the operand's own dtype, as after a bf16 GEMM.
torch::Tensor widened(const torch::Tensor& t) {
  return t.defined() ? t.to(torch::kBFloat16).to(torch::kFloat) : t;
}

// Runs `fp32_gemm` on the widened operands with CPU autocast out of the way (it would cast them
// back to bf16), and rounds the result to bf16.
template <class Gemm>
torch::Tensor through_fp32(Gemm fp32_gemm, const torch::Tensor& a, const torch::Tensor& b,
                           const torch::Tensor& c = {}) {
  const c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastCPU);
  return fp32_gemm(widened(a), widened(b), widened(c)).to(torch::kBFloat16);
}

}  // namespace

bool bf16_on_cpu(const torch::Tensor& x) {
  if (!x.device().is_cpu()) return false;
  if (x.scalar_type() == torch::kBFloat16) return true;
  return x.scalar_type() == torch::kFloat && cpu_autocast_dtype() == torch::kBFloat16;
}

torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  if (!bf16_on_cpu(x)) return torch::linear(x, w, b);
  return through_fp32([](const torch::Tensor& x32, const torch::Tensor& w32,
                         const torch::Tensor& b32) { return torch::linear(x32, w32, b32); },
                      x, w, b);
}

torch::Tensor matmul(const torch::Tensor& a, const torch::Tensor& b) {
  if (!bf16_on_cpu(a)) return torch::matmul(a, b);
  return through_fp32([](const torch::Tensor& a32, const torch::Tensor& b32,
                         const torch::Tensor&) { return torch::matmul(a32, b32); },
                      a, b);
}

torch::Tensor conv2d(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                     int64_t stride) {
  if (!bf16_on_cpu(x)) return torch::conv2d(x, w, b, stride);
  return through_fp32(
      [stride](const torch::Tensor& x32, const torch::Tensor& w32, const torch::Tensor& b32) {
        return torch::conv2d(x32, w32, b32, stride);
      },
      x, w, b);
}

}  // namespace vitsim::trainer::gemm
