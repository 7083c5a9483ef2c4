// The epoch loop, one optimizer step (a window of micro-steps), the agreement between ranks in
// each step (loss, accuracy, NaN, Ctrl-C), and evaluation (trainer.h).
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <thread>

#include "trainer/autocast_compat.h"
#include "trainer/memory_meter.h"
#include "trainer/trainer.h"

namespace vitsim::trainer {

bool interrupted_flag();  // trainer.cpp
int interrupt_signal();   // trainer.cpp: the first signal this rank received, 0 when none

namespace {
double now() {
  return MpiWorld::now_s();
}

void misbehave(const TrainOptions& o, int rank, int64_t step) {
  if (o.debug_fault.empty() || o.debug_fault_rank != rank || o.debug_fault_step != step) return;
  std::cerr << "[rank " << rank << "] vitsim-train: --debug-fault " << o.debug_fault << " at step "
            << step << "\n";
  if (o.debug_fault == "kill") ::raise(SIGKILL);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // "hang": stop talking
}
}  // namespace

void Trainer::sync_device() {
  if (device_.is_cuda()) comm_->synchronize();
}

Trainer::StepOutcome Trainer::train_epoch(int64_t epoch, int64_t first) {
  const int64_t micro_steps = sampler_->micro_steps(options_.micro_batch);
  loader_->start_epoch(sampler_->indices(epoch), options_.micro_batch, epoch, first);
  if (first == 0) {
    epoch_totals_ = {};
    epoch_started_s_ = now();
  } else {
    epoch_started_s_ = now() - position_.epoch_elapsed_s;
  }
  position_.epoch = epoch;
  int64_t step_in_epoch = 0;
  const size_t first_record = steps_.size();
  for (int64_t m = first; m < micro_steps;) {
    misbehave(options_, world_.rank(), position_.global_step);
    const int64_t window = std::min(options_.accumulation, micro_steps - m);
    const EpochTotals before = epoch_totals_;
    StepOutcome outcome = StepOutcome::kOk;
    StepTimes t = train_window(window, epoch_totals_, outcome);
    t.epoch = epoch;
    t.step_in_epoch = step_in_epoch++;
    m += window;
    position_.micro_step = m;
    ++position_.global_step;
    if (options_.log_every > 0 && position_.global_step % options_.log_every == 0 &&
        world_.rank() == 0) {
      std::printf("step %lld loss %.6f\n", static_cast<long long>(position_.global_step),
                  (epoch_totals_.loss_sum - before.loss_sum) /
                      std::max(1.0, epoch_totals_.samples - before.samples));
      std::fflush(stdout);
    }
    steps_.push_back(t);
    if (outcome == StepOutcome::kNan) {
      if (world_.rank() == 0) {
        std::cerr << "vitsim-train: the training loss is NaN or infinite at epoch " << epoch + 1
                  << ", step " << position_.global_step << " (lr " << options_.learning_rate << ", "
                  << costmodel::to_string(options_.precision) << "): stopping all ranks; lower --lr"
                  << (options_.precision == costmodel::Regime::kFp32 ? "" : " or train in fp32")
                  << "\n";
      }
      return outcome;
    }
    if (options_.wall_clock_breakdown && position_.global_step % options_.steps_per_print == 0) {
      std::cout << deepspeed_lines(world_.rank(), t) << std::flush;
    }
    print_progress(m, micro_steps, epoch_totals_.loss_sum / std::max(1.0, epoch_totals_.samples));
    const bool stop_steps = options_.max_steps > 0 && position_.global_step >= options_.max_steps;
    maybe_checkpoint(outcome == StepOutcome::kInterrupted);
    if (outcome == StepOutcome::kInterrupted) {
      if (world_.rank() == 0) std::cerr << "vitsim-train: interrupted; stopping all ranks\n";
      return outcome;
    }
    if (stop_steps) break;
  }
  const double elapsed = now() - epoch_started_s_;
  estimate_waits(first_record);
  finish_epoch(epoch, step_in_epoch, elapsed, epoch_totals_);
  position_.epoch = epoch + 1;
  position_.micro_step = 0;
  return StepOutcome::kOk;
}

void Trainer::estimate_waits(size_t first_record) {
  // Waiting vs transfer: compare when each rank had its gradients ready (rank 0's clock).
  std::vector<StepTimes> epoch_steps(steps_.begin() + first_record, steps_.end());
  std::vector<double> ready;
  for (const auto& s : epoch_steps) ready.push_back(s.gradients_ready_s);
  const std::vector<double> ready_all = world_.allgather(ready);
  estimate_allreduce_waits(epoch_steps, ready_all, world_.rank(), world_.size());
  std::copy(epoch_steps.begin(), epoch_steps.end(), steps_.begin() + first_record);
}

StepTimes Trainer::train_window(int64_t window, EpochTotals& totals, StepOutcome& outcome) {
  StepTimes t;
  EpochTotals local;
  t.micro_steps = window;
  const int memory_device = device_.is_cuda() ? device_.index() : -1;
  reset_peak_tensor_bytes(memory_device);
  const double t_start = now();
  for (int64_t i = 0; i < window; ++i) {
    double t0 = now();
    std::optional<Batch> batch = loader_->next();
    if (!batch) throw std::logic_error("data loader ended before the epoch did");
    double t1 = now();
    t.data_s += t1 - t0;
    run_micro_step(*batch, i == window - 1, loss_scale_ / static_cast<double>(window), t, local);
  }
  // The agreement right after the gradient all-reduce, before the optimizer step: the ranks have
  // just left the all-reduce together, so this latency-bound exchange waits for no rank's
  // optimizer (and a NaN step is never applied). On an emulated host under a CPU quota it still
  // waits for a peer whose quota ran out (spent spinning in the all-reduce unless --mpi-wait
  // poll): docs/validation.md, "Where the untimed time goes".
  const double t_agree = now();
  outcome = agree_on_step(totals, local);
  t.sync_s = now() - t_agree;
  if (outcome != StepOutcome::kNan) optimizer_step(t);  // a NaN step stops the run unapplied
  t.step_s = now() - t_start;
  t.recompute_s = forward_->take_recompute_s();
  t.peak_memory_bytes = peak_tensor_bytes(memory_device).value_or(-1);
  if (zero_) {
    const ZeroTimes z = zero_->take_times();
    t.reduce_scatter_s = z.reduce_scatter_s;
    t.reduce_scatter_wait_s = z.reduce_scatter_wait_s;
    t.allgather_s = z.allgather_s;
    t.allgather_wait_s = z.allgather_wait_s;
    t.unit_free_s = z.unit_free_s;
  }
  return t;
}

void Trainer::run_micro_step(const Batch& batch, bool last, double loss_scale, StepTimes& t,
                             EpochTotals& local) {
  double t0 = now();
  auto images = batch.images.to(device_, /*non_blocking=*/true);
  auto labels = batch.labels.to(device_, /*non_blocking=*/true);
  sync_device();
  double t1 = now();
  t.host_to_device_s += t1 - t0;

  if (reducer_) reducer_->prepare(last);
  if (zero_) zero_->prepare_backward();
  torch::Tensor logits, loss;
  {
    // amp-*: autocast over the fp32 model. ds-*: the model is bf16 itself, so is its input.
    const bool amp = costmodel::is_amp(options_.precision);
    if (costmodel::is_deepspeed(options_.precision)) images = images.to(torch::kBFloat16);
    const auto dtype = costmodel::math_type(options_.precision) == costmodel::MathType::kBf16
                           ? at::kBFloat16
                           : at::kHalf;
    if (amp) autocast_on(device_.type(), dtype);
    logits = forward_->forward(images);
    loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat), labels);
    autocast_off();
  }
  const double loss_value = loss.item<double>();  // also synchronises the device
  double t2 = now();
  t.forward_s += t2 - t1;

  (loss * loss_scale).backward();
  sync_device();
  double t3 = now();
  t.backward_s += t3 - t2;
  if (zero_ && !reducer_) {
    // Stages 2-3: every micro-step reduce-scatters its units (DeepSpeed's accumulation); what is
    // still under way after the backward is the exposed part.
    zero_->finish_backward();
    sync_device();
    t.allreduce_s += now() - t3;
    if (last) t.gradients_ready_s = t3 + clock_offset_s_;
  } else if (last) {
    reducer_->finish();
    // Stage 1: this rank's block of the averaged gradients, the optimizer's input.
    if (zero_) zero_->load_gradients([&](size_t i) { return reducer_->averaged_gradient(i); });
    sync_device();
    t.allreduce_s += now() - t3;
    t.bucket_copy_s += reducer_->bucket_copy_s();
    t.gradients_ready_s = reducer_->gradients_ready_s() + clock_offset_s_;
  }
  const double b = static_cast<double>(labels.size(0));
  local.loss_sum += loss_value * b;
  local.samples += b;
  local.correct += logits.argmax(1).eq(labels).sum().item<double>();
}

void Trainer::optimizer_step(StepTimes& t) {
  const double t0 = now();
  torch::NoGradGuard no_grad;
  const bool fp16 = costmodel::math_type(options_.precision) == costmodel::MathType::kFp16;
  if (zero_) {
    // ZeRO: the step on this rank's blocks, then (stages 1-2) the all-gather of the weights.
    zero_->step([&](const std::vector<torch::Tensor>&) { sharded_optimizer_step(fp16); });
    for (auto& p : parameters_) p.mutable_grad() = torch::Tensor();  // stage 1's bucket views
    sync_device();
    t.optimizer_s += now() - t0;
    return;
  }
  bool skip = false;
  if (fp16) {
    // Gradients are identical on all ranks, so all ranks decide alike.
    bool finite = true;
    for (auto& p : parameters_) {
      p.mutable_grad().div_(loss_scale_);
      finite = finite && torch::isfinite(p.grad()).all().item<bool>();
    }
    skip = !update_loss_scale(finite);
  }
  const auto clip_and_step = [&](const std::vector<torch::Tensor>& weights) {
    if (skip) return;
    if (options_.gradient_clipping > 0)
      torch::nn::utils::clip_grad_norm_(weights, options_.gradient_clipping);
    optimizer_->step();
  };
  if (master_) {
    // DeepSpeed-style: the averaged gradients (bf16, or fp32 with fp32 communication) become the
    // fp32 master copy's gradients; clipping and the step act on the master weights.
    std::vector<torch::Tensor> grads;
    for (size_t i = 0; i < parameters_.size(); ++i) grads.push_back(reducer_->averaged_gradient(i));
    master_->step(grads, clip_and_step);
  } else {
    clip_and_step(parameters_);
  }
  // Set to none rather than zero: the next backward then writes fresh gradients instead of adding
  // to zeros, and the bucket views of GradientReducer::finish() are released.
  for (auto& p : parameters_) p.mutable_grad() = torch::Tensor();
  sync_device();
  t.optimizer_s += now() - t0;
}

Trainer::StepOutcome Trainer::agree_on_step(EpochTotals& totals, const EpochTotals& local) {
  std::vector<double> v = {local.loss_sum, local.correct, local.samples,
                           interrupted_flag() ? 1.0 : 0.0,
                           std::isfinite(local.loss_sum) ? 0.0 : 1.0};
  // Which signals the ranks received, one count each: every rank then exits by the same one.
  const int mine = interrupt_signal();
  for (int sig : kStopSignals) v.push_back(mine == sig ? 1.0 : 0.0);
  world_.allreduce_sum(v);
  totals.loss_sum += v[0];
  totals.correct += v[1];
  totals.samples += v[2];
  if (v[4] > 0) return StepOutcome::kNan;
  if (v[3] > 0) {
    // Its own signal where it received one; else the last of kStopSignals any rank received.
    stop_signal_ = mine;
    for (size_t i = 0; i < std::size(kStopSignals) && mine == 0; ++i)
      if (v[5 + i] > 0) stop_signal_ = kStopSignals[i];
    if (stop_signal_ == 0) stop_signal_ = SIGINT;  // a flag without a signal: the old meaning
    return StepOutcome::kInterrupted;
  }
  return StepOutcome::kOk;
}

double Trainer::evaluate() {
  torch::NoGradGuard no_grad;
  model_->eval();
  BatchLoaderOptions lo;
  lo.image_size = options_.model.image_size;
  std::vector<double> counts = {0, 0};
  const int64_t n = test_images_.size();
  const int64_t batch = std::max<int64_t>(options_.micro_batch, 64);
  std::vector<int64_t> mine;
  for (int64_t i = world_.rank(); i < n; i += world_.size()) mine.push_back(i);
  // Every rank runs as many forwards as the rank with the most images (ZeRO stage 3 gathers the
  // units in each, a collective): one with fewer repeats its first batch, uncounted.
  const int64_t most = (n + world_.size() - 1) / world_.size();
  const int64_t forwards = (most + batch - 1) / batch;
  for (int64_t k = 0; k < forwards; ++k) {
    const size_t start = static_cast<size_t>(k * batch);
    const bool counted = start < mine.size();
    const size_t from = counted ? start : 0;
    std::vector<int64_t> part(mine.begin() + std::min(mine.size(), from),
                              mine.begin() + std::min(mine.size(), from + batch));
    if (part.empty()) part = {0};  // fewer test images than ranks: image 0, uncounted
    Batch b = make_batch(test_images_, part, lo, 0);
    auto logits = forward_->forward(b.images.to(device_).to(parameters_.front().scalar_type()));
    if (!counted) continue;
    counts[0] += logits.argmax(1).to(torch::kCPU).eq(b.labels).sum().item<double>();
    counts[1] += static_cast<double>(part.size());
  }
  model_->train();
  world_.allreduce_sum(counts);
  return counts[1] > 0 ? counts[0] / counts[1] : 0.0;
}

void Trainer::finish_epoch(int64_t epoch, int64_t steps, double elapsed_s,
                           const EpochTotals& totals) {
  std::vector<double> slowest = {elapsed_s};
  world_.allreduce_max(slowest);
  schema::EpochRecord r;
  r.epoch = epoch;
  r.steps = steps;
  r.epoch_time_s = slowest[0];
  r.train_loss = totals.samples > 0 ? totals.loss_sum / totals.samples : 0;
  r.train_accuracy = totals.samples > 0 ? totals.correct / totals.samples : 0;
  r.test_accuracy = options_.evaluate ? evaluate() : 0;
  epochs_.push_back(r);
  if (world_.rank() == 0) {
    if (options_.progress && ::isatty(1)) std::cout << "\n";
    std::printf(
        "epoch %lld/%lld: %lld steps, %.2f s, train loss %.4f, train accuracy %.4f, "
        "test accuracy %.4f\n",
        static_cast<long long>(epoch + 1), static_cast<long long>(options_.epochs),
        static_cast<long long>(steps), r.epoch_time_s, r.train_loss, r.train_accuracy,
        r.test_accuracy);
    std::fflush(stdout);
  }
}

void Trainer::print_progress(int64_t micro_step, int64_t micro_steps, double loss) {
  if (world_.rank() != 0 || !options_.progress || !::isatty(1)) return;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * micro_step / std::max<int64_t>(1, micro_steps));
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::printf("\repoch %lld/%lld [%s] %lld/%lld loss %.4f",
              static_cast<long long>(position_.epoch + 1), static_cast<long long>(options_.epochs),
              bar.c_str(), static_cast<long long>(micro_step), static_cast<long long>(micro_steps),
              loss);
  std::fflush(stdout);
}

}  // namespace vitsim::trainer
