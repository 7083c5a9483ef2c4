// Step measurements, DeepSpeed-style lines, per-rank medians (step_stats.h).
#include "trainer/step_stats.h"

#include <sys/time.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <stdexcept>

namespace vitsim::trainer {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {
std::string timestamp() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  std::tm tm{};
  ::localtime_r(&tv.tv_sec, &tm);
  char text[64];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
  char full[80];
  std::snprintf(full, sizeof(full), "%s,%03d", text, static_cast<int>(tv.tv_usec / 1000));
  return full;
}

std::string line(int rank, const char* suffix, double fwd, double bwd_inner, double allreduce,
                 double step) {
  char text[400];
  std::snprintf(text, sizeof(text),
                "[%s] [INFO] [vitsim-train] [Rank %d] time (ms) | fwd%s: %.2f | bwd%s: %.2f | "
                "bwd_inner%s: %.2f | bwd_allreduce%s: %.2f | step%s: %.2f\n",
                timestamp().c_str(), rank, suffix, fwd * 1e3, suffix, (bwd_inner + allreduce) * 1e3,
                suffix, bwd_inner * 1e3, suffix, allreduce * 1e3, suffix, step * 1e3);
  return text;
}
}  // namespace

std::string deepspeed_lines(int rank, const StepTimes& t) {
  const double m = std::max<int64_t>(1, t.micro_steps);
  // Per micro-step averages, then window totals; "step" is the optimizer step (once per window).
  return line(rank, "_microstep", t.forward_s / m, t.backward_s / m, t.allreduce_s / m,
              t.optimizer_s) +
         line(rank, "", t.forward_s, t.backward_s, t.allreduce_s, t.optimizer_s);
}

void estimate_allreduce_waits(std::vector<StepTimes>& steps, const std::vector<double>& ready_all,
                              int rank, int ranks) {
  const size_t n = steps.size();
  for (size_t s = 0; s < n; ++s) {
    double latest = steps[s].gradients_ready_s;
    for (int r = 0; r < ranks; ++r) latest = std::max(latest, ready_all[r * n + s]);
    const double lag = latest - ready_all[rank * n + s];
    steps[s].allreduce_wait_s = std::clamp(lag, 0.0, steps[s].allreduce_s);
  }
}

std::vector<double> times_from_last_arrival(const std::vector<double>& starts,
                                            const std::vector<double>& ends, int ranks) {
  if (ranks < 1 || starts.size() != ends.size() || starts.size() % static_cast<size_t>(ranks) != 0)
    throw std::invalid_argument("times_from_last_arrival: starts and ends of ranks x iterations");
  const size_t n = starts.size() / static_cast<size_t>(ranks);
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    size_t last = i;  // the rank that started last
    double end = ends[i];
    for (size_t r = 1; r < static_cast<size_t>(ranks); ++r) {
      if (starts[r * n + i] > starts[last]) last = r * n + i;
      end = std::max(end, ends[r * n + i]);
    }
    out[i] = (ends[last] - starts[last]) + std::max(0.0, end - ends[last]);
  }
  return out;
}

schema::RankStepSummary summarize_steps(int rank, const std::string& host,
                                        const std::vector<StepTimes>& steps,
                                        StepStatistic statistic) {
  std::vector<const StepTimes*> kept;
  for (const auto& s : steps) {
    if (s.step_in_epoch > 0) kept.push_back(&s);
  }
  if (kept.empty()) {
    for (const auto& s : steps) kept.push_back(&s);
  }
  auto med = [&](double StepTimes::*field) {
    std::vector<double> v;
    for (const auto* s : kept) v.push_back(s->*field);
    return statistic == StepStatistic::kMedian ? median(v) : mean_and_spread(v).mean;
  };
  schema::RankStepSummary r;
  r.rank = rank;
  r.host = host;
  r.steps = static_cast<int64_t>(kept.size());
  r.step_time_s = med(&StepTimes::step_s);
  r.data_time_s = med(&StepTimes::data_s);
  r.host_to_device_time_s = med(&StepTimes::host_to_device_s);
  r.forward_time_s = med(&StepTimes::forward_s);
  r.backward_time_s = med(&StepTimes::backward_s);
  r.allreduce_time_s = med(&StepTimes::allreduce_s);
  r.allreduce_wait_time_s = med(&StepTimes::allreduce_wait_s);
  r.optimizer_time_s = med(&StepTimes::optimizer_s);
  r.sync_time_s = med(&StepTimes::sync_s);
  r.bucket_copy_time_s = med(&StepTimes::bucket_copy_s);
  r.reduce_scatter_time_s = med(&StepTimes::reduce_scatter_s);
  r.reduce_scatter_wait_time_s = med(&StepTimes::reduce_scatter_wait_s);
  r.allgather_time_s = med(&StepTimes::allgather_s);
  r.allgather_wait_time_s = med(&StepTimes::allgather_wait_s);
  r.unit_free_time_s = med(&StepTimes::unit_free_s);
  r.recompute_time_s = med(&StepTimes::recompute_s);
  if (!kept.empty() && kept.front()->peak_memory_bytes >= 0)
    r.peak_memory_bytes = med(&StepTimes::peak_memory_bytes);
  return r;
}

std::vector<double> backward_layer_times(double start_s, const std::vector<double>& ready_s,
                                         double end_s, double& loss_backward_s) {
  if (ready_s.size() < 2) throw std::logic_error("backward_layer_times: no layers");
  const size_t layers = ready_s.size() - 1;
  std::vector<double> out(layers);
  double began = ready_s[layers];  // when the current layer's backward began
  loss_backward_s = began - start_s;
  bool ordered = loss_backward_s >= 0;
  for (size_t i = layers; i-- > 1;) {
    out[i] = ready_s[i] - began;
    ordered = ordered && out[i] >= 0;  // NaN (a hook that never fired) fails too
    began = ready_s[i];
  }
  out[0] = end_s - began;
  if (!ordered || !(out[0] >= 0)) {
    throw std::logic_error("profile: the autograd hooks' timestamps are out of order");
  }
  return out;
}

MeanSpread mean_and_spread(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  auto q = [&](double f) {
    const double pos = f * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  return {std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()),
          q(0.75) - q(0.25)};
}

void summarize_profiled_steps(const std::vector<ProfiledStep>& steps,
                              schema::MicroBatchProfile& m) {
  if (steps.empty()) throw std::logic_error("profile: no timed steps");
  auto over = [&](auto field) {
    std::vector<double> v;
    for (const auto& s : steps) v.push_back(field(s));
    return mean_and_spread(v);
  };
  for (const auto& s : steps) {
    if (s.forward_s.size() != m.layers.size() || s.backward_s.size() != m.layers.size()) {
      throw std::logic_error("profile: a timed step does not have one time per layer");
    }
  }
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const MeanSpread f = over([i](const ProfiledStep& s) { return s.forward_s[i]; });
    const MeanSpread b = over([i](const ProfiledStep& s) { return s.backward_s[i]; });
    m.layers[i].forward_time_s = f.mean;
    m.layers[i].forward_spread_s = f.spread;
    m.layers[i].backward_time_s = b.mean;
    m.layers[i].backward_spread_s = b.spread;
  }
  m.repetitions = static_cast<int64_t>(steps.size());
  m.data_time_s = over([](const ProfiledStep& s) { return s.data_s; }).mean;
  m.host_to_device_time_s = over([](const ProfiledStep& s) { return s.host_to_device_s; }).mean;
  m.step_overhead_time_s = over([](const ProfiledStep& s) { return s.overhead_s; }).mean;
  m.optimizer_time_s = over([](const ProfiledStep& s) { return s.optimizer_s; }).mean;
  m.bucket_copy_time_s = over([](const ProfiledStep& s) { return s.bucket_copy_s; }).mean;
  // The whole step's noise, as measured: phases' ranges do not add (a throttled gap lands in one
  // phase or the next), the step's own range is what a synchronisation waits on.
  m.step_spread_s = over(step_total_s).spread;
}

double step_total_s(const ProfiledStep& s) {
  double t = s.data_s + s.host_to_device_s + s.overhead_s + s.optimizer_s;
  for (double x : s.forward_s) t += x;
  for (double x : s.backward_s) t += x;
  return t;
}

}  // namespace vitsim::trainer
