// Evidence checked before it is used (docs/calibration.md, "Evidence checked before use"): a
// profile that cannot be a measurement of its device's compute is refused, one that disagrees with
// another of the same device and regime is named, before any fit sees them:
//   - superseded: the file says a later measurement replaces it (Profile::superseded); refused;
//   - host phases dwarf compute: at some micro-batch the data loader's exposed wait exceeds the
//     step's compute (layers' forward and backward and the optimizer): the step was the loader's
//     (a one-thread loader's wait baked into every step), not the device's; or the host-side
//     phases together (data wait + host-to-device copy + step overhead) exceed it by an order of
//     magnitude (kHostDwarfsComputeFactor: a small model's dispatch-bound step may legitimately
//     spend a few times its compute on the host, not ten); refused;
//   - disagreement: two profiles of one device and regime at a micro-batch both measured whose
//     compute differs by more than kDisagreementSigmas x hypot(each one's step noise, the
//     launch-to-launch prior costmodel::kDefaultLaunchSpreadRel): named in a warning (two hosts
//     may differ; which one is wrong the files cannot say).
// With accept_suspect the refused ones are used too, each named in a warning.
#pragma once

#include <string>
#include <vector>

#include "schema/profile.h"

namespace vitsim::calibrate {

inline constexpr double kDisagreementSigmas = 3.0;
inline constexpr double kHostDwarfsComputeFactor = 10.0;

struct SuspectProfile {
  std::string file;
  std::string why;
  bool refused = false;  // false: a warning only (a disagreement)
};

std::vector<SuspectProfile> check_profiles(const std::vector<schema::ProfileInput>& profiles);

// Throws std::invalid_argument naming every refused file and why, with the hint
// --accept-suspect, unless `accept_suspect`; appends a warning per suspect file to `notes`.
void check_evidence(const std::vector<schema::ProfileInput>& profiles, bool accept_suspect,
                    std::vector<std::string>& notes);

}  // namespace vitsim::calibrate
