// Which of my machines, which GPUs to buy (docs/simulator.md, "Host subsets and devices"): every
// subset of a list of hosts, searched as counts per class of identical hosts (same GPUs, NIC and
// intra-node fabric: which tesla1 or tesla2 runs does not matter), each with all its GPUs, times
// each device type that replaces the cluster's GPUs, times each variant of the other settings
// (micro-batch, collective, bucket, overlap: --micro-batch 16,32 searches every subset twice).
// Exhaustive up to kMaxExhaustiveSubsets combinations; above, a greedy backward elimination (start
// from every host, drop one host of the class whose removal improves the goal most, until none
// does). Every candidate is simulated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/vit_config.h"
#include "plan/sweep.h"
#include "plan/sweep_goal.h"
#include "schema/cluster.h"
#include "schema/prediction.h"
#include "sim/simulator.h"

namespace vitsim::plan {

inline constexpr int64_t kMaxExhaustiveSubsets = 10000;

// Hosts that are interchangeable: the same GPUs, NIC and fabric.
struct HostClass {
  std::string key;                 // what makes them alike (devices, NIC class and rate)
  std::vector<std::string> hosts;  // in the order given
};

// Classes of `hosts` (every host of the cluster when empty), in order of first appearance;
// std::invalid_argument for a host not in the cluster or listed twice.
std::vector<HostClass> host_classes(const schema::ClusterSpec& cluster,
                                    const std::vector<std::string>& hosts);

// The cluster with every GPU of every node replaced by `device` (counts kept), each host with the
// fabric the part brings (schema::replace_gpus: an SXM part its NVLink baseboard, a card PCIe).
schema::ClusterSpec with_device(const schema::ClusterSpec& cluster, const std::string& device,
                                const costmodel::DeviceCatalog& catalog);

struct SubsetSearch {
  std::vector<std::string> hosts;    // --hosts-from (empty: every host)
  std::vector<std::string> devices;  // --devices (empty: the cluster's own GPUs)
  schema::TrainingConfig base;       // micro-batch, precision, collective... (hosts, gpus set)
  // The settings every subset is simulated with, each a copy of `base` with its own micro-batch,
  // collective, bucket or overlap and a label that prefixes its rows' (empty: `base` alone).
  std::vector<schema::TrainingConfig> variants;
  SweepGoal goal = SweepGoal::kFastestEpoch;
  GoalLimits limits;
  int64_t max_exhaustive = kMaxExhaustiveSubsets;  // more combinations: the greedy search
};

// The first host whose fabric inside changed when a searched device took its GPUs' place: a part
// brings its own (schema::replace_gpus), and the sweep says so in a note, once per device.
struct FabricChange {
  std::string device;  // the searched device
  std::string host;    // the first host of the changed node (schema::node_host_names)
  schema::IntraNodeFabric was, now;
};

struct SubsetResult {
  schema::PredictionFile predictions;        // every candidate simulated (label: device and hosts)
  std::vector<FabricChange> fabric_changes;  // per searched device whose part changed a fabric
  std::vector<bool> requested;               // all true (pick_best's argument)
  std::vector<std::string> skipped;          // candidates that cannot run, with the reason
  bool greedy = false;                       // the search was greedy (too many combinations)
  int64_t combinations = 0;                  // subsets per device in the exhaustive search
};

// Simulates the candidates; `attach_cost` (may be empty) sets each prediction's cost before the
// goal compares them (the cost goals and the greedy search need it). The best is pick_best's.
SubsetResult search_subsets(const SubsetSearch& search, const schema::ClusterSpec& cluster,
                            const costmodel::DeviceCatalog& catalog,
                            const costmodel::ViTConfig& model, const costmodel::CostModel& costs,
                            const sim::SimOptions& options,
                            const std::function<void(schema::ConfigPrediction&)>& attach_cost = {});

// The settings a sweep searches every subset with (SubsetSearch::variants): every combination of
// its other lists (micro-batch, collective, bucket, overlap), each a copy of spec.base labelled as
// the sweep labels its rows ("mb16 ring 500MiB no-overlap"); one combination is left unlabelled.
std::vector<schema::TrainingConfig> subset_variants(const SweepSpec& spec);

// The search a sweep asks for (`vitsim sweep --hosts-from/--devices`): the subsets of `hosts`
// (empty: every host) with each of `devices` (empty: the cluster's own GPUs), each simulated with
// every subset_variants of `spec`, for its goal and limits.
SubsetSearch subset_search_of(const SweepSpec& spec, const std::vector<std::string>& hosts,
                              const std::vector<std::string>& devices);

// A search's candidates as a sweep's result (every candidate requested; what was skipped). The
// pick is left to choose_best, once the costs are attached.
SweepResult as_sweep_result(SubsetResult found);

}  // namespace vitsim::plan
