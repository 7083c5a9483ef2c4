// Whether a run and the profiles its cost model was calibrated from saw the same machine
// (docs/formats/README.md, "context"): the host (`host`), the CPU or GPU model (`device_name`),
// what else ran (`load_avg_1m`) and the CPU quota (`cpu_quota_cpus`), as vitsim-train records them.
// A profile taken under other load, or on another model of the device, is not the speed the run
// had: `vitsim validate --like` warns, naming both files, rather than leave a large error
// unexplained. It predicts nothing from these figures.
#pragma once

#include <string>
#include <vector>

#include "schema/json_node.h"
#include "schema/profile.h"

namespace vitsim::validate {

// A load average this much apart (in CPUs' worth of runnable work) means at least one whole CPU
// was busy with something else during one of the two measurements and not the other.
inline constexpr double kLoadDifferenceCpus = 1.0;

// What differs between a run log's context and a profile's of the same device ("" keys absent in
// either are not compared): one line each, naming both files.
std::vector<std::string> machine_differences(const std::string& run_file,
                                             const schema::Json& run_context,
                                             const std::string& profile_file,
                                             const schema::Json& profile_context);

// The profiles the cost model's context lists under "profiles" (vitsim calibrate records them)
// that can still be read; one moved or removed since calibration is left out.
std::vector<schema::ProfileInput> calibrated_profiles(const schema::Json& costs_context);

// machine_differences against each of `profiles` (calibrated_profiles: those the cost model's
// context lists); a profile of another device is skipped. Also
// a profile measured on a host none of `run_hosts` (the run's ranks' hosts; the run context's
// "host" where empty) is: the same device id on another machine is not that machine's speed.
std::vector<std::string> machine_warnings(const std::string& run_file,
                                          const schema::Json& run_context,
                                          const std::vector<schema::ProfileInput>& profiles,
                                          const std::vector<std::string>& run_hosts = {});

}  // namespace vitsim::validate
