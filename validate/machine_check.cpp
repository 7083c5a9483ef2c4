// Run against profile machine check; see machine_check.h.
#include "validate/machine_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exception>

namespace vitsim::validate {
namespace {

const schema::Json* field(const schema::Json& context, const char* key) {
  if (!context.is_object() || !context.contains(key) || context[key].is_null()) return nullptr;
  return &context[key];
}

std::string text(const schema::Json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::vector<std::string> machine_differences(const std::string& run_file,
                                             const schema::Json& run_context,
                                             const std::string& profile_file,
                                             const schema::Json& profile_context) {
  std::vector<std::string> out;
  const auto* run_name = field(run_context, "device_name");
  const auto* profile_name = field(profile_context, "device_name");
  if (run_name && profile_name && *run_name != *profile_name)
    out.push_back(
        fmt::format("{} ran on '{}', the profile {} measured '{}': the costs are another machine's",
                    run_file, text(*run_name), profile_file, text(*profile_name)));
  const auto* run_load = field(run_context, "load_avg_1m");
  const auto* profile_load = field(profile_context, "load_avg_1m");
  if (run_load && profile_load && run_load->is_number() && profile_load->is_number() &&
      std::abs(run_load->get<double>() - profile_load->get<double>()) >= kLoadDifferenceCpus)
    out.push_back(fmt::format(
        "{} started under a load of {:.2f} (1-minute average), the profile {} under {:.2f}: "
        "other work shared the CPUs in one and not the other, so the profile is not the speed "
        "the run had (hint: profile and run on a quiet machine, or profile under the run's load)",
        run_file, run_load->get<double>(), profile_file, profile_load->get<double>()));
  // null = no quota; compared only where both files recorded it (vitsim-train writes the key).
  const auto recorded = [](const schema::Json& c) {
    return c.is_object() && c.contains("cpu_quota_cpus");
  };
  const auto* run_quota = field(run_context, "cpu_quota_cpus");
  const auto* profile_quota = field(profile_context, "cpu_quota_cpus");
  const std::string run_q = run_quota ? text(*run_quota) : "none";
  const std::string profile_q = profile_quota ? text(*profile_quota) : "none";
  if (recorded(run_context) && recorded(profile_context) && run_q != profile_q)
    out.push_back(fmt::format(
        "{} ran under a CPU quota of {} CPU(s), the profile {} under {}: the costs are another "
        "share of the machine's",
        run_file, run_q, profile_file, profile_q));
  return out;
}

std::vector<schema::ProfileInput> calibrated_profiles(const schema::Json& costs_context) {
  std::vector<schema::ProfileInput> out;
  const auto* profiles = field(costs_context, "profiles");
  if (!profiles || !profiles->is_array()) return out;
  for (const auto& path : *profiles) {
    if (!path.is_string()) continue;
    try {
      out.push_back({path.get<std::string>(), schema::read_profile(path.get<std::string>())});
    } catch (const std::exception&) {
      continue;  // moved or removed since calibration: nothing to compare
    }
  }
  return out;
}

std::vector<std::string> machine_warnings(const std::string& run_file,
                                          const schema::Json& run_context,
                                          const std::vector<schema::ProfileInput>& profiles,
                                          const std::vector<std::string>& run_hosts) {
  std::vector<std::string> out;
  const auto* device = field(run_context, "device");
  std::vector<std::string> hosts;  // the run's, once each, in rank order
  for (const auto& h : run_hosts)
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  if (const auto* h = field(run_context, "host"); hosts.empty() && h && h->is_string())
    hosts.push_back(h->get<std::string>());
  for (const auto& [path, p] : profiles) {
    const auto* profile_device = field(p.context, "device");
    if (device && profile_device && *device != *profile_device) continue;
    for (auto& line : machine_differences(run_file, run_context, path, p.context))
      out.push_back(std::move(line));
    const auto* profile_host = field(p.context, "host");
    if (profile_host && profile_host->is_string() && !hosts.empty() &&
        std::find(hosts.begin(), hosts.end(), profile_host->get<std::string>()) == hosts.end())
      out.push_back(fmt::format(
          "the profile {} was measured on host '{}', {} ran on {}: the costs are another "
          "machine's speed, whatever its device id (hint: profile on a host of the run)",
          path, profile_host->get<std::string>(), run_file, fmt::join(hosts, ", ")));
  }
  return out;
}

}  // namespace vitsim::validate
