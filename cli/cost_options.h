// The cost options shared by `vitsim predict`, `advise` and `sweep` (docs/cost-model.md, "Cost
// and energy"): where prices come from, overrides, the mode, the run's epochs. Parsed once here.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "present/run_cost.h"
#include "schema/cluster.h"
#include "schema/prediction.h"

namespace vitsim::cli {

struct CostArgs {
  std::string prices;  // set to schema::default_prices_path() by add_cost_options
  std::string price, mode = "auto";
  int64_t epochs = 1;
  std::optional<double> kwh_price, amortisation_years;
};

void add_cost_options(CLI::App& app, CostArgs& a);
present::CostOptions to_cost_options(const CostArgs& a);  // parses --price

// --price "t4=0.35,p4=0.6" -> device -> USD per GPU-hour. std::invalid_argument naming --price and
// the entry for a malformed entry (DEVICE=USD, 0..1000) and for a device given twice.
std::map<std::string, double> parse_price_overrides(const std::string& text);

// Refuses (std::invalid_argument, exit 2), before anything is simulated, a --price device that no
// GPU of `cluster` is and none of `searched` (sweep --devices) either: a misspelt device would
// otherwise be dropped without a word. Also parses --price (the errors above).
void check_price_devices(const CostArgs& a, const schema::ClusterSpec& cluster,
                         const std::vector<std::string>& searched = {});

// The cost options as they change a prediction's row (sweep shards' digest, plan/sweep_shards.h):
// --price (parsed), --cost-mode, --epochs, --kwh-price, --amortisation-years. The price table's
// bytes are covered as an input file.
schema::Json cost_row_options(const CostArgs& a);

// Sets the cost of every prediction that has an epoch time, in the one price mode of the set
// (present::price_mode over `devices`, every device the set may use); a prediction without a price
// gets none and its `cost_missing`, with one warning on stderr per reason (`tool`:
// "vitsim predict").
void attach_costs(std::vector<schema::ConfigPrediction>& predictions, const CostArgs& a,
                  const costmodel::DeviceCatalog& catalog, const std::set<std::string>& devices,
                  const std::string& tool);

}  // namespace vitsim::cli
