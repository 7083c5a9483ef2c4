// A cost model's device entries, read and written (see device_costs_io.h and
// docs/formats/cost-model.md). Times and sizes are held to costmodel/physical_bounds.h; a measured
// entry lists the micro-batches its fit saw.
#include "schema/device_costs_io.h"

#include <cmath>

#include "schema/common_io.h"
#include "schema/model_io.h"

namespace vitsim::schema {
namespace {

using costmodel::LinearCost;

// Compute and copy costs grow with their x, so a fit must not slope down; a near-constant cost
// (data wait, step overhead) may come out of a least-squares fit with a slightly negative slope,
// which the floor keeps harmless: t(x) = max(floor_s, ...) >= 0.
enum class Slope { kNonnegative, kAny };

LinearCost read_linear(const Node& n, Slope slope) {
  n.expect_keys({"fixed_s", "per_unit_s", "floor_s", "knots"});
  LinearCost c;
  c.fixed_s = n["fixed_s"].within(costmodel::kDurationS);
  const Node per_unit = n["per_unit_s"];
  c.per_unit_s = per_unit.number();
  // A slope is seconds per unit of x (a sample, a byte): at most a duration's bound either way.
  if (std::fabs(c.per_unit_s) > costmodel::kDurationS.max) {
    per_unit.fail("a slope in s per unit within +-1e7", per_unit.describe(),
                  costmodel::kDurationS.why);
  }
  if (slope == Slope::kNonnegative && c.per_unit_s < 0) {
    per_unit.fail("number >= 0", per_unit.describe(),
                  "this cost grows with its x: constrain the fitted slope to >= 0");
  }
  c.floor_s = n["floor_s"].within(costmodel::kDurationS);
  if (auto knots = n.get("knots")) {
    for (const Node& k : knots->items()) {
      const std::vector<Node> xt = k.items();
      if (xt.size() != 2) k.fail("a knot [x, t]", k.describe());
      const double x = xt[0].positive();
      if (!c.knots.empty() && !(x > c.knots.back()[0])) {
        xt[0].fail("an x above the previous knot's " + std::to_string(c.knots.back()[0]),
                   xt[0].describe(), "knots are measured points in ascending x");
      }
      c.knots.push_back({x, xt[1].within(costmodel::kDurationS)});
    }
    if (c.knots.size() == 1) {
      knots->fail("two or more knots, or none", "one", "a single measured point is the form's");
    }
  }
  return c;
}

Json write_linear(const LinearCost& c) {
  Json j = {{"fixed_s", c.fixed_s}, {"per_unit_s", c.per_unit_s}, {"floor_s", c.floor_s}};
  if (!c.knots.empty()) {
    Json knots = Json::array();
    for (const auto& k : c.knots) knots.push_back({k[0], k[1]});
    j["knots"] = knots;
  }
  return j;
}

costmodel::LayerCost read_layer_cost(const Node& n, LayerOrderCheck& order) {
  n.expect_keys(
      {"layer", "kind", "forward", "backward", "forward_residual_rel", "backward_residual_rel"});
  costmodel::LayerCost c;
  c.layer = n["layer"].string();
  c.kind = read_layer_kind(n["kind"]);
  order.next(n["layer"], n["kind"], c.kind);
  c.forward = read_linear(n["forward"], Slope::kNonnegative);
  c.backward = read_linear(n["backward"], Slope::kNonnegative);
  c.forward_residual_rel = n["forward_residual_rel"].nonnegative();
  c.backward_residual_rel = n["backward_residual_rel"].nonnegative();
  return c;
}

void read_micro_batches(const Node& n, costmodel::DeviceCosts& d) {
  for (const Node& b : n.items()) {
    d.micro_batches.push_back(static_cast<int>(b.count(costmodel::kMicroBatch)));
    const size_t k = d.micro_batches.size();
    if (k > 1 && d.micro_batches[k - 1] <= d.micro_batches[k - 2]) {
      b.fail("a micro-batch > " + std::to_string(d.micro_batches[k - 2]), b.describe(),
             "list each micro-batch once, increasing");
    }
  }
  if (d.source == costmodel::CostSource::kMeasured && d.micro_batches.empty()) {
    n.fail("the micro-batches the fit saw", "an empty array",
           "a measured entry was fitted on some micro-batches; transferred ones may list none");
  }
}

}  // namespace

costmodel::DeviceCosts read_device_costs(const Node& n) {
  n.expect_keys({"device",
                 "precision",
                 "source",
                 "derived_from",
                 "model",
                 "layers",
                 "optimizer",
                 "host_to_device",
                 "data_wait",
                 "step_overhead",
                 "memory_fixed_bytes",
                 "memory_per_sample_bytes",
                 "micro_batches",
                 "uncertainty",
                 "epoch_start_s",
                 "process_start_s",
                 "process_start_per_sample_s",
                 "transfer_summary",
                 "optimizer_after_wait",
                 "data_after_wait",
                 "bucket_copy",
                 "recompute",
                 "unit_gather",
                 "unit_free"});
  costmodel::DeviceCosts d;
  d.device = n["device"].string();
  if (d.device.empty()) n["device"].fail("non-empty device id", "empty string");
  d.precision = read_regime(n["precision"]);
  d.source = read_cost_source(n["source"]);
  d.derived_from = n["derived_from"].string();
  d.model = read_model(n["model"]);
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(d.model);
  LayerOrderCheck order(graph);
  for (const Node& l : n["layers"].items_nonempty()) d.layers.push_back(read_layer_cost(l, order));
  d.optimizer = read_linear(n["optimizer"], Slope::kNonnegative);
  d.host_to_device = read_linear(n["host_to_device"], Slope::kNonnegative);
  d.data_wait = read_linear(n["data_wait"], Slope::kAny);
  d.step_overhead = read_linear(n["step_overhead"], Slope::kAny);
  // Optional (older cost models): nothing measured an epoch's start.
  if (auto v = n.get("epoch_start_s")) d.epoch_start_s = v->within(costmodel::kDurationS);
  if (auto v = n.get("process_start_s")) d.process_start_s = v->within(costmodel::kDurationS);
  // Optional: the process's start grows with the micro-batch (written only where it does).
  if (auto v = n.get("process_start_per_sample_s"))
    d.process_start_per_sample_s = v->within(costmodel::kDurationS);
  // Optional: where a profile measured the optimizer after an idle wait.
  if (auto v = n.get("optimizer_after_wait")) {
    v->expect_keys({"cost", "wait_s"});
    d.optimizer_after_wait = read_linear((*v)["cost"], Slope::kNonnegative);
    d.optimizer_wait_s = (*v)["wait_s"].within(costmodel::kDurationS);
    if (!(d.optimizer_wait_s > 0)) {
      (*v)["wait_s"].fail("a wait > 0 s", (*v)["wait_s"].describe(),
                          "leave optimizer_after_wait out where nothing measured it");
    }
  }
  // Optional: the data wait of the step after that wait, where a profile measured it.
  if (auto v = n.get("data_after_wait")) {
    if (!(d.optimizer_wait_s > 0)) {
      v->fail("data_after_wait beside optimizer_after_wait", "no optimizer_after_wait",
              "the step after a wait is measured after a wait of a stated length");
    }
    d.data_after_wait = read_linear(*v, Slope::kAny);
  }
  // Optional: where a profile timed the copy into the all-reduce buckets of a 2+-rank step.
  if (auto v = n.get("bucket_copy")) d.bucket_copy = read_linear(*v, Slope::kNonnegative);
  // Optional: where a profile timed sharding's costs (vitsim-train profile --sharding-costs).
  if (auto v = n.get("recompute")) d.recompute = read_linear(*v, Slope::kNonnegative);
  if (auto v = n.get("unit_gather")) d.unit_gather = read_linear(*v, Slope::kNonnegative);
  if (auto v = n.get("unit_free")) d.unit_free = read_linear(*v, Slope::kNonnegative);
  d.memory_fixed_bytes = n["memory_fixed_bytes"].within(costmodel::kBytesOrZero);
  d.memory_per_sample_bytes = n["memory_per_sample_bytes"].within(costmodel::kBytesOrZero);
  read_micro_batches(n["micro_batches"], d);
  // Optional (cost models written before docs/uncertainty.md have none): absent = no spread
  // known, and predictions show uncertainty_rel 0 for the part.
  if (const auto u = n.get("uncertainty")) {
    u->expect_keys({"systematic_rel", "node_spread_rel", "step_noise_rel", "step_spread_rel",
                    "launch_spread_rel", "process_spread_rel", "derived_from"});
    d.uncertainty_rel = (*u)["systematic_rel"].in_range(0, 10);
    d.node_spread_rel = (*u)["node_spread_rel"].in_range(0, 10);
    d.step_noise_rel = (*u)["step_noise_rel"].in_range(0, 10);
    // Optional (older cost models): no whole-step spread measured, no straggler wait.
    d.step_spread_rel = u->has("step_spread_rel") ? (*u)["step_spread_rel"].in_range(0, 10) : 0.0;
    // Optional (cost models written before the launch term have none): no launch term, as before
    // it existed (calibrate writes the prior where nothing measured one).
    d.launch_spread_rel =
        u->has("launch_spread_rel") ? (*u)["launch_spread_rel"].in_range(0, 10) : 0.0;
    // Optional (absent where no profiles were measured at the same time): 0, no process part.
    if (u->has("process_spread_rel")) {
      d.process_spread_rel = (*u)["process_spread_rel"].in_range(0, 10);
      if (d.process_spread_rel > d.launch_spread_rel) {
        (*u)["process_spread_rel"].fail("a number <= launch_spread_rel (a part of it)",
                                        std::to_string(d.process_spread_rel));
      }
    }
    d.uncertainty_from = (*u)["derived_from"].string();
  }
  if (const auto t = n.get("transfer_summary")) d.transfer_summary = t->string();
  return d;
}

Json write_device_costs(const costmodel::DeviceCosts& d) {
  Json layers = Json::array();
  for (const auto& l : d.layers) {
    layers.push_back({{"layer", l.layer},
                      {"kind", costmodel::to_string(l.kind)},
                      {"forward", write_linear(l.forward)},
                      {"backward", write_linear(l.backward)},
                      {"forward_residual_rel", l.forward_residual_rel},
                      {"backward_residual_rel", l.backward_residual_rel}});
  }
  Json j = {{"device", d.device},
            {"precision", costmodel::to_string(d.precision)},
            {"source", costmodel::to_string(d.source)},
            {"derived_from", d.derived_from},
            {"model", write_model(d.model)},
            {"layers", layers},
            {"optimizer", write_linear(d.optimizer)},
            {"host_to_device", write_linear(d.host_to_device)},
            {"data_wait", write_linear(d.data_wait)},
            {"step_overhead", write_linear(d.step_overhead)},
            {"epoch_start_s", d.epoch_start_s},
            {"process_start_s", d.process_start_s},
            {"memory_fixed_bytes", d.memory_fixed_bytes},
            {"memory_per_sample_bytes", d.memory_per_sample_bytes},
            {"micro_batches", d.micro_batches},
            {"uncertainty",
             {{"systematic_rel", d.uncertainty_rel},
              {"node_spread_rel", d.node_spread_rel},
              {"step_noise_rel", d.step_noise_rel},
              {"step_spread_rel", d.step_spread_rel},
              {"launch_spread_rel", d.launch_spread_rel},
              {"derived_from", d.uncertainty_from}}}};
  if (d.process_spread_rel > 0) j["uncertainty"]["process_spread_rel"] = d.process_spread_rel;
  if (!d.transfer_summary.empty()) j["transfer_summary"] = d.transfer_summary;
  if (d.process_start_per_sample_s > 0)
    j["process_start_per_sample_s"] = d.process_start_per_sample_s;
  if (d.optimizer_wait_s > 0) {
    j["optimizer_after_wait"] = {{"cost", write_linear(d.optimizer_after_wait)},
                                 {"wait_s", d.optimizer_wait_s}};
    if (d.data_after_wait) j["data_after_wait"] = write_linear(*d.data_after_wait);
  }
  if (d.bucket_copy) j["bucket_copy"] = write_linear(*d.bucket_copy);
  if (d.recompute) j["recompute"] = write_linear(*d.recompute);
  if (d.unit_gather) j["unit_gather"] = write_linear(*d.unit_gather);
  if (d.unit_free) j["unit_free"] = write_linear(*d.unit_free);
  return j;
}

}  // namespace vitsim::schema
