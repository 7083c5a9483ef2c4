// Which links held the exposed communication (docs/simulator.md, "Breakdown"): while the
// simulation runs, after every advance of simulated time, each link direction of the platform is
// asked how much bandwidth SimGrid's sharing gave the flows crossing it over the interval that
// just ended (s4u::Link::get_usage() then still holds that interval's rates); a link whose flows
// used (nearly) all of it was saturated, a bottleneck of those flows. The saturated sets are kept
// as a timeline; after the run, the critical rank's blocked intervals of the last step are laid
// over it: each link gets the seconds it was saturated while that rank waited on the all-reduce.
// Only for the rank-by-rank simulation (the class-level platform's links stand for many).
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "sim/platform_plan.h"

namespace simgrid::s4u {
class Link;
}

namespace vitsim::sim {

// A link is saturated when its flows use at least this share of its bandwidth. Below 1 because
// SimGrid's LV08 model caps a link at 0.97 of it (bandwidth factor); CM02 reaches 1.
inline constexpr double kSaturatedShare = 0.95;

// Seconds per link of `PlatformPlan::links` (either direction saturated counts once), and the
// blocked seconds during which no link was saturated.
struct LinkAttribution {
  std::vector<double> link_s;
  double unsaturated_s = 0;
};

class LinkBottleneckRecorder {
 public:
  // Looks up the SimGrid links of `plan` (built by build_platform) and starts recording; call in
  // maestro after the platform is built and before the engine runs. One per engine.
  explicit LinkBottleneckRecorder(const PlatformPlan& plan);
  ~LinkBottleneckRecorder();
  LinkBottleneckRecorder(const LinkBottleneckRecorder&) = delete;
  LinkBottleneckRecorder& operator=(const LinkBottleneckRecorder&) = delete;
  // Lays `windows` (start, end) over the timeline recorded.
  LinkAttribution attribute(const std::vector<std::pair<double, double>>& windows) const;

 private:
  using LinkSet = std::vector<int>;  // plan link indices, ascending
  struct Interval {
    double start_s = 0, end_s = 0;
    const LinkSet* saturated = nullptr;  // in sets_
  };
  // After each advance of simulated time by delta_s (s4u::Engine::on_time_advance).
  void sample(double delta_s);

  std::vector<std::pair<simgrid::s4u::Link*, int>> directions_;  // SimGrid link, plan link index
  // Each saturated set once: a step-level ring saturates the same few sets phase after phase (3
  // sets in 3,795 intervals at 128 ranks of a tiny platform), and a copy per interval, of up to
  // every link, grew as ranks x links (predict, step-level ring on 256 H200 GPUs: 96 MB of its
  // peak RSS, 3.4 MB held once; the size guard counts no recorder).
  std::set<LinkSet> sets_;
  std::vector<Interval> timeline_;
};

}  // namespace vitsim::sim
