// Repeated measurements of one all-reduce point (the same link class, rank count, ranks per node
// and message size, measured more than once: a link benchmarked at different times, or profiles
// of several runs) are averaged into one point by the fit (cost_fit.h, average_repeats). Repeats
// that contradict each other are not averaged in silence (docs/calibration.md, "Repeated
// measurements"):
//  - more than kRepeatWarnSpreadRel apart ((max - min) / mean): a warning naming the files, the
//    point and the spread. The project's own repeated link benchmarks (an emulated cluster's
//    links benchmarked three times over one validation loop) lie within 13.1 %; twice that is
//    past what a link that stayed the same shows;
//  - the slowest more than kRepeatRefuseRatio times the fastest: refused (schema::InputError,
//    exit 2), the files named. One message size over one ring taking twice as long from one
//    measurement to the next (5 times the spread above) is another link or another
//    measurement, not noise; its mean would be no link's cost.
#pragma once

#include <string>
#include <vector>

#include "calibrate/cost_fit.h"

namespace vitsim::calibrate {

inline constexpr double kRepeatWarnSpreadRel = 0.25;
inline constexpr double kRepeatRefuseRatio = 2.0;

// One measured point and the file it came from.
struct SourcedSample {
  AllreduceSample sample;
  int64_t ranks_per_node = 1;
  std::string file;
};

// The warning for `samples` of `link_class` (none, or one naming how many points are apart, the
// widest and the files); throws schema::InputError naming the point and both files above the
// refusal bound.
std::vector<std::string> check_repeats(const std::string& link_class,
                                       const std::vector<SourcedSample>& samples);

}  // namespace vitsim::calibrate
