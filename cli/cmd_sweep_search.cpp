// `vitsim sweep --hosts-from / --devices`: the host-subset and device search (plan/subset_search.h)
// as the sweep command runs it: the searched devices resolved to catalog ids, each candidate
// priced as it is simulated, and how many had no price said. The options, the table and the pick
// are cmd_sweep.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/cmd_sweep.h"
#include "clikit/list_options.h"
#include "clikit/suggest.h"
#include "plan/subset_search.h"
#include "present/run_cost.h"
#include "schema/prices_io.h"
#include "sim/rank_plan.h"

namespace vitsim::cli {

std::vector<std::string> resolve_searched(const std::string& text,
                                          const costmodel::DeviceCatalog& catalog,
                                          const schema::ClusterSpec& cluster) {
  const costmodel::DeviceCatalog devices = sim::merged_catalog(catalog, cluster);
  std::vector<std::string> out;
  for (const std::string& d : clikit::parse_list<std::string>(
           text, "devices", [](auto& d) { return d; }, true)) {
    const costmodel::DeviceMatch m = costmodel::match_device(devices, d);
    if (m.device) {
      out.push_back(m.device->id);
      continue;
    }
    std::vector<std::string> names;
    for (const auto& spec : devices.devices) names.push_back(spec.name);
    throw std::invalid_argument(
        m.candidates.empty()
            ? clikit::unknown_name("devices", "device", "the catalog", d, devices.ids(), names)
            : costmodel::device_name_error(devices, "--devices", d));
  }
  return out;
}

plan::SweepResult search(const SweepArgs& a, const plan::SweepSpec& spec,
                         const schema::ClusterSpec& cluster,
                         const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& vit,
                         const costmodel::CostModel& costs, const sim::SimOptions& options,
                         const CostArgs& cost, const std::vector<std::string>& searched) {
  // Without --hosts-from, --devices searches every host (as its help says): as "all".
  const std::vector<std::string> hosts =
      a.hosts_from == "all" || a.hosts_from.empty()
          ? std::vector<std::string>{}
          : clikit::parse_list<std::string>(a.hosts_from, "hosts-from", [](auto& h) { return h; });
  const costmodel::DeviceCatalog devices = sim::merged_catalog(catalog, cluster);
  std::vector<std::string> names;  // "A100" names four ids: only an id is exact
  for (const auto& d : devices.devices) names.push_back(d.name);
  const std::vector<std::string> ids = devices.ids();
  for (const std::string& d : searched) {  // resolved to ids by resolve_searched
    if (std::find(ids.begin(), ids.end(), d) == ids.end())
      throw std::invalid_argument(
          clikit::unknown_name("devices", "device", "the catalog", d, ids, names));
  }
  const plan::SubsetSearch s = plan::subset_search_of(spec, hosts, searched);
  // Quietly here: attach_costs, after the search, warns once per missing price.
  const schema::PriceTable prices = schema::read_prices(cost.prices);
  present::CostOptions cost_options = to_cost_options(cost);
  cost_options.mode = present::price_mode(priced_devices(searched, cluster), prices, cost_options);
  auto attach = [&](schema::ConfigPrediction& p) {
    p.cost = present::run_cost(p, prices, devices, cost_options);
  };
  plan::SubsetResult found = plan::search_subsets(s, cluster, catalog, vit, costs, options, attach);
  for (const plan::FabricChange& f : found.fabric_changes)
    std::cout << fmt::format(
        "note: {} brings its own fabric inside a host: {} at {:.4g} GB/s per direction "
        "(catalog: the part's {}), in place of host {}'s {} at {:.4g} GB/s\n",
        f.device, f.now.kind, f.now.link.bandwidth_bytes_per_s / 1e9,
        f.now.kind == "nvlink" ? "NVLink" : "PCIe card", f.host, f.was.kind,
        f.was.link.bandwidth_bytes_per_s / 1e9);
  std::cout << (found.greedy ? fmt::format("greedy search (more than {} host subsets)\n",
                                           plan::kMaxExhaustiveSubsets)
                             : fmt::format("exhaustive search: {} host subset(s) per device\n",
                                           found.combinations));
  // A subset with an unpriced GPU has no cost: say how many, so that "cheapest" is read as the
  // cheapest of the priced ones.
  const auto& all = found.predictions.configurations;
  const auto unpriced = std::count_if(all.begin(), all.end(), [](const auto& p) {
    return !p.out_of_memory && !(p.cost && p.cost->epoch_usd > 0);
  });
  if (unpriced > 0)
    std::cout << fmt::format(
        "note: {} of {} candidate(s) have no price (a GPU without one in {}): a cost goal "
        "compares only the others (hint: --price DEVICE=USD_PER_GPU_HOUR)\n",
        unpriced, all.size(), cost.prices);
  return plan::as_sweep_result(std::move(found));
}

}  // namespace vitsim::cli
