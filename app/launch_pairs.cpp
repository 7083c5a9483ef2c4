// Repeated launches in the reference study; see launch_pairs.h.
#include "app/launch_pairs.h"

#include <cmath>
#include <filesystem>

namespace vitsim::app {

double LaunchPair::difference_rel() const {
  return (log_step_s - row_step_s) / ((log_step_s + row_step_s) / 2);
}

std::vector<LaunchPair> launch_pairs(const Imported& imported,
                                     const std::vector<present::MeasuredRun>& development) {
  std::vector<LaunchPair> out;
  for (const auto& [cluster, s] : imported.logs) {
    for (const auto& m : development) {
      if (m.key.cluster != cluster || m.key.gpus != s.world_size ||
          m.key.micro_batch != s.micro_batch || m.steps_per_epoch <= 0) {
        continue;
      }
      out.push_back({cluster, s.world_size, s.micro_batch,
                     std::filesystem::path(s.file).filename().string(), s.step_s,
                     m.epoch_time_s / static_cast<double>(m.steps_per_epoch)});
    }
  }
  return out;
}

double pooled_launch_spread(const std::vector<LaunchPair>& pairs) {
  if (pairs.empty()) return 0.0;
  double ss = 0;
  for (const auto& p : pairs) ss += p.difference_rel() * p.difference_rel();
  return std::sqrt(ss / (2.0 * static_cast<double>(pairs.size())));
}

}  // namespace vitsim::app
