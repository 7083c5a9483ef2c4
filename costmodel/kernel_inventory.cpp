// The kernel inventory of a ViT layer pass (see kernel_inventory.h; derived in
// docs/cost-model.md, section 4, "The kernel inventory").
//
// Element sizes (bytes) per regime:
//   a  GEMM operands and outputs, attention, GELU: 4 in fp32 and tf32, 2 in every 16-bit regime
//      (costmodel::activation_element_bytes);
//   x  the residual stream and LayerNorm (autocast runs layer_norm in fp32): 4 in fp32, tf32 and
//      amp-*, 2 in ds-* (the whole model is 16-bit);
//   w  a weight as its GEMM reads it: 4 in fp32 and tf32, 2 otherwise (autocast's cast copy,
//      ds-*'s own).
// tf32 launches fp32's kernels: allow_tf32 changes how cuBLAS and cuDNN multiply, not which
// kernels run or what they move.
// Under autocast (amp-*) every linear layer casts its fp32 weight and bias to 16 bits (one kernel
// each, forward: read 4 + write 2 bytes per parameter) and its fp32 input (LayerNorm's output);
// backward casts each 16-bit gradient back to fp32 the same way.
#include "costmodel/kernel_inventory.h"

#include <cmath>

namespace vitsim::costmodel {

const char* to_string(KernelClass c) {
  switch (c) {
    case KernelClass::kMatrix:
      return "matrix";
    case KernelClass::kAttention:
      return "attention";
    case KernelClass::kMemory:
      return "memory";
  }
  return "?";
}

const char* to_string(AttentionImpl a) {
  return a == AttentionImpl::kFused ? "fused" : "unfused";
}

AttentionImpl attention_for_pytorch_major(int major) {
  return major >= 2 ? AttentionImpl::kFused : AttentionImpl::kUnfused;
}

namespace {

constexpr double kCastBytes = 4 + 2;  // fp32 <-> 16-bit cast: read one, write the other

// Collects one pass's kernels with the regime's element sizes.
class Pass {
 public:
  Pass(const ViTConfig& c, Regime r, int64_t b, bool backward)
      : amp_(is_amp(r)),
        weight_cast_(weight_cast_bytes_per_parameter(r, backward)),
        a_(activation_element_bytes(r)),
        x_(is_deepspeed(r) ? 2.0 : 4.0),
        w_(activation_element_bytes(r)),
        b_(b),
        tokens_(b * c.tokens()),
        c_(c) {}

  // C (m x n) = A (m x k) B (k x n); weight_operand: B is a weight as its GEMM reads it.
  void gemm(const char* name, int64_t m, int64_t n, int64_t k, bool weight_operand = true) {
    Kernel g{KernelClass::kMatrix, name};
    g.flop = 2.0 * static_cast<double>(m) * n * k;
    g.bytes = static_cast<double>(m) * k * a_ +
              static_cast<double>(k) * n * (weight_operand ? w_ : a_) +
              static_cast<double>(m) * n * a_;
    g.rows = m;
    g.cols = n;
    out_.push_back(g);
  }
  void memory(const char* name, double bytes) {
    Kernel k{KernelClass::kMemory, name};
    k.bytes = bytes;
    out_.push_back(k);
  }
  // Autocast's casts of a linear layer's weight and bias (forward) or of their gradients
  // (backward): one kernel each, amp-* only.
  void weight_casts(double weights, double biases) {
    if (!amp_) return;
    memory("cast_weight", weights * weight_cast_);  // costmodel::weight_cast_bytes_per_parameter
    memory("cast_bias", biases * weight_cast_);
  }
  // Autocast's cast of an fp32 activation of `elements` (forward) or of its gradient (backward).
  void activation_cast(double elements) {
    if (amp_) memory("cast_activation", elements * kCastBytes);
  }
  void layer_norm(bool backward) {
    const double n = static_cast<double>(tokens_) * c_.width;
    if (!backward) {
      memory("layer_norm", 2 * n * x_);
    } else {
      memory("layer_norm_dx", 3 * n * x_);      // reads dy, x; writes dx
      memory("layer_norm_dgamma", 2 * n * x_);  // reads dy, x
    }
  }
  // The fused attention kernel: 2 matrix products forward, 5 backward (FlashAttention-2 recomputes
  // the scores), over blocks of kAttentionBlockTokens tokens.
  void fused_attention(bool backward) {
    const double d = static_cast<double>(c_.width);
    const int64_t tiles = (c_.tokens() + kAttentionBlockTokens - 1) / kAttentionBlockTokens;
    const double padded = static_cast<double>(tiles * kAttentionBlockTokens);
    const double n = static_cast<double>(tokens_) * d;
    Kernel k{KernelClass::kAttention, backward ? "attention_backward" : "attention"};
    k.flop = (backward ? 10.0 : 4.0) * static_cast<double>(b_) * padded * padded * d;
    // forward: q, k, v in, o out; backward: q, k, v, o, dO in, dk, dv out, dq accumulated in fp32.
    k.bytes = backward ? 7 * n * a_ + 2 * n * 4 : 4 * n * a_;
    k.blocks = b_ * c_.heads * tiles;
    if (backward) memory("attention_backward_prologue", 2 * n * a_);  // rowsum(dO * O)
    out_.push_back(k);
    if (backward) memory("attention_backward_dq", n * (4 + a_));  // fp32 dq accumulator -> dq
  }
  void unfused_attention(bool backward);

  bool amp() const { return amp_; }
  double a() const { return a_; }
  double x() const { return x_; }
  int64_t tokens() const { return tokens_; }
  std::vector<Kernel> take() { return std::move(out_); }

 private:
  bool amp_;
  double weight_cast_;
  double a_, x_, w_;
  int64_t b_, tokens_;
  const ViTConfig& c_;
  std::vector<Kernel> out_;
};

// PyTorch 1.x: attn = softmax((q @ k^T) * scale) @ v with the scores in memory; autocast runs
// softmax in fp32 (cast in, fp32 out, cast back before the second product).
void Pass::unfused_attention(bool backward) {
  const int64_t bh = b_ * c_.heads, s = c_.tokens(), hd = c_.width / c_.heads;
  const double scores = static_cast<double>(bh) * s * s;
  const double n = static_cast<double>(tokens_) * c_.width;
  if (!backward) {
    for (const char* name : {"q_contiguous", "k_contiguous", "v_contiguous"})
      memory(name, 2 * n * a_);
    gemm("scores", bh * s, s, hd, false);
    memory("scale", 2 * scores * a_);
    if (amp_) {
      memory("softmax_cast", scores * kCastBytes);
      memory("softmax", 2 * scores * 4);
      memory("probabilities_cast", scores * kCastBytes);
    } else {
      memory("softmax", 2 * scores * a_);
    }
    gemm("weighted_values", bh * s, hd, s, false);
    memory("merge_heads", 2 * n * a_);
    return;
  }
  memory("merge_heads_backward", 2 * n * a_);
  gemm("weighted_values_dp", bh * s, s, hd, false);
  gemm("weighted_values_dv", bh * s, hd, s, false);
  if (amp_) {
    memory("probabilities_cast_backward", scores * kCastBytes);
    memory("softmax_backward", 3 * scores * 4);
    memory("softmax_cast_backward", scores * kCastBytes);
  } else {
    memory("softmax_backward", 3 * scores * a_);
  }
  memory("scale_backward", 2 * scores * a_);
  gemm("scores_dq", bh * s, hd, s, false);
  gemm("scores_dk", bh * s, hd, s, false);
}

void attention_layer(Pass& p, const ViTConfig& c, bool backward, AttentionImpl impl) {
  const int64_t t = p.tokens(), d = c.width;
  const double n = static_cast<double>(t) * d;
  if (!backward) {
    p.layer_norm(false);
    p.activation_cast(n);
    p.weight_casts(3.0 * d * d, 3.0 * d);
    p.gemm("in_proj", t, 3 * d, d);
    impl == AttentionImpl::kFused ? p.fused_attention(false) : p.unfused_attention(false);
    p.weight_casts(1.0 * d * d, d);
    p.gemm("out_proj", t, d, d);
    p.memory("residual_add", n * (2 * p.x() + p.a()));
    return;
  }
  if (p.amp()) p.memory("residual_grad_cast", n * kCastBytes);
  p.gemm("out_proj_dx", t, d, d);
  p.gemm("out_proj_dw", d, d, t, false);
  p.memory("out_proj_db", n * p.a());
  p.weight_casts(1.0 * d * d, d);
  impl == AttentionImpl::kFused ? p.fused_attention(true) : p.unfused_attention(true);
  p.memory("qkv_grad_concat", 6 * n * p.a());  // chunk/unbind backward: the three grads joined
  p.gemm("in_proj_dx", t, d, 3 * d);
  p.gemm("in_proj_dw", 3 * d, d, t, false);
  p.memory("in_proj_db", 3 * n * p.a());
  p.weight_casts(3.0 * d * d, 3.0 * d);
  p.activation_cast(n);
  p.layer_norm(true);
  p.memory("residual_grad_sum", 3 * n * p.x());
}

void mlp_layer(Pass& p, const ViTConfig& c, bool backward) {
  const int64_t t = p.tokens(), d = c.width, m = c.mlp_dim();
  const double n = static_cast<double>(t) * d, hidden = static_cast<double>(t) * m;
  if (!backward) {
    p.layer_norm(false);
    p.activation_cast(n);
    p.weight_casts(1.0 * d * m, m);
    p.gemm("fc1", t, m, d);
    p.memory("gelu", 2 * hidden * p.a());
    p.weight_casts(1.0 * d * m, d);
    p.gemm("fc2", t, d, m);
    p.memory("residual_add", n * (2 * p.x() + p.a()));
    return;
  }
  if (p.amp()) p.memory("residual_grad_cast", n * kCastBytes);
  p.gemm("fc2_dx", t, m, d);
  p.gemm("fc2_dw", d, m, t, false);
  p.memory("fc2_db", n * p.a());
  p.weight_casts(1.0 * d * m, d);
  p.memory("gelu_backward", 3 * hidden * p.a());
  p.gemm("fc1_dx", t, d, m);
  p.gemm("fc1_dw", m, d, t, false);
  p.memory("fc1_db", hidden * p.a());
  p.weight_casts(1.0 * d * m, m);
  p.activation_cast(n);
  p.layer_norm(true);
  p.memory("residual_grad_sum", 3 * n * p.x());
}

// conv_proj (P x P, stride P) as the GEMM it is: (b * patches) x width x (channels * P * P); the
// class token joined (torch.cat promotes autocast's 16-bit output to fp32) and the position
// embedding added. Backward: no input gradient (the images need none).
void patch_embed_layer(Pass& p, const ViTConfig& c, int64_t b, bool backward) {
  const int64_t rows = b * c.patches(), d = c.width;
  const int64_t k = c.channels * c.patch_size * c.patch_size;
  const double n = static_cast<double>(p.tokens()) * d, conv_out = static_cast<double>(rows) * d;
  if (!backward) {
    p.activation_cast(static_cast<double>(b) * c.channels * c.image_size * c.image_size);
    p.weight_casts(static_cast<double>(d) * k, d);
    p.gemm("patch_conv", rows, d, k);
    p.memory("class_token_concat", conv_out * p.a() + n * p.x());
    p.memory("position_add", 2 * n * p.x() + static_cast<double>(c.tokens()) * d * 4);
    return;
  }
  p.memory("position_grad", n * p.x());
  p.memory("class_token_grad", static_cast<double>(b) * d * p.x());
  p.activation_cast(conv_out);
  p.gemm("patch_conv_dw", d, k, rows, false);
  p.memory("patch_conv_db", conv_out * p.a());
  p.weight_casts(static_cast<double>(d) * k, d);
}

void head_layer(Pass& p, const ViTConfig& c, int64_t b, bool backward) {
  const int64_t d = c.width, k = c.classes;
  if (!backward) {
    p.activation_cast(static_cast<double>(b) * d);
    p.weight_casts(static_cast<double>(d) * k, k);
    p.gemm("head", b, k, d);
    return;
  }
  p.gemm("head_dx", b, d, k);
  p.gemm("head_dw", k, d, b, false);
  p.memory("head_db", static_cast<double>(b) * k * p.a());
  p.weight_casts(static_cast<double>(d) * k, k);
  p.activation_cast(static_cast<double>(b) * d);
  // select(1, 0) backward: a zero gradient of every token, the class token's copied in.
  p.memory("select_backward_zero", static_cast<double>(p.tokens()) * d * p.x());
  p.memory("select_backward_copy", 2.0 * b * d * p.x());
}

}  // namespace

std::vector<Kernel> pass_kernels(const Layer& layer, const ViTConfig& config, bool backward,
                                 Regime regime, AttentionImpl attention, int64_t micro_batch) {
  Pass p(config, compute_regime(regime), micro_batch, backward);
  switch (layer.kind) {
    case LayerKind::kPatchEmbed:
      patch_embed_layer(p, config, micro_batch, backward);
      break;
    case LayerKind::kAttention:
      attention_layer(p, config, backward, attention);
      break;
    case LayerKind::kMlp:
      mlp_layer(p, config, backward);
      break;
    case LayerKind::kNorm:
      p.layer_norm(backward);
      break;
    case LayerKind::kHead:
      head_layer(p, config, micro_batch, backward);
      break;
  }
  return p.take();
}

std::vector<StepKernel> step_kernels(const LayerGraph& graph, Regime regime,
                                     AttentionImpl attention, int64_t micro_batch) {
  std::vector<StepKernel> out;
  const auto add = [&](const Layer& layer, bool backward) {
    for (auto& k : pass_kernels(layer, graph.config, backward, regime, attention, micro_batch))
      out.push_back({layer.name, backward, std::move(k)});
  };
  for (const auto& layer : graph.layers) add(layer, false);
  for (auto it = graph.layers.rbegin(); it != graph.layers.rend(); ++it) add(*it, true);
  return out;
}

}  // namespace vitsim::costmodel
