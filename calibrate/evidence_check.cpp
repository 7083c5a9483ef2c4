// Profiles checked before calibration uses them (see evidence_check.h).
#include "calibrate/evidence_check.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "costmodel/uncertainty.h"

namespace vitsim::calibrate {

namespace {

double compute_s(const schema::MicroBatchProfile& m) {
  double t = m.optimizer_time_s;
  for (const auto& l : m.layers) t += l.forward_time_s + l.backward_time_s;
  return t;
}

// One standard deviation of the step, relative: the whole step's IQR / 1.349 where measured,
// else the layers' IQRs summed (the wider bound), over the compute.
double noise_rel(const schema::MicroBatchProfile& m) {
  double iqr = 0;
  if (m.step_spread_s) {
    iqr = *m.step_spread_s;
  } else {
    for (const auto& l : m.layers) iqr += l.forward_spread_s + l.backward_spread_s;
  }
  const double c = compute_s(m);
  return c > 0 ? iqr / 1.349 / c : 0.0;
}

// Why the host phases dwarf the compute, or "".
std::string dwarfed(const schema::Profile& p) {
  for (const auto& m : p.compute) {
    const double compute = compute_s(m);
    const double host = m.data_time_s + m.host_to_device_time_s + m.step_overhead_time_s;
    if (compute > 0 && m.data_time_s > compute) {
      return fmt::format(
          "at micro-batch {} its data loader's wait ({:.1f} ms a step) exceeds its compute "
          "({:.1f} ms): the steps waited for the loader, not the device",
          m.micro_batch, 1e3 * m.data_time_s, 1e3 * compute);
    }
    if (compute > 0 && host > kHostDwarfsComputeFactor * compute) {
      return fmt::format(
          "at micro-batch {} its host-side phases ({:.1f} ms: data wait {:.1f}, copy {:.1f}, "
          "step overhead {:.1f}) exceed {:.0f} x its compute ({:.1f} ms): the step timed the "
          "host, not the device",
          m.micro_batch, 1e3 * host, 1e3 * m.data_time_s, 1e3 * m.host_to_device_time_s,
          1e3 * m.step_overhead_time_s, kHostDwarfsComputeFactor, 1e3 * compute);
    }
  }
  return "";
}

}  // namespace

std::vector<SuspectProfile> check_profiles(const std::vector<schema::ProfileInput>& profiles) {
  std::vector<SuspectProfile> out;
  for (const auto& in : profiles) {
    if (!in.profile.superseded.empty())
      out.push_back({in.file, "superseded: " + in.profile.superseded, true});
    else if (const std::string why = dwarfed(in.profile); !why.empty())
      out.push_back({in.file, why, true});
  }
  // (device, regime, micro-batch) -> the profiles that measured it.
  using Key = std::tuple<std::string, costmodel::Regime, int64_t>;
  std::map<Key, std::vector<std::pair<const schema::ProfileInput*, size_t>>> groups;
  for (const auto& in : profiles) {
    for (size_t i = 0; i < in.profile.compute.size(); ++i) {
      groups[{in.profile.device, costmodel::compute_regime(in.profile.precision),
              in.profile.compute[i].micro_batch}]
          .push_back({&in, i});
    }
  }
  std::map<std::pair<std::string, std::string>, bool> named;
  for (const auto& [key, group] : groups) {
    for (size_t a = 0; a < group.size(); ++a) {
      for (size_t b = a + 1; b < group.size(); ++b) {
        const auto& ma = group[a].first->profile.compute[group[a].second];
        const auto& mb = group[b].first->profile.compute[group[b].second];
        const double ca = compute_s(ma), cb = compute_s(mb);
        if (!(ca > 0) || !(cb > 0)) continue;
        const double sigma =
            std::sqrt(noise_rel(ma) * noise_rel(ma) + noise_rel(mb) * noise_rel(mb) +
                      costmodel::kDefaultLaunchSpreadRel * costmodel::kDefaultLaunchSpreadRel);
        const double apart = std::fabs(std::log(ca / cb));
        const auto pair = std::make_pair(group[a].first->file, group[b].first->file);
        if (apart <= kDisagreementSigmas * sigma || named[pair]) continue;
        named[pair] = true;
        out.push_back(
            {group[a].first->file,
             fmt::format("disagrees with {} ({} {} at micro-batch {}: compute {:.1f} against "
                         "{:.1f} ms, {:.0f} % apart, beyond {:.0f} x their spread of {:.1f} %)",
                         group[b].first->file, std::get<0>(key),
                         costmodel::to_string(std::get<1>(key)), std::get<2>(key), 1e3 * ca,
                         1e3 * cb, 100 * (std::exp(apart) - 1), kDisagreementSigmas, 100 * sigma),
             false});
      }
    }
  }
  return out;
}

void check_evidence(const std::vector<schema::ProfileInput>& profiles, bool accept_suspect,
                    std::vector<std::string>& notes) {
  const std::vector<SuspectProfile> suspects = check_profiles(profiles);
  std::string refused;
  for (const auto& s : suspects) {
    if (s.refused && !accept_suspect) {
      refused += fmt::format("\n  {}: {}", s.file, s.why);
      continue;
    }
    notes.push_back(fmt::format("WARNING: suspect evidence {}: {}{}", s.file, s.why,
                                s.refused ? " (used: --accept-suspect)" : ""));
  }
  if (!refused.empty()) {
    throw std::invalid_argument(
        "profiles refused as evidence (docs/calibration.md, \"Evidence checked before use\"):" +
        refused +
        "\n(hint: leave them out, re-measure, or pass --accept-suspect to use them anyway)");
  }
}

}  // namespace vitsim::calibrate
