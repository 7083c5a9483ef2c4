// Runs the simulation of one placed configuration (docs/simulator.md, "Classes of ranks" and
// "Size guard"): picks the engine (one actor per rank, or per class of equivalent ranks), checks
// that the machine can run it (size_guard.h), runs it in a child process (process/fork_runner.h)
// and hands back its records with the actor of each rank, whichever engine ran.
#pragma once

#include <string>
#include <vector>

#include "costmodel/collective.h"
#include "costmodel/cost_model.h"
#include "costmodel/layer_graph.h"
#include "schema/cluster.h"
#include "schema/scenario.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"
#include "sim/rank_plan.h"
#include "sim/simulator.h"
#include "sim/size_guard.h"
#include "sim/training_sim.h"

namespace vitsim::sim {

struct SimulationRequest {
  const schema::ClusterSpec* cluster = nullptr;
  const Placement* placement = nullptr;
  const PlatformPlan* plan = nullptr;  // of the placement (plan_platform)
  const costmodel::CostModel* costs = nullptr;
  const costmodel::LayerGraph* graph = nullptr;
  const RankKinds* kinds = nullptr;
  const schema::TrainingConfig* config = nullptr;
  costmodel::CollectiveLevel collective_level = costmodel::CollectiveLevel::kStep;  // resolved
  const SimOptions* options = nullptr;
  bool trace = false;
};

struct SimulationResult {
  SimOutput actors;                 // as simulated: per rank or per class (trace spans)
  std::vector<int> actor_of_rank;   // the actor (class) of each rank; empty: actor r is rank r
  std::vector<std::string> tracks;  // per actor: who it stands for (trace track names)
  SimEngine engine = SimEngine::kRanks;
  // kClosedForm: the all-reduces were simulated once per bucket size (no exact equation).
  bool allreduce_simulated = false;
  // The critical rank's blocked time per platform link (link_bottleneck.h), rank by rank only:
  // links with seconds > 0, descending; `links_attributed` false where not recorded.
  bool links_attributed = false;
  std::vector<schema::LinkExposure> blocked_by_link;
  double unsaturated_wait_s = 0;
};

// Up to this many ranks, a rank-by-rank simulation records which links held the exposed
// communication: the recording asks every link at every time advance, O(links x events).
inline constexpr int64_t kMaxAttributedRanks = 256;

// The shape the size guard estimates, before placement (the class count is not known yet: the
// engine's best case is assumed, and checked again once the classes are found).
SimulationShape configuration_shape(const schema::TrainingConfig& config,
                                    const costmodel::LayerGraph& graph,
                                    costmodel::CollectiveLevel collective_level,
                                    const SimOptions& options);

SimulationResult run_configuration(const SimulationRequest& request);

// The prediction's "engine" (schema::ConfigPrediction::engine): "ranks", "classes",
// "closed-form" or "one-class" (closed form, all-reduces simulated).
std::string engine_label(const SimulationResult& result);

}  // namespace vitsim::sim
