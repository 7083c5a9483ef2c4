// Speed-up against the 1-GPU baseline (see speedup.h).
#include "costmodel/speedup.h"

namespace vitsim::costmodel {

namespace {

bool is_baseline_of(const ThroughputRun& base, const ThroughputRun& run) {
  return base.gpus == 1 && base.throughput_images_per_s > 0 && base.precision == run.precision &&
         base.micro_batch == run.micro_batch && base.accumulation == run.accumulation;
}

}  // namespace

std::vector<Speedup> speedups(const std::vector<ThroughputRun>& runs) {
  std::vector<Speedup> out(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!(runs[i].throughput_images_per_s > 0)) continue;
    for (const ThroughputRun& base : runs) {
      if (!is_baseline_of(base, runs[i])) continue;
      out[i].speedup = runs[i].throughput_images_per_s / base.throughput_images_per_s;
      out[i].parallel_efficiency = out[i].speedup / static_cast<double>(runs[i].gpus);
      break;
    }
  }
  return out;
}

}  // namespace vitsim::costmodel
