// libFuzzer target: hosts files of `vitsim cluster init --hosts-file` (import/hosts_file.h), as
// the command reads them: the text split into statements, each parsed as --host takes it. Refusals
// are InputError (the file) or std::invalid_argument (a statement, exit 2 as well); the statements
// kept, one a line, read back to themselves.
#include <stdexcept>

#include "fuzz_support.h"
#include "import/cluster_init.h"
#include "import/hosts_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  fuzz::refusals_are_input_errors([&] {
    const std::vector<std::string> statements =
        import::parse_hosts_file(fuzz::as_text(data, size), "fuzz.txt");
    std::string again;
    for (const auto& s : statements) again += s + "\n";
    if (import::parse_hosts_file(again, "again.txt") != statements) {
      std::fprintf(stderr, "the statements kept do not read back to themselves\n");
      std::abort();
    }
    for (const auto& s : statements) {
      try {
        import::parse_host_statement(s);
      } catch (const std::invalid_argument&) {
      }
    }
  });
  return 0;
}
