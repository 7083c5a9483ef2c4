// What would make a configuration that does not fit in device memory fit (docs/simulator.md,
// "Advice"; docs/sharding.md, "Planned"): the changes a team planning a large ViT weighs, each
// SIMULATED as a configuration of its own: a higher ZeRO stage, activation checkpointing (alone
// and with stage 3), a micro-batch that fits with the accumulation that keeps the global batch
// (the fewest micro-steps), and more GPUs at a sharding stage (the fewest, doubling, that fit).
// Only the options that fit are returned, fastest epoch first.
#pragma once

#include <string>
#include <vector>

#include "plan/advisor.h"
#include "schema/json_node.h"
#include "schema/prediction.h"

namespace vitsim::plan {

struct FitCandidate {
  std::string what_if;
  schema::Json change = schema::Json::object();
  schema::ConfigPrediction prediction;
};

// Empty unless request.base is out of memory. Candidates that cannot run (not enough GPUs in the
// cluster, a collective that does not run the stage's operations) are left out.
std::vector<FitCandidate> what_would_fit(const AdviceRequest& request);

// The schema's record of each (its cost taken from its prediction, where priced).
std::vector<schema::FitOption> fit_options(const std::vector<FitCandidate>& candidates);

}  // namespace vitsim::plan
