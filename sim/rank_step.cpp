// A rank's steps over a StepRuntime; see rank_step.h and docs/simulator.md ("Compute").
#include "sim/rank_step.h"

namespace vitsim::sim {
namespace {

// Sum of t over [lo, hi) in the order the layers run (backward from hi-1 down to lo).
double layer_sum(const std::vector<double>& t, int lo, int hi, bool forward) {
  double total = 0;
  for (int k = 0; k < hi - lo; ++k) total += t[static_cast<size_t>(forward ? lo + k : hi - 1 - k)];
  return total;
}

}  // namespace

RankSteps::RankSteps(const SimInput& in, int64_t actor, bool communicate, bool stream,
                     std::vector<TraceSpan>* spans)
    : in_(in),
      plan_(in.ranks[static_cast<size_t>(actor)]),
      actor_(actor),
      communicate_(communicate),
      stream_(stream),
      spans_(in.trace && actor < in.trace_actors ? spans : nullptr),
      forward_total_s_(
          layer_sum(plan_.forward_s, 0, static_cast<int>(plan_.forward_s.size()), true)),
      backward_total_s_(
          layer_sum(plan_.backward_s, 0, static_cast<int>(plan_.backward_s.size()), false)) {
  for (const Bucket& b : in_.buckets) bucket_bytes_ += b.bytes;
}

void RankSteps::run(StepRuntime& rt, RankRecord& rec) {
  for (int64_t s = 0; s < in_.steps; ++s) {
    step_ = s;
    compute_ = 0;
    waited_s_ = 0;
    // An epoch's first step: the loader's start, first-touch allocations (docs/simulator.md).
    if (s == 0) sleep(rt, "epoch start", plan_.epoch_start_s);
    for (int64_t m = 0; m < in_.accumulation; ++m) {
      // The step's first batch after the previous step's wait, measured so where measured.
      if (m == 0 && after_wait_ && plan_.data_after_wait_s) {
        sleep(rt, "data (after the wait)", *plan_.data_after_wait_s);
      } else {
        sleep(rt, "data", plan_.data_s);
      }
      layers(rt, "fwd ", plan_.forward_s, 0, static_cast<int>(plan_.forward_s.size()), true);
      const bool sync = communicate_ && m == in_.accumulation - 1;
      // The ranks' slowest arrives later than the mean by the expected straggler wait.
      if (sync) {
        sleep(rt, "stragglers (step noise)", plan_.straggler_s);
        sleep(rt, "stragglers (a rank's process)", plan_.straggler_process_s);
      }
      if (!sync) {
        layers(rt, "bwd ", plan_.backward_s, 0, static_cast<int>(plan_.backward_s.size()), false);
      } else if (!stream_) {
        // No overlap: the stream would take every bucket at the end of the backward and reduce
        // them in order while this actor waits; doing it here gives the same times.
        layers(rt, "bwd ", plan_.backward_s, 0, static_cast<int>(plan_.backward_s.size()), false);
        sleep(rt, "bucket copy", plan_.bucket_copy_s);
        const double t0 = rt.now();
        for (size_t b = 0; b < in_.buckets.size(); ++b) rt.allreduce(s, b);
        waited(rt, rec, t0);
      } else {
        backward_and_release(rt);
        const double t0 = rt.now();
        rt.wait_for_stream();
        waited(rt, rec, t0);
      }
    }
    // After a wait for the all-reduce as long as its profile's, the optimizer measured there.
    after_wait_ = plan_.optimizer_wait_s > 0 && waited_s_ >= plan_.optimizer_wait_s;
    if (after_wait_) {
      sleep(rt, "optimizer (after the wait)", plan_.optimizer_after_wait_s);
    } else {
      sleep(rt, "optimizer", plan_.optimizer_s);
    }
    sleep(rt, "overhead", plan_.overhead_s);
    rec.step_end_s.push_back(rt.now());
    rec.compute_s.push_back(compute_);
  }
}

// The compute stream was blocked on the all-reduce from t0 until now.
void RankSteps::waited(StepRuntime& rt, RankRecord& rec, double t0) {
  const double now = rt.now();
  waited_s_ = now - t0;
  span("wait", t0, now - t0);
  if (step_ == in_.steps - 1 && now > t0) rec.last_step_waits.emplace_back(t0, now);
}

void RankSteps::span(const std::string& name, double start, double duration) {
  if (spans_ != nullptr && duration > 0)
    spans_->push_back({actor_, 0, step_, name, start, duration});
}

void RankSteps::sleep(StepRuntime& rt, const std::string& name, double duration_s) {
  if (duration_s <= 0) return;
  span(name, rt.now(), duration_s);
  rt.sleep_for(duration_s);
  compute_ += duration_s;
}

// Layers [lo, hi) as one sleep (nothing else can happen on this stream in between), with one
// trace span per layer. A whole pass takes its sum computed once (the same additions in the same
// order): re-reading every layer's time of every rank at every step cost cache, not arithmetic.
void RankSteps::layers(StepRuntime& rt, const char* prefix, const std::vector<double>& t, int lo,
                       int hi, bool forward) {
  double total = 0;
  if (in_.trace) {
    double at = rt.now();
    for (int k = 0; k < hi - lo; ++k) {
      const int i = forward ? lo + k : hi - 1 - k;
      span(prefix + in_.layer_names[static_cast<size_t>(i)], at, t[static_cast<size_t>(i)]);
      at += t[static_cast<size_t>(i)];
      total += t[static_cast<size_t>(i)];
    }
  } else if (lo == 0 && hi == static_cast<int>(t.size())) {
    total = forward ? forward_total_s_ : backward_total_s_;
  } else {
    total = layer_sum(t, lo, hi, forward);
  }
  if (total > 0) rt.sleep_for(total);
  compute_ += total;
}

// Backward in reverse layer order; with overlap, each bucket is handed to the all-reduce stream
// as soon as the backward of its last layer ends; without, all buckets after the backward.
void RankSteps::backward_and_release(StepRuntime& rt) {
  int hi = static_cast<int>(plan_.backward_s.size());
  if (in_.overlap) {
    // Each bucket's gradients are copied into it as they come (the hooks): its share of the copy.
    for (size_t b = 0; b < in_.buckets.size(); ++b) {
      layers(rt, "bwd ", plan_.backward_s, in_.buckets[b].ready_after, hi, false);
      hi = in_.buckets[b].ready_after;
      sleep(rt, "bucket copy", plan_.bucket_copy_s * in_.buckets[b].bytes / bucket_bytes_);
      rt.release(b);
    }
    layers(rt, "bwd ", plan_.backward_s, 0, hi, false);
  } else {
    layers(rt, "bwd ", plan_.backward_s, 0, hi, false);
    sleep(rt, "bucket copy", plan_.bucket_copy_s);
    for (size_t b = 0; b < in_.buckets.size(); ++b) rt.release(b);
  }
}

}  // namespace vitsim::sim
