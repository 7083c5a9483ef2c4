// The step breakdown and the bottleneck sentence; see step_breakdown.h.
#include "sim/step_breakdown.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace vitsim::sim {
namespace {

// A part of the step below this share is not what holds it back (the sentence names the largest
// part that is above it; a step with no such part is called balanced).
constexpr double kSignificantShare = 0.1;
// Links saturated within this share of the top link's seconds are its peers: saturated together.
constexpr double kPeerShare = 0.95;
// Below this share of the step, a difference of simulated times is rounding.
constexpr double kRoundingShare = 1e-9;

std::string host_of_link(const std::string& link) {
  return link.substr(0, link.find('.'));
}

// "NIC", "intra-node port", "uplink": what a plan link is, from its name (platform_plan.cpp).
std::string kind_of_link(const std::string& link) {
  if (link.size() >= 4 && link.compare(link.size() - 4, 4, ".nic") == 0) return "NIC";
  if (link.find(".port") != std::string::npos) return "intra-node port";
  return "link " + link;
}

// Why a run recorded no per-link split, and what gives one. The class-level platform has one
// link per class of alike links, loaded as all of them (docs/simulator.md, "Classes of ranks"):
// its saturation is the class's, so naming one real link from it would be a guess. Rank by
// rank, the recording asks every link at every time advance (link_bottleneck.h), which is
// switched off above kMaxAttributedRanks. Above that size the text does not depend on the
// engine: both engines' predictions are the same, bit for bit, where both apply.
std::string unattributed_why(SimEngine engine, int64_t ranks) {
  const std::string limit = std::to_string(kMaxAttributedRanks);
  if (ranks > kMaxAttributedRanks)
    return "more than " + limit + " ranks: links are attributed rank by rank only, up to " + limit +
           " ranks (the class-level simulation's links each stand for a class of alike real "
           "links; rank by rank, asking every link at every event is switched off at this "
           "size); for the per-link split, predict the same nodes and links at " +
           limit + " ranks or fewer with --engine ranks";
  if (engine == SimEngine::kClasses)
    return "the class-level simulation ran: each of its links stands for a class of alike real "
           "links, so SimGrid's sharing is not recorded per real link; predict with --engine "
           "ranks for the per-link split";
  if (engine == SimEngine::kClosedForm && ranks > 1)
    return "every rank is alike and the closed form ran: no link is simulated one by one, so "
           "nothing is recorded per real link; predict with --engine ranks for the per-link "
           "split";
  return "not recorded";
}

const schema::RankPrediction& slowest_rank(const schema::ConfigPrediction& p) {
  return *std::max_element(p.ranks.begin(), p.ranks.end(), [](const auto& a, const auto& b) {
    return a.compute_time_s < b.compute_time_s;
  });
}

std::string straggler_sentence(const schema::ConfigPrediction& p, const schema::StepBreakdown& b) {
  const schema::RankPrediction& slow = slowest_rank(p);
  std::set<std::string> waiting;  // devices of the ranks that wait for it
  for (const auto& r : p.ranks) {
    if (r.idle_time_s > 0.5 * b.straggler_wait_s) waiting.insert(r.device);
  }
  std::string who;
  for (const auto& d : waiting) who += (who.empty() ? "" : " and ") + d;
  return "the " + slow.device + " on " + slow.host + " computes " + format_seconds(b.compute_s) +
         " of a " + format_seconds(b.step_time_s) + " step while the " + who + " ranks wait " +
         format_seconds(b.straggler_wait_s) + " for it";
}

// The collectives a step of the stage runs over its links (docs/sharding.md, "Simulated").
std::string bandwidth_bound(int zero_stage) {
  const char* tail = " bandwidth-bound on them, no single host holds them back";
  if (zero_stage >= 2) return std::string("the reduce-scatters and all-gathers are") + tail;
  if (zero_stage == 1) return std::string("the all-reduce and the all-gathers are") + tail;
  return "the all-reduce is bandwidth-bound on them, no single host holds it back";
}

std::string link_sentence(const schema::StepBreakdown& b, int zero_stage) {
  const std::string step = " of a " + format_seconds(b.step_time_s) + " step";
  const auto& links = b.exposed_comm_by_link;
  if (links.empty() || b.exposed_comm_unsaturated_s > links.front().seconds) {
    return "latency-bound communication: no link is saturated for " +
           format_seconds(b.exposed_comm_unsaturated_s) + " of the " +
           format_seconds(b.exposed_comm_s) + " exposed communication" + step;
  }
  const schema::LinkExposure& top = links.front();
  std::set<std::string> hosts, classes;
  size_t peers = 0;
  for (const auto& l : links) {
    if (l.seconds < kPeerShare * top.seconds) break;
    ++peers;
    hosts.insert(host_of_link(l.link));
    classes.insert(l.link_class);
  }
  if (hosts.size() == 1 && peers == 1) {
    return host_of_link(top.link) + "'s " + kind_of_link(top.link) + " (" + top.link_class +
           ") carries " + format_seconds(top.seconds) + step + " (saturated while the others wait)";
  }
  if (hosts.size() == 1 && classes.size() == 1) {  // e.g. every intra-node port of one node
    return host_of_link(top.link) + "'s " + std::to_string(peers) + " " + kind_of_link(top.link) +
           "s (" + top.link_class + ") are saturated together for " + format_seconds(top.seconds) +
           step;
  }
  std::string cls;
  for (const auto& c : classes) cls += (cls.empty() ? "" : ", ") + c;
  return std::to_string(peers) + " links of class " + cls + " are saturated together for " +
         format_seconds(top.seconds) + step + ": " + bandwidth_bound(zero_stage);
}

}  // namespace

std::string format_seconds(double seconds) {
  char buf[32];
  if (seconds != 0 && seconds < 0.1)
    std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  else if (seconds < 1000)
    std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  else  // an epoch: whole seconds, never an exponent
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  return buf;
}

schema::StepBreakdown make_breakdown(const schema::ConfigPrediction& p,
                                     const SimulationResult& run) {
  schema::StepBreakdown b;
  b.step_time_s = p.step_time_s;
  b.compute_s = p.compute_time_s;
  b.exposed_comm_s = std::max(0.0, p.step_time_s - p.compute_time_s);
  // The difference of two sums of the same sleeps: rounding (1e-14 s), not communication.
  if (b.exposed_comm_s < kRoundingShare * p.step_time_s) b.exposed_comm_s = 0;
  for (const auto& r : p.ranks) b.straggler_wait_s = std::max(b.straggler_wait_s, r.idle_time_s);
  b.exposed_comm_attributed = run.links_attributed;
  if (run.links_attributed) {
    b.exposed_comm_by_link = run.blocked_by_link;
    b.exposed_comm_unsaturated_s = run.unsaturated_wait_s;
  } else {
    b.exposed_comm_unattributed_why =
        unattributed_why(run.engine, static_cast<int64_t>(p.ranks.size()));
  }
  b.bottleneck = bottleneck_sentence(p, b);
  return b;
}

std::string bottleneck_sentence(const schema::ConfigPrediction& p, const schema::StepBreakdown& b) {
  if (p.ranks.empty() || !(b.step_time_s > 0)) return "not simulated";
  const double significant = kSignificantShare * b.step_time_s;
  if (b.straggler_wait_s >= significant && b.straggler_wait_s >= b.exposed_comm_s)
    return straggler_sentence(p, b);
  if (b.exposed_comm_s >= significant) {
    if (b.exposed_comm_attributed) return link_sentence(b, p.config.zero_stage);
    return "communication no compute hides takes " + format_seconds(b.exposed_comm_s) + " of a " +
           format_seconds(b.step_time_s) + " step (links not attributed: " +
           (b.exposed_comm_unattributed_why.empty() ? "not recorded"
                                                    : b.exposed_comm_unattributed_why) +
           ")";
  }
  const schema::RankPrediction& slow = slowest_rank(p);
  return "compute-bound: the " + slow.device + " on " + slow.host + " computes " +
         format_seconds(b.compute_s) + " of a " + format_seconds(b.step_time_s) +
         " step; communication adds " + format_seconds(b.exposed_comm_s);
}

}  // namespace vitsim::sim
