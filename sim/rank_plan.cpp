// Rank plans, buckets, memory and steps per epoch; see rank_plan.h and docs/simulator.md.
#include "sim/rank_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vitsim::sim {

std::vector<Bucket> make_buckets(const costmodel::LayerGraph& graph, double bucket_bytes) {
  std::vector<Bucket> out;
  Bucket current;
  for (int i = static_cast<int>(graph.layers.size()) - 1; i >= 0; --i) {
    const double g = static_cast<double>(graph.layers[static_cast<size_t>(i)].gradient_bytes());
    if (g <= 0) continue;
    current.layers.push_back(i);
    current.bytes += g;
    current.ready_after = i;
    if (current.bytes >= bucket_bytes) {
      out.push_back(current);
      current = Bucket{};
    }
  }
  if (!current.layers.empty()) out.push_back(current);
  return out;
}

int64_t MemoryModel::max_micro_batch(double device_bytes) const {
  if (at(1) > device_bytes) return 0;
  if (per_sample_bytes <= 0) return 1 << 20;  // no growth with the batch: any size fits
  int64_t b = static_cast<int64_t>(std::floor((device_bytes - fixed_bytes) / per_sample_bytes));
  while (b > 1 && at(b) > device_bytes) --b;  // guard against rounding at the boundary
  while (at(b + 1) <= device_bytes) ++b;
  return b;
}

MemoryModel memory_model(const costmodel::DeviceCosts& costs, const costmodel::LayerGraph& graph,
                         costmodel::Precision precision, const std::string& optimizer) {
  MemoryModel m;
  const double params = static_cast<double>(graph.parameters());
  if (costs.memory_fixed_bytes > 0 || costs.memory_per_sample_bytes > 0) {
    // Measured peak memory (AdamW, as the profiles are taken); SGD keeps one state less.
    m.from_measurement = true;
    m.fixed_bytes = costmodel::memory_bytes(costs, graph, 0);
    m.per_sample_bytes = costmodel::memory_bytes(costs, graph, 1) - m.fixed_bytes;
    if (optimizer == "sgd") m.fixed_bytes -= 4 * params;
    return m;
  }
  const double states = optimizer == "sgd" ? 1 : 2;  // fp32 optimizer states per parameter
  // fp32 weights + fp32 gradients + optimizer states; autocast also caches 16-bit weight copies.
  m.fixed_bytes = params * 4 * (2 + states) + kWorkspaceBytes;
  if (precision != costmodel::Precision::kFp32) m.fixed_bytes += params * 2;
  m.per_sample_bytes =
      graph.activation_bytes_per_sample(costmodel::activation_element_bytes(precision));
  return m;
}

costmodel::DeviceCatalog merged_catalog(const costmodel::DeviceCatalog& catalog,
                                        const schema::ClusterSpec& cluster) {
  costmodel::DeviceCatalog out;
  out.devices = cluster.devices;
  for (const auto& d : catalog.devices) {
    bool own = false;
    for (const auto& c : cluster.devices) own = own || c.id == d.id;
    if (!own) out.devices.push_back(d);
  }
  return out;
}

const costmodel::DeviceCosts& find_costs(const costmodel::CostModel& costs,
                                         const std::string& device,
                                         costmodel::Precision precision) {
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

RankKinds plan_rank_kinds(const Placement& placement, const costmodel::DeviceCatalog& catalog,
                          const costmodel::LayerGraph& graph, const schema::TrainingConfig& config,
                          const costmodel::CostModel& costs,
                          std::map<std::string, std::string>& sources) {
  RankKinds out;
  std::map<std::pair<std::string, int64_t>, int> kinds;  // (device, micro-batch) -> kind
  const double params = static_cast<double>(graph.parameters());
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    const RankSlot& slot = placement.ranks[r];
    const int64_t micro_batch =
        config.per_rank_micro_batch.empty() ? config.micro_batch : config.per_rank_micro_batch[r];
    const auto [it, added] =
        kinds.emplace(std::make_pair(slot.device, micro_batch), static_cast<int>(kinds.size()));
    out.kind_of_rank.push_back(it->second);
    if (!added) continue;
    const costmodel::DeviceSpec* spec = catalog.find(slot.device);
    if (spec == nullptr) {
      throw std::invalid_argument("device '" + slot.device + "' of host " + slot.host +
                                  " is neither in gpus.json nor in the cluster's \"devices\"");
    }
    const costmodel::DeviceCosts& c = find_costs(costs, slot.device, config.precision);
    sources[slot.device + "/" + costmodel::to_string(config.precision)] =
        costmodel::to_string(c.source);
    RankPlan p;
    p.rank = static_cast<int64_t>(r);
    p.host = slot.host;
    p.device = slot.device;
    p.micro_batch = micro_batch;
    const double b = static_cast<double>(p.micro_batch);
    const costmodel::LayerTimes t = costmodel::layer_times(c, graph, b);
    p.forward_s = t.forward_s;
    p.backward_s = t.backward_s;
    p.data_s = c.data_wait.at(b) + c.host_to_device.at(b);
    p.optimizer_s = c.optimizer.at(params);
    p.overhead_s = c.step_overhead.at(b);
    p.memory = memory_model(c, graph, config.precision, config.optimizer);
    p.memory_bytes = p.memory.at(p.micro_batch);
    p.device_memory_bytes = spec->memory_bytes;
    out.plans.push_back(std::move(p));
  }
  return out;
}

std::vector<RankPlan> plan_ranks(const Placement& placement,
                                 const costmodel::DeviceCatalog& catalog,
                                 const costmodel::LayerGraph& graph,
                                 const schema::TrainingConfig& config,
                                 const costmodel::CostModel& costs,
                                 std::map<std::string, std::string>& sources) {
  const RankKinds kinds = plan_rank_kinds(placement, catalog, graph, config, costs, sources);
  std::vector<RankPlan> out;
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    out.push_back(kinds.plans[static_cast<size_t>(kinds.kind_of_rank[r])]);
    out.back().rank = static_cast<int64_t>(r);
    out.back().host = placement.ranks[r].host;
  }
  return out;
}

int64_t steps_per_epoch(const schema::TrainingConfig& config,
                        const std::vector<int64_t>& micro_batches) {
  const int64_t used = static_cast<int64_t>(
      std::floor(config.data_fraction * static_cast<double>(config.images) + 1e-9));
  const int64_t ranks = static_cast<int64_t>(micro_batches.size());
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const bool equal = std::all_of(micro_batches.begin(), micro_batches.end(),
                                 [&](int64_t m) { return m == micro_batches.front(); });
  int64_t micro_steps = 0;
  if (equal) {
    micro_steps = ceil_div(ceil_div(used, ranks), micro_batches.front());
  } else {
    int64_t sum = 0;
    for (int64_t m : micro_batches) sum += m;
    micro_steps = ceil_div(used, sum);
  }
  return ceil_div(micro_steps, config.accumulation);
}

}  // namespace vitsim::sim
