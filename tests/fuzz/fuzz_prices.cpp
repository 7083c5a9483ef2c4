// libFuzzer target: price tables (schema/prices_io.h, platforms/prices.json, or a user's own
// through --prices / $VITSIM_PRICES). The reader has no writer: property 1 of fuzz_support.h only,
// and every price it accepts is finite and not negative (docs/formats/prices.md: 0..1000 per
// GPU-hour, 0..1e6 per GPU; a cost is a product of them).
#include <cmath>

#include "fuzz_support.h"
#include "schema/prices_io.h"

namespace {

void check_price(double v) {
  if (!(std::isfinite(v) && v >= 0)) {
    std::fprintf(stderr, "the price reader accepted %g\n", v);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  vitsim::fuzz::refusals_are_input_errors([&] {
    const PriceTable t =
        read_prices(Node::parse_text(vitsim::fuzz::as_text(data, size), "prices.json"));
    for (const auto& [id, d] : t.devices) {
      if (d.cloud) check_price(d.cloud->usd_per_gpu_hour);
      if (d.purchase) check_price(d.purchase->usd);
    }
  });
  return 0;
}
