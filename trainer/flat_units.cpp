// Flat sharded units (flat_units.h).
#include "trainer/flat_units.h"

#include <c10/core/StorageImpl.h>

#include <stdexcept>

namespace vitsim::trainer {

FlatUnits::FlatUnits(const std::vector<std::vector<torch::Tensor>>& units, int ranks, int rank)
    : ranks_(ranks), rank_(rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw std::logic_error("FlatUnits: rank outside [0, ranks)");
  torch::NoGradGuard no_grad;
  for (const auto& params : units) {
    if (params.empty()) throw std::logic_error("FlatUnits: a unit without parameters");
    FlatUnit f;
    f.params = params;
    for (const auto& p : params) {
      f.offsets.push_back(f.elements);
      f.elements += p.numel();
    }
    f.shard = (f.elements + ranks - 1) / ranks;
    f.flat = torch::zeros({f.shard * ranks}, params.front().options().requires_grad(false));
    for (size_t i = 0; i < params.size(); ++i) {
      torch::Tensor view =
          f.flat.narrow(0, f.offsets[i], params[i].numel()).view(params[i].sizes());
      view.copy_(params[i]);
      // The parameter object stays (its grad accumulator, hooks and the optimizer's reference);
      // its data becomes the view, sharing the flat buffer's storage.
      f.params[i].set_data(view);
    }
    units_.push_back(std::move(f));
  }
}

torch::Tensor FlatUnits::own_block(size_t u) const {
  const FlatUnit& f = units_.at(u);
  return f.flat.narrow(0, static_cast<int64_t>(rank_) * f.shard, f.shard);
}

void FlatUnits::release(size_t u) {
  c10::StorageImpl* s = units_.at(u).flat.storage().unsafeGetStorageImpl();
  s->set_data_ptr_noswap(at::DataPtr(nullptr, s->device()));
  s->set_nbytes(0);
}

void FlatUnits::allocate(size_t u) {
  FlatUnit& f = units_.at(u);
  c10::StorageImpl* s = f.flat.storage().unsafeGetStorageImpl();
  const size_t bytes = static_cast<size_t>(f.flat.numel()) * f.flat.element_size();
  s->set_data_ptr_noswap(s->allocator()->allocate(bytes));
  s->set_nbytes(bytes);
}

bool FlatUnits::allocated(size_t u) const {
  return units_.at(u).flat.storage().data() != nullptr;
}

void FlatUnits::gather_gradients(size_t u, torch::Tensor& into, double scale) const {
  torch::NoGradGuard no_grad;
  const FlatUnit& f = units_.at(u);
  for (size_t i = 0; i < f.params.size(); ++i) {
    // The slot in the parameter's shape: a gradient with other strides (autograd may leave a
    // transposed one) is read as it is, never copied to a flat temporary first.
    torch::Tensor slot =
        into.narrow(0, f.offsets[i], f.params[i].numel()).view(f.params[i].sizes());
    const torch::Tensor& g = f.params[i].grad();
    if (!g.defined()) {
      slot.zero_();
    } else if (slot.scalar_type() == g.scalar_type()) {
      torch::mul_out(slot, g, scale);
    } else {
      slot.copy_(g);  // widened exactly first (a bf16 gradient on an fp32 wire)
      slot.mul_(scale);
    }
  }
  const int64_t padding = into.numel() - f.elements;
  if (padding > 0) into.narrow(0, f.elements, padding).zero_();
}

void FlatUnits::add_own_block(size_t u, const std::vector<torch::Tensor>& full,
                              torch::Tensor& block) const {
  torch::NoGradGuard no_grad;
  const FlatUnit& f = units_.at(u);
  const int64_t begin = static_cast<int64_t>(rank_) * f.shard, end = begin + f.shard;
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (!full.at(i).defined()) continue;
    const int64_t lo = std::max(begin, f.offsets[i]);
    const int64_t hi = std::min(end, f.offsets[i] + f.params[i].numel());
    if (lo >= hi) continue;
    block.narrow(0, lo - begin, hi - lo)
        .add_(full[i].reshape({-1}).narrow(0, lo - f.offsets[i], hi - lo));
  }
}

std::vector<torch::Tensor> FlatUnits::unflatten(size_t u, const torch::Tensor& flat) const {
  const FlatUnit& f = units_.at(u);
  std::vector<torch::Tensor> out;
  for (size_t i = 0; i < f.params.size(); ++i)
    out.push_back(flat.narrow(0, f.offsets[i], f.params[i].numel()).view(f.params[i].sizes()));
  return out;
}

}  // namespace vitsim::trainer
