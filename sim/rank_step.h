// One rank's training steps in the order the simulation runs them (docs/simulator.md, "Compute"
// and "Buckets and overlap"): the epoch's start, per micro-step the data, the forward and the
// backward, the straggler waits, the gradient buckets handed to the all-reduce, the optimizer and
// the step's overhead. The one home of that sequence: the SimGrid actors (training_sim.cpp) and
// the closed-form timeline of one class of ranks (closed_form.h) both run it, each over its own
// StepRuntime (what sleeps, what all-reduces, what the all-reduce stream is), so the two cannot
// disagree on an order or a condition. No SimGrid here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/training_sim.h"

namespace vitsim::sim {

// What a rank's steps need from the simulation that runs them.
class StepRuntime {
 public:
  virtual ~StepRuntime() = default;
  virtual double now() const = 0;
  virtual void sleep_for(double seconds) = 0;
  // Without a stream of its own: the rank all-reduces bucket `bucket` of step `step` itself and
  // returns when it is done.
  virtual void allreduce(int64_t step, size_t bucket) = 0;
  // With a stream: `bucket` is ready for it (it all-reduces the buckets in order, one at a time);
  // wait_for_stream returns when it has reduced every bucket of the step.
  virtual void release(size_t bucket) = 0;
  virtual void wait_for_stream() = 0;
};

// The steps of actor `actor` (a rank, or a class of ranks) of `in`, with its plan
// in.ranks[actor]. `communicate`: the world has 2+ ranks (gradient all-reduce, straggler waits);
// `stream`: the buckets go to an all-reduce stream (overlap, a trace), else the rank reduces them
// after its backward. Trace spans of track 0 go to `spans` (null: no trace).
class RankSteps {
 public:
  RankSteps(const SimInput& in, int64_t actor, bool communicate, bool stream,
            std::vector<TraceSpan>* spans);
  void run(StepRuntime& rt, RankRecord& rec);

 private:
  void waited(StepRuntime& rt, RankRecord& rec, double t0);
  void span(const std::string& name, double start, double duration);
  void sleep(StepRuntime& rt, const std::string& name, double duration_s);
  void layers(StepRuntime& rt, const char* prefix, const std::vector<double>& t, int lo, int hi,
              bool forward);
  void backward_and_release(StepRuntime& rt);

  const SimInput& in_;
  const RankPlan& plan_;
  int64_t actor_;
  bool communicate_, stream_;
  std::vector<TraceSpan>* spans_;
  double forward_total_s_ = 0, backward_total_s_ = 0;  // each whole pass, summed once
  double bucket_bytes_ = 0;                            // all buckets' bytes: the gradient's
  int64_t step_ = 0;
  double compute_ = 0;
  double waited_s_ = 0;      // this step's wait for its gradient all-reduce
  bool after_wait_ = false;  // the last step's wait was one its device's profile measured after
};

}  // namespace vitsim::sim
