// Rank plans, buckets and memory; see rank_plan.h and docs/simulator.md.
#include "sim/rank_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "costmodel/buckets.h"
#include "costmodel/memory.h"
#include "costmodel/straggler.h"
#include "sim/sharded_plan.h"

namespace vitsim::sim {

std::vector<Bucket> make_buckets(const costmodel::LayerGraph& graph, costmodel::Regime precision,
                                 double bucket_bytes) {
  // Layers in backward order: the head's gradient is ready first.
  std::vector<int> order;
  std::vector<double> bytes;
  for (int i = static_cast<int>(graph.layers.size()) - 1; i >= 0; --i) {
    order.push_back(i);
    bytes.push_back(
        static_cast<double>(graph.layers[static_cast<size_t>(i)].gradient_bytes(precision)));
  }
  std::vector<Bucket> out;
  for (const auto& members : costmodel::assign_buckets(bytes, bucket_bytes)) {
    Bucket b;
    for (size_t k : members) {
      b.layers.push_back(order[k]);
      b.bytes += bytes[k];
    }
    b.ready_after = b.layers.back();
    out.push_back(std::move(b));
  }
  return out;
}

int64_t MemoryModel::max_micro_batch(double device_bytes) const {
  if (at(1) > device_bytes) return 0;
  if (shift_bytes) {
    // Not linear: the largest b that fits, by bisection (the memory grows with b).
    if (at(kAnyMicroBatchFits) <= device_bytes) return kAnyMicroBatchFits;
    int64_t lo = 1, hi = kAnyMicroBatchFits;  // at(lo) fits, at(hi) does not
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      (at(mid) <= device_bytes ? lo : hi) = mid;
    }
    return lo;
  }
  if (per_sample_bytes <= 0) return kAnyMicroBatchFits;
  int64_t b = static_cast<int64_t>(std::floor((device_bytes - fixed_bytes) / per_sample_bytes));
  while (b > 1 && at(b) > device_bytes) --b;  // guard against rounding at the boundary
  while (at(b + 1) <= device_bytes) ++b;
  return b;
}

MemoryModel memory_model(const costmodel::DeviceCosts& costs, const costmodel::LayerGraph& graph,
                         costmodel::Regime precision, costmodel::Optimizer optimizer) {
  MemoryModel m;
  if (costs.memory_fixed_bytes > 0 || costs.memory_per_sample_bytes > 0) {
    // A cost model's memory is AdamW's (profiles are taken with it, and calibrate's estimate
    // assumes it): another optimizer shifts the fixed part by its state bytes.
    m.from_measurement = true;
    m.fixed_bytes =
        costmodel::memory_bytes(costs, graph, 0) +
        costmodel::optimizer_memory_shift_bytes(graph, costmodel::Optimizer::kAdamW, optimizer);
    m.per_sample_bytes =
        costmodel::memory_bytes(costs, graph, 1) - costmodel::memory_bytes(costs, graph, 0);
    return m;
  }
  const costmodel::MemoryEstimate e =
      costmodel::first_principles_memory(graph, precision, optimizer);
  m.fixed_bytes = e.fixed_bytes;
  m.per_sample_bytes = e.per_sample_bytes;
  return m;
}

costmodel::DeviceCatalog merged_catalog(const costmodel::DeviceCatalog& catalog,
                                        const schema::ClusterSpec& cluster) {
  return costmodel::with_devices(catalog, cluster.devices);
}

const costmodel::DeviceCosts& find_costs(const costmodel::CostModel& costs,
                                         const std::string& device, costmodel::Regime precision) {
  if (const auto* c = costs.find(device, precision)) return *c;
  std::string have;
  for (const auto& d : costs.devices) {
    have += (have.empty() ? "" : ", ") + d.device + "/" + costmodel::to_string(d.precision);
  }
  throw std::invalid_argument(
      "the cost model has no costs for device '" + device + "' at precision " +
      costmodel::to_string(precision) + " (it has: " + (have.empty() ? "nothing" : have) +
      "; hint: calibrate this device, or let calibrate transfer costs to it)");
}

std::string unsupported_precision(const costmodel::DeviceSpec& device, costmodel::Regime precision,
                                  const std::string& host) {
  std::string can;
  for (const auto& named : costmodel::kRegimeNames)
    if (costmodel::is_compute_regime(named.value) && device.supports(named.value))
      can += (can.empty() ? "" : ", ") + std::string(named.name);
  // The device's architecture named beside it: "the NVIDIA T4 (t4, Turing, host n1) has no TF32
  // tensor cores" says why no cost model can hold it (DeviceSpec::missing_units).
  const std::string arch = device.architecture.empty() ? "" : ", " + device.architecture;
  return "--precision " + std::string(costmodel::to_string(precision)) + ": the " + device.name +
         " (" + device.id + arch + ", host " + host + ") has " + device.missing_units(precision) +
         ", so no calibration can give it costs (hint: a precision it runs: " +
         (can.empty() ? std::string("none") : can) + ")";
}

double compute_before_sync_s(const RankPlan& p, int64_t accumulation) {
  double micro = p.data_s;
  for (double t : p.forward_s) micro += t;
  for (double t : p.backward_s) micro += t;
  return static_cast<double>(accumulation) * micro + p.bucket_copy_s;
}

namespace {

// One step's compute of a plan (docs/simulator.md, "Compute").
double step_compute_s(const RankPlan& p, int64_t accumulation) {
  return compute_before_sync_s(p, accumulation) + p.optimizer_s + p.overhead_s;
}

// The slowest kind waits, per step, for the expected lateness of the ranks' slowest
// (costmodel/straggler.h): for its step-to-step noise (each kind's spread its device's whole-step
// spread), and for a rank slow for the whole run (each kind's spread also holds its device's
// process spread: a run draws each rank's process once, and every step waits for the slowest).
struct KindSpread {
  double step_rel = 0;     // the device's whole-step spread
  double process_rel = 0;  // the part of its launch spread each rank's process draws on its own
};

void add_straggler_wait(RankKinds& kinds, const std::vector<KindSpread>& spread,
                        int64_t accumulation) {
  std::vector<costmodel::RankGroup> groups(kinds.plans.size());
  for (size_t k = 0; k < kinds.plans.size(); ++k) {
    groups[k].mean_s = step_compute_s(kinds.plans[k], accumulation);
    groups[k].ranks = 0;
  }
  for (int k : kinds.kind_of_rank) groups[static_cast<size_t>(k)].ranks++;
  const auto wait_with = [&](bool process) {
    for (size_t k = 0; k < groups.size(); ++k) {
      const double rel =
          process ? std::hypot(spread[k].step_rel, spread[k].process_rel) : spread[k].step_rel;
      groups[k].sigma_s = groups[k].mean_s * rel;
    }
    return costmodel::expected_straggler_wait_s(groups);
  };
  const double step_wait = wait_with(false);
  const double process_wait = std::max(0.0, wait_with(true) - step_wait);
  if (!(step_wait > 0) && !(process_wait > 0)) return;
  double top = 0;
  for (const auto& g : groups) top = std::max(top, g.mean_s);
  for (size_t k = 0; k < kinds.plans.size(); ++k) {
    if (groups[k].mean_s != top) continue;
    kinds.plans[k].straggler_s = step_wait;
    kinds.plans[k].straggler_process_s = process_wait;
  }
}

// The correction a link class learned from training runs of this device and precision with as
// many ranks sharing one host, for a job on one host (docs/learning-from-runs.md); none elsewhere:
// a run on one host is no evidence for a ring across hosts.
const costmodel::RunStepOverhead* learned_term(const Placement& placement,
                                               const costmodel::CostModel& costs,
                                               const costmodel::DeviceCosts& c) {
  const auto ranks = static_cast<int64_t>(placement.ranks.size());
  if (ranks < 2 || !placement.single_node()) return nullptr;
  const NodeInstance& node = placement.nodes[static_cast<size_t>(placement.ranks.front().node)];
  const costmodel::LinkCost* link = costs.find_link(node.spec->intra_node.link.link_class);
  return link == nullptr ? nullptr : link->find_run_overhead(c.device, c.precision, ranks);
}

// A learned correction on a rank's plan: its compute (data, copy, forward, backward, optimizer)
// by the runs' factor, its step overhead by their seconds per step (never below 0 in all).
void apply_learned(RankPlan& p, const costmodel::RunStepOverhead& t) {
  const double k = t.compute_scale;
  for (double& x : p.forward_s) x *= k;
  for (double& x : p.backward_s) x *= k;
  p.data_s *= k;
  p.optimizer_s *= k;
  p.optimizer_after_wait_s *= k;
  if (p.data_after_wait_s) *p.data_after_wait_s *= k;
  p.overhead_s = std::max(0.0, p.overhead_s + t.overhead_s);
}

int64_t micro_batch_of(const schema::TrainingConfig& config, size_t rank) {
  return config.per_rank_micro_batch.empty() ? config.micro_batch
                                             : config.per_rank_micro_batch[rank];
}

}  // namespace

RankKinds plan_rank_kinds(const Placement& placement, const costmodel::DeviceCatalog& catalog,
                          const costmodel::LayerGraph& graph, const schema::TrainingConfig& config,
                          const costmodel::CostModel& costs,
                          std::map<std::string, costmodel::CostSource>& sources) {
  RankKinds out;
  std::vector<KindSpread> spread;                        // per kind: its device's spreads
  std::map<std::pair<std::string, int64_t>, int> kinds;  // (device, micro-batch) -> kind
  const double params = static_cast<double>(graph.parameters());
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    const std::string& device = placement.device(r);
    const int64_t micro_batch = micro_batch_of(config, r);
    // Ranks of a node, and nodes of a group, come one after the other: the kind of the rank
    // before, when it is the same, without a look-up of the device's name.
    if (r > 0 && micro_batch == micro_batch_of(config, r - 1) &&
        device == placement.device(r - 1)) {
      out.kind_of_rank.push_back(out.kind_of_rank.back());
      continue;
    }
    const auto [it, added] =
        kinds.emplace(std::make_pair(device, micro_batch), static_cast<int>(kinds.size()));
    out.kind_of_rank.push_back(it->second);
    if (!added) continue;
    const costmodel::DeviceSpec* spec = catalog.find(device);
    if (spec == nullptr) {
      throw std::invalid_argument("device '" + device + "' of host " + placement.host(r) +
                                  " is neither in gpus.json nor in the cluster's \"devices\"");
    }
    if (!spec->supports(config.precision) && !costs.find(device, config.precision))
      throw std::invalid_argument(
          unsupported_precision(*spec, config.precision, placement.host(r)));
    const costmodel::DeviceCosts& c = find_costs(costs, device, config.precision);
    sources[device + "/" + costmodel::to_string(config.precision)] = c.source;
    RankPlan p;
    p.rank = static_cast<int64_t>(r);
    p.host = placement.host(r);
    p.device = device;
    p.micro_batch = micro_batch;
    const double b = static_cast<double>(p.micro_batch);
    const costmodel::LayerTimes t = costmodel::layer_times(c, graph, b);
    p.forward_s = t.forward_s;
    p.backward_s = t.backward_s;
    p.data_s = c.data_wait.at(b) + c.host_to_device.at(b);
    p.optimizer_s = c.optimizer.at(params);
    if (c.optimizer_wait_s > 0) {
      p.optimizer_after_wait_s = c.optimizer_after_wait.at(params);
      p.optimizer_wait_s = c.optimizer_wait_s;
      if (c.data_after_wait)
        p.data_after_wait_s = c.data_after_wait->at(b) + c.host_to_device.at(b);
    }
    p.overhead_s = c.step_overhead.at(b);
    if (c.bucket_copy && placement.ranks.size() > 1) p.bucket_copy_s = c.bucket_copy->at(params);
    p.epoch_start_s = config.first_epoch ? c.process_start_at(b) : c.epoch_start_s;
    p.other_epoch_start_s = config.first_epoch ? c.epoch_start_s : c.process_start_at(b);
    if (const costmodel::RunStepOverhead* t = learned_term(placement, costs, c))
      apply_learned(p, *t);
    p.memory = memory_model(c, graph, config.precision, config.optimizer);
    apply_sharding(p, c, graph, config, static_cast<int64_t>(placement.ranks.size()));
    p.memory_bytes = p.memory.at(p.micro_batch);
    p.device_memory_bytes = spec->memory_bytes;
    out.plans.push_back(std::move(p));
    spread.push_back({c.step_spread_rel, c.process_spread_rel});
  }
  add_straggler_wait(out, spread, config.accumulation);
  return out;
}

std::vector<RankPlan> plan_ranks(const Placement& placement,
                                 const costmodel::DeviceCatalog& catalog,
                                 const costmodel::LayerGraph& graph,
                                 const schema::TrainingConfig& config,
                                 const costmodel::CostModel& costs,
                                 std::map<std::string, costmodel::CostSource>& sources) {
  const RankKinds kinds = plan_rank_kinds(placement, catalog, graph, config, costs, sources);
  std::vector<RankPlan> out;
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    out.push_back(kinds.plans[static_cast<size_t>(kinds.kind_of_rank[r])]);
    out.back().rank = static_cast<int64_t>(r);
    out.back().host = placement.host(r);
  }
  return out;
}

}  // namespace vitsim::sim
