// The simulator's entry points (contract between sim/, calibrate/ and cli/).
// Each prediction runs a SimGrid (S4U) discrete-event simulation: one actor per rank (or per class
// of equivalent ranks), layer-by-layer forward and backward, gradient buckets all-reduced over the
// cluster's links. Deterministic: the same inputs give byte-identical outputs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/transport_model.h"
#include "costmodel/vit_config.h"
#include "schema/cluster.h"
#include "schema/output_file.h"
#include "schema/prediction.h"
#include "schema/scenario.h"

namespace vitsim::sim {

// Which simulation runs (docs/simulator.md, "Classes of ranks" and "One class of ranks: the
// closed form"). kRanks: one actor per rank, the reference. kClasses: one actor per class of
// equivalent ranks, the same predictions (to 1e-9, tested); it needs a flow-level collective and
// CM02 without cross-traffic (std::invalid_argument otherwise). kClosedForm: where every rank is
// alike (one class) or there is one rank, one rank's timeline on a clock, its all-reduces from
// exact equations or simulated once per bucket size (closed_form.h); no trace. kAuto: kClosedForm
// where it applies, else kClasses where it applies and some ranks are alike, else kRanks.
enum class SimEngine { kAuto, kRanks, kClasses, kClosedForm };
SimEngine parse_engine(const std::string& name);  // "auto" | "ranks" | "classes" | "closed-form"

struct SimCache;  // sim_cache.h

struct SimOptions {
  std::string network_model = "CM02";  // SimGrid network/model; CM02 matches the analytic ring
  bool crosstraffic = false;           // SimGrid network/crosstraffic
  int simulated_steps = 3;             // steps simulated per configuration; the epoch extrapolates
  std::string trace_path;              // Chrome trace JSON of the simulated timeline ("" = none)
  // Where the trace goes: nullptr = written at once; else added to the command's group of
  // outputs, which lands whole when the command commits it (schema/output_file.h).
  schema::OutputGroup* outputs = nullptr;
  std::vector<std::string> argv;  // command line, recorded in the trace's context
  // Parameters of the transport model for link classes nobody measured (schema/transports_io.h);
  // without them such links keep the cluster file's figures as given ("datasheet").
  std::optional<costmodel::TransportParameters> transports;
  SimEngine engine = SimEngine::kAuto;
  // SimGrid network/optim. "Lazy" (default, fast) updates only what an event changed; "Full"
  // re-solves every flow at every event (slow at scale). They agree to rounding, except where
  // flows share links unevenly and the lazy bookkeeping drifts (a tree on a mixed fat-tree,
  // rank by rank: 2e-5 relative); the tests compare such cases with "Full".
  std::string network_optim = "Lazy";
  // --force: simulate even what the size guard estimates to run too long (sim/size_guard.h).
  bool force = false;
  // What configurations simulated one after the other in this process share (sim_cache.h): a
  // sweep keeps one; null: nothing kept.
  std::shared_ptr<SimCache> cache;
  // simulate_scenario calls it after each configuration (done, total): a progress line. May be
  // empty; predict() never calls it.
  std::function<void(size_t, size_t)> progress;
};

// Every device a cluster names must be in the catalog or the cluster's own "devices"; otherwise an
// InputError at the cluster file's /nodes/i/gpus/j/device listing the known ids.
void check_cluster_devices(const schema::ClusterSpec& cluster,
                           const costmodel::DeviceCatalog& catalog);

// One configuration. Throws schema::InputError / std::invalid_argument for configurations that
// cannot be simulated (unknown device, no costs for a device/precision, more ranks than GPUs...).
// An out-of-memory configuration is returned with out_of_memory = true and not simulated.
schema::ConfigPrediction predict(const schema::ClusterSpec& cluster,
                                 const costmodel::DeviceCatalog& catalog,
                                 const costmodel::ViTConfig& model,
                                 const schema::TrainingConfig& config,
                                 const costmodel::CostModel& costs, const SimOptions& options);

// Sets speedup and parallel_efficiency of every prediction that has a 1-GPU baseline among them
// (costmodel::speedups: same precision, micro-batch and accumulation; the first such baseline in
// `order`, indices into `predictions`, by default their own order); the others keep theirs. The
// one place a prediction becomes the rule's input.
void apply_speedups(std::vector<schema::ConfigPrediction>& predictions,
                    const std::vector<size_t>& order = {});

// Every configuration of a scenario, with speedup and parallel efficiency against the scenario's
// 1-GPU configuration (when it has one).
schema::PredictionFile simulate_scenario(const schema::Scenario& scenario,
                                         const schema::ClusterSpec& cluster,
                                         const costmodel::DeviceCatalog& catalog,
                                         const costmodel::CostModel& costs,
                                         const SimOptions& options);

}  // namespace vitsim::sim
