// Bucketed gradient all-reduce (gradient_reducer.h).
#include "trainer/gradient_reducer.h"

#include "trainer/mpi_world.h"

namespace vitsim::trainer {

at::ScalarType wire_dtype(costmodel::Regime r) {
  if (costmodel::gradient_bytes_per_parameter(r) == 4) return at::kFloat;
  return costmodel::math_type(r) == costmodel::MathType::kBf16 ? at::kBFloat16 : at::kHalf;
}

GradientReducer::GradientReducer(std::vector<torch::Tensor> parameters, Communicator& comm,
                                 GradientReducerOptions options)
    : parameters_(std::move(parameters)),
      comm_(comm),
      options_(options),
      scale_(1.0 / comm.size()) {
  // A parameter without elements has no gradient to carry and stays outside every bucket.
  bucket_of_.assign(parameters_.size(), kNoBucket);
  // Reverse registration order: the head's gradients are ready first. The closing rule is the
  // simulator's (costmodel::assign_buckets, DDP's): a bucket closes once it holds >= the cap.
  std::vector<size_t> order;
  std::vector<double> bytes;
  for (size_t i = parameters_.size(); i-- > 0;) {
    order.push_back(i);
    bytes.push_back(static_cast<double>(parameters_[i].numel()) *
                    static_cast<double>(c10::elementSize(options_.wire_dtype)));
  }
  for (const auto& members : costmodel::assign_buckets(bytes, options_.bucket_bytes)) {
    Bucket b;
    int64_t total = 0;
    for (size_t k : members) {
      const size_t p = order[k];
      bucket_of_[p] = buckets_.size();
      b.params.push_back(p);
      b.offsets.push_back(total);
      total += parameters_[p].numel();
    }
    b.buffer = torch::zeros({total}, parameters_[b.params[0]].options().dtype(options_.wire_dtype));
    buckets_.push_back(std::move(b));
  }
  if (options_.overlap) {
    for (size_t i = 0; i < parameters_.size(); ++i) {
      // Runs before AccumulateGrad adds `grad` into param.grad(); returning an undefined tensor
      // leaves the gradient unchanged.
      parameters_[i].register_hook([this, i](const torch::Tensor& grad) {
        on_gradient(i, grad);
        return torch::Tensor();
      });
    }
  }
}

torch::Tensor GradientReducer::averaged_gradient(size_t i) const {
  const torch::Tensor& p = parameters_.at(i);
  if (comm_.size() == 1 || bucket_of_[i] == kNoBucket) return p.grad();
  const Bucket& b = buckets_[bucket_of_[i]];
  size_t slot = 0;
  while (b.params[slot] != i) ++slot;
  return b.buffer.narrow(0, b.offsets[slot], p.numel()).view(p.sizes());
}

std::vector<std::vector<size_t>> GradientReducer::bucket_layout() const {
  std::vector<std::vector<size_t>> layout;
  for (const auto& b : buckets_) layout.push_back(b.params);
  return layout;
}

void GradientReducer::prepare(bool communicate) {
  armed_ = communicate && options_.overlap && comm_.size() > 1;
  if (communicate) bucket_copy_s_ = 0;
  next_to_start_ = 0;
  for (auto& b : buckets_) {
    b.pending = b.params.size();
    b.started = false;
    b.handle = -1;
  }
}

// A bucket wider than the gradient (ds-bf16-allreduce-fp32: bf16 gradients,
// fp32 wire) takes the exact widened value first and scales in the wide type: LibTorch >= 2
// refuses mul_out with a Scalar into an output of another dtype ("Expected out tensor to have
// dtype c10::BFloat16, but got float", seen with 2.11 on 2026-11-24).
void copy_gradient_scaled(torch::Tensor& into, const torch::Tensor& from, double scale) {
  if (into.scalar_type() == from.scalar_type()) {
    torch::mul_out(into, from, scale);
  } else {
    into.copy_(from);
    into.mul_(scale);
  }
}

void GradientReducer::on_gradient(size_t param, const torch::Tensor& grad) {
  if (!armed_ || bucket_of_[param] == kNoBucket) return;
  const double t0 = MpiWorld::now_s();
  torch::NoGradGuard no_grad;
  Bucket& b = buckets_[bucket_of_[param]];
  size_t slot = 0;
  while (b.params[slot] != param) ++slot;
  auto view = b.buffer.narrow(0, b.offsets[slot], parameters_[param].numel());
  // The bucket carries what param.grad() will hold after this micro-step: earlier micro-steps'
  // accumulated gradient plus this one.
  // Divided by the world size on the way in, like DDP's copy_grad_to_bucket.
  const torch::Tensor& acc = parameters_[param].grad();
  if (acc.defined()) {
    torch::add_out(view, acc.reshape({-1}), grad.reshape({-1}));
    view.mul_(scale_);
  } else {
    copy_gradient_scaled(view, grad.reshape({-1}), scale_);
  }
  bucket_copy_s_ += MpiWorld::now_s() - t0;
  if (--b.pending == 0) {
    gradients_ready_s_ = MpiWorld::now_s();
    launch_ready_buckets();
  }
  comm_.progress();
}

void GradientReducer::launch_ready_buckets() {
  while (next_to_start_ < buckets_.size() && buckets_[next_to_start_].pending == 0) {
    start(buckets_[next_to_start_]);
    ++next_to_start_;
  }
}

void GradientReducer::start(Bucket& b) {
  b.handle = comm_.start_allreduce(b.buffer);
  b.started = true;
}

void GradientReducer::finish() {
  torch::NoGradGuard no_grad;
  if (comm_.size() == 1) {
    // One rank: the local gradients are the average already; copying them through the buckets
    // would cost a pass over every gradient for nothing.
    gradients_ready_s_ = MpiWorld::now_s();
    return;
  }
  if (!armed_) {
    // Overlap off (or a bucket whose hook never fired): gather the gradients now, divided by the
    // world size while copying (DDP's copy_grad_to_bucket): one pass instead of a copy followed
    // by a scaling pass over the reduced bucket. Exact for power-of-two world sizes.
    gradients_ready_s_ = MpiWorld::now_s();
    for (auto& b : buckets_) {
      for (size_t s = 0; s < b.params.size(); ++s) {
        const auto& g = parameters_[b.params[s]].grad();
        auto view = b.buffer.narrow(0, b.offsets[s], parameters_[b.params[s]].numel());
        if (g.defined())
          copy_gradient_scaled(view, g.reshape({-1}), scale_);
        else
          view.zero_();
      }
    }
    bucket_copy_s_ = MpiWorld::now_s() - gradients_ready_s_;
  }
  for (auto& b : buckets_) {
    if (!b.started) start(b);
  }
  for (auto& b : buckets_) {
    comm_.wait(b.handle);
    // The averaged gradient stays in the bucket: param.grad() becomes a view of it (DDP's
    // gradient_as_bucket_view), saving a copy of every gradient per step. The trainer drops the
    // gradients after the optimizer step, so the next backward never writes through these views.
    // With a wider wire type (ds-bf16-allreduce-fp32) the fp32 average stays in the bucket for
    // averaged_gradient(): narrowing it back into param.grad would round it to bf16 again.
    if (b.buffer.scalar_type() != parameters_[b.params[0]].scalar_type()) continue;
    for (size_t s = 0; s < b.params.size(); ++s) {
      auto& p = parameters_[b.params[s]];
      p.mutable_grad() = b.buffer.narrow(0, b.offsets[s], p.numel()).view(p.sizes());
    }
  }
  armed_ = false;
}

}  // namespace vitsim::trainer
