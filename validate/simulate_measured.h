// Predictions for measured runs nobody simulated (`vitsim validate --simulate`): each unmatched
// measured row becomes a configuration on its cluster (the study's cluster folder,
// "<cluster>.json"; the cluster a name, never a path: schema/safe_name.h), with its GPU count,
// micro-batch, precision, data fraction and images, and what else the run states (accumulation,
// optimizer, overlap, bucket size: present/run_match.h compares them); the hosts come from the
// placement (intra-node: one node holds every rank; inter-node: the cluster's host set for that
// count, else one GPU per node). The study's model is trained. So no measured row stays "not
// matched" for want of a prediction.
#pragma once

#include <string>
#include <vector>

#include "present/validation.h"
#include "schema/study.h"
#include "sim/simulator.h"

namespace vitsim::validate {

// The configuration a measured run describes on `cluster` (placement rules above).
schema::TrainingConfig config_of(const present::MeasuredRun& run,
                                 const schema::ClusterSpec& cluster);

// One prediction file ("scenario": "validate --simulate") with a configuration per distinct
// measured configuration that `predicted` has no prediction of. A row that cannot be simulated
// (no cluster file, no costs for its device) gets an InputError / std::invalid_argument naming
// the row's source.
present::NamedPrediction simulate_measured(const std::vector<present::MeasuredRun>& measured,
                                           const std::vector<present::NamedPrediction>& predicted,
                                           const schema::Study& study,
                                           const costmodel::CostModel& costs,
                                           const sim::SimOptions& options);

}  // namespace vitsim::validate
