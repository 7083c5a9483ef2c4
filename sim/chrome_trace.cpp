// Chrome trace writer; see chrome_trace.h. A rank's wait at the end of its backward is split in
// two spans: first "idle" (the part explained by slower ranks' compute: min(wait, slowest compute
// of the step - own compute)), then "communication" (the rest: exposed all-reduce time).
#include "sim/chrome_trace.h"

#include <algorithm>
#include <cmath>

namespace vitsim::sim {
namespace {

nlohmann::json span_event(int64_t pid, int64_t tid, const std::string& name, const char* cat,
                          double start_s, double duration_s) {
  return {{"ph", "X"},
          {"pid", pid},
          {"tid", tid},
          {"name", name},
          {"cat", cat},
          {"ts", start_s * 1e6},
          {"dur", duration_s * 1e6}};
}

nlohmann::json meta(int64_t pid, int64_t tid, const char* what, const nlohmann::json& args) {
  nlohmann::json m = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", args}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

}  // namespace

void ChromeTrace::add(int64_t pid, const std::string& label, const std::vector<std::string>& tracks,
                      const SimOutput& out) {
  events_.push_back(meta(pid, -1, "process_name", {{"name", label}}));
  events_.push_back(meta(pid, -1, "process_sort_index", {{"sort_index", pid}}));
  const auto traced = std::min<int64_t>(kMaxTraceTracks, static_cast<int64_t>(tracks.size()));
  if (traced < static_cast<int64_t>(tracks.size())) {
    events_.push_back(meta(
        pid, -1, "process_labels",
        {{"labels",
          "tracks of the first " + std::to_string(traced) + " of " + std::to_string(tracks.size()) +
              " simulated ranks or classes of ranks only; the prediction covers every rank"}}));
  }
  for (int64_t a = 0; a < traced; ++a) {
    const std::string& who = tracks[static_cast<size_t>(a)];
    events_.push_back(meta(pid, 2 * a, "thread_name", {{"name", who}}));
    events_.push_back(meta(pid, 2 * a + 1, "thread_name", {{"name", who + " all-reduce"}}));
    events_.push_back(meta(pid, 2 * a, "thread_sort_index", {{"sort_index", 2 * a}}));
    events_.push_back(meta(pid, 2 * a + 1, "thread_sort_index", {{"sort_index", 2 * a + 1}}));
  }
  // Slowest compute of each step, for the idle part of the waits.
  std::vector<double> max_compute;
  for (const auto& rec : out.ranks) {
    max_compute.resize(std::max(max_compute.size(), rec.compute_s.size()), 0.0);
    for (size_t s = 0; s < rec.compute_s.size(); ++s)
      max_compute[s] = std::max(max_compute[s], rec.compute_s[s]);
  }
  for (const TraceSpan& s : out.spans) {
    if (s.rank >= traced) continue;
    const int64_t tid = 2 * s.rank + s.track;
    if (s.track == 1) {
      events_.push_back(span_event(pid, tid, s.name, "communication", s.start_s, s.duration_s));
    } else if (s.name != "wait") {
      events_.push_back(span_event(pid, tid, s.name, "compute", s.start_s, s.duration_s));
    } else {
      const double own =
          out.ranks[static_cast<size_t>(s.rank)].compute_s[static_cast<size_t>(s.step)];
      const double idle =
          std::clamp(max_compute[static_cast<size_t>(s.step)] - own, 0.0, s.duration_s);
      if (idle > 0) events_.push_back(span_event(pid, tid, "idle", "idle", s.start_s, idle));
      if (s.duration_s - idle > 0) {
        events_.push_back(span_event(pid, tid, "communication", "communication", s.start_s + idle,
                                     s.duration_s - idle));
      }
    }
  }
}

nlohmann::json ChromeTrace::document(const nlohmann::json& context) const {
  return {{"schema", "vitsim.trace"},
          {"schema_version", 1},
          {"context", context},
          {"displayTimeUnit", "ms"},
          {"traceEvents", events_}};
}

}  // namespace vitsim::sim
