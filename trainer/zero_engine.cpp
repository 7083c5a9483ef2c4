// ZeRO stages 1-3 (zero_engine.h).
#include "trainer/zero_engine.h"

#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <stdexcept>

#include "trainer/mpi_world.h"

namespace vitsim::trainer {
namespace {

// Runs a callback after an AccumulateGrad node has accumulated its parameter's gradient (the hook
// FSDP registers on each parameter's accumulator before PyTorch 2.1's post-accumulate hooks).
class AfterAccumulation : public torch::autograd::FunctionPostHook {
 public:
  explicit AfterAccumulation(std::function<void()> fn) : fn_(std::move(fn)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    fn_();
    return outputs;
  }

 private:
  std::function<void()> fn_;
};

}  // namespace

struct ZeroEngine::UnitState {
  int64_t pending = 0;   // gradients not yet accumulated in this backward
  bool reduced = false;  // its reduce-scatter started in this backward
  Communicator::Handle rs = -1;
  torch::Tensor rs_send, rs_recv;  // the reduce-scatter's buffers while it runs
  Communicator::Handle ag = -1;    // stage 3: an all-gather under way
  bool gathered = false;           // stage 3: the flat buffer holds the whole unit
};

ZeroEngine::ZeroEngine(ViT& model, const std::vector<torch::Tensor>& master, Communicator& comm,
                       ZeroOptions options)
    : model_(model), comm_(comm), options_(options) {
  if (options_.stage < 1 || options_.stage > 3)
    throw std::logic_error("ZeroEngine: stage outside 1..3");
  torch::NoGradGuard no_grad;
  std::vector<std::vector<torch::Tensor>> units;
  for (size_t u = 0; u < model_->units(); ++u) units.push_back(model_->unit_parameters(u));
  size_t parameters = 0;
  for (const auto& params : units) parameters += params.size();
  if (parameters != master.size())
    throw std::logic_error("ZeroEngine: master weights do not match the model's parameters");
  flat_ = std::make_unique<FlatUnits>(units, comm_.size(), comm_.rank());
  state_.resize(flat_->size());
  size_t first = 0;  // the unit's first parameter in model order
  for (size_t u = 0; u < flat_->size(); ++u) {
    const FlatUnit& f = flat_->unit(u);
    const bool fp32_model = f.flat.scalar_type() == torch::kFloat;
    const auto fp32 = f.flat.options().dtype(torch::kFloat);
    if (fp32_model && options_.stage < 3) {
      master_.push_back(flat_->own_block(u));  // the model's own block: stepped in place
    } else {
      torch::Tensor block = torch::zeros({f.shard}, fp32);
      const std::vector<torch::Tensor> weights(master.begin() + first,
                                               master.begin() + first + f.params.size());
      flat_->add_own_block(u, weights, block);
      master_.push_back(block);
    }
    first += f.params.size();
    // What the gathers send: the master block itself where the model is fp32, else the model's
    // 16-bit block (stage 3: a copy of its own, the flat buffer comes and goes).
    if (fp32_model)
      model_block_.push_back(master_.back());
    else if (options_.stage < 3)
      model_block_.push_back(flat_->own_block(u));
    else
      model_block_.push_back(flat_->own_block(u).clone());
    grad_block_.push_back(torch::zeros({f.shard}, fp32));
  }
  if (options_.stage == 3) {
    for (size_t u = 0; u < flat_->size(); ++u) flat_->release(u);
  }
  if (options_.stage >= 2) {
    for (size_t u = 0; u < flat_->size(); ++u) {
      for (const auto& p : flat_->unit(u).params) {
        auto acc = torch::autograd::impl::grad_accumulator(p);
        acc->add_post_hook(
            std::make_unique<AfterAccumulation>([this, u] { on_gradient_accumulated(u); }));
        accumulators_.push_back(std::move(acc));
      }
    }
  }
}

ZeroEngine::~ZeroEngine() = default;

ZeroTimes ZeroEngine::take_times() {
  ZeroTimes t = times_;
  times_ = {};
  // Every reduce-scatter of the step is done (finish_backward waited for them all), and every
  // all-gather it waited for; a stage-3 prefetch still in flight counts in the step that waits.
  using Op = Communicator::Collective;
  const double rs_s = comm_.barrier_wait_s(Op::kReduceScatter);
  const double ag_s = comm_.barrier_wait_s(Op::kAllgather);
  t.reduce_scatter_wait_s = rs_s - rs_barrier_taken_s_;
  t.allgather_wait_s = ag_s - ag_barrier_taken_s_;
  rs_barrier_taken_s_ = rs_s;
  ag_barrier_taken_s_ = ag_s;
  return t;
}

void ZeroEngine::gather(size_t u) {
  UnitState& st = state_[u];
  if (st.gathered || st.ag >= 0) return;
  flat_->allocate(u);
  st.ag = comm_.start_allgather(model_block_[u], flat_->unit(u).flat);
}

void ZeroEngine::wait_gathered(size_t u) {
  gather(u);
  UnitState& st = state_[u];
  if (st.ag >= 0) {
    const double t0 = MpiWorld::now_s();
    comm_.wait(st.ag);
    times_.allgather_s += MpiWorld::now_s() - t0;
    st.ag = -1;
  }
  st.gathered = true;
}

void ZeroEngine::free_unit(size_t u) {
  UnitState& st = state_[u];
  if (st.ag >= 0) wait_gathered(u);  // never free a buffer a collective still writes
  if (!st.gathered) return;
  const double t0 = MpiWorld::now_s();
  flat_->release(u);
  st.gathered = false;
  times_.unit_free_s += MpiWorld::now_s() - t0;
}

void ZeroEngine::before_forward(size_t u) {
  if (options_.stage < 3) return;
  wait_gathered(u);
  if (u + 1 < flat_->size()) gather(u + 1);  // prefetch the next unit
}

torch::Tensor ZeroEngine::after_forward(size_t u, const torch::Tensor& output) {
  if (options_.stage < 3) return output;
  const bool training = output.requires_grad();
  // The last unit's backward comes first: it stays gathered (FSDP does not reshard the root).
  if (!training || u + 1 < flat_->size()) free_unit(u);
  if (training) output.register_hook([this, u](const torch::Tensor&) { pre_backward(u); });
  return output;
}

// Fires when the gradient of the unit's output is complete: the unit's backward is next.
void ZeroEngine::pre_backward(size_t u) {
  wait_gathered(u);
  if (u > 0) gather(u - 1);  // prefetch the unit whose backward follows (FSDP BACKWARD_PRE)
}

void ZeroEngine::prepare_backward() {
  if (options_.stage < 2) return;
  armed_ = true;
  last_started_ = kNone;
  for (size_t u = 0; u < flat_->size(); ++u) {
    state_[u].pending = static_cast<int64_t>(flat_->unit(u).params.size());
    state_[u].reduced = false;
  }
}

void ZeroEngine::on_gradient_accumulated(size_t u) {
  if (!armed_) return;
  if (--state_[u].pending == 0) start_reduce_scatter(u);
}

void ZeroEngine::start_reduce_scatter(size_t u) {
  if (options_.overlap) {
    // At most two in flight, the one started last and this one: the buffers stay bounded (two
    // units'), as DeepSpeed's double-buffered reduce buckets (docs/sharding.md, "Memory").
    for (size_t v = 0; v < state_.size(); ++v) {
      if (v != last_started_ && state_[v].rs >= 0) complete_reduce_scatter(v);
    }
  }
  last_started_ = u;
  UnitState& st = state_[u];
  FlatUnit& f = flat_->unit(u);
  const auto wire = f.flat.options().dtype(options_.wire_dtype);
  st.rs_send = torch::empty({f.shard * flat_->ranks()}, wire);
  // Divided by the world size on the way in, as DDP's buckets: the sum is the average.
  flat_->gather_gradients(u, st.rs_send, 1.0 / flat_->ranks());
  for (auto& p : f.params) p.mutable_grad() = torch::Tensor();  // kept in the send buffer only
  st.rs_recv = torch::empty({f.shard}, wire);
  st.rs = comm_.start_reduce_scatter(st.rs_send, st.rs_recv);
  st.reduced = true;
  if (options_.stage == 3) free_unit(u);  // its backward is over
  if (!options_.overlap) complete_reduce_scatter(u);
}

void ZeroEngine::complete_reduce_scatter(size_t u) {
  UnitState& st = state_[u];
  if (st.rs < 0) return;
  const double t0 = MpiWorld::now_s();
  comm_.wait(st.rs);
  times_.reduce_scatter_s += MpiWorld::now_s() - t0;
  torch::NoGradGuard no_grad;
  grad_block_[u].add_(st.rs_recv);  // fp32 accumulation over the window's micro-steps
  st.rs = -1;
  st.rs_send = torch::Tensor();
  st.rs_recv = torch::Tensor();
}

void ZeroEngine::finish_backward() {
  if (options_.stage >= 2) {
    // A unit whose gradients did not all arrive (none in this ViT) is reduced now, in the same
    // order on every rank.
    for (size_t u = flat_->size(); u-- > 0;) {
      if (!state_[u].reduced) start_reduce_scatter(u);
    }
    for (size_t u = flat_->size(); u-- > 0;) complete_reduce_scatter(u);
    armed_ = false;
  }
  if (options_.stage == 3) {
    for (size_t u = 0; u < flat_->size(); ++u) free_unit(u);
  }
}

void ZeroEngine::load_gradients(const std::function<torch::Tensor(size_t)>& averaged_gradient) {
  size_t first = 0;
  for (size_t u = 0; u < flat_->size(); ++u) {
    const size_t n = flat_->unit(u).params.size();
    std::vector<torch::Tensor> full;
    for (size_t i = 0; i < n; ++i) full.push_back(averaged_gradient(first + i));
    grad_block_[u].zero_();
    flat_->add_own_block(u, full, grad_block_[u]);
    first += n;
  }
}

double ZeroEngine::local_gradient_norm_squared() const {
  double sum = 0;
  for (const auto& g : grad_block_) sum += g.to(torch::kDouble).pow(2).sum().item<double>();
  return sum;
}

void ZeroEngine::scale_gradients(double factor) {
  torch::NoGradGuard no_grad;
  for (auto& g : grad_block_) g.mul_(factor);
}

bool ZeroEngine::local_gradients_finite() const {
  for (const auto& g : grad_block_) {
    if (!torch::isfinite(g).all().item<bool>()) return false;
  }
  return true;
}

void ZeroEngine::step(const std::function<void(const std::vector<torch::Tensor>&)>& on_shards) {
  torch::NoGradGuard no_grad;
  for (size_t u = 0; u < master_.size(); ++u) master_[u].mutable_grad() = grad_block_[u];
  on_shards(master_);
  for (size_t u = 0; u < master_.size(); ++u) {
    master_[u].mutable_grad() = torch::Tensor();
    grad_block_[u].zero_();  // the next window accumulates from zero
  }
  refresh_model_blocks();
  if (options_.stage < 3) allgather_all();
}

void ZeroEngine::refresh_model_blocks() {
  torch::NoGradGuard no_grad;
  for (size_t u = 0; u < master_.size(); ++u) {
    if (!model_block_[u].is_same(master_[u])) model_block_[u].copy_(master_[u]);
  }
}

void ZeroEngine::allgather_all() {
  std::vector<Communicator::Handle> handles;
  for (size_t u = 0; u < flat_->size(); ++u)
    handles.push_back(comm_.start_allgather(model_block_[u], flat_->unit(u).flat));
  const double t0 = MpiWorld::now_s();
  for (auto h : handles) comm_.wait(h);
  times_.allgather_s += MpiWorld::now_s() - t0;
}

void ZeroEngine::refresh_model() {
  refresh_model_blocks();
  if (options_.stage < 3) allgather_all();
}

std::vector<torch::Tensor> ZeroEngine::full_master_parameters() {
  std::vector<torch::Tensor> out;
  for (size_t u = 0; u < flat_->size(); ++u) {
    torch::Tensor whole = torch::empty({master_[u].numel() * flat_->ranks()}, master_[u].options());
    comm_.wait(comm_.start_allgather(master_[u], whole));
    for (auto& t : flat_->unflatten(u, whole)) out.push_back(t);
  }
  return out;
}

}  // namespace vitsim::trainer
