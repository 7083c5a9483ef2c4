// predict() and simulate_scenario(): prepare a configuration (placement, platform, per-rank costs,
// memory), run its simulation in a child process, and turn the recorded steps into the prediction
// (docs/simulator.md, "From steps to an epoch").
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "costmodel/epoch.h"
#include "costmodel/global_batch.h"
#include "costmodel/sharding.h"
#include "costmodel/speedup.h"
#include "process/fork_runner.h"
#include "schema/json_file.h"
#include "sim/chrome_trace.h"
#include "sim/link_provenance.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"
#include "sim/sharded_plan.h"
#include "sim/simulation_run.h"
#include "sim/size_guard.h"
#include "sim/step_breakdown.h"
#include "sim/token_buckets.h"
#include "sim/training_sim.h"

namespace vitsim::sim {
namespace {

std::string config_label(const schema::TrainingConfig& c) {
  if (!c.label.empty()) return c.label;
  return std::to_string(c.gpus) + " GPU(s), micro-batch " + std::to_string(c.micro_batch);
}

void check_config(const schema::TrainingConfig& c) {
  if (c.gpus < 1) throw std::invalid_argument("gpus must be >= 1");
  if (c.micro_batch < 1) throw std::invalid_argument("micro_batch must be >= 1");
  if (c.accumulation < 1) throw std::invalid_argument("accumulation must be >= 1");
  if (!(c.data_fraction > 0 && c.data_fraction <= 1))
    throw std::invalid_argument("data_fraction must be in (0, 1]");
  if (!(c.bucket_bytes > 0)) throw std::invalid_argument("bucket_bytes must be > 0");
  if (c.zero_stage < 0 || c.zero_stage > costmodel::kMaxZeroStage)
    throw std::invalid_argument("zero_stage must be 0, 1, 2 or 3");
  if (!c.per_rank_micro_batch.empty() &&
      static_cast<int64_t>(c.per_rank_micro_batch.size()) != c.gpus) {
    throw std::invalid_argument("per_rank_micro_batch needs one entry per rank (" +
                                std::to_string(c.gpus) + ")");
  }
  // A step of more images than the epoch has is no step (a sweep skips it, saying so).
  const int64_t batch = schema::global_batch(c);
  const std::string shortfall = costmodel::epoch_batch_shortfall(c.data_fraction, c.images, batch);
  if (!shortfall.empty())
    throw std::invalid_argument("a global batch of " + std::to_string(batch) +
                                " images (micro-batch x GPUs x accumulation) in an epoch of " +
                                std::to_string(costmodel::images_used(c.data_fraction, c.images)) +
                                ": no step of it is whole (" + shortfall + ")");
}

void check_options(const SimOptions& o) {
  if (o.network_optim != "Lazy" && o.network_optim != "Full")
    throw std::invalid_argument("network optim must be Lazy or Full, not '" + o.network_optim +
                                "'");
  for (const char* m : {"CM02", "LV08", "Constant", "SMPI", "IB"}) {
    if (o.network_model == m) return;
  }
  throw std::invalid_argument(
      "unknown SimGrid network model '" + o.network_model +
      "' (expected CM02, LV08, Constant, SMPI or IB; CM02 matches the analytic ring)");
}

// How much longer the epoch not simulated is than the one simulated (negative: shorter). Only
// the once-per-epoch start before the first step differs; every rank reaches its first
// all-reduce after its start plus its first step's work before it (c_k = accumulation x (data +
// forward + backward) + its straggler waits), and the step ends after the last rank's arrival:
//   shift = max_k(other_start_k + c_k) - max_k(start_k + c_k)
// Exact when every rank's start moves by the same amount (one device type: the whole simulation
// moves with it); with mixed devices it takes the first all-reduce as a barrier, which an
// overlapped all-reduce only approximates (docs/simulator.md, "From steps to an epoch").
double other_epoch_shift_s(const RankKinds& kinds, int64_t accumulation) {
  double simulated = 0, other = 0;
  for (const RankPlan& r : kinds.plans) {
    const double c = compute_before_sync_s(r, accumulation) + r.straggler_s + r.straggler_process_s;
    simulated = std::max(simulated, r.epoch_start_s + c);
    other = std::max(other, r.other_epoch_start_s + c);
  }
  return other - simulated;
}

// Per-rank step figures of the last simulated step and the epoch extrapolation.
void fill_timings(const SimulationResult& run, schema::ConfigPrediction& out) {
  const std::vector<RankRecord>& records = run.actors.ranks;
  const size_t last = records.front().step_end_s.size() - 1;
  double max_compute = 0, step = 0, first = 0;
  std::vector<double> duration, compute;  // per actor: rank or class of ranks
  for (const auto& rec : records) {
    duration.push_back(rec.step_end_s[last] - (last > 0 ? rec.step_end_s[last - 1] : 0.0));
    compute.push_back(rec.compute_s[last]);
    max_compute = std::max(max_compute, compute.back());
    step = std::max(step, duration.back());
    first = std::max(first, rec.step_end_s[0]);
  }
  std::vector<int64_t> micro_batches;
  for (size_t r = 0; r < out.ranks.size(); ++r) {
    const size_t a = run.actor_of_rank.empty() ? r : static_cast<size_t>(run.actor_of_rank[r]);
    const double blocked = std::max(0.0, duration[a] - compute[a]);
    auto& rp = out.ranks[r];
    rp.compute_time_s = compute[a];
    rp.idle_time_s = std::min(blocked, max_compute - compute[a]);
    rp.exposed_comm_time_s = blocked - rp.idle_time_s;
    micro_batches.push_back(rp.micro_batch);
  }
  const double images_per_step = static_cast<double>(
      costmodel::images_per_step(out.config.data_fraction, out.config.images,
                                 costmodel::global_batch(micro_batches, out.config.accumulation)));
  out.step_time_s = step;
  out.compute_time_s = max_compute;
  out.exposed_comm_time_s = out.ranks.front().exposed_comm_time_s;
  out.epoch_time_s =
      out.steps_per_epoch > 0 ? first + static_cast<double>(out.steps_per_epoch - 1) * step : 0.0;
  out.throughput_images_per_s = step > 0 ? images_per_step / step : 0.0;
}

// What the ranks' plans say before the simulation: whether every rank fits, and the steps of an
// epoch.
void fill_fit(const Placement& placement, const RankKinds& kinds, schema::ConfigPrediction& out) {
  std::vector<int64_t> micro_batches;
  micro_batches.reserve(placement.ranks.size());
  for (size_t i = 0; i < placement.ranks.size(); ++i)
    micro_batches.push_back(kinds.plans[static_cast<size_t>(kinds.kind_of_rank[i])].micro_batch);
  out.max_micro_batch_that_fits = std::numeric_limits<int64_t>::max();
  for (const RankPlan& r : kinds.plans) {
    out.out_of_memory = out.out_of_memory || r.memory_bytes > r.device_memory_bytes;
    out.max_micro_batch_that_fits =
        std::min(out.max_micro_batch_that_fits, r.memory.max_micro_batch(r.device_memory_bytes));
  }
  out.steps_per_epoch = costmodel::steps_per_epoch(out.config.data_fraction, out.config.images,
                                                   micro_batches, out.config.accumulation);
}

// The per-rank records (device, micro-batch, memory; the step figures come from fill_timings).
// Made after the simulation: at a million ranks they are ~120 MB that would otherwise be held
// beside the collective plan, the peak of the run (docs/simulator.md, "Performance").
void fill_ranks(const Placement& placement, const RankKinds& kinds, schema::ConfigPrediction& out) {
  out.ranks.reserve(placement.ranks.size());
  for (size_t i = 0; i < placement.ranks.size(); ++i) {
    const RankPlan& r = kinds.plans[static_cast<size_t>(kinds.kind_of_rank[i])];
    schema::RankPrediction rp;
    rp.rank = static_cast<int64_t>(i);
    rp.host = placement.host(i);
    rp.device = r.device;
    rp.micro_batch = r.micro_batch;
    rp.memory_bytes = r.memory_bytes;
    rp.device_memory_bytes = r.device_memory_bytes;
    out.ranks.push_back(rp);
  }
}

schema::ConfigPrediction predict_one(const schema::ClusterSpec& cluster,
                                     const costmodel::DeviceCatalog& catalog,
                                     const costmodel::ViTConfig& model,
                                     const schema::TrainingConfig& config,
                                     const costmodel::CostModel& costs, const SimOptions& options,
                                     ChromeTrace* trace, int64_t pid) {
  check_config(config);
  check_options(options);
  check_cluster_devices(cluster, catalog);
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(model);
  const costmodel::CollectiveLevel level =
      costmodel::resolve_collective_level(config.collective_level, config.gpus);
  // Up front, before anything per rank is made: what cannot fit is refused with its estimate.
  check_simulation_size(estimate_simulation(configuration_shape(config, graph, level, options)),
                        this_machine(options.force),
                        "configuration with " + std::to_string(config.gpus) + " GPU(s)");
  const costmodel::DeviceCatalog devices = merged_catalog(catalog, cluster);
  const Placement placement = place_ranks(cluster, config);
  schema::ConfigPrediction out;
  out.cluster = cluster.name;
  out.config = config;
  if (out.config.placement.empty())
    out.config.placement = placement.single_node() ? "intra-node" : "inter-node";
  out.config.collective_level = level;
  std::map<std::string, costmodel::CostSource> sources;
  const RankKinds kinds = plan_rank_kinds(placement, devices, graph, config, costs, sources);
  fill_fit(placement, kinds, out);
  out.provenance.compute = compute_provenance(kinds, costs, config.precision);
  // Held until the simulation ends, then dropped: its links (~100 MB at a million GPUs) need not
  // share the peak with the per-rank records made after it.
  std::optional<PlatformPlan> plan = plan_platform(
      cluster, placement, &costs, false, options.transports ? &*options.transports : nullptr);
  out.provenance.links = link_uses(*plan);
  out.provenance.unmeasured = unmeasured_lines(out.provenance, kinds);
  for (std::string& line : sharding_unmeasured_lines(config, out.provenance, costs))
    out.provenance.unmeasured.push_back(std::move(line));
  if (out.out_of_memory) {  // not simulated: the trainer would stop at its first step
    fill_ranks(placement, kinds, out);
    return out;
  }

  SimulationRequest q;
  q.cluster = &cluster;
  q.placement = &placement;
  q.plan = &*plan;
  q.costs = &costs;
  q.graph = &graph;
  q.kinds = &kinds;
  q.config = &config;
  q.collective_level = level;
  q.options = &options;
  q.trace = trace != nullptr;
  const SimulationResult run = run_configuration(q);
  out.engine = engine_label(run);
  if (const std::string line = token_bucket_line(*plan, out.engine, level, config.collective);
      !line.empty())
    out.provenance.unmeasured.push_back(line);
  plan.reset();
  fill_ranks(placement, kinds, out);
  fill_timings(run, out);
  const double other_epoch_s =
      out.steps_per_epoch > 0
          ? std::max(0.0, out.epoch_time_s + other_epoch_shift_s(kinds, config.accumulation))
          : 0.0;
  out.first_epoch_time_s = config.first_epoch ? out.epoch_time_s : other_epoch_s;
  out.later_epoch_time_s = config.first_epoch ? other_epoch_s : out.epoch_time_s;
  out.range = range_of(out, costs);
  out.breakdown = make_breakdown(out, run);
  if (trace != nullptr) trace->add(pid, config_label(config), run.tracks, run.actors);
  return out;
}

void write_trace(const ChromeTrace& trace, const SimOptions& options) {
  const auto doc = trace.document(schema::make_context("vitsim", options.argv));
  if (options.outputs != nullptr)
    return schema::add_json(*options.outputs, options.trace_path, doc);
  schema::write_json_output(options.trace_path, doc);
}

}  // namespace

SimEngine parse_engine(const std::string& name) {
  if (name == "auto") return SimEngine::kAuto;
  if (name == "ranks") return SimEngine::kRanks;
  if (name == "classes") return SimEngine::kClasses;
  if (name == "closed-form") return SimEngine::kClosedForm;
  throw std::invalid_argument("unknown engine '" + name +
                              "' (expected auto, ranks, classes or closed-form)");
}

void apply_speedups(std::vector<schema::ConfigPrediction>& predictions,
                    const std::vector<size_t>& order) {
  std::vector<size_t> in_order = order;
  if (in_order.empty()) {
    for (size_t i = 0; i < predictions.size(); ++i) in_order.push_back(i);
  }
  std::vector<costmodel::ThroughputRun> runs;
  for (size_t i : in_order) {
    const schema::ConfigPrediction& p = predictions.at(i);
    runs.push_back({p.config.gpus, p.config.precision, p.config.micro_batch, p.config.accumulation,
                    p.out_of_memory ? 0.0 : p.throughput_images_per_s});
  }
  const std::vector<costmodel::Speedup> s = costmodel::speedups(runs);
  for (size_t k = 0; k < in_order.size(); ++k) {
    if (!(s[k].speedup > 0)) continue;  // no baseline: leave the prediction's own figures
    predictions[in_order[k]].speedup = s[k].speedup;
    predictions[in_order[k]].parallel_efficiency = s[k].parallel_efficiency;
  }
}

void check_cluster_devices(const schema::ClusterSpec& cluster,
                           const costmodel::DeviceCatalog& catalog) {
  const costmodel::DeviceCatalog devices = merged_catalog(catalog, cluster);
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    for (size_t j = 0; j < cluster.nodes[i].gpus.size(); ++j) {
      const std::string& id = cluster.nodes[i].gpus[j].device;
      if (devices.find(id) != nullptr) continue;
      // The one resolver's words (costmodel::match_device): an ambiguous name lists its ids.
      throw schema::InputError::at(
          cluster.file, "/nodes/" + std::to_string(i) + "/gpus/" + std::to_string(j) + "/device",
          "a known device id", "\"" + id + "\"",
          costmodel::device_name_error(devices, "device", id) +
              "; or declare it in the cluster's \"devices\"");
    }
  }
}

schema::ConfigPrediction predict(const schema::ClusterSpec& cluster,
                                 const costmodel::DeviceCatalog& catalog,
                                 const costmodel::ViTConfig& model,
                                 const schema::TrainingConfig& config,
                                 const costmodel::CostModel& costs, const SimOptions& options) {
  ChromeTrace trace;
  schema::ConfigPrediction p = predict_one(cluster, catalog, model, config, costs, options,
                                           options.trace_path.empty() ? nullptr : &trace, 0);
  if (!options.trace_path.empty()) write_trace(trace, options);
  return p;
}

schema::PredictionFile simulate_scenario(const schema::Scenario& scenario,
                                         const schema::ClusterSpec& cluster,
                                         const costmodel::DeviceCatalog& catalog,
                                         const costmodel::CostModel& costs,
                                         const SimOptions& options) {
  const schema::ClusterSpec effective = schema::apply_overrides(scenario, cluster);
  ChromeTrace trace;
  schema::PredictionFile file;
  file.scenario = scenario.name;
  file.description = scenario.description;
  for (size_t i = 0; i < scenario.configurations.size(); ++i) {
    file.configurations.push_back(
        predict_one(effective, catalog, scenario.model, scenario.configurations[i], costs, options,
                    options.trace_path.empty() ? nullptr : &trace, static_cast<int64_t>(i)));
    if (options.progress) options.progress(i + 1, scenario.configurations.size());
  }
  apply_speedups(file.configurations);
  if (!options.trace_path.empty()) write_trace(trace, options);
  return file;
}

}  // namespace vitsim::sim
