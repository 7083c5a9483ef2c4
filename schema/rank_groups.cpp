// Groups of identical ranks; see rank_groups.h.
#include "schema/rank_groups.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace vitsim::schema {
namespace {

bool close(double a, double b, double relative, double absolute_s) {
  if (a == b) return true;
  return std::fabs(a - b) <= std::max(relative * std::max(std::fabs(a), std::fabs(b)), absolute_s);
}

bool same_times(const RankPrediction& a, const RankPrediction& b, double relative,
                double absolute_s) {
  return close(a.compute_time_s, b.compute_time_s, relative, absolute_s) &&
         close(a.exposed_comm_time_s, b.exposed_comm_time_s, relative, absolute_s) &&
         close(a.idle_time_s, b.idle_time_s, relative, absolute_s);
}

// The same key and the same times, exactly: a rank that joins the group of the rank before it.
bool same_row(const RankPrediction& a, const RankPrediction& b) {
  return a.device == b.device && a.micro_batch == b.micro_batch &&
         a.memory_bytes == b.memory_bytes && a.device_memory_bytes == b.device_memory_bytes &&
         a.compute_time_s == b.compute_time_s && a.exposed_comm_time_s == b.exposed_comm_time_s &&
         a.idle_time_s == b.idle_time_s;
}

// "node12" -> ("node", 12); names not ending in digits, or with a leading zero, -> (name, -1).
std::pair<std::string, int64_t> split_number(const std::string& host) {
  size_t i = host.size();
  while (i > 0 && host[i - 1] >= '0' && host[i - 1] <= '9') --i;
  const size_t digits = host.size() - i;
  if (digits == 0 || digits > 15 || (digits > 1 && host[i] == '0')) return {host, -1};
  return {host.substr(0, i), std::stoll(host.substr(i))};
}

}  // namespace

std::vector<RankGroup> group_identical_ranks(const std::vector<RankPrediction>& ranks,
                                             double relative_tolerance,
                                             double absolute_tolerance_s) {
  using Key = std::tuple<std::string, int64_t, double, double>;
  std::map<Key, std::vector<size_t>> by_kind;  // what must be equal -> candidate groups
  std::vector<RankGroup> out;
  size_t last_group = 0;  // the group of the rank before
  std::vector<std::set<std::string>> seen_hosts;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankPrediction& r = ranks[i];
    // A rank like the one before joins its group (the first candidate that took that rank takes
    // this one too), and a host already seen there adds nothing: a million ranks in a few rows.
    if (i > 0 && same_row(ranks[i - 1], r)) {
      RankGroup& g = out[last_group];
      g.ranks.push_back(r.rank);
      if (r.host != ranks[i - 1].host && seen_hosts[last_group].insert(r.host).second)
        g.hosts.push_back(r.host);
      continue;
    }
    auto& candidates = by_kind[{r.device, r.micro_batch, r.memory_bytes, r.device_memory_bytes}];
    size_t g = out.size();
    for (size_t c : candidates) {
      if (same_times(out[c].first, r, relative_tolerance, absolute_tolerance_s)) {
        g = c;
        break;
      }
    }
    if (g == out.size()) {
      candidates.push_back(g);
      out.push_back({r, {}, {}});
      seen_hosts.emplace_back();
    }
    out[g].ranks.push_back(r.rank);
    if (seen_hosts[g].insert(r.host).second) out[g].hosts.push_back(r.host);
    last_group = g;
  }
  for (RankGroup& g : out) std::sort(g.ranks.begin(), g.ranks.end());
  return out;
}

std::string format_rank_ranges(const std::vector<int64_t>& ranks, size_t max_ranges) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t r : ranks) {
    if (!ranges.empty() && ranges.back().second + 1 == r)
      ranges.back().second = r;
    else
      ranges.emplace_back(r, r);
  }
  std::string s;
  for (size_t i = 0; i < ranges.size() && i < max_ranges; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(ranges[i].first);
    if (ranges[i].second != ranges[i].first) s += "-" + std::to_string(ranges[i].second);
  }
  if (ranges.size() > max_ranges)
    s += ", ... (+" + std::to_string(ranges.size() - max_ranges) + " more ranges)";
  return s;
}

std::string format_hosts(const std::vector<std::string>& hosts, size_t max_listed) {
  if (hosts.size() <= max_listed) {
    std::string s;
    for (const auto& h : hosts) s += (s.empty() ? "" : ", ") + h;
    return s;
  }
  return hosts.front() + " .. " + hosts.back() + " (" + std::to_string(hosts.size()) + " hosts)";
}

std::string format_host_ranges(const std::vector<std::string>& hosts) {
  std::string s;
  for (size_t i = 0; i < hosts.size();) {
    const auto [prefix, first] = split_number(hosts[i]);
    size_t j = i + 1;
    while (first >= 0 && j < hosts.size() &&
           split_number(hosts[j]) ==
               std::pair<std::string, int64_t>{prefix, first + static_cast<int64_t>(j - i)})
      ++j;
    s += (s.empty() ? "" : ", ") + hosts[i];
    if (j - i > 1) s += ".." + hosts[j - 1];
    i = j;
  }
  return s;
}

std::vector<RankClassSummary> summarize_rank_classes(const std::vector<RankPrediction>& ranks) {
  std::vector<RankClassSummary> out;
  for (const RankGroup& g : group_identical_ranks(ranks)) {
    RankClassSummary c;
    c.count = g.count();
    c.ranks = format_rank_ranges(g.ranks, g.ranks.size());
    c.hosts = format_host_ranges(g.hosts);
    c.device = g.first.device;
    c.micro_batch = g.first.micro_batch;
    c.compute_time_s = g.first.compute_time_s;
    c.exposed_comm_time_s = g.first.exposed_comm_time_s;
    c.idle_time_s = g.first.idle_time_s;
    c.memory_bytes = g.first.memory_bytes;
    c.device_memory_bytes = g.first.device_memory_bytes;
    out.push_back(c);
  }
  return out;
}

}  // namespace vitsim::schema
