// Price table reader; see prices_io.h and docs/formats/prices.md.
#include "schema/prices_io.h"

#include <cstdlib>

#include "schema/data_dir.h"

namespace vitsim::schema {
namespace {

// No GPU-hour costs this much (an 8-GPU H100 instance lists at ~$100/hour): a larger figure is
// a unit mistake (cents, or a whole instance per GPU).
constexpr double kMaxUsdPerGpuHour = 1000;
constexpr double kMaxPurchaseUsd = 1e6;
constexpr double kMaxUsdPerKwh = 10;

// `verified` is optional (false when absent); a verified figure must say what confirmed it, or
// the label would claim a check nobody can repeat.
void read_verification(const Node& n, bool& verified, std::string& check) {
  if (auto v = n.get("verified")) verified = v->boolean();
  if (auto c = n.get("check")) check = c->string();
  if (verified && check.empty())
    n["verified"].fail("\"check\" naming the page copy and date that confirm the figure",
                       "verified: true without it");
}

CloudPrice read_cloud(const Node& n) {
  n.expect_keys({"usd_per_gpu_hour", "provider", "offer", "url", "as_of", "verified", "check"});
  CloudPrice c;
  c.usd_per_gpu_hour = n["usd_per_gpu_hour"].in_range(0, kMaxUsdPerGpuHour);
  c.provider = n["provider"].string();
  c.offer = n["offer"].string();
  c.url = n["url"].string();
  c.as_of = n["as_of"].string();
  read_verification(n, c.verified, c.check);
  return c;
}

PurchasePrice read_purchase(const Node& n) {
  n.expect_keys({"usd", "source", "as_of", "verified", "check"});
  PurchasePrice p;
  p.usd = n["usd"].in_range(0, kMaxPurchaseUsd);
  p.source = n["source"].string();
  p.as_of = n["as_of"].string();
  read_verification(n, p.verified, p.check);
  return p;
}

}  // namespace

PriceTable read_prices(const Node& root) {
  root.expect_schema(kPricesSchema, kPricesVersion);
  root.expect_keys({"schema", "schema_version", "context", "owned", "devices"});
  PriceTable t;
  t.file = root.file();
  const Node owned = root["owned"];
  owned.expect_keys(
      {"amortisation_years", "amortisation_source", "usd_per_kwh", "usd_per_kwh_source"});
  t.amortisation_years = owned["amortisation_years"].in_range(0.1, 50);
  t.amortisation_source = owned["amortisation_source"].string();
  t.usd_per_kwh = owned["usd_per_kwh"].in_range(0, kMaxUsdPerKwh);
  t.usd_per_kwh_source = owned["usd_per_kwh_source"].string();
  for (const Node& d : root["devices"].items()) {
    d.expect_keys({"device", "cloud", "purchase", "note"});
    DevicePrices p;
    p.device = d["device"].string();
    if (auto c = d.get("cloud")) p.cloud = read_cloud(*c);
    if (auto b = d.get("purchase")) p.purchase = read_purchase(*b);
    if (auto note = d.get("note")) p.note = note->string();
    if (t.devices.count(p.device) > 0)
      d["device"].fail("a device listed once", "\"" + p.device + "\" again");
    t.devices[p.device] = p;
  }
  return t;
}

PriceTable read_prices(const std::string& path) {
  return read_prices(Node::parse_file(path));
}

std::string default_prices_path() {
  const char* env = std::getenv("VITSIM_PRICES");
  if (env != nullptr && env[0] != '\0') return env;
  return data_file("platforms/prices.json");
}

}  // namespace vitsim::schema
