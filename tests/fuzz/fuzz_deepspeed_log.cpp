// libFuzzer target: DeepSpeed logs (import/deepspeed_log.h), parsed, summarised and imported
// as `vitsim import-deepspeed` would; the profile it makes is written and must read back through
// the profile reader (an import once wrote NaN timers that calibrate then refused).
#include "fuzz_import_support.h"
#include "import/deepspeed_import.h"
#include "import/deepspeed_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  static const costmodel::DeviceCatalog kCatalog = fuzz::one_device_catalog("t4", "Tesla T4");
  fuzz::refusals_are_input_errors([&] {
    const import::DeepSpeedLog log =
        import::parse_deepspeed_log_text(fuzz::as_text(data, size), "fuzz.log");
    import::ImportOptions o;
    o.gpu = "t4";
    o.model = costmodel::vit_preset("vit_ti_16");
    o.precision = log.precision.value_or(costmodel::Regime::kFp32);
    o.link_class = "fuzz-link";
    o.data_fraction = 0.01;
    const import::ImportResult r = import::import_deepspeed({log}, kCatalog, o);
    fuzz::profile_round_trips(r.profile);
  });
  return 0;
}
