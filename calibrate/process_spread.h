// The part of the launch spread that each process draws on its own (docs/uncertainty.md, "compute,
// process to process"). A launch spread is measured between profiles taken minutes apart by
// separate processes: some of it is the machine's (a busy minute slows every process alike), some
// the process's own (where its threads landed, its allocator, its data). A data-parallel run
// starts one process per rank at the same moment: the machine's part is common to the ranks, the
// process's part is not, and the step waits for the slowest rank's. Profiles measured at the same
// time (validate-local's passes profile every device side by side) tell the two apart: their
// deviations from their own means share the machine's part, so their spread within a moment is
// the process's alone.
//
//   deviation of a profile = mean over its micro-batches of (t / mean of its (device and regime,
//     host, micro-batch) over the profiles - 1) x sqrt(n / (n - 1)), t its forward + backward, n
//     the profiles of that cell (a residual from the mean of n has (n - 1) / n of the variance);
//   moments = profiles whose processes' spans [started_utc, created_utc] overlap, chained;
//   process spread = sqrt(sum over moments of sum (deviation - moment mean)^2 / sum (k - 1)),
//     k the profiles of a moment: the pooled within-moment variance.
//
// Only measured profiles with a host and both times count; cells of one profile give no deviation.
// Fewer than kOwnLaunchSpreadMinDegreesOfFreedom degrees of freedom: not known (nullopt).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/profile.h"

namespace vitsim::calibrate {

struct ProcessSpread {
  std::optional<double> rel;   // nullopt: too few profiles measured at the same time
  int degrees_of_freedom = 0;  // sum over moments of (profiles - 1)
  int moments = 0;             // moments with two or more profiles
  std::string from;            // what it rests on
};

// Over every device's profiles (each inner vector one device and regime: fit_device's groups).
ProcessSpread process_spread(const std::vector<std::vector<const schema::ProfileInput*>>& groups);

// "2026-11-30T12:34:05Z" -> seconds since the epoch; nullopt when the text is not that form.
std::optional<long long> utc_seconds(const std::string& text);

}  // namespace vitsim::calibrate
