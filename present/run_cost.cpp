// Prices per device and the cost of a run; see run_cost.h.
#include "present/run_cost.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "costmodel/cost_of_run.h"

namespace vitsim::present {
namespace {

// Each device's rate in `mode`, or an explanation of the first device without one.
bool rates_in_mode(const std::map<std::string, int64_t>& ranks, const schema::PriceTable& prices,
                   const costmodel::DeviceCatalog& catalog, const CostOptions& o,
                   const std::string& mode, schema::RunCost& cost,
                   std::map<std::string, costmodel::DeviceRate>& rates, std::string& why) {
  const double kwh = o.usd_per_kwh.value_or(prices.usd_per_kwh);
  const double years = o.amortisation_years.value_or(prices.amortisation_years);
  std::string sources;
  bool unverified = false, user = false;
  for (const auto& [device, n] : ranks) {
    const costmodel::DeviceSpec* spec = catalog.find(device);
    costmodel::DeviceRate r{n, 0, spec != nullptr ? spec->tdp_w : 0.0};
    auto it = prices.devices.find(device);
    const schema::DevicePrices* p = it == prices.devices.end() ? nullptr : &it->second;
    std::string source;
    if (auto ov = o.price_usd_per_gpu_hour.find(device); ov != o.price_usd_per_gpu_hour.end()) {
      r.usd_per_gpu_hour = ov->second;
      source = "--price";
      user = true;
    } else if (mode == "cloud" && p != nullptr && p->cloud) {
      r.usd_per_gpu_hour = p->cloud->usd_per_gpu_hour;
      source = p->cloud->provider + ", " + p->cloud->offer + ", " + p->cloud->as_of + ", " +
               p->cloud->url + (p->cloud->verified ? "" : ", unverified");
      unverified = unverified || !p->cloud->verified;
    } else if (mode == "owned" && p != nullptr && p->purchase) {
      unverified = unverified || !p->purchase->verified;
      r.usd_per_gpu_hour =
          costmodel::owned_usd_per_gpu_hour(p->purchase->usd, years, r.power_w, kwh);
      std::ostringstream s;
      s << "owned: $" << p->purchase->usd << " (" << p->purchase->source
        << (p->purchase->verified ? "" : ", unverified") << ") over " << years << " years + "
        << r.power_w << " W at $" << kwh << "/kWh";
      source = s.str();
    } else {
      why = "no " + mode + " price for device " + device + " in " + prices.file +
            (p != nullptr && !p->note.empty() ? " (" + p->note + ")" : "") + " (hint: --price " +
            device + "=USD_PER_GPU_HOUR)";
      return false;
    }
    cost.price_usd_per_gpu_hour[device] = r.usd_per_gpu_hour;
    sources += (sources.empty() ? "" : "; ") + device + ": " + source;
    rates[device] = r;
  }
  cost.mode = mode;
  cost.price_source = sources;
  cost.price_status = unverified ? "unverified" : user ? "--price" : "checked";
  return true;
}

}  // namespace

std::optional<schema::RunCost> run_cost(const schema::ConfigPrediction& p,
                                        const schema::PriceTable& prices,
                                        const costmodel::DeviceCatalog& catalog,
                                        const CostOptions& o, std::string* why) {
  std::string reason = "not simulated (out of memory)";
  if (p.out_of_memory || p.ranks.empty() || !(p.epoch_time_s > 0)) {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  }
  std::map<std::string, int64_t> ranks;
  for (const auto& r : p.ranks) ++ranks[r.device];
  const std::vector<std::string> modes = o.mode == "auto"
                                             ? std::vector<std::string>{"cloud", "owned"}
                                             : std::vector<std::string>{o.mode};
  for (const auto& mode : modes) {
    schema::RunCost cost;
    std::map<std::string, costmodel::DeviceRate> rates;
    std::string w;
    if (!rates_in_mode(ranks, prices, catalog, o, mode, cost, rates, w)) {
      reason = w;
      continue;
    }
    const costmodel::RunCostFigures f =
        costmodel::cost_of_run(rates, p.epoch_time_s, schema::run_time_s(p, o.epochs));
    cost.epoch_usd = f.epoch_usd;
    cost.run_usd = f.run_usd;
    cost.epochs = o.epochs;
    cost.epoch_kwh = f.epoch_kwh;
    cost.run_kwh = f.run_kwh;
    cost.energy_is_upper_bound = true;
    cost.power_source =
        "GPU board power at TDP (platforms/gpus.json) for the whole epoch: an upper bound of the "
        "GPUs' energy; hosts, network and cooling not counted";
    return cost;
  }
  if (why != nullptr) *why = reason;
  return std::nullopt;
}

std::string price_mode(const std::set<std::string>& devices, const schema::PriceTable& prices,
                       const CostOptions& o) {
  if (o.mode != "auto") return o.mode;
  int cloud = 0, owned = 0;
  for (const std::string& d : devices) {
    const auto it = prices.devices.find(d);
    const bool user = o.price_usd_per_gpu_hour.count(d) > 0;
    cloud += user || (it != prices.devices.end() && it->second.cloud) ? 1 : 0;
    owned += user || (it != prices.devices.end() && it->second.purchase) ? 1 : 0;
  }
  const int n = static_cast<int>(devices.size());
  if (cloud == n) return "cloud";
  if (owned == n) return "owned";
  return owned > cloud ? "owned" : "cloud";
}

std::string attach_run_costs(std::vector<schema::ConfigPrediction>& predictions,
                             const std::set<std::string>& devices, const schema::PriceTable& prices,
                             const costmodel::DeviceCatalog& catalog, const CostOptions& options) {
  CostOptions one = options;
  one.mode = price_mode(devices, prices, options);
  for (auto& p : predictions) {
    std::string why;
    p.cost = run_cost(p, prices, catalog, one, &why);
    p.cost_missing = p.cost || p.out_of_memory ? "" : why;
  }
  return one.mode;
}

std::set<std::string> devices_of(const schema::ClusterSpec& cluster) {
  std::set<std::string> out;
  for (const auto& n : cluster.nodes)
    for (const auto& g : n.gpus) out.insert(g.device);
  return out;
}

}  // namespace vitsim::present
