// Link saturation timeline and its attribution; see link_bottleneck.h.
#include "sim/link_bottleneck.h"

#include <algorithm>
#include <simgrid/s4u.hpp>

namespace vitsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
// SimGrid's signals cannot be disconnected through the s4u callback API: connect once per
// process and forward to the recorder alive now (none between runs).
LinkBottleneckRecorder* g_active = nullptr;
}  // namespace

LinkBottleneckRecorder::~LinkBottleneckRecorder() {
  if (g_active == this) g_active = nullptr;
}

LinkBottleneckRecorder::LinkBottleneckRecorder(const PlatformPlan& plan) {
  for (size_t i = 0; i < plan.links.size(); ++i) {
    // platform_builder makes every plan link a split-duplex pair: both directions can saturate.
    const sg4::SplitDuplexLink* l = sg4::SplitDuplexLink::by_name(plan.link_name(i));
    directions_.emplace_back(l->get_link_up(), static_cast<int>(i));
    directions_.emplace_back(l->get_link_down(), static_cast<int>(i));
  }
  static bool connected = false;
  if (!connected) {
    sg4::Engine::on_time_advance_cb([](double delta_s) {
      if (g_active != nullptr) g_active->sample(delta_s);
    });
    connected = true;
  }
  g_active = this;
}

void LinkBottleneckRecorder::sample(double delta_s) {
  if (!(delta_s > 0)) return;
  const double now = sg4::Engine::get_clock();
  std::vector<int> saturated;
  for (const auto& [link, index] : directions_) {
    if (link->get_usage() >= kSaturatedShare * link->get_bandwidth() &&
        (saturated.empty() || saturated.back() != index))
      saturated.push_back(index);
  }
  // Intervals with nothing saturated are not kept: blocked time outside the timeline counts as
  // unsaturated. Consecutive intervals with the same links merge, so a long compute phase or a
  // steady all-reduce costs one entry.
  if (saturated.empty()) return;
  const LinkSet* set = &*sets_.insert(std::move(saturated)).first;
  if (!timeline_.empty() && timeline_.back().saturated == set &&
      timeline_.back().end_s == now - delta_s) {
    timeline_.back().end_s = now;
    return;
  }
  timeline_.push_back({now - delta_s, now, set});
}

LinkAttribution LinkBottleneckRecorder::attribute(
    const std::vector<std::pair<double, double>>& windows) const {
  LinkAttribution out;
  size_t links = 0;
  for (const auto& d : directions_) links = std::max(links, static_cast<size_t>(d.second) + 1);
  out.link_s.assign(links, 0.0);
  for (const auto& [w0, w1] : windows) {
    double covered = 0;
    // The timeline is in time order: start at the first interval that may overlap the window.
    auto it = std::lower_bound(timeline_.begin(), timeline_.end(), w0,
                               [](const Interval& i, double t) { return i.end_s <= t; });
    for (; it != timeline_.end() && it->start_s < w1; ++it) {
      const double overlap = std::min(w1, it->end_s) - std::max(w0, it->start_s);
      if (overlap <= 0) continue;
      covered += overlap;
      for (int l : *it->saturated) out.link_s[static_cast<size_t>(l)] += overlap;
    }
    out.unsaturated_s += std::max(0.0, (w1 - w0) - covered);
  }
  return out;
}

}  // namespace vitsim::sim
