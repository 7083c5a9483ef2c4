// Provenance, unmeasured parts and ranges of predictions; see provenance.h.
#include "sim/provenance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/link_provenance.h"
#include "sim/sharded_plan.h"

namespace vitsim::sim {

std::vector<schema::ComputeProvenance> compute_provenance(const RankKinds& kinds,
                                                          const costmodel::CostModel& costs,
                                                          costmodel::Regime precision) {
  std::vector<schema::ComputeProvenance> out;
  for (int kind : kinds.kind_of_rank) {
    const std::string& device = kinds.plans[static_cast<size_t>(kind)].device;
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& c) { return c.device == device; });
    if (it != out.end()) {
      ++it->ranks;
      continue;
    }
    const costmodel::DeviceCosts& c = find_costs(costs, device, precision);
    schema::ComputeProvenance p;
    p.device = device;
    p.precision = precision;
    p.source = c.source;
    p.derived_from = c.derived_from;
    p.uncertainty_rel = c.uncertainty_rel;
    p.node_spread_rel = c.node_spread_rel;
    p.transfer_summary = c.transfer_summary;
    p.ranks = 1;
    out.push_back(p);
  }
  return out;
}

std::vector<std::string> unmeasured_lines(const schema::Provenance& provenance,
                                          const RankKinds& kinds) {
  std::vector<std::string> out;
  for (const auto& c : provenance.compute) {
    const std::string part = c.device + "/" + costmodel::to_string(c.precision);
    if (c.source == costmodel::CostSource::kTransferred ||
        c.source == costmodel::CostSource::kSibling) {
      // The summary names what the transfer rests on (the nearest measured GPU, the sibling) and
      // its width (docs/uncertainty.md); cost models written before it have none.
      const std::string rests_on =
          c.transfer_summary.empty()
              ? fmt::format("{} from other devices' measurements (uncertainty {:.0f} %)",
                            costmodel::to_string(c.source), 100 * c.uncertainty_rel)
              : c.transfer_summary;
      out.push_back(fmt::format(
          "{} compute: {}; not measured: run vitsim-train profile on this device, or import its "
          "DeepSpeed log with vitsim import-deepspeed",
          part, rests_on));
    }
  }
  for (const auto& plan : kinds.plans) {
    if (plan.memory.from_measurement) continue;
    const std::string line = plan.device +
                             " memory: first-principles estimate (the cost model has no fitted "
                             "memory), not measured: profile this device to fit it";
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  }
  for (const auto& u : provenance.links) {
    const std::string line = unmeasured_link_line(u.link);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

costmodel::PredictionRange range_of(const schema::ConfigPrediction& p,
                                    const costmodel::CostModel& costs) {
  costmodel::RangeInputs in;
  in.step_time_s = p.step_time_s;
  in.epoch_time_s = p.epoch_time_s;
  in.compute_s = p.compute_time_s;
  in.ranks = static_cast<int64_t>(p.ranks.size());
  std::set<std::string> nodes;  // a node's ranks come one after the other: one insert a node
  for (size_t i = 0; i < p.ranks.size(); ++i) {
    if (i == 0 || p.ranks[i].host != p.ranks[i - 1].host) nodes.insert(p.ranks[i].host);
  }
  in.nodes = static_cast<int64_t>(nodes.size());
  in.steps_per_epoch = std::max<int64_t>(1, p.steps_per_epoch);
  // The slowest rank's device sets the compute's spread (first such rank).
  const auto slowest = std::max_element(
      p.ranks.begin(), p.ranks.end(),
      [](const auto& a, const auto& b) { return a.compute_time_s < b.compute_time_s; });
  if (slowest != p.ranks.end()) {
    const costmodel::DeviceCosts& c = find_costs(costs, slowest->device, p.config.precision);
    in.compute_systematic_rel = c.uncertainty_rel;
    in.compute_per_rank_rel = c.node_spread_rel;
    in.compute_per_process_rel = c.process_spread_rel;
    in.step_noise_rel = c.step_noise_rel;
    // The launch spread less its process part (each rank draws that on its own): what is common
    // to the ranks of one launch.
    in.launch_rel = std::sqrt(std::max(0.0, c.launch_spread_rel * c.launch_spread_rel -
                                                c.process_spread_rel * c.process_spread_rel));
    in.launch_measured = c.launch_spread_rel > 0;
  }
  for (const auto& u : p.provenance.links)
    in.comm_rel = std::max(in.comm_rel, u.link.uncertainty_rel);
  // A sharded stage's reduce-scatters and all-gathers run over their own measured fits where the
  // plan takes them (sim/sharded_plan.h): their uncertainty (residual and benchmarks' spread,
  // calibrate/sharding_fit.cpp) is the communication's too.
  for (const costmodel::OperationLinkCost* fit : operation_fits_used(p.config, p.provenance, costs))
    in.comm_rel = std::max(in.comm_rel, fit->uncertainty_rel);
  // The term learned from runs, where the simulator added one (sim/rank_plan.cpp: ranks sharing
  // one host): its runs' spread (docs/learning-from-runs.md).
  if (in.nodes == 1 && in.ranks >= 2 && slowest != p.ranks.end()) {
    for (const auto& u : p.provenance.links) {
      const costmodel::LinkCost* link = costs.find_link(u.link.link_class);
      const costmodel::RunStepOverhead* t =
          link ? link->find_run_overhead(slowest->device, p.config.precision, in.ranks) : nullptr;
      if (t) in.run_term_spread_s = std::max(in.run_term_spread_s, t->spread_s);
    }
  }
  return costmodel::prediction_range(in);
}

std::vector<std::string> unmeasured_warnings(
    const std::vector<schema::ConfigPrediction>& predictions) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  for (const auto& p : predictions) {
    std::vector<std::string> seen;
    for (const auto& line : p.provenance.unmeasured) {
      if (std::find(seen.begin(), seen.end(), line) != seen.end()) continue;
      seen.push_back(line);
      if (count[line]++ == 0) order.push_back(line);
    }
  }
  std::vector<std::string> out;
  for (const auto& line : order) {
    out.push_back(fmt::format("{}; used by {} of {} configuration(s)", line, count.at(line),
                              predictions.size()));
  }
  return out;
}

std::string one_line_warning(const std::string& line) {
  size_t cut = line.size();
  for (const char* mark : {" (", ", not measured", "; not measured"})
    cut = std::min(cut, line.find(mark));
  const size_t used = line.rfind("; used by ");
  return line.substr(0, cut) + ", not measured" +
         (used == std::string::npos || used < cut ? "" : line.substr(used));
}

}  // namespace vitsim::sim
