// Whether a CPU device's profile saw as many ranks sharing its host as a cluster, or a run, puts
// there: ranks on one host share a CPU's cores, memory bandwidth and caches, so a profile taken by
// one process alone (the other cores idle) is faster than each of two ranks beside each other
// (docs/validation.md, "A neighbour on every CPU"). `mpirun -np N vitsim-train profile
// --shared-host` measures as N ranks share the host and records `ranks_per_host`
// (docs/formats/profile.md). The one rule of the warning `vitsim calibrate` and `vitsim validate
// --like` print; it changes no figure. GPUs: ranks on one host each have their own device, and no
// warning is given for them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema/cluster.h"
#include "schema/profile.h"

namespace vitsim::schema {

// Ranks of one CPU device on one host, as a cluster file or a run places them.
struct PlacedRanks {
  std::string host;
  std::string device;
  int64_t ranks = 0;
};

// Whether `device` is a CPU in `cluster`: one of the cluster's own devices (not the GPU catalog)
// whose architecture names a CPU (`vitsim cluster init` writes "CPU", the emulated clusters
// "x86-64 AVX-512 (CPU)").
bool is_cpu_device(const ClusterSpec& cluster, const std::string& device);

// Every host of `cluster` with a CPU device: one rank per device, as the cluster places them.
std::vector<PlacedRanks> cluster_placement(const ClusterSpec& cluster);

// A run's ranks on each of its hosts (`host_of_rank`: the host of each rank), with the host's
// CPU devices in `cluster`; hosts the cluster does not hold, or without a CPU, are left out.
std::vector<PlacedRanks> run_placement(const ClusterSpec& cluster,
                                       const std::vector<std::string>& host_of_rank);

// One warning for each profile with layer timings of a placed device and each count of ranks
// placed on its hosts that differs from the profile's `ranks_per_host`, naming the profile file,
// both counts, `placed_by` (the cluster file or the run log), the hosts and the fix.
std::vector<std::string> host_sharing_warnings(const std::vector<ProfileInput>& profiles,
                                               const std::vector<PlacedRanks>& placed,
                                               const std::string& placed_by);

}  // namespace vitsim::schema
