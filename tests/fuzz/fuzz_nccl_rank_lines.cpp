// libFuzzer target: the rank lines of nccl-tests output ("#  Rank N Group G Pid P on HOST device D
// [BUS] NAME"; import/nccl_tests_output.h), which must name each rank once, every one below
// --ranks N where given, 0..N-1 without it (import/nccl_tests_import.h). The input
// is the head of an all_reduce_perf output, up to its table; a fixed table of two rows follows,
// so that every input reaches the rank check and the import (fuzz_nccl_tests mutates the rows).
// The input's size picks --ranks: none, 2, 4 or 8.
#include <sstream>

#include "fuzz_import_support.h"
#include "import/nccl_tests_import.h"
#include "import/nccl_tests_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  static const costmodel::DeviceCatalog kCatalog = fuzz::one_device_catalog("t4", "Tesla T4");
  static const std::string kTable =
      "\n#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
      "time   algbw   busbw  #wrong\n"
      "     1048576        262144     float     sum      -1    279.5    3.75    3.75       0    "
      "280.2    3.74    3.74       0\n"
      "     2097152        524288     float     sum      -1    539.6    3.89    3.89       0    "
      "540.8    3.88    3.88       0\n";
  import::NcclImportOptions o;
  o.link_class = "fuzz-link";
  if (const size_t pick = size & 3; pick != 0) o.ranks = int64_t{1} << pick;
  fuzz::refusals_are_input_errors([&] {
    std::istringstream in(fuzz::as_text(data, size) + kTable);
    const import::NcclTestsOutput out = import::parse_nccl_tests(in, "fuzz.txt");
    const import::NcclImportResult r = import::import_nccl_tests({out}, kCatalog, o);
    // What the import accepted: each rank once, every one below the run's rank count.
    const int64_t n = r.profile.allreduce.at(0).ranks;
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (const int64_t id : out.rank_ids) {
      if (id < 0 || id >= n || seen[static_cast<size_t>(id)]) {
        std::fprintf(stderr, "rank lines accepted that are not ranks of the run, each once\n");
        std::abort();
      }
      seen[static_cast<size_t>(id)] = true;
    }
    fuzz::profile_round_trips(r.profile);
  });
  return 0;
}
