// Cost options and attaching costs to predictions; see cost_options.h.
#include "cli/cost_options.h"

#include <iostream>
#include <set>

#include "schema/prices_io.h"

namespace vitsim::cli {

void add_cost_options(CLI::App& app, CostArgs& a) {
  a.prices = schema::default_prices_path();
  app.add_option("--prices", a.prices, "price table (docs/formats/prices.md)")
      ->capture_default_str();
  app.add_option("--price", a.price,
                 "price overrides, USD per GPU-hour, comma-separated: t4=0.35,p4=0.6");
  app.add_option("--cost-mode", a.mode,
                 "auto | cloud | owned: cloud list prices, or purchase price amortised plus "
                 "electricity; auto: cloud where every device has one, else owned")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cloud", "owned"}));
  app.add_option("--epochs", a.epochs, "epochs of the training run (cost and energy per run)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app.add_option("--kwh-price", a.kwh_price,
                 "electricity, USD per kWh (owned mode; default: "
                 "the price table's)")
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--amortisation-years", a.amortisation_years,
                 "years a purchase is spread over (owned mode; default: the price table's)")
      ->check(CLI::Range(0.1, 50.0));
}

present::CostOptions to_cost_options(const CostArgs& a) {
  present::CostOptions o;
  o.mode = a.mode;
  o.price_usd_per_gpu_hour = present::parse_price_overrides(a.price);
  o.epochs = a.epochs;
  o.usd_per_kwh = a.kwh_price;
  o.amortisation_years = a.amortisation_years;
  return o;
}

void attach_costs(std::vector<schema::ConfigPrediction>& predictions, const CostArgs& a,
                  const costmodel::DeviceCatalog& catalog, const std::set<std::string>& devices,
                  const std::string& tool) {
  const schema::PriceTable prices = schema::read_prices(a.prices);
  present::attach_run_costs(predictions, devices, prices, catalog, to_cost_options(a));
  std::set<std::string> warned;
  for (const auto& p : predictions) {
    if (!p.cost_missing.empty() && warned.insert(p.cost_missing).second)
      std::cerr << tool << ": warning: no cost: " << p.cost_missing << "\n";
  }
}

}  // namespace vitsim::cli
