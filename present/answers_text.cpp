// Text of a prediction's breakdown, advice and cost; see answers_text.h.
#include "present/answers_text.h"

#include <fmt/format.h>

#include <cstdio>
#include <limits>
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

void what_if_line(size_t n, const schema::WhatIf& w, std::ostream& os) {
  char change[32];
  std::snprintf(change, sizeof change, "%+.1f%%", 100.0 * w.epoch_change_rel);
  os << "  " << n << ". " << w.what_if << ": epoch " << sim::format_seconds(w.epoch_time_s) << " ("
     << change << "), step " << sim::format_seconds(w.step_time_s) << "\n";
}

// What helps (a shorter epoch) and, under a heading of its own, what was tried and does not.
void advice_text(const schema::ConfigPrediction& p, std::ostream& os) {
  os << "What would help (each simulated; epoch " << sim::format_seconds(p.epoch_time_s)
     << " now):\n";
  size_t n = 0;
  for (const auto& w : p.advice)
    if (w.epoch_change_rel < 0) what_if_line(++n, w, os);
  if (n == 0) os << "  nothing simulated shortens the epoch\n";
  if (n == p.advice.size()) return;
  os << "What would not help (each simulated: a longer epoch, or no change):\n";
  n = 0;
  for (const auto& w : p.advice)
    if (!(w.epoch_change_rel < 0)) what_if_line(++n, w, os);
}

// Cents for sums above a dollar, three significant digits below (an epoch can cost $0.0123).
std::string dollars(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, usd >= 1 ? "%.2f" : "%.3g", usd);
  return buf;
}

// Out of memory: the largest rank's memory against its device's, and what would make it fit.
void fit_text(const schema::ConfigPrediction& p, std::ostream& os) {
  double need = 0, have = 0;
  for (const auto& r : p.ranks) {
    if (r.memory_bytes - r.device_memory_bytes > need - have)
      need = r.memory_bytes, have = r.device_memory_bytes;
  }
  os << fmt::format("Does not fit: a rank needs {:.2f} GB of its device's {:.2f} GB.\n", need / 1e9,
                    have / 1e9);
  if (p.fit_options.empty()) {
    os << "  nothing simulated makes it fit (ZeRO stages, activation checkpointing, a smaller "
          "micro-batch, more GPUs)\n";
    return;
  }
  os << "What would make it fit (each simulated, fastest epoch first):\n";
  size_t n = 0;
  for (const auto& f : p.fit_options) {
    os << "  " << ++n << ". " << f.what_if << ": epoch " << sim::format_seconds(f.epoch_time_s)
       << ", step " << sim::format_seconds(f.step_time_s)
       << fmt::format(", {:.2f} of {:.2f} GB", f.memory_bytes / 1e9, f.device_memory_bytes / 1e9);
    if (f.epoch_usd) os << ", $" << dollars(*f.epoch_usd) << "/epoch";
    if (f.run_usd) os << ", $" << dollars(*f.run_usd) << "/run";
    os << "\n";
  }
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

// The deadline and budget `p` misses, each with its figures ("" when it meets both); the
// global-batch limit is the flag's, said apart.
std::string missed(const schema::ConfigPrediction& p, const plan::GoalLimits& limits) {
  std::string out;
  for (bool deadline : {true, false}) {
    plan::GoalLimits one;
    one.max_global_batch = std::numeric_limits<int64_t>::max();
    one.epochs = limits.epochs;
    (deadline ? one.deadline_s : one.budget_usd) = deadline ? limits.deadline_s : limits.budget_usd;
    if (!one.deadline_s && !one.budget_usd) continue;
    std::vector<plan::Rejected> why;
    plan::rank_for_goal({p}, {true}, plan::SweepGoal::kFastestEpoch, one, &why);
    for (const auto& w : why) out += (out.empty() ? "" : "; ") + w.why;
  }
  return out;
}

}  // namespace

std::string answers_text(const schema::ConfigPrediction& p, bool full) {
  std::ostringstream os;
  if (!full) {
    if (p.out_of_memory) {
      os << "Does not fit: `vitsim advise` (or --explain) simulates what would make it fit (a "
            "ZeRO stage, activation checkpointing, a smaller micro-batch, more GPUs)\n";
    }
    if (p.breakdown) os << "Bottleneck: " << p.breakdown->bottleneck << "\n";
    if (p.cost) {
      std::ostringstream cost;
      cost_text(*p.cost, cost);
      os << cost.str().substr(0, cost.str().find('\n') + 1);
    }
    return os.str();
  }
  if (p.breakdown) breakdown_text(*p.breakdown, os);
  if (p.out_of_memory) fit_text(p, os);
  if (!p.advice.empty()) advice_text(p, os);
  if (p.cost) cost_text(*p.cost, os);
  return os.str();
}

std::string best_text(const std::vector<schema::ConfigPrediction>& all, const plan::BestPick& pick,
                      plan::SweepGoal goal) {
  std::string out = fmt::format("goal {}: {}\n", plan::to_string(goal), pick.meaning);
  if (pick.best < 0) {
    bool ran = false;
    for (const auto& p : all) ran = ran || !p.out_of_memory;
    return out + (ran ? "no configuration recommended (see the notes above)\n"
                      : "no configuration fits and runs\n");
  }
  const auto& b = all[static_cast<size_t>(pick.best)];
  out += fmt::format(
      "best ({}): {}{}: epoch {:.1f} s, step {:.4f} s, {:.1f} images/s, speed-up {}, efficiency "
      "{}, global batch {}\n",
      plan::to_string(goal), pick.fallback ? "none meets it; the fastest instead: " : "",
      b.config.label, b.epoch_time_s, b.step_time_s, b.throughput_images_per_s,
      b.speedup > 0 ? fmt::format("{:.2f}", b.speedup) : "-",
      b.parallel_efficiency > 0 ? fmt::format("{:.0f} %", 100 * b.parallel_efficiency) : "-",
      plan::global_batch(b));
  return out + answers_text(b);
}

std::string pareto_text(const std::vector<schema::ConfigPrediction>& all,
                        const std::vector<bool>& requested, const plan::GoalLimits& limits) {
  const std::vector<int> front = plan::pareto_front(all, requested, limits);
  if (front.empty()) return "";
  const auto& first = *all[static_cast<size_t>(front.front())].cost;
  const bool constrained = limits.deadline_s || limits.budget_usd;
  std::string out = fmt::format(
      "Time and cost, Pareto front (no other configuration is both faster and cheaper; {} "
      "prices, a run of {} epoch(s){}):\n",
      first.mode, first.epochs,
      plan::compares_per_image(all, requested) ? "; compared per image: the epochs differ" : "");
  const char* row = "{:<40} {:>6} {:>10} {:>9} {:>10} {:>10}  {}\n";
  out += fmt::format(row, "configuration", "gpus", "epoch", "run", "cost", "cost",
                     constrained ? "meets deadline and budget" : "");
  out += fmt::format(row, "", "count", "s", "h", "$/epoch", "$/run", "");
  for (int i : front) {
    const auto& p = all[static_cast<size_t>(i)];
    const std::string meets = !constrained                ? ""
                              : missed(p, limits).empty() ? "yes"
                                                          : "no: " + missed(p, limits);
    out += fmt::format("{:<40} {:>6} {:>10.1f} {:>9.3g} {:>10} {:>10}  {}\n", p.config.label,
                       p.config.gpus, p.epoch_time_s, schema::run_time_s(p, p.cost->epochs) / 3600,
                       dollars(p.cost->epoch_usd), dollars(p.cost->run_usd), meets);
  }
  return out;
}

std::string limits_text(const schema::ConfigPrediction& p, const plan::GoalLimits& limits) {
  if (p.out_of_memory) return "";
  std::string out;
  const std::string batch =
      costmodel::global_batch_warning(plan::global_batch(p), limits.max_global_batch);
  if (!batch.empty()) out += "Flagged: " + batch + "\n";
  if (!limits.deadline_s && !limits.budget_usd) return out;
  const std::string why = missed(p, limits);
  return out + "Goal (" + plan::constraints_text(limits) +
         "): " + (why.empty() ? "met" : "not met: " + why) + "\n";
}

}  // namespace vitsim::present
