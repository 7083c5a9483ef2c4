// The benchmarks' run-to-run spread; see block_spread.h.
#include "calibrate/block_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "costmodel/statistics.h"

namespace vitsim::calibrate {

void BlockSpread::add(const schema::AllreducePoint& p, const std::string& file) {
  if (p.block_times_s.size() < 2) return;
  const auto k = static_cast<int>(p.block_times_s.size());
  ss += costmodel::relative_sum_of_squares(p.block_times_s);
  degrees_of_freedom += k - 1;
  fewest_blocks = fewest_blocks == 0 ? k : std::min(fewest_blocks, k);
  if (files.find(file) == std::string::npos) files += (files.empty() ? "" : ", ") + file;
}

double BlockSpread::rel() const {
  if (degrees_of_freedom == 0) return 0;
  return std::sqrt(ss / degrees_of_freedom) * std::sqrt(1 + 1.0 / fewest_blocks);
}

std::string BlockSpread::text() const {
  if (degrees_of_freedom == 0) return "";
  return fmt::format(
      "; measured run-to-run spread of benchmark {}: {:.2f} % over independent blocks ({} "
      "degree(s) of freedom), x sqrt(1 + 1/{} blocks) = {:.2f} % in the uncertainty",
      files, 100 * std::sqrt(ss / degrees_of_freedom), degrees_of_freedom, fewest_blocks,
      100 * rel());
}

}  // namespace vitsim::calibrate
