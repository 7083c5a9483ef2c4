// The cost of a predicted configuration (docs/cost-model.md, "Cost and energy"): picks each
// device's price (a --price override, the cloud list price, or the owned-mode rate from its
// purchase price) from the price table, its power from the device catalog (TDP), and applies
// costmodel::cost_of_run to the prediction's epoch time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "schema/cluster.h"
#include "schema/prediction.h"
#include "schema/prices_io.h"

namespace vitsim::present {

struct CostOptions {
  // "auto": cloud where every device has a cloud price (or an override), else owned where every
  // device has a purchase price; "cloud" / "owned": that mode or no cost.
  std::string mode = "auto";
  std::map<std::string, double> price_usd_per_gpu_hour;  // --price device=usd: wins in any mode
  int64_t epochs = 1;                                    // --epochs: the training run
  std::optional<double> usd_per_kwh;                     // --kwh-price (owned mode)
  std::optional<double> amortisation_years;              // --amortisation-years (owned mode)
};

// The cost, or nullopt with `why` saying which device lacks a price and how to give one (an
// out-of-memory or unsimulated prediction has no cost either).
std::optional<schema::RunCost> run_cost(const schema::ConfigPrediction& prediction,
                                        const schema::PriceTable& prices,
                                        const costmodel::DeviceCatalog& catalog,
                                        const CostOptions& options, std::string* why = nullptr);

// The one price mode of a set of configurations shown together (a sweep, a scenario, a
// prediction), from every device its configurations may use (`devices`: the cluster's, or the
// searched ones): `options.mode` unless "auto"; auto: cloud when every device has a cloud price
// (or a --price), else owned when every device has a purchase price (or a --price), else the
// mode that prices more of them (cloud on a tie). So one cost column never mixes price modes,
// and the shards of a sweep choose as one run does.
std::string price_mode(const std::set<std::string>& devices, const schema::PriceTable& prices,
                       const CostOptions& options);

// The costs of a set in its one mode (price_mode): each prediction's `cost`, or when it has none
// (and is not out of memory) its `cost_missing` saying why. Returns the mode.
std::string attach_run_costs(std::vector<schema::ConfigPrediction>& predictions,
                             const std::set<std::string>& devices, const schema::PriceTable& prices,
                             const costmodel::DeviceCatalog& catalog, const CostOptions& options);

// The device ids of every GPU of the cluster (what price_mode is asked about).
std::set<std::string> devices_of(const schema::ClusterSpec& cluster);

}  // namespace vitsim::present
