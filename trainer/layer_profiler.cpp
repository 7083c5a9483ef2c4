// `vitsim-train profile` (layer_profiler.h): which training steps of each micro-batch are timed
// and how they become a profile entry: the warm-up, the timed steps in independent blocks, the
// epoch's and process's first steps, the optimizer after an idle wait, peak memory and the
// sharding costs. Each step itself is run and timed by StepProfiler (step_profiler.h).
#include "trainer/layer_profiler.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>

#ifdef VITSIM_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "costmodel/layer_graph.h"
#include "trainer/batch_loader.h"
#include "trainer/profile_ranks.h"
#include "trainer/profile_table.h"
#include "trainer/resident_set.h"
#include "trainer/run_context.h"
#include "trainer/step_profiler.h"
#include "trainer/step_stats.h"
#include "trainer/unit_profile.h"

namespace vitsim::trainer {
namespace {

// The optimizer after an idle wait (CPU devices): how long the process sleeps before each such
// step, and how many steps are timed. 20 ms is two periods of scripts/emulate-cluster's CPU quota
// (10 ms): an emulated device idle that long returns with its period's budget unspent, as a rank
// returns from its wait for the gradient all-reduce (60 ms or more over the emulated links).
// A GPU's optimizer follows NCCL's all-reduce on the same device, busy, not after an idle host.
constexpr double kOptimizerWaitS = 0.02;
constexpr int64_t kStepsAfterWait = 8;

// The steps a profile times, micro-batch by micro-batch (see layer_profiler.h for why whole steps
// and not layer by layer alone), on one StepProfiler's model.
class Profiler {
 public:
  explicit Profiler(const ProfileOptions& o) : o_(o), steps_(o) {}

  // The first block of micro-batch b (after the warm-up) and everything measured once per
  // micro-batch (starts, the optimizer after a wait, peak memory, sharding costs).
  schema::MicroBatchProfile profile(int64_t b, int64_t block_steps);
  // Another independent block of b's timed steps: a fresh loader, one untimed step (its restart),
  // then `block_steps` timed ones.
  void repeat_block(int64_t b, int64_t block_steps);
  // m's means over every block's timed steps, and the blocks' mean steps where there are two.
  void finish(schema::MicroBatchProfile& m) const;

 private:
  // Random CIFAR-sized images through the real loader, so the data wait is the one training sees.
  struct Feed {
    CifarImages data;
    std::vector<int64_t> order;
    std::unique_ptr<BatchLoader> loader;
  };
  std::unique_ptr<Feed> feed(int64_t b, int64_t steps) const;
  void add_block(int64_t b, std::vector<ProfiledStep> timed);
  std::map<int64_t, std::vector<ProfiledStep>> timed_;  // micro-batch -> every block's steps
  std::map<int64_t, std::vector<double>> block_means_;  // micro-batch -> each block's mean step

  // One timed step (StepProfiler::step).
  ProfiledStep step(BatchLoader& loader, double wait_before_optimizer_s = 0) {
    return steps_.step(loader, wait_before_optimizer_s);
  }
  std::vector<schema::LayerTiming> layer_entries();
  void optimizer_after_wait(BatchLoader& loader, const std::vector<int64_t>& order, int64_t b,
                            int64_t fed, schema::MicroBatchProfile& m);
  void sharding_costs(BatchLoader& loader, const std::vector<int64_t>& order, int64_t b,
                      int64_t steps, schema::MicroBatchProfile& m);
  bool cold_ = true;  // the next profile() is the process's first
  // The largest micro-batch profiled so far: the resident set a CPU profile reads as its peak
  // keeps what a larger one touched (the allocator's), so a smaller one after it reports none.
  int64_t largest_ = 0;

  ProfileOptions o_;
  StepProfiler steps_;
};

std::unique_ptr<Profiler::Feed> Profiler::feed(int64_t b, int64_t steps) const {
  auto f = std::make_unique<Feed>();
  f->data.pixels.resize(b * steps * kCifarImageBytes);
  std::mt19937 rng(static_cast<uint32_t>(o_.seed));
  for (auto& p : f->data.pixels) p = static_cast<uint8_t>(rng() & 0xff);
  for (int64_t i = 0; i < b * steps; ++i)
    f->data.labels.push_back(static_cast<int32_t>(i % o_.model.classes % 10));
  BatchLoaderOptions lo;
  lo.image_size = o_.model.image_size;
  lo.pin_memory = steps_.device().is_cuda();  // as the trainer loads
  f->loader = std::make_unique<BatchLoader>(f->data, lo);
  f->order.resize(b * steps);
  for (int64_t i = 0; i < b * steps; ++i) f->order[i] = i;
  f->loader->start_epoch(f->order, b, 0);
  return f;
}

void Profiler::add_block(int64_t b, std::vector<ProfiledStep> timed) {
  double sum_s = 0;
  for (const auto& t : timed) sum_s += step_total_s(t);
  block_means_[b].push_back(sum_s / static_cast<double>(timed.size()));
  auto& all = timed_[b];
  all.insert(all.end(), std::make_move_iterator(timed.begin()),
             std::make_move_iterator(timed.end()));
}

void Profiler::repeat_block(int64_t b, int64_t block_steps) {
  const std::unique_ptr<Feed> f = feed(b, block_steps + 1);
  step(*f->loader);  // the loader's restart: an epoch's first step, not a steady one
  std::vector<ProfiledStep> timed;
  for (int64_t s = 0; s < block_steps; ++s) timed.push_back(step(*f->loader));
  add_block(b, std::move(timed));
}

void Profiler::finish(schema::MicroBatchProfile& m) const {
  ProfileRanks* ranks = o_.ranks;
  if (ranks == nullptr) {
    summarize_profiled_steps(timed_.at(m.micro_batch), m);
    const auto& means = block_means_.at(m.micro_batch);
    if (means.size() >= 2) m.block_step_times_s = means;
    return;
  }
  // Every rank's samples pooled (profile_ranks.h): each rank calls these in the same order.
  summarize_profiled_steps(ranks->pool(timed_.at(m.micro_batch), m.layers.size()), m);
  const std::vector<double> means = ranks->pool(block_means_.at(m.micro_batch));
  if (means.size() >= 2) m.block_step_times_s = means;
  for (std::optional<double>* once :
       {&m.process_start_time_s, &m.epoch_start_time_s, &m.optimizer_after_wait_time_s,
        &m.data_after_wait_time_s, &m.recompute_time_s, &m.unit_gather_time_s, &m.unit_free_time_s})
    *once = ranks->mean(*once);
  m.peak_memory_bytes = ranks->max(m.peak_memory_bytes);
}

schema::MicroBatchProfile Profiler::profile(int64_t b, int64_t block_steps) {
  schema::MicroBatchProfile m;
  m.micro_batch = b;
  const bool cpu_peak = steps_.device().is_cpu() && b >= largest_ && reset_peak_rss();
  largest_ = std::max(largest_, b);
#ifdef VITSIM_HAVE_CUDA
  if (steps_.device().is_cuda())
    c10::cuda::CUDACachingAllocator::resetPeakStats(steps_.device().index());
#endif
  m.layers = layer_entries();
  const int64_t steps = o_.warmup + block_steps;
  // Images for the warm-up and every timed step, as many as the once-a-micro-batch steps below use.
  const int64_t fed = o_.warmup + o_.repetitions;
  const std::unique_ptr<Feed> f = feed(b, fed);
  BatchLoader& loader = *f->loader;
  const std::vector<int64_t>& order = f->order;
  std::vector<ProfiledStep> timed;
  double first_s = 0;
  for (int64_t s = 0; s < steps; ++s) {
    ProfiledStep st = step(loader);
    if (s == 0) first_s = step_total_s(st);
    if (s >= o_.warmup) timed.push_back(std::move(st));
  }
  summarize_profiled_steps(timed, m);  // this block's: finish() takes every block's
  add_block(b, timed);
  if (cold_) {
    // What an epoch's first step costs more than a steady one (docs/simulator.md, "From steps to
    // an epoch"), both kinds: the process's first training step, as a run's first (the loader's
    // first batch, first-touch allocations, lazily initialised kernels and optimizer state), and
    // the first step after the loader restarts for another epoch, as the trainer's next epochs.
    double mean_s = 0;
    for (const auto& t : timed) mean_s += step_total_s(t);
    mean_s /= static_cast<double>(timed.size());
    m.process_start_time_s = std::max(0.0, first_s - mean_s);
    loader.start_epoch(order, b, 1);
    m.epoch_start_time_s = std::max(0.0, step_total_s(step(loader)) - mean_s);
    cold_ = false;
  }
  if (steps_.device().is_cpu()) optimizer_after_wait(loader, order, b, fed, m);
  if (cpu_peak) m.peak_memory_bytes = peak_rss_bytes();
#ifdef VITSIM_HAVE_CUDA
  if (steps_.device().is_cuda()) {
    m.peak_memory_bytes =
        static_cast<double>(c10::cuda::CUDACachingAllocator::getDeviceStats(steps_.device().index())
                                .allocated_bytes[0]
                                .peak);
  }
#endif
  if (o_.sharding_costs)
    sharding_costs(loader, order, b, std::min<int64_t>(o_.repetitions, fed), m);
  return m;
}

// The model's layers by name and kind, their times still to be filled.
std::vector<schema::LayerTiming> Profiler::layer_entries() {
  std::vector<schema::LayerTiming> layers;
  const auto names = steps_.model()->layer_names();
  const auto graph = costmodel::build_layer_graph(o_.model);
  for (size_t i = 0; i < names.size(); ++i) {
    schema::LayerTiming t;
    t.name = names[i];
    t.kind = graph.layers[i].kind;
    layers.push_back(t);
  }
  return layers;
}

// The optimizer after an idle wait (kOptimizerWaitS above), CPU devices: its own steps after a
// loader restart, the optimizer of each kept, and the data wait of each but the first (the first
// follows the restart, the others the previous step's wait and optimizer, as a multi-rank step's
// data wait follows the last one's all-reduce).
void Profiler::optimizer_after_wait(BatchLoader& loader, const std::vector<int64_t>& order,
                                    int64_t b, int64_t fed, schema::MicroBatchProfile& m) {
  loader.start_epoch(order, b, 2);
  double optimizer_sum_s = 0, data_sum_s = 0;
  const int64_t n = std::min(kStepsAfterWait, fed);
  for (int64_t s = 0; s < n; ++s) {
    const ProfiledStep st = step(loader, kOptimizerWaitS);
    optimizer_sum_s += st.optimizer_s;
    if (s > 0) data_sum_s += st.data_s;
  }
  m.optimizer_after_wait_time_s = optimizer_sum_s / static_cast<double>(n);
  m.optimizer_wait_s = kOptimizerWaitS;
  if (n > 1) m.data_after_wait_time_s = data_sum_s / static_cast<double>(n - 1);
}

// Sharding and checkpointing, after the peak memory's steps (unit_profile.h): checkpointed steps
// on the same loader, and a block's gather and free.
void Profiler::sharding_costs(BatchLoader& loader, const std::vector<int64_t>& order, int64_t b,
                              int64_t steps, schema::MicroBatchProfile& m) {
  loader.start_epoch(order, b, 3);
  const torch::Device& device = steps_.device();
  m.recompute_time_s = time_recompute(
      steps_.model(),
      [&] {
        std::optional<Batch> next = loader.next();
        if (!next) throw std::logic_error("profile: the loader ran out of batches");
        return std::make_pair(next->images.to(device).to(steps_.model_dtype()),
                              next->labels.to(device));
      },
      steps, [this](bool on) { steps_.set_autocast(on); });
  const UnitGatherTimes gather =
      time_unit_gather_free(steps_.model(), std::max<int64_t>(o_.repetitions, 5));
  m.unit_gather_time_s = gather.gather_s;
  m.unit_free_time_s = gather.free_s;
}

}  // namespace

schema::Profile run_profile(const ProfileOptions& o, const std::vector<std::string>& argv) {
  configure_threads(static_cast<int>(o.threads));
  Profiler profiler(o);
  schema::Profile p;
  p.device = o.device_id.empty() ? o.device : o.device_id;
  p.device_name = device_name(o.device);
  p.source = costmodel::CostSource::kMeasured;
  p.precision = o.precision;
  p.model = o.model;
  p.ranks_per_host = o.ranks == nullptr ? 1 : o.ranks->size();
  // In the order given: the first carries the process's start (process_start_time_s), and a
  // start measured at several micro-batches (profiles that begin at each in turn) tells how it
  // grows with the micro-batch (docs/cost-model.md section 1, "The first step"). Written in
  // ascending order.
  // The timed steps in `repeat_blocks` blocks of (nearly) equal size, the micro-batches in turn
  // within each round: a micro-batch's blocks lie minutes apart over the profile's span, so their
  // spread holds what moves the machine between a profile and a run (docs/formats/profile.md).
  const int64_t blocks = std::clamp<int64_t>(o.repeat_blocks, 1, o.repetitions);
  const auto block_steps = [&](int64_t k) {
    return o.repetitions / blocks + (k < o.repetitions % blocks ? 1 : 0);
  };
  // Ranks profiling together start each block together (profile_ranks.h).
  const auto together = [&] {
    if (o.ranks != nullptr) o.ranks->barrier();
  };
  for (int64_t b : o.micro_batches) {
    together();
    p.compute.push_back(profiler.profile(b, block_steps(0)));
  }
  for (int64_t k = 1; k < blocks; ++k) {
    for (int64_t b : o.micro_batches) {
      together();
      profiler.repeat_block(b, block_steps(k));
    }
  }
  for (auto& m : p.compute) {
    profiler.finish(m);
    if (o.verbose) print_profile_table(m);
  }
  std::stable_sort(p.compute.begin(), p.compute.end(),
                   [](const schema::MicroBatchProfile& x, const schema::MicroBatchProfile& y) {
                     return x.micro_batch < y.micro_batch;
                   });
  p.context = trainer_context(argv, {{"device", p.device},
                                     {"device_name", p.device_name},
                                     {"warmup", o.warmup},
                                     {"repeat_blocks", blocks},
                                     {"timing", "mean of timed training steps, phase by phase"}});
  return p;
}

}  // namespace vitsim::trainer
