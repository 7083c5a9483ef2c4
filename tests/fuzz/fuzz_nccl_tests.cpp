// libFuzzer target: nccl-tests all_reduce_perf output (import/nccl_tests_output.h), parsed and
// imported as `vitsim import-nccl-tests` would; the profile it makes is written and must read
// back through the profile reader. The input's size picks the options a user may give (so that
// the seeds stay nccl-tests' own text): in-place or out-of-place columns, and --ranks 8 or none.
#include <sstream>

#include "fuzz_import_support.h"
#include "import/nccl_tests_import.h"
#include "import/nccl_tests_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  static const costmodel::DeviceCatalog kCatalog =
      fuzz::one_device_catalog("v100", "Tesla V100-SXM2-16GB");
  import::NcclImportOptions o;
  o.link_class = "fuzz-link";
  o.in_place = (size & 1) == 0;
  if (size & 2) o.ranks = 8;
  fuzz::refusals_are_input_errors([&] {
    std::istringstream in(fuzz::as_text(data, size));
    const import::NcclTestsOutput out = import::parse_nccl_tests(in, "fuzz.txt");
    const import::NcclImportResult r = import::import_nccl_tests({out}, kCatalog, o);
    fuzz::profile_round_trips(r.profile);
  });
  return 0;
}
