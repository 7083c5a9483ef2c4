// Profile reader and writer (schema "vitsim.profile", version 3); see profile.h and
// docs/formats/profile.md. Times, sizes and counts are held to costmodel/physical_bounds.h; the
// reader also checks what a single field cannot: layer names against the layer graph of the
// profile's model, passes that take time, algbw/busbw against the time and rank count, message
// sizes in increasing order.
#include "schema/profile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "costmodel/collective_op.h"
#include "schema/common_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"

namespace vitsim::schema {
namespace {

// Relative tolerance for algbw/busbw against message_bytes/time_s: both are computed from the
// same doubles, but importers may copy figures rounded to a few digits.
constexpr double kBandwidthRelTolerance = 0.01;

LayerTiming read_layer_timing(const Node& n, LayerOrderCheck& order) {
  n.expect_keys({"name", "kind", "forward_time_s", "forward_spread_s", "backward_time_s",
                 "backward_spread_s"});
  LayerTiming t;
  t.name = n["name"].string();
  t.kind = read_layer_kind(n["kind"]);
  order.next(n["name"], n["kind"], t.kind);
  t.forward_time_s = n["forward_time_s"].within(costmodel::kDurationS);
  t.forward_spread_s = n["forward_spread_s"].within(costmodel::kDurationS);
  t.backward_time_s = n["backward_time_s"].within(costmodel::kDurationS);
  t.backward_spread_s = n["backward_spread_s"].within(costmodel::kDurationS);
  return t;
}

// Independent blocks' mean times (block_step_times_s, block_times_s): two or more, each > 0.
std::vector<double> read_blocks(const Node& n) {
  std::vector<double> out;
  for (const Node& b : n.items()) out.push_back(b.within(costmodel::kPositiveDurationS));
  if (out.size() < 2) {
    n.fail("two or more blocks' mean times", n.describe(),
           "one block has no spread; leave the key out where the timings were not repeated");
  }
  return out;
}

// `first_step_as_epoch_start`: a measured profile of version 2 or older, whose
// epoch_start_time_s timed the process's first step (docs/formats/profile.md).
MicroBatchProfile read_micro_batch(const Node& n, const costmodel::LayerGraph& graph,
                                   bool first_step_as_epoch_start) {
  n.expect_keys({"micro_batch",
                 "repetitions",
                 "layers",
                 "optimizer_time_s",
                 "host_to_device_time_s",
                 "data_time_s",
                 "step_overhead_time_s",
                 "peak_memory_bytes",
                 "step_spread_s",
                 "epoch_start_time_s",
                 "process_start_time_s",
                 "optimizer_after_wait_time_s",
                 "optimizer_wait_s",
                 "data_after_wait_time_s",
                 "gradient_local_time_s",
                 "bucket_copy_time_s",
                 "recompute_time_s",
                 "unit_gather_time_s",
                 "unit_free_time_s",
                 "block_step_times_s"});
  MicroBatchProfile m;
  m.micro_batch = n["micro_batch"].count(costmodel::kMicroBatch);
  m.repetitions = n["repetitions"].count(costmodel::kRepetitions);
  LayerOrderCheck order(graph);
  double forward_s = 0, backward_s = 0;
  for (const Node& l : n["layers"].items()) {
    m.layers.push_back(read_layer_timing(l, order));
    forward_s += m.layers.back().forward_time_s;
    backward_s += m.layers.back().backward_time_s;
  }
  // A layer may take 0 (no multiply-adds to share an imported pass time with), a pass may not.
  if (!m.layers.empty() && !(forward_s > 0 && backward_s > 0)) {
    n["layers"].fail("layers whose forward and backward times add up to more than 0 s",
                     "a pass of 0 s", "a measured pass takes time; leave out what was not timed");
  }
  m.optimizer_time_s = n["optimizer_time_s"].within(costmodel::kDurationS);
  m.host_to_device_time_s = n["host_to_device_time_s"].within(costmodel::kDurationS);
  m.data_time_s = n["data_time_s"].within(costmodel::kDurationS);
  m.step_overhead_time_s = n["step_overhead_time_s"].within(costmodel::kDurationS);
  if (auto p = n.get("gradient_local_time_s")) {
    m.gradient_local_time_s = p->within(costmodel::kDurationS);
    if (*m.gradient_local_time_s > m.step_overhead_time_s) {
      p->fail("a part of step_overhead_time_s (at most " + std::to_string(m.step_overhead_time_s) +
                  " s)",
              p->describe(), "the local gradient work is counted inside the step overhead");
    }
  }
  if (auto p = n.get("bucket_copy_time_s")) m.bucket_copy_time_s = p->within(costmodel::kDurationS);
  if (auto p = n.get("recompute_time_s")) m.recompute_time_s = p->within(costmodel::kDurationS);
  if (auto p = n.get("unit_gather_time_s")) m.unit_gather_time_s = p->within(costmodel::kDurationS);
  if (auto p = n.get("unit_free_time_s")) m.unit_free_time_s = p->within(costmodel::kDurationS);
  if (auto p = n.get("peak_memory_bytes")) m.peak_memory_bytes = p->within(costmodel::kBytesOrZero);
  if (auto p = n.get("step_spread_s")) m.step_spread_s = p->within(costmodel::kDurationS);
  if (auto p = n.get("block_step_times_s")) m.block_step_times_s = read_blocks(*p);
  const auto after_wait = n.get("optimizer_after_wait_time_s");
  const auto wait = n.get("optimizer_wait_s");
  if (after_wait.has_value() != wait.has_value()) {
    const Node& one = after_wait ? *after_wait : *wait;
    one.fail("optimizer_after_wait_time_s and optimizer_wait_s together", "one without the other",
             "the step after a wait is measured after a wait of a stated length");
  }
  if (after_wait) {
    m.optimizer_after_wait_time_s = after_wait->within(costmodel::kDurationS);
    m.optimizer_wait_s = wait->within(costmodel::kDurationS);
  }
  if (auto p = n.get("data_after_wait_time_s")) {
    if (!wait) {
      p->fail("data_after_wait_time_s beside optimizer_wait_s", "no optimizer_wait_s",
              "the step after a wait is measured after a wait of a stated length");
    }
    m.data_after_wait_time_s = p->within(costmodel::kDurationS);
  }
  if (auto p = n.get("epoch_start_time_s")) {
    (first_step_as_epoch_start ? m.process_start_time_s : m.epoch_start_time_s) =
        p->within(costmodel::kDurationS);
  }
  if (auto p = n.get("process_start_time_s")) {
    if (first_step_as_epoch_start) {
      p->fail("no process_start_time_s before schema_version 3", p->describe(),
              "version 2's epoch_start_time_s is the process's first step");
    }
    m.process_start_time_s = p->within(costmodel::kDurationS);
  }
  return m;
}

void check_bandwidth(const Node& n, double stated, double expected, const std::string& formula) {
  if (std::fabs(stated - expected) > kBandwidthRelTolerance * expected) {
    std::ostringstream os;
    os << formula << " = " << expected;
    n.fail(os.str(), n.describe(),
           "algbw = message_bytes / time_s; busbw = algbw * 2(n-1)/n (all-reduce), * (n-1)/n "
           "(reduce-scatter, all-gather)");
  }
}

AllreducePoint read_point(const Node& n, int64_t ranks, costmodel::CollectiveOp collective) {
  n.expect_keys(
      {"message_bytes", "time_s", "algbw_bytes_per_s", "busbw_bytes_per_s", "block_times_s"});
  AllreducePoint p;
  p.message_bytes = n["message_bytes"].within(costmodel::kBytes);
  p.time_s = n["time_s"].within(costmodel::kPositiveDurationS);
  p.algbw_bytes_per_s = n["algbw_bytes_per_s"].within(costmodel::kMeasuredBandwidthBytesPerS);
  p.busbw_bytes_per_s = n["busbw_bytes_per_s"].within(costmodel::kMeasuredBandwidthBytesPerS);
  const double algbw = p.message_bytes / p.time_s;
  check_bandwidth(n["algbw_bytes_per_s"], p.algbw_bytes_per_s, algbw, "message_bytes / time_s");
  check_bandwidth(
      n["busbw_bytes_per_s"], p.busbw_bytes_per_s, algbw * costmodel::bus_factor(collective, ranks),
      std::string(collective == costmodel::CollectiveOp::kAllReduce ? "algbw * 2(n-1)/n"
                                                                    : "algbw * (n-1)/n") +
          " (n = " + std::to_string(ranks) + ")");
  if (auto b = n.get("block_times_s")) p.block_times_s = read_blocks(*b);
  return p;
}

AllreduceProfile read_allreduce(
    const Node& n, costmodel::CollectiveOp collective = costmodel::CollectiveOp::kAllReduce) {
  n.expect_keys({"link_class", "ranks", "ranks_per_node", "backend", "points", "idle_before_s"});
  AllreduceProfile a;
  a.link_class = n["link_class"].string();
  if (a.link_class.empty()) n["link_class"].fail("non-empty link class", "empty string");
  a.ranks = n["ranks"].integer_at_least(2);
  n["ranks"].count(costmodel::kRanks);
  if (const auto k = n.get("ranks_per_node")) {
    a.ranks_per_node = k->integer_at_least(1);
    if (a.ranks_per_node > a.ranks)
      k->fail("at most ranks (" + std::to_string(a.ranks) + ")", k->describe(),
              "the ranks on the host that held the fewest");
  }
  a.backend = n["backend"].one_of({"mpi", "nccl", "deepspeed-nccl"});
  if (auto i = n.get("idle_before_s")) a.idle_before_s = i->within(costmodel::kDurationS);
  for (const Node& p : n["points"].items_nonempty()) {
    a.points.push_back(read_point(p, a.ranks, collective));
    if (a.points.size() > 1 &&
        !(a.points.back().message_bytes > a.points[a.points.size() - 2].message_bytes)) {
      std::ostringstream os;
      os << "message_bytes > " << a.points[a.points.size() - 2].message_bytes;
      p["message_bytes"].fail(os.str(), p["message_bytes"].describe(),
                              "points are sorted by increasing message size, one per size");
    }
  }
  return a;
}

}  // namespace

Profile read_profile(const Node& root) {
  // The schema first: a wrong file type should say so, not complain about its keys.
  root.expect_schema(kProfileSchema, kProfileVersion, kPreRegimeVersion);
  root.expect_keys({"schema", "schema_version", "context", "device", "device_name", "source",
                    "precision", "model", "compute", "allreduce", "reduce_scatter", "all_gather",
                    "superseded", "ranks_per_host"});
  Profile p;
  p.context = read_context(root);
  p.device = root["device"].string();
  if (p.device.empty()) root["device"].fail("non-empty device id", "empty string");
  p.device_name = root["device_name"].string();
  p.source = read_named(root["source"], costmodel::kCostSourceNames,
                        {costmodel::CostSource::kMeasured, costmodel::CostSource::kImported});
  p.precision = read_regime(root["precision"]);
  if (auto s = root.get("superseded")) {
    p.superseded = s->string();
    if (p.superseded.empty())
      s->fail("what replaces this measurement and why", "an empty string",
              "leave the key out of a current profile");
  }
  if (auto k = root.get("ranks_per_host")) p.ranks_per_host = k->count(costmodel::kRanksPerHost);
  if (auto m = root.get("model")) p.model = read_model(*m);
  const Node compute = root["compute"];
  const auto compute_items = compute.items();
  if (!compute_items.empty() && !p.model) {
    compute.fail("a \"model\" next to layer timings", "compute entries without one",
                 "layer names only mean something for a model");
  }
  const bool first_step_as_epoch_start =
      root["schema_version"].integer() < 3 && p.source == costmodel::CostSource::kMeasured;
  if (p.model) {
    const costmodel::LayerGraph graph = costmodel::build_layer_graph(*p.model);
    std::set<int64_t> seen;
    for (const Node& c : compute_items) {
      p.compute.push_back(read_micro_batch(c, graph, first_step_as_epoch_start));
      if (!seen.insert(p.compute.back().micro_batch).second) {
        c["micro_batch"].fail("a micro_batch not listed before", c["micro_batch"].describe(),
                              "one compute entry per micro-batch size");
      }
    }
  }
  for (const Node& a : root["allreduce"].items()) p.allreduce.push_back(read_allreduce(a));
  if (auto list = root.get("reduce_scatter")) {
    for (const Node& a : list->items())
      p.reduce_scatter.push_back(read_allreduce(a, costmodel::CollectiveOp::kReduceScatter));
  }
  if (auto list = root.get("all_gather")) {
    for (const Node& a : list->items())
      p.all_gather.push_back(read_allreduce(a, costmodel::CollectiveOp::kAllGather));
  }
  if (p.compute.empty() && p.allreduce.empty() && p.reduce_scatter.empty() &&
      p.all_gather.empty()) {
    root["compute"].fail("at least one compute or collective entry", "none",
                         "a profile with no measurement is of no use to calibrate");
  }
  return p;
}

Profile read_profile(const std::string& path) {
  return read_profile(Node::parse_file(path));
}

namespace {

Json write_micro_batch(const MicroBatchProfile& m) {
  Json layers = Json::array();
  for (const LayerTiming& t : m.layers) {
    layers.push_back({{"name", t.name},
                      {"kind", costmodel::to_string(t.kind)},
                      {"forward_time_s", t.forward_time_s},
                      {"forward_spread_s", t.forward_spread_s},
                      {"backward_time_s", t.backward_time_s},
                      {"backward_spread_s", t.backward_spread_s}});
  }
  Json j = {{"micro_batch", m.micro_batch},
            {"repetitions", m.repetitions},
            {"layers", layers},
            {"optimizer_time_s", m.optimizer_time_s},
            {"host_to_device_time_s", m.host_to_device_time_s},
            {"data_time_s", m.data_time_s},
            {"step_overhead_time_s", m.step_overhead_time_s}};
  if (m.gradient_local_time_s) j["gradient_local_time_s"] = *m.gradient_local_time_s;
  if (m.bucket_copy_time_s) j["bucket_copy_time_s"] = *m.bucket_copy_time_s;
  if (m.recompute_time_s) j["recompute_time_s"] = *m.recompute_time_s;
  if (m.unit_gather_time_s) j["unit_gather_time_s"] = *m.unit_gather_time_s;
  if (m.unit_free_time_s) j["unit_free_time_s"] = *m.unit_free_time_s;
  if (m.peak_memory_bytes) j["peak_memory_bytes"] = *m.peak_memory_bytes;
  if (m.step_spread_s) j["step_spread_s"] = *m.step_spread_s;
  if (!m.block_step_times_s.empty()) j["block_step_times_s"] = m.block_step_times_s;
  if (m.epoch_start_time_s) j["epoch_start_time_s"] = *m.epoch_start_time_s;
  if (m.process_start_time_s) j["process_start_time_s"] = *m.process_start_time_s;
  if (m.optimizer_after_wait_time_s && m.optimizer_wait_s) {
    j["optimizer_after_wait_time_s"] = *m.optimizer_after_wait_time_s;
    j["optimizer_wait_s"] = *m.optimizer_wait_s;
    if (m.data_after_wait_time_s) j["data_after_wait_time_s"] = *m.data_after_wait_time_s;
  }
  return j;
}

Json write_allreduce(const AllreduceProfile& a) {
  Json points = Json::array();
  for (const AllreducePoint& p : a.points) {
    points.push_back({{"message_bytes", p.message_bytes},
                      {"time_s", p.time_s},
                      {"algbw_bytes_per_s", p.algbw_bytes_per_s},
                      {"busbw_bytes_per_s", p.busbw_bytes_per_s}});
    if (!p.block_times_s.empty()) points.back()["block_times_s"] = p.block_times_s;
  }
  Json j = {
      {"link_class", a.link_class}, {"ranks", a.ranks}, {"backend", a.backend}, {"points", points}};
  if (a.ranks_per_node > 1) j["ranks_per_node"] = a.ranks_per_node;
  if (a.idle_before_s) j["idle_before_s"] = *a.idle_before_s;
  return j;
}

}  // namespace

int64_t fewest_ranks_per_host(const std::vector<std::string>& host_of_rank) {
  std::map<std::string, int64_t> per_host;
  for (const std::string& h : host_of_rank) ++per_host[h];
  std::vector<int64_t> ranks_on_host;
  for (const auto& [host, n] : per_host) ranks_on_host.push_back(n);
  return fewest_ranks_on_a_host(ranks_on_host);
}

int64_t fewest_ranks_on_a_host(const std::vector<int64_t>& ranks_on_host) {
  int64_t fewest = 0;
  for (int64_t n : ranks_on_host) {
    if (n > 0) fewest = fewest == 0 ? n : std::min(fewest, n);
  }
  return fewest == 0 ? 1 : fewest;
}

Json write_profile_json(const Profile& p) {
  Json j = document_head(kProfileSchema, kProfileVersion, p.context);
  j["device"] = p.device;
  j["device_name"] = p.device_name;
  j["source"] = costmodel::to_string(p.source);
  j["precision"] = costmodel::to_string(p.precision);
  if (p.model) j["model"] = write_model(*p.model);
  j["compute"] = Json::array();
  for (const auto& m : p.compute) j["compute"].push_back(write_micro_batch(m));
  j["allreduce"] = Json::array();
  for (const auto& a : p.allreduce) j["allreduce"].push_back(write_allreduce(a));
  if (!p.superseded.empty()) j["superseded"] = p.superseded;
  if (p.ranks_per_host > 1) j["ranks_per_host"] = p.ranks_per_host;
  for (const auto& a : p.reduce_scatter) j["reduce_scatter"].push_back(write_allreduce(a));
  for (const auto& a : p.all_gather) j["all_gather"].push_back(write_allreduce(a));
  return j;
}

void write_profile(const std::string& path, const Profile& profile) {
  write_json_output(path, write_profile_json(profile));
}

}  // namespace vitsim::schema
