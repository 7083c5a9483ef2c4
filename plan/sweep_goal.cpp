// Choosing the best configuration; see sweep_goal.h.
#include "plan/sweep_goal.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "costmodel/epoch.h"

namespace vitsim::plan {
namespace {

// Why a candidate cannot be the goal's best, by kind (the notes count each kind once).
enum class Why { kBatch, kOneGpu, kNoBaseline, kBelowSpeedup, kNoCost, kDeadline, kBudget };

struct Rejection {
  Why kind;
  std::string why;
};

int64_t images_of(const schema::ConfigPrediction& p) {
  return costmodel::images_used(p.config.data_fraction, p.config.images);
}

bool is_cost_goal(SweepGoal goal) {
  return goal == SweepGoal::kCheapestEpoch || goal == SweepGoal::kBestThroughputPerDollar;
}

double time_of(const schema::ConfigPrediction& p, bool per_image) {
  return per_image ? seconds_per_image(p) : p.epoch_time_s;
}

double cost_of(const schema::ConfigPrediction& p, bool per_image) {
  return per_image ? usd_per_image(p) : p.cost->epoch_usd;
}

bool better(const schema::ConfigPrediction& a, const schema::ConfigPrediction& b, SweepGoal goal,
            bool per_image) {
  switch (goal) {
    case SweepGoal::kBestEfficiency:
      if (a.parallel_efficiency != b.parallel_efficiency)
        return a.parallel_efficiency > b.parallel_efficiency;
      break;
    case SweepGoal::kCheapestEpoch:
      if (cost_of(a, per_image) != cost_of(b, per_image))
        return cost_of(a, per_image) < cost_of(b, per_image);
      break;
    case SweepGoal::kBestThroughputPerDollar:  // images per dollar = 1 / dollars per image
      if (usd_per_image(a) != usd_per_image(b)) return usd_per_image(a) < usd_per_image(b);
      break;
    case SweepGoal::kFastestEpoch:
      break;
  }
  // Ties, and the fastest: less time; then fewer GPUs; then the label, so that the answer does
  // not depend on the order in which the values were given.
  if (time_of(a, per_image) != time_of(b, per_image))
    return time_of(a, per_image) < time_of(b, per_image);
  if (a.config.gpus != b.config.gpus) return a.config.gpus < b.config.gpus;
  return a.config.label < b.config.label;
}

std::string per_text(const schema::PerEpochOrRun& b, int64_t epochs) {
  return b.per_run ? fmt::format("per run of {} epoch(s)", epochs) : "per epoch";
}

// Why `p` cannot be the goal's best; nullopt when it can.
std::optional<Rejection> rejection(const schema::ConfigPrediction& p, SweepGoal goal,
                                   const GoalLimits& limits) {
  const int64_t batch = global_batch(p);
  if (costmodel::above_global_batch_limit(batch, limits.max_global_batch))
    return Rejection{Why::kBatch,
                     fmt::format("global batch {} is above {}", batch, limits.max_global_batch)};
  if (goal == SweepGoal::kBestEfficiency) {
    if (p.config.gpus < 2) return Rejection{Why::kOneGpu, "one GPU"};
    if (!(p.parallel_efficiency > 0)) return Rejection{Why::kNoBaseline, "no 1-GPU baseline"};
    if (p.speedup < limits.min_speedup)
      return Rejection{Why::kBelowSpeedup,
                       fmt::format("speed-up {:.2f} is below {:g}", p.speedup, limits.min_speedup)};
  }
  const bool has_cost = p.cost && p.cost->epoch_usd > 0;
  if ((is_cost_goal(goal) || limits.budget_usd) && !has_cost)
    return Rejection{Why::kNoCost, "no cost"};
  if (const auto& d = limits.deadline_s) {
    const double s = d->per_run ? schema::run_time_s(p, limits.epochs) : p.epoch_time_s;
    if (s > d->value)
      return Rejection{Why::kDeadline, fmt::format("{:.1f} s {} is past the deadline {:g} s", s,
                                                   per_text(*d, limits.epochs), d->value)};
  }
  if (const auto& b = limits.budget_usd) {
    const double usd = b->per_run ? p.cost->run_usd : p.cost->epoch_usd;
    if (usd > b->value)
      return Rejection{Why::kBudget, fmt::format("${:.3g} {} is over the budget ${:g}", usd,
                                                 per_text(*b, limits.epochs), b->value)};
  }
  return std::nullopt;
}

// One note per kind of rejection: how many, and the first as an example.
void explain(const std::vector<schema::ConfigPrediction>& all,
             const std::vector<std::pair<Rejection, int>>& rejected, const GoalLimits& limits,
             bool none, BestPick& pick) {
  std::map<Why, std::pair<int64_t, std::string>> by_kind;  // count, first example
  for (const auto& [r, i] : rejected) {
    auto& k = by_kind[r.kind];
    if (k.first++ == 0) k.second = all[static_cast<size_t>(i)].config.label + ": " + r.why;
  }
  for (const auto& [kind, k] : by_kind) {
    const auto& [n, example] = k;
    switch (kind) {
      case Why::kBatch:
        pick.notes.push_back(fmt::format(
            "{} configuration(s) with a global batch above {} (--max-global-batch; ViT-B/16 was "
            "trained with 4096) not recommended, e.g. {}",
            n, limits.max_global_batch, example));
        break;
      case Why::kOneGpu:
        if (none)
          pick.notes.push_back(
              "best-efficiency compares 2 or more GPUs against one; only 1-GPU "
              "configurations ran (hint: add GPU counts to --gpus)");
        break;
      case Why::kNoBaseline:
        pick.notes.push_back(fmt::format(
            "{} configuration(s) without a 1-GPU baseline of the same micro-batch (efficiency "
            "undefined)",
            n));
        break;
      case Why::kBelowSpeedup:
        pick.notes.push_back(
            fmt::format("{} configuration(s) below --min-speedup {:g}", n, limits.min_speedup));
        break;
      case Why::kNoCost:
        pick.notes.push_back(fmt::format(
            "{} configuration(s) without a cost (hint: --price DEVICE=USD_PER_GPU_HOUR)", n));
        break;
      case Why::kDeadline:
        pick.notes.push_back(
            fmt::format("{} configuration(s) miss the deadline, e.g. {}", n, example));
        break;
      case Why::kBudget:
        pick.notes.push_back(
            fmt::format("{} configuration(s) over the budget, e.g. {}", n, example));
        break;
    }
  }
}

std::string meaning(SweepGoal goal, bool per_image, int64_t images) {
  const std::string epochs =
      per_image ? "compared per image: the epochs train on different numbers of images, as in "
                  "weak scaling"
                : fmt::format("every epoch trains on the same {} images", images);
  switch (goal) {
    case SweepGoal::kFastestEpoch:
      return per_image ? "the most images per second over the epoch (" + epochs + ")"
                       : "the shortest epoch (" + epochs + ")";
    case SweepGoal::kBestEfficiency:
      return "the highest parallel efficiency against one GPU, among 2 or more GPUs";
    case SweepGoal::kCheapestEpoch:
      return per_image ? "the fewest dollars per image (" + epochs + ")"
                       : "the cheapest epoch (" + epochs + ")";
    case SweepGoal::kBestThroughputPerDollar:
      return "the most images per dollar";
  }
  return "";
}

}  // namespace

schema::Selection to_selection(SweepGoal goal, const GoalLimits& limits) {
  return {to_string(goal),   limits.max_global_batch, limits.min_speedup,
          limits.deadline_s, limits.budget_usd,       limits.epochs};
}

GoalLimits limits_of(const schema::Selection& s) {
  return {s.min_speedup, s.max_global_batch, s.deadline_s, s.budget_usd, s.epochs};
}

int64_t global_batch(const schema::ConfigPrediction& p) {
  return schema::global_batch(p.config);
}

bool compares_per_image(const std::vector<schema::ConfigPrediction>& all,
                        const std::vector<bool>& requested) {
  std::optional<int64_t> images;
  for (size_t i = 0; i < all.size() && i < requested.size(); ++i) {
    if (!requested[i] || all[i].out_of_memory) continue;
    if (images && *images != images_of(all[i])) return true;
    images = images_of(all[i]);
  }
  return false;
}

double seconds_per_image(const schema::ConfigPrediction& p) {
  return p.epoch_time_s / static_cast<double>(std::max<int64_t>(1, images_of(p)));
}

double usd_per_image(const schema::ConfigPrediction& p) {
  if (!p.cost) return 0;
  return p.cost->epoch_usd / static_cast<double>(std::max<int64_t>(1, images_of(p)));
}

namespace {

// The eligible candidates in the goal's order, best first; the others in `rejected` (index, why).
std::vector<int> rank(const std::vector<schema::ConfigPrediction>& all,
                      const std::vector<bool>& requested, SweepGoal goal, const GoalLimits& limits,
                      std::vector<std::pair<Rejection, int>>& rejected) {
  const bool per_image = compares_per_image(all, requested);
  std::vector<int> order;
  for (size_t i = 0; i < all.size() && i < requested.size(); ++i) {
    if (!requested[i] || all[i].out_of_memory) continue;
    if (auto r = rejection(all[i], goal, limits)) {
      rejected.emplace_back(*r, static_cast<int>(i));
      continue;
    }
    order.push_back(static_cast<int>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return better(all[static_cast<size_t>(a)], all[static_cast<size_t>(b)], goal, per_image);
  });
  return order;
}

}  // namespace

std::vector<int> rank_for_goal(const std::vector<schema::ConfigPrediction>& all,
                               const std::vector<bool>& requested, SweepGoal goal,
                               const GoalLimits& limits, std::vector<Rejected>* ineligible) {
  std::vector<std::pair<Rejection, int>> rejected;
  std::vector<int> order = rank(all, requested, goal, limits, rejected);
  if (ineligible)
    for (const auto& [r, i] : rejected) ineligible->push_back({i, r.why});
  return order;
}

BestPick pick_best(const std::vector<schema::ConfigPrediction>& all,
                   const std::vector<bool>& requested, SweepGoal goal, const GoalLimits& limits) {
  BestPick pick;
  std::vector<std::pair<Rejection, int>> rejected;
  const std::vector<int> order = rank(all, requested, goal, limits, rejected);
  if (!order.empty()) pick.best = order.front();
  const bool ran = !order.empty() || !rejected.empty();
  int64_t images = 0;
  for (size_t i = 0; i < all.size() && images == 0; ++i) images = images_of(all[i]);
  pick.meaning = meaning(goal, compares_per_image(all, requested), images);
  const std::string constraints = constraints_text(limits);
  if (!constraints.empty()) pick.meaning += "; " + constraints;
  explain(all, rejected, limits, pick.best < 0, pick);
  const bool constrained = limits.deadline_s || limits.budget_usd;
  if (pick.best < 0 && ran && (goal != SweepGoal::kFastestEpoch || constrained)) {
    // Something ran: say so and fall back to the fastest (within the global-batch limit only).
    GoalLimits loose;
    loose.max_global_batch = limits.max_global_batch;
    const BestPick fastest = pick_best(all, requested, SweepGoal::kFastestEpoch, loose);
    if (fastest.best >= 0) {
      pick.best = fastest.best;
      pick.fallback = true;
      pick.notes.push_back(
          fmt::format("no configuration meets the goal {}{}: showing the fastest instead",
                      to_string(goal), constraints.empty() ? "" : " with " + constraints));
    }
  }
  if (pick.best < 0 && ran)
    pick.notes.push_back(
        "no configuration can be recommended: every one that ran is flagged above");
  return pick;
}

std::vector<int> pareto_front(const std::vector<schema::ConfigPrediction>& all,
                              const std::vector<bool>& requested, const GoalLimits& limits) {
  const bool per_image = compares_per_image(all, requested);
  // The front shows the trade-off: a deadline and a budget are marked on it, not applied.
  GoalLimits hard;
  hard.max_global_batch = limits.max_global_batch;
  std::vector<int> front;
  for (int i : rank_for_goal(all, requested, SweepGoal::kFastestEpoch, hard, nullptr)) {
    const auto& p = all[static_cast<size_t>(i)];
    if (!p.cost || !(p.cost->epoch_usd > 0)) continue;
    // Fastest first: keep each that is cheaper than every faster one.
    if (front.empty() ||
        cost_of(p, per_image) < cost_of(all[static_cast<size_t>(front.back())], per_image))
      front.push_back(i);
  }
  return front;
}

std::string constraints_text(const GoalLimits& limits) {
  std::string out;
  if (const auto& d = limits.deadline_s)
    out = fmt::format("deadline {:g} s {}", d->value, per_text(*d, limits.epochs));
  if (const auto& b = limits.budget_usd)
    out += fmt::format("{}budget ${:g} {}", out.empty() ? "" : ", ", b->value,
                       per_text(*b, limits.epochs));
  return out;
}

}  // namespace vitsim::plan
