// Contradicting repeats of one all-reduce point; see repeat_check.h.
#include "calibrate/repeat_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "schema/input_error.h"

namespace vitsim::calibrate {

namespace {

// One point measured more than once: its extremes and where they came from.
struct Repeated {
  int64_t ranks = 0, ranks_per_node = 0;
  double bytes = 0, lo_s = 0, hi_s = 0, spread_rel = 0;
  size_t count = 0;
  std::string lo_file, hi_file, files;
};

std::string point_text(const Repeated& r) {
  return fmt::format(
      "{} measurements of {:.0f} bytes over {} ranks ({} per node) range from "
      "{:.6g} s to {:.6g} s ({:.1f} % of their mean apart)",
      r.count, r.bytes, r.ranks, r.ranks_per_node, r.lo_s, r.hi_s, 100 * r.spread_rel);
}

std::vector<Repeated> repeated_points(const std::vector<SourcedSample>& samples) {
  using Point = std::tuple<int64_t, int64_t, double>;  // ranks, ranks per node, bytes
  std::map<Point, std::vector<const SourcedSample*>> by_point;
  std::vector<Point> order;
  for (const auto& s : samples) {
    const Point p{s.sample.ranks, s.ranks_per_node, s.sample.message_bytes};
    if (!by_point.count(p)) order.push_back(p);
    by_point[p].push_back(&s);
  }
  std::vector<Repeated> out;
  for (const Point& p : order) {
    const auto& v = by_point[p];
    if (v.size() < 2) continue;
    auto by_time = [](const SourcedSample* a, const SourcedSample* b) {
      return a->sample.time_s < b->sample.time_s;
    };
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end(), by_time);
    Repeated r;
    r.ranks = std::get<0>(p);
    r.ranks_per_node = std::get<1>(p);
    r.bytes = std::get<2>(p);
    r.lo_s = (*lo)->sample.time_s;
    r.hi_s = (*hi)->sample.time_s;
    double sum = 0;
    std::set<std::string> seen;
    for (const auto* s : v) {
      sum += s->sample.time_s;
      if (seen.insert(s->file).second) r.files += (r.files.empty() ? "" : ", ") + s->file;
    }
    const double mean = sum / static_cast<double>(v.size());
    r.spread_rel = mean > 0 ? (r.hi_s - r.lo_s) / mean : 0;
    r.count = v.size();
    r.lo_file = (*lo)->file;
    r.hi_file = (*hi)->file;
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<std::string> check_repeats(const std::string& link_class,
                                       const std::vector<SourcedSample>& samples) {
  const std::vector<Repeated> points = repeated_points(samples);
  const Repeated* worst = nullptr;   // the largest ratio
  const Repeated* widest = nullptr;  // the largest spread
  size_t apart = 0;
  std::set<std::string> files;
  std::string listed;
  for (const Repeated& r : points) {
    if (!worst || r.hi_s * worst->lo_s > worst->hi_s * r.lo_s) worst = &r;
    if (!(r.spread_rel > kRepeatWarnSpreadRel)) continue;
    ++apart;
    if (!widest || r.spread_rel > widest->spread_rel) widest = &r;
    if (files.insert(r.files).second) listed += (listed.empty() ? "" : "; ") + r.files;
  }
  if (worst && worst->hi_s > kRepeatRefuseRatio * worst->lo_s) {
    throw schema::InputError(fmt::format(
        "link {}: {} from [{}]: expected repeats of one point within a factor {:g} of each "
        "other, got {:.3g} (hint: {} or {} measured another link, or failed; calibrate without "
        "it, or measure the link again)",
        link_class, point_text(*worst), worst->files, kRepeatRefuseRatio, worst->hi_s / worst->lo_s,
        worst->lo_file, worst->hi_file));
  }
  if (apart == 0) return {};
  return {fmt::format(
      "link {}: {} point(s) measured more than once are more than {:.0f} % apart, more than a "
      "link that stays the same shows; the widest: {}; files [{}]; their mean is fitted "
      "(docs/calibration.md, \"Repeated measurements\")",
      link_class, apart, 100 * kRepeatWarnSpreadRel, point_text(*widest), listed)};
}

}  // namespace vitsim::calibrate
