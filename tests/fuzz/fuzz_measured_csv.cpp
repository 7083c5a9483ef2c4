// libFuzzer target: measured epoch times in CSV (present/measured_runs.h), as `vitsim validate
// --measured FILE.csv` and `vitsim report` read a user's table: CSV parsing (schema/csv_table.h)
// and the rows' checks. Every run accepted is physical: a finite, positive epoch time, at least
// one GPU and one image per micro-batch, a data fraction in (0, 1].
#include <cmath>

#include "fuzz_support.h"
#include "present/measured_runs.h"
#include "schema/csv_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  fuzz::refusals_are_input_errors([&] {
    const auto table = schema::CsvTable::parse(fuzz::as_text(data, size), "measured.csv");
    for (const present::MeasuredRun& m : present::measured_from_csv(table)) {
      if (!(std::isfinite(m.epoch_time_s) && m.epoch_time_s > 0) || m.key.gpus < 1 ||
          m.key.micro_batch < 1 || m.key.data_fraction_ppm < 1 ||
          m.key.data_fraction_ppm > 1000000 || m.steps_per_epoch < 0) {
        std::fprintf(stderr, "accepted %s (epoch %g s, %lld steps)\n", m.key.label().c_str(),
                     m.epoch_time_s, static_cast<long long>(m.steps_per_epoch));
        std::abort();
      }
    }
  });
  return 0;
}
