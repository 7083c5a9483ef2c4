// Text of a prediction's breakdown, advice and cost; see answers_text.h.
#include "present/answers_text.h"

#include <cstdio>
#include <sstream>

#include "sim/step_breakdown.h"

namespace vitsim::present {
namespace {

// Links listed at most; the rest summed in one line (a 64-rank ring saturates 128 links at once).
constexpr size_t kListedLinks = 6;

std::string percent(double part, double whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

void breakdown_text(const schema::StepBreakdown& b, std::ostream& os) {
  os << "Why the step takes " << sim::format_seconds(b.step_time_s) << ":\n"
     << "  compute of the slowest rank   " << sim::format_seconds(b.compute_s) << " ("
     << percent(b.compute_s, b.step_time_s) << ")\n"
     << "  exposed communication         " << sim::format_seconds(b.exposed_comm_s) << " ("
     << percent(b.exposed_comm_s, b.step_time_s) << ")\n"
     << "  faster ranks wait (at most)   " << sim::format_seconds(b.straggler_wait_s) << "\n";
  if (b.exposed_comm_attributed && b.exposed_comm_s > 0) {
    os << "  while the critical rank waits, saturated (bottleneck of the flows crossing it):\n";
    double rest = 0;
    size_t rest_n = 0;
    for (size_t i = 0; i < b.exposed_comm_by_link.size(); ++i) {
      const auto& l = b.exposed_comm_by_link[i];
      if (i < kListedLinks) {
        os << "    " << l.link << " (" << l.link_class << ")  " << sim::format_seconds(l.seconds)
           << "\n";
      } else {
        rest += l.seconds, ++rest_n;
      }
    }
    if (rest_n > 0)
      os << "    ... " << rest_n << " more links, " << sim::format_seconds(rest) << " in all\n";
    os << "    no link saturated (latency)  " << sim::format_seconds(b.exposed_comm_unsaturated_s)
       << "\n";
  } else if (b.exposed_comm_s > 0 && !b.exposed_comm_unattributed_why.empty()) {
    os << "  links not attributed: " << b.exposed_comm_unattributed_why << "\n";
  }
  os << "Bottleneck: " << b.bottleneck << "\n";
}

void advice_text(const schema::ConfigPrediction& p, std::ostream& os) {
  os << "What would help (each simulated; epoch " << sim::format_seconds(p.epoch_time_s)
     << " now):\n";
  for (size_t i = 0; i < p.advice.size(); ++i) {
    const auto& w = p.advice[i];
    char change[32];
    std::snprintf(change, sizeof change, "%+.1f%%", 100.0 * w.epoch_change_rel);
    os << "  " << i + 1 << ". " << w.what_if << ": epoch " << sim::format_seconds(w.epoch_time_s)
       << " (" << change << "), step " << sim::format_seconds(w.step_time_s) << "\n";
  }
}

// Cents for sums above a dollar, three significant digits below (an epoch can cost $0.0123).
std::string dollars(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, usd >= 1 ? "%.2f" : "%.3g", usd);
  return buf;
}

void cost_text(const schema::RunCost& c, std::ostream& os) {
  char line[200];
  std::snprintf(
      line, sizeof line,
      "Cost (%s, prices %s): $%s and %.3g kWh per epoch; %lld epoch(s): $%s and %.3g kWh\n",
      c.mode.c_str(), c.price_status.c_str(), dollars(c.epoch_usd).c_str(), c.epoch_kwh,
      static_cast<long long>(c.epochs), dollars(c.run_usd).c_str(), c.run_kwh);
  os << line << "  prices: ";
  bool first = true;
  for (const auto& [d, usd] : c.price_usd_per_gpu_hour) {
    std::snprintf(line, sizeof line, "%s%s $%.3f/GPU-hour", first ? "" : ", ", d.c_str(), usd);
    os << line;
    first = false;
  }
  os << " (" << c.price_source << ")\n";
  if (c.price_status == "unverified")
    os << "  prices unverified: not checked against a dated copy of their page; check it, or give "
          "your own with --price DEVICE=USD_PER_GPU_HOUR\n";
  os << "  energy: " << c.power_source << "\n";
}

}  // namespace

std::string answers_text(const schema::ConfigPrediction& p, bool full) {
  std::ostringstream os;
  if (!full) {
    if (p.breakdown) os << "Bottleneck: " << p.breakdown->bottleneck << "\n";
    if (p.cost) {
      std::ostringstream cost;
      cost_text(*p.cost, cost);
      os << cost.str().substr(0, cost.str().find('\n') + 1);
    }
    return os.str();
  }
  if (p.breakdown) breakdown_text(*p.breakdown, os);
  if (!p.advice.empty()) advice_text(p, os);
  if (p.cost) cost_text(*p.cost, os);
  return os.str();
}

}  // namespace vitsim::present
