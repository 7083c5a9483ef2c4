// Step 2 of a calibration (calibrator.h): the alpha-beta link costs per link class, fitted on the
// profiles' all-reduce benchmarks (docs/cost-model.md section 3, docs/calibration.md), and the two
// facts of the cluster files those fits read: which link classes are a NIC per GPU (a ring over
// them runs NCCL's channels) and a class's datasheet latency (the prior where the points cannot
// determine it). The reduce-scatter and all-gather fits are sharding_fit.h's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/calibrator.h"
#include "costmodel/cost_model.h"
#include "schema/cluster.h"
#include "schema/profile.h"

namespace vitsim::calibrate {

// One LinkCost per link class any profile benchmarked, with its fits by ring shape where the class
// was measured at two or more; a fit that cannot stand on its points is said in `notes`, repeats
// that contradict each other in `warnings` (repeat_check.h).
std::vector<costmodel::LinkCost> fit_links(const std::vector<schema::ProfileInput>& profiles,
                                           const CalibrateOptions& o,
                                           std::vector<std::string>& notes,
                                           std::vector<std::string>& warnings);

// Whether `link_class` is the NIC of nodes with a NIC per GPU in one of `clusters` (a ring over
// such hosts runs NCCL's channels: costmodel::ring_channels).
bool nic_per_gpu_class(const std::vector<schema::ClusterSpec>& clusters,
                       const std::string& link_class);

// Datasheet latency of a link class in the clusters (first link that names it); nullopt if none.
std::optional<double> datasheet_latency_s(const std::vector<schema::ClusterSpec>& clusters,
                                          const std::string& link_class);

}  // namespace vitsim::calibrate
