// Price table (schema "vitsim.prices", version 1; docs/formats/prices.md): platforms/prices.json,
// per device a dated cloud list price per GPU-hour with its source, or a purchase price for the
// owned mode, and the owned mode's defaults (amortisation years, electricity price). Read by
// `vitsim predict`, `advise`, `simulate` and `sweep` for the cost of an epoch and of a run.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kPricesSchema = "vitsim.prices";
inline constexpr int kPricesVersion = 1;

// `verified`: a stored copy of the named page was read and gives this figure on the date in
// `as_of`; `check` says which copy, or why the figure could not be checked. Absent means false:
// a table without it is labelled unverified wherever its prices show.
struct CloudPrice {
  double usd_per_gpu_hour = 0;
  std::string provider, offer, url, as_of;
  bool verified = false;
  std::string check;
};

struct PurchasePrice {
  double usd = 0;
  std::string source, as_of;
  bool verified = false;
  std::string check;
};

struct DevicePrices {
  std::string device;
  std::optional<CloudPrice> cloud;
  std::optional<PurchasePrice> purchase;
  std::string note;
};

struct PriceTable {
  double amortisation_years = 4;
  std::string amortisation_source;
  double usd_per_kwh = 0;
  std::string usd_per_kwh_source;
  std::map<std::string, DevicePrices> devices;  // by device id
  std::string file;
};

PriceTable read_prices(const std::string& path);
PriceTable read_prices(const Node& root);
// $VITSIM_PRICES, else platforms/prices.json of the data folder (schema/data_dir.h).
std::string default_prices_path();

}  // namespace vitsim::schema
