// The CPU canary's report: see canary_report.h and docs/formats/cpu-canary.md.
#include "canary_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "probe_clock.h"

namespace vitsim::emulate_test {
namespace {

[[noreturn]] void bad_line(const std::string& path, int line_no, const std::string& what) {
  throw std::runtime_error(path + ":" + std::to_string(line_no) + ": " + what);
}

// The whitespace-separated fields of every line that is neither empty nor a comment, with its
// line number.
std::vector<std::pair<int, std::vector<std::string>>> fields_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::vector<std::pair<int, std::vector<std::string>>> lines;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    lines.emplace_back(line_no, fields);
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  return lines;
}

// A finite number >= 0 (times, costs), or the error naming the field.
double number(const std::string& path, int line_no, const std::string& field,
              const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(v) || v < 0)
    bad_line(path, line_no, field + ": expected a finite number >= 0, got '" + text + "'");
  return v;
}

}  // namespace

std::vector<CanarySample> read_canary_samples(const std::string& path) {
  static const char* const kFields[] = {"start_unix_s", "latency_ms", "throughput_ms", "memory_ms",
                                        "wall_ms"};
  std::vector<CanarySample> samples;
  for (const auto& [no, f] : fields_of(path)) {
    if (f.size() != 5)
      bad_line(path, no,
               "expected 5 fields (start_unix_s latency_ms throughput_ms memory_ms wall_ms), got " +
                   std::to_string(f.size()));
    double v[5];
    for (int k = 0; k < 5; ++k) v[k] = number(path, no, kFields[k], f[k]);
    CanarySample s{v[0], {}};
    for (int p = 0; p < kCanaryParts; ++p) {
      if (v[p + 1] <= 0)
        bad_line(path, no, std::string(kFields[p + 1]) + ": expected > 0, got '" + f[p + 1] + "'");
      s.cpu_ms[p] = v[p + 1];
    }
    samples.push_back(s);
  }
  return samples;
}

std::vector<Span> read_spans(const std::string& path) {
  std::vector<Span> spans;
  for (const auto& [no, f] : fields_of(path)) {
    if (f.size() != 3)
      bad_line(
          path, no,
          "expected 3 fields (label start_unix_s end_unix_s), got " + std::to_string(f.size()));
    Span s{f[0], number(path, no, "start_unix_s", f[1]), number(path, no, "end_unix_s", f[2])};
    if (s.end_unix_s < s.start_unix_s)
      bad_line(path, no, "end_unix_s: expected >= start_unix_s (" + f[1] + "), got '" + f[2] + "'");
    spans.push_back(s);
  }
  return spans;
}

std::vector<SpanReading> read_spans_against(const std::vector<Span>& spans,
                                            const std::vector<std::vector<CanarySample>>& cpus) {
  // Each part's costs over the samples that `keep` keeps, in one pass.
  const auto part_costs = [](const std::vector<CanarySample>& samples, auto keep) {
    std::array<std::vector<double>, kCanaryParts> costs;
    for (const auto& s : samples) {
      if (!keep(s)) continue;
      for (int p = 0; p < kCanaryParts; ++p) costs[p].push_back(s.cpu_ms[p]);
    }
    return costs;
  };
  std::vector<std::array<double, kCanaryParts>> loop_median(cpus.size());
  for (size_t c = 0; c < cpus.size(); ++c) {
    const auto costs = part_costs(cpus[c], [](const CanarySample&) { return true; });
    for (int p = 0; p < kCanaryParts; ++p) loop_median[c][p] = median(costs[p]);
  }
  std::vector<SpanReading> readings;
  for (const auto& span : spans) {
    const auto in_span = [&span](const CanarySample& s) {
      return s.start_unix_s >= span.start_unix_s && s.start_unix_s <= span.end_unix_s;
    };
    SpanReading r{span.label, {}, {}};
    for (size_t c = 0; c < cpus.size(); ++c) {
      const auto costs = part_costs(cpus[c], in_span);
      std::array<double, kCanaryParts> ratio{};
      for (int p = 0; p < kCanaryParts; ++p) {
        ratio[p] =
            costs[p].empty() || loop_median[c][p] <= 0 ? 0 : median(costs[p]) / loop_median[c][p];
      }
      r.samples.push_back(static_cast<int>(costs[0].size()));
      r.ratio.push_back(ratio);
    }
    readings.push_back(r);
  }
  return readings;
}

std::string span_group(const std::string& label) {
  static const std::regex round(R"(-r[0-9]+$)");
  // Only a profile pass's number: a configuration's label may end in digits ("...-zero3").
  static const std::regex pass(R"((pass)[0-9]+$)");
  if (std::regex_search(label, round)) return std::regex_replace(label, round, "");
  return std::regex_replace(label, pass, "$1");
}

namespace {

// The mean over the CPUs with samples in the span of the speed part's ratio; 0 when none has.
double mean_speed_ratio(const SpanReading& r) {
  double sum = 0;
  int n = 0;
  for (size_t c = 0; c < r.ratio.size(); ++c) {
    if (r.samples[c] == 0 || !(r.ratio[c][kSpeedPart] > 0)) continue;
    sum += r.ratio[c][kSpeedPart];
    ++n;
  }
  return n > 0 ? sum / n : 0;
}

}  // namespace

std::vector<SpanSpeed> machine_speeds(const std::vector<SpanReading>& readings,
                                      const std::string& reference_group) {
  // Each span read once: its mean, and whether it is a reference span.
  std::vector<double> reference;
  std::vector<SpanSpeed> speeds;  // the mean for now, divided by the reference's median below
  for (const auto& r : readings) {
    const double m = mean_speed_ratio(r);
    if (!(m > 0)) continue;
    if (span_group(r.label) == reference_group)
      reference.push_back(m);
    else
      speeds.push_back({r.label, m});
  }
  if (reference.empty())
    throw std::runtime_error("--reference " + reference_group +
                             ": no span of that group has canary samples");
  const double ref = median(reference);
  for (auto& s : speeds) s.factor /= ref;
  return speeds;
}

std::string format_machine_speeds(const std::vector<SpanSpeed>& speeds,
                                  const std::string& reference_group) {
  std::string out =
      "# machine speed: RUN FACTOR, the CPUs' cost per unit of work during the run "
      "against the median of the spans " +
      reference_group + "N (the CPU canary's latency part; docs/formats/machine-speed.md)\n";
  char line[160];
  for (const auto& s : speeds) {
    std::snprintf(line, sizeof(line), "%s %.4f\n", s.label.c_str(), s.factor);
    out += line;
  }
  return out;
}

std::string format_canary_report(const std::vector<std::string>& cpu_names,
                                 const std::vector<SpanReading>& readings) {
  std::ostringstream out;
  char cell[96];
  out << "CPU canary: each CPU's median cost per work unit in a span against its median over the "
         "loop, part by part: latency / throughput / memory (docs/validation.md, \"The CPU "
         "canary\")\n";
  std::snprintf(cell, sizeof(cell), "%-26s", "span");
  out << cell;
  for (const auto& name : cpu_names) {
    std::snprintf(cell, sizeof(cell), " %14s", (name + " l/t/m").c_str());
    out << cell;
  }
  std::snprintf(cell, sizeof(cell), "  samples  episode (>= %.2f)\n", kEpisodeRatio);
  out << cell;
  std::vector<std::string> order;
  std::map<std::string, std::pair<int, int>> groups;  // group -> (spans, spans in an episode)
  std::array<int, kCanaryParts> by_part{};            // spans in which the part was in one
  for (const auto& r : readings) {
    std::snprintf(cell, sizeof(cell), "%-26s", r.label.c_str());
    out << cell;
    std::string episode;
    std::array<bool, kCanaryParts> part_met{};
    const int fewest =
        r.samples.empty() ? 0 : *std::min_element(r.samples.begin(), r.samples.end());
    for (size_t c = 0; c < r.ratio.size(); ++c) {
      if (r.samples[c] == 0) {
        std::snprintf(cell, sizeof(cell), " %14s", "-");
        out << cell;
        continue;
      }
      const auto& q = r.ratio[c];
      std::snprintf(cell, sizeof(cell), " %4.2f/%4.2f/%4.2f", q[0], q[1], q[2]);
      out << cell;
      for (int p = 0; p < kCanaryParts; ++p) {
        if (q[p] < kEpisodeRatio) continue;
        episode += (episode.empty() ? "" : ", ") + cpu_names[c] + " " + kCanaryPartNames[p];
        part_met[p] = true;
      }
    }
    std::snprintf(cell, sizeof(cell), "  %7d  ", fewest);
    out << cell << episode << "\n";
    for (int p = 0; p < kCanaryParts; ++p) by_part[p] += part_met[p] ? 1 : 0;
    const std::string g = span_group(r.label);
    if (!groups.count(g)) order.push_back(g);
    auto& [spans, met] = groups[g];
    ++spans;
    if (!episode.empty()) ++met;
  }
  out << "\nspans that met a CPU episode, per configuration\n";
  int all = 0;
  int met_all = 0;
  for (const auto& g : order) {
    const auto [spans, met] = groups[g];
    std::snprintf(cell, sizeof(cell), "%-26s", g.c_str());
    out << cell << " " << met << " of " << spans << "\n";
    all += spans;
    met_all += met;
  }
  out << "per part:";
  for (int p = 0; p < kCanaryParts; ++p)
    out << (p ? ", " : " ") << kCanaryPartNames[p] << " " << by_part[p];
  out << "\n";
  out << "all spans: " << all << ", of which " << met_all << " met a CPU episode\n";
  return out.str();
}

}  // namespace vitsim::emulate_test
