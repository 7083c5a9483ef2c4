// Compute spread for prediction intervals; see spread.h and docs/uncertainty.md.
#include "calibrate/spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "costmodel/layer_graph.h"
#include "costmodel/statistics.h"
#include "costmodel/uncertainty.h"

namespace vitsim::calibrate {

namespace {

// IQR of a normal distribution in standard deviations: 2 x Phi^-1(0.75).
constexpr double kIqrPerSigma = 1.349;

// The fitted forms' step (forward + backward of every layer) against the mean measured one at
// each profiled micro-batch. The forms', not the knots' (which pass through the measured points):
// how far the measured points stray from a smooth cost is how far one can trust the line between
// two knots at a micro-batch nobody measured (docs/uncertainty.md).
double fit_residual(const std::map<int64_t, std::vector<double>>& totals,
                    const costmodel::DeviceCosts& measured) {
  if (totals.size() < 2 || measured.layers.empty()) return 0.0;
  costmodel::DeviceCosts fitted = measured;
  for (auto& l : fitted.layers) l.forward.knots.clear(), l.backward.knots.clear();
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(fitted.model);
  double ss = 0;
  for (const auto& [b, v] : totals) {
    const costmodel::LayerTimes t = costmodel::layer_times(fitted, graph, static_cast<double>(b));
    const double miss = (t.forward_total_s() + t.backward_total_s()) / costmodel::mean(v) - 1;
    ss += miss * miss;
  }
  return std::sqrt(ss / static_cast<double>(totals.size()));
}

// The profiles' independent blocks (block_step_times_s): the pooled relative variance of the
// blocks' mean steps around each (profile, micro-batch)'s mean, and how many blocks stand behind
// a micro-batch's mean over the profiles.
void add_repeat_spread(const std::vector<const schema::ProfileInput*>& group, ComputeSpread& out) {
  double ss = 0;
  std::map<int64_t, int> blocks;  // micro-batch -> blocks over the profiles
  std::vector<std::string> files;
  for (const schema::ProfileInput* in : group) {
    bool recorded = false;
    for (const auto& m : in->profile.compute) {
      const auto& v = m.block_step_times_s;
      if (v.size() < 2) continue;
      ss += costmodel::relative_sum_of_squares(v);
      out.repeat_degrees_of_freedom += static_cast<int>(v.size() - 1);
      blocks[m.micro_batch] += static_cast<int>(v.size());
      recorded = true;
    }
    if (recorded) files.push_back(in->file);
  }
  if (out.repeat_degrees_of_freedom == 0) return;
  out.repeat_spread_rel = std::sqrt(ss / out.repeat_degrees_of_freedom);
  out.repeat_blocks = blocks.begin()->second;
  for (const auto& [b, n] : blocks) out.repeat_blocks = std::min(out.repeat_blocks, n);
  for (const auto& f : files) out.repeat_files += (out.repeat_files.empty() ? "" : ", ") + f;
}

}  // namespace

double forward_backward_s(const schema::MicroBatchProfile& m, double* iqr_s) {
  double t = 0, iqr = 0;
  for (const auto& l : m.layers) {
    t += l.forward_time_s + l.backward_time_s;
    iqr += l.forward_spread_s + l.backward_spread_s;
  }
  if (iqr_s) *iqr_s = iqr;
  return t;
}

std::string profile_host(const schema::ProfileInput& in) {
  const schema::Json& ctx = in.profile.context;
  // An imported profile's context names the machine that ran the import, not the log's node.
  if (in.profile.source != costmodel::CostSource::kMeasured || !ctx.is_object() ||
      !ctx.contains("host") || !ctx["host"].is_string())
    return "";
  return ctx["host"].get<std::string>();
}

ComputeSpread compute_spread(const std::vector<const schema::ProfileInput*>& group,
                             const costmodel::DeviceCosts& fitted) {
  ComputeSpread out;
  std::vector<double> noise, whole;
  std::map<int64_t, std::vector<double>> totals;  // micro-batch -> forward+backward per profile
  // micro-batch -> host -> forward+backward per profile of that host
  std::map<int64_t, std::map<std::string, std::vector<double>>> by_host;
  for (size_t i = 0; i < group.size(); ++i) {
    std::string host = profile_host(*group[i]);
    if (host.empty()) host = "#unknown host of profile " + std::to_string(i);  // its own host
    for (const auto& m : group[i]->profile.compute) {
      double iqr = 0;
      const double t = forward_backward_s(m, &iqr);
      if (!(t > 0)) continue;
      // Layer IQRs summed: as if the layers' variations were fully correlated (one slow step is
      // slow in every layer), the wider of the two bounds.
      noise.push_back(iqr / kIqrPerSigma / t);
      if (m.step_spread_s) {
        const double step = t + m.optimizer_time_s + m.host_to_device_time_s + m.data_time_s +
                            m.step_overhead_time_s;
        whole.push_back(*m.step_spread_s / kIqrPerSigma / step);
      }
      totals[m.micro_batch].push_back(t);
      by_host[m.micro_batch][host].push_back(t);
    }
  }
  out.profiles = static_cast<int>(group.size());
  add_repeat_spread(group, out);
  if (!whole.empty()) out.step_spread_rel = costmodel::median(whole);
  out.step_noise_rel = out.step_spread_rel ? *out.step_spread_rel
                       : noise.empty()     ? 0.0
                                           : costmodel::median(noise);
  out.fit_residual_rel = fit_residual(totals, fitted);
  double node_ss = 0, launch_ss = 0;
  for (const auto& [b, hosts] : by_host) {
    std::vector<double> host_means;
    for (const auto& [host, v] : hosts) {
      host_means.push_back(costmodel::mean(v));
      if (v.size() < 2) continue;
      launch_ss += costmodel::relative_sum_of_squares(v);
      out.launch_degrees_of_freedom += static_cast<int>(v.size() - 1);
    }
    if (host_means.size() < 2) continue;
    node_ss += costmodel::relative_sum_of_squares(host_means);
    out.node_degrees_of_freedom += static_cast<int>(host_means.size() - 1);
  }
  if (out.node_degrees_of_freedom > 0)
    out.node_spread_rel = std::sqrt(node_ss / out.node_degrees_of_freedom);
  if (out.launch_degrees_of_freedom > 0)
    out.launch_spread_rel = std::sqrt(launch_ss / out.launch_degrees_of_freedom);
  out.from = fmt::format(
      "step noise: median IQR/1.349 of {} profile micro-batch(es) ({}); node spread: {}; launch "
      "spread: {}; run-to-run spread within a profile: {}",
      noise.size(),
      out.step_spread_rel ? "whole steps"
                          : "the layers' ranges summed: no whole-step range recorded",
      out.node_spread_rel
          ? fmt::format("hosts' means, {} degree(s) of freedom", out.node_degrees_of_freedom)
          : std::string("no micro-batch profiled on two hosts"),
      out.launch_spread_rel ? fmt::format("repeated profiles on one host, {} degree(s) of freedom",
                                          out.launch_degrees_of_freedom)
                            : std::string("no host profiled a micro-batch twice"),
      out.repeat_spread_rel
          ? fmt::format("{:.2f} % over independent blocks of {}, {} degree(s) of freedom",
                        100 * *out.repeat_spread_rel, out.repeat_files,
                        out.repeat_degrees_of_freedom)
          : std::string("unknown: the profiles record no independent blocks "
                        "(block_step_times_s; older profiles, imports)"));
  return out;
}

PooledSpreads pool_spreads(const std::vector<ComputeSpread>& spreads) {
  double node_ss = 0, launch_ss = 0;
  int node_df = 0, launch_df = 0;
  for (const auto& s : spreads) {
    if (s.node_spread_rel) {
      node_ss += *s.node_spread_rel * *s.node_spread_rel * s.node_degrees_of_freedom;
      node_df += s.node_degrees_of_freedom;
    }
    if (s.launch_spread_rel) {
      launch_ss += *s.launch_spread_rel * *s.launch_spread_rel * s.launch_degrees_of_freedom;
      launch_df += s.launch_degrees_of_freedom;
    }
  }
  PooledSpreads p;
  if (node_df > 0) p.node_rel = std::sqrt(node_ss / node_df);
  if (launch_df > 0) p.launch_rel = std::sqrt(launch_ss / launch_df);
  return p;
}

double launch_spread_or_prior(const PooledSpreads& pooled) {
  return pooled.launch_rel.value_or(costmodel::kDefaultLaunchSpreadRel);
}

namespace {

bool own_launch_spread(const ComputeSpread& own) {
  return own.launch_spread_rel &&
         own.launch_degrees_of_freedom >= kOwnLaunchSpreadMinDegreesOfFreedom;
}

// launch_spread_of takes the profiles' blocks: no repeated profiles to go by, blocks recorded.
bool launch_from_blocks(const ComputeSpread& own, const PooledSpreads& pooled) {
  return !own_launch_spread(own) && !pooled.launch_rel && own.repeat_spread_rel;
}

}  // namespace

double launch_spread_of(const ComputeSpread& own, const PooledSpreads& pooled, std::string* from) {
  if (own_launch_spread(own)) {
    if (from)
      *from = fmt::format("the device's own: repeated profiles on one host, {} degrees of freedom",
                          own.launch_degrees_of_freedom);
    return *own.launch_spread_rel;
  }
  if (pooled.launch_rel) {
    if (from) *from = "pooled over the device types profiled twice on one host";
    return *pooled.launch_rel;
  }
  if (launch_from_blocks(own, pooled)) {
    if (from)
      *from = fmt::format(
          "measured run-to-run spread of profile {}: its independent blocks' mean steps, {} "
          "degree(s) of freedom",
          own.repeat_files, own.repeat_degrees_of_freedom);
    return *own.repeat_spread_rel;
  }
  if (from) *from = "prior: the study's repeated runs (costmodel/uncertainty.h)";
  return costmodel::kDefaultLaunchSpreadRel;
}

void set_measured_spreads(const ComputeSpread& own, const PooledSpreads& pooled,
                          costmodel::DeviceCosts& c) {
  // Node spread: pooled over the device types with profiles from two hosts (one degree of
  // freedom each is too few to tell one GPU type's spread from another's).
  const double node = pooled.node_rel.value_or(0.0);
  std::string launch_from;
  const double launch = launch_spread_of(own, pooled, &launch_from);
  // What the mean of the profiles is uncertain by: the spread between them, node to node where
  // they come from several hosts (or hosts not known), launch to launch where from one; where
  // the launch spread is the profiles' own blocks', the blocks' spread over the blocks behind
  // the mean (the profile's mean is one of them averaged, a run another draw).
  const bool one_host = own.launch_spread_rel && !own.node_spread_rel;
  const bool from_blocks = !one_host && !own.node_spread_rel && launch_from_blocks(own, pooled);
  const double between = one_host ? launch : from_blocks ? launch : node;
  const int behind = from_blocks ? own.repeat_blocks : own.profiles;
  c.node_spread_rel = node;
  c.step_noise_rel = own.step_noise_rel;
  c.step_spread_rel = own.step_spread_rel.value_or(0.0);
  c.launch_spread_rel = launch;
  c.process_spread_rel =
      pooled.process_rel && pooled.launch_rel ? std::min(*pooled.process_rel, launch) : 0.0;
  c.uncertainty_rel = std::hypot(own.fit_residual_rel, between / std::sqrt(std::max(1, behind)));
  c.uncertainty_from = fmt::format(
      "systematic = hypot(fitted step's residual {:.2f} %, {} spread / sqrt({} {})); node "
      "spread {:.2f} % ({}); launch spread {:.2f} % ({}); process spread {:.2f} % ({}); {}",
      100 * own.fit_residual_rel, one_host || from_blocks ? "launch" : "node", behind,
      from_blocks ? "blocks" : "profiles", 100 * node,
      pooled.node_rel ? "pooled over the device types profiled on two or more hosts"
                      : "unknown: no device type profiled on two hosts",
      100 * launch, launch_from, 100 * c.process_spread_rel,
      pooled.process_from.empty() ? std::string("not measured") : pooled.process_from, own.from);
}

double transfer_error_rel(const std::vector<double>& device_factors) {
  if (device_factors.empty()) return 0.0;
  double sum_sq = 0;
  for (double f : device_factors) sum_sq += (f - 1) * (f - 1);
  return std::sqrt(sum_sq / static_cast<double>(device_factors.size()));
}

}  // namespace vitsim::calibrate
