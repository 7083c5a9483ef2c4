// fp32 master weights for the DeepSpeed-style regimes (master_weights.h).
#include "trainer/master_weights.h"

#include <stdexcept>

namespace vitsim::trainer {

MasterWeights::MasterWeights(std::vector<torch::Tensor> master, std::vector<torch::Tensor> model)
    : master_(std::move(master)), model_(std::move(model)) {
  if (master_.size() != model_.size())
    throw std::logic_error("MasterWeights: master and model parameter lists differ in length");
  for (size_t i = 0; i < master_.size(); ++i) {
    if (master_[i].scalar_type() != torch::kFloat || !master_[i].sizes().equals(model_[i].sizes()))
      throw std::logic_error("MasterWeights: master parameter " + std::to_string(i) +
                             " is not an fp32 tensor of the model parameter's shape");
  }
  refresh_model();
}

void MasterWeights::load_gradients(const std::vector<torch::Tensor>& grads) {
  if (grads.size() != master_.size())
    throw std::logic_error("MasterWeights::load_gradients: wrong number of gradients");
  for (size_t i = 0; i < master_.size(); ++i) {
    // .to() returns the tensor itself when it is fp32 already (fp32 communication): no copy.
    master_[i].mutable_grad() = grads[i].defined() ? grads[i].to(torch::kFloat) : torch::Tensor();
  }
}

void MasterWeights::refresh_model() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < master_.size(); ++i) model_[i].copy_(master_[i]);
}

void MasterWeights::clear_gradients() {
  for (auto& p : master_) p.mutable_grad() = torch::Tensor();
  for (auto& p : model_) p.mutable_grad() = torch::Tensor();
}

void MasterWeights::step(const std::vector<torch::Tensor>& grads,
                         const std::function<void(const std::vector<torch::Tensor>&)>& on_master) {
  load_gradients(grads);
  on_master(master_);
  refresh_model();  // the 16-bit weights forward and backward read, rounded once
  clear_gradients();
}

}  // namespace vitsim::trainer
