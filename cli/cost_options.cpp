// Cost options and attaching costs to predictions; see cost_options.h.
#include "cli/cost_options.h"

#include <cmath>
#include <iostream>
#include <set>
#include <stdexcept>

#include "clikit/list_options.h"
#include "clikit/run_app.h"
#include "schema/data_dir.h"
#include "schema/prices_io.h"

namespace vitsim::cli {

void add_cost_options(CLI::App& app, CostArgs& a) {
  a.prices = schema::default_prices_path();
  app.add_option("--prices", a.prices, "price table (docs/formats/prices.md)")
      ->default_str(schema::data_default("platforms/prices.json"));
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
      ->check(clikit::number_in(0.0, 10.0));
  app.add_option("--amortisation-years", a.amortisation_years,
                 "years a purchase is spread over (owned mode; default: the price table's)")
      ->check(clikit::number_in(0.1, 50.0));
}

present::CostOptions to_cost_options(const CostArgs& a) {
  present::CostOptions o;
  o.mode = a.mode;
  o.price_usd_per_gpu_hour = parse_price_overrides(a.price);
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

std::map<std::string, double> parse_price_overrides(const std::string& text) {
  std::map<std::string, double> out;
  for (const std::string& item : clikit::split_list(text, "price")) {
    const size_t eq = item.find('=');
    double usd = -1;
    try {
      if (eq != std::string::npos) usd = clikit::parse_number(item.substr(eq + 1));
    } catch (const std::exception&) {
      usd = -1;
    }
    if (eq == std::string::npos || eq == 0 || !(usd >= 0) || !std::isfinite(usd) || usd > 1000) {
      throw std::invalid_argument("--price: expected DEVICE=USD_PER_GPU_HOUR (0..1000), got '" +
                                  item + "' (hint: --price t4=0.35,p4=0.6)");
    }
    const std::string device = item.substr(0, eq);
    if (!out.emplace(device, usd).second) {
      throw std::invalid_argument("--price: device " + device +
                                  " is given twice (hint: one price per device)");
    }
  }
  return out;
}

void check_price_devices(const CostArgs& a, const schema::ClusterSpec& cluster,
                         const std::vector<std::string>& searched) {
  std::set<std::string> known(searched.begin(), searched.end());
  for (const schema::NodeSpec& node : cluster.nodes)
    for (const schema::GpuGroup& g : node.gpus) known.insert(g.device);
  for (const auto& [device, usd] : parse_price_overrides(a.price)) {
    if (known.count(device) > 0) continue;
    std::string list;
    for (const std::string& d : known) list += (list.empty() ? "" : ", ") + d;
    throw std::invalid_argument("--price: no GPU of cluster " + cluster.name + " is a " + device +
                                " (its devices: " + list + "; hint: check the spelling)");
  }
}

schema::Json cost_row_options(const CostArgs& a) {
  schema::Json j = {{"price", parse_price_overrides(a.price)},
                    {"mode", a.mode},
                    {"epochs", a.epochs},
                    {"kwh_price", nullptr},
                    {"amortisation_years", nullptr}};
  if (a.kwh_price) j["kwh_price"] = *a.kwh_price;
  if (a.amortisation_years) j["amortisation_years"] = *a.amortisation_years;
  return j;
}

}  // namespace vitsim::cli
