// The profile's table on stdout; see profile_table.h.
#include "trainer/profile_table.h"

#include <cstdio>

#include "costmodel/statistics.h"

namespace vitsim::trainer {

void print_profile_table(const schema::MicroBatchProfile& m) {
  std::printf("micro-batch %lld (mean of %lld timed training steps)\n",
              static_cast<long long>(m.micro_batch), static_cast<long long>(m.repetitions));
  std::printf("  %-24s %12s %10s %12s %10s\n", "layer", "forward", "spread", "backward", "spread");
  std::printf("  %-24s %12s %10s %12s %10s\n", "", "(ms)", "(ms)", "(ms)", "(ms)");
  double step_s =
      m.optimizer_time_s + m.host_to_device_time_s + m.data_time_s + m.step_overhead_time_s;
  for (const auto& l : m.layers) {
    std::printf("  %-24s %12.3f %10.3f %12.3f %10.3f\n", l.name.c_str(), l.forward_time_s * 1e3,
                l.forward_spread_s * 1e3, l.backward_time_s * 1e3, l.backward_spread_s * 1e3);
    step_s += l.forward_time_s + l.backward_time_s;
  }
  std::printf(
      "  optimizer %.3f ms, host-to-device %.3f ms, data wait %.3f ms, step overhead "
      "%.3f ms, whole step %.3f ms",
      m.optimizer_time_s * 1e3, m.host_to_device_time_s * 1e3, m.data_time_s * 1e3,
      m.step_overhead_time_s * 1e3, step_s * 1e3);
  if (m.peak_memory_bytes) std::printf(", peak memory %.1f MiB", *m.peak_memory_bytes / 1048576.0);
  if (m.bucket_copy_time_s)
    std::printf(", bucket copy at 2+ ranks %.3f ms", *m.bucket_copy_time_s * 1e3);
  if (m.recompute_time_s && m.unit_gather_time_s && m.unit_free_time_s)
    std::printf(
        ", checkpointed blocks' recomputation %.3f ms, a block's gather %.3f ms and free "
        "%.3f ms at one rank",
        *m.recompute_time_s * 1e3, *m.unit_gather_time_s * 1e3, *m.unit_free_time_s * 1e3);
  if (m.optimizer_after_wait_time_s && m.optimizer_wait_s) {
    std::printf(", optimizer after a %.0f-ms idle wait %.3f ms", *m.optimizer_wait_s * 1e3,
                *m.optimizer_after_wait_time_s * 1e3);
    if (m.data_after_wait_time_s)
      std::printf(" (next data wait %.3f ms)", *m.data_after_wait_time_s * 1e3);
  }
  if (!m.block_step_times_s.empty()) {
    std::printf(", %zu blocks' mean steps", m.block_step_times_s.size());
    for (size_t i = 0; i < m.block_step_times_s.size(); ++i)
      std::printf("%s%.3f", i == 0 ? " " : ", ", m.block_step_times_s[i] * 1e3);
    std::printf(" ms (run-to-run spread %.2f %%)",
                100 * costmodel::relative_sample_sd(m.block_step_times_s));
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace vitsim::trainer
