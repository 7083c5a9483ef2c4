// Process-to-process spread from profiles measured at the same time; see process_spread.h.
#include "calibrate/process_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <numeric>
#include <tuple>

#include "calibrate/spread.h"
#include "costmodel/statistics.h"

namespace vitsim::calibrate {

namespace {

struct Timed {
  long long start_s = 0, end_s = 0;
  std::vector<double> residuals;  // one per micro-batch with a cell of two or more profiles
};

std::optional<std::pair<long long, long long>> span_of(const schema::ProfileInput& in) {
  const schema::Json& ctx = in.profile.context;
  if (!ctx.is_object()) return std::nullopt;
  const auto time_of = [&](const char* key) -> std::optional<long long> {
    if (!ctx.contains(key) || !ctx[key].is_string()) return std::nullopt;
    return utc_seconds(ctx[key].get<std::string>());
  };
  const auto start = time_of("started_utc"), end = time_of("created_utc");
  if (!start || !end || *end < *start) return std::nullopt;
  return std::make_pair(*start, *end);
}

// Union-find root with path halving.
size_t root_of(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

std::optional<long long> utc_seconds(const std::string& text) {
  std::tm tm{};
  char tail = 0;
  if (text.size() != 20 ||
      std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &tail) != 7 ||
      tail != 'Z')
    return std::nullopt;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<long long>(timegm(&tm));
}

ProcessSpread process_spread(const std::vector<std::vector<const schema::ProfileInput*>>& groups) {
  std::vector<Timed> timed;
  // (group, host, micro-batch) -> (profile index in `timed`, forward + backward)
  std::map<std::tuple<size_t, std::string, int64_t>, std::vector<std::pair<size_t, double>>> cells;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const schema::ProfileInput* in : groups[g]) {
      const std::string host = profile_host(*in);
      const auto span = span_of(*in);
      if (host.empty() || !span) continue;
      const size_t i = timed.size();
      timed.push_back({span->first, span->second, {}});
      for (const auto& m : in->profile.compute) {
        const double t = forward_backward_s(m);
        if (t > 0) cells[{g, host, m.micro_batch}].push_back({i, t});
      }
    }
  }
  for (const auto& [key, v] : cells) {
    if (v.size() < 2) continue;
    const double n = static_cast<double>(v.size());
    double mean = 0;
    for (const auto& [i, t] : v) mean += t / n;
    for (const auto& [i, t] : v)
      timed[i].residuals.push_back((t / mean - 1) * std::sqrt(n / (n - 1)));
  }
  std::vector<size_t> parent(timed.size());
  std::iota(parent.begin(), parent.end(), size_t{0});
  for (size_t a = 0; a < timed.size(); ++a) {
    for (size_t b = a + 1; b < timed.size(); ++b) {
      if (timed[a].start_s <= timed[b].end_s && timed[b].start_s <= timed[a].end_s)
        parent[root_of(parent, a)] = root_of(parent, b);
    }
  }
  std::map<size_t, std::vector<double>> moments;  // root -> deviations of its profiles
  for (size_t i = 0; i < timed.size(); ++i) {
    const auto& r = timed[i].residuals;
    if (r.empty()) continue;
    moments[root_of(parent, i)].push_back(costmodel::mean(r));
  }
  ProcessSpread out;
  double ss = 0;
  for (const auto& [root, d] : moments) {
    if (d.size() < 2) continue;
    const double mean = costmodel::mean(d);
    for (double x : d) ss += (x - mean) * (x - mean);
    out.degrees_of_freedom += static_cast<int>(d.size() - 1);
    out.moments++;
  }
  if (out.degrees_of_freedom >= kOwnLaunchSpreadMinDegreesOfFreedom)
    out.rel = std::sqrt(ss / out.degrees_of_freedom);
  out.from = fmt::format(
      "profiles measured at the same time: {} moment(s), {} degree(s) of freedom{}", out.moments,
      out.degrees_of_freedom,
      out.rel ? std::string()
              : fmt::format(" (fewer than {}: not known)", kOwnLaunchSpreadMinDegreesOfFreedom));
  return out;
}

}  // namespace vitsim::calibrate
