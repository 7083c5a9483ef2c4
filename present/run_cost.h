// The cost of a predicted configuration (docs/cost-model.md, "Cost and energy"): picks each
// device's price (a --price override, the cloud list price, or the owned-mode rate from its
// purchase price) from the price table, its power from the device catalog (TDP), and applies
// costmodel::cost_of_run to the prediction's epoch time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "costmodel/device_spec.h"
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

}  // namespace vitsim::present
