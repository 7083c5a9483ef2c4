// Cost model reader and writer (schema "vitsim.cost_model"); see cost_model_io.h and
// docs/formats/cost-model.md. The device entries are device_costs_io.cpp's; this file reads and
// writes the links (with their fits by ring shape and by operation) and the roofline records, holds
// link figures to costmodel/physical_bounds.h, and checks across entries: one entry per (device,
// precision), per link class and per roofline precision.
#include "schema/cost_model_io.h"

#include <set>
#include <utility>

#include "schema/common_io.h"
#include "schema/device_costs_io.h"
#include "schema/json_file.h"
#include "schema/run_overhead_io.h"

namespace vitsim::schema {
namespace {

costmodel::RingLinkCost read_ring(const Node& n) {
  n.expect_keys({"ranks", "ranks_per_node", "latency_s", "bandwidth_bytes_per_s", "uncertainty_rel",
                 "derived_from"});
  costmodel::RingLinkCost r;
  r.ranks = n["ranks"].count(costmodel::kRanks);
  if (r.ranks < 2) n["ranks"].fail("a ring of 2 or more ranks", n["ranks"].describe());
  r.ranks_per_node = n["ranks_per_node"].count(costmodel::kRanks);
  if (r.ranks_per_node > r.ranks)
    n["ranks_per_node"].fail("at most `ranks`", n["ranks_per_node"].describe());
  r.latency_s = n["latency_s"].within(costmodel::kLinkLatencyS);
  r.bandwidth_bytes_per_s = n["bandwidth_bytes_per_s"].within(costmodel::kLinkBandwidthBytesPerS);
  r.uncertainty_rel = n["uncertainty_rel"].in_range(0, 10);
  r.derived_from = n["derived_from"].string();
  return r;
}

costmodel::OperationLinkCost read_operation(const Node& n) {
  n.expect_keys(
      {"operation", "latency_s", "bandwidth_bytes_per_s", "uncertainty_rel", "derived_from"});
  costmodel::OperationLinkCost o;
  const Node op = n["operation"];
  o.op = costmodel::parse_collective_op(op.one_of({"reduce-scatter", "all-gather"}));
  o.latency_s = n["latency_s"].within(costmodel::kLinkLatencyS);
  o.bandwidth_bytes_per_s = n["bandwidth_bytes_per_s"].within(costmodel::kLinkBandwidthBytesPerS);
  o.uncertainty_rel = n["uncertainty_rel"].in_range(0, 10);
  o.derived_from = n["derived_from"].string();
  return o;
}

costmodel::LinkCost read_link(const Node& n) {
  n.expect_keys({"link_class", "latency_s", "bandwidth_bytes_per_s", "source", "derived_from",
                 "uncertainty_rel", "rings", "operations", "run_overheads"});
  costmodel::LinkCost l;
  l.link_class = n["link_class"].string();
  if (l.link_class.empty()) n["link_class"].fail("non-empty link class", "empty string");
  l.latency_s = n["latency_s"].within(costmodel::kLinkLatencyS);
  l.bandwidth_bytes_per_s = n["bandwidth_bytes_per_s"].within(costmodel::kLinkBandwidthBytesPerS);
  l.source = read_cost_source(n["source"]);
  l.derived_from = n["derived_from"].string();
  if (n.has("uncertainty_rel")) l.uncertainty_rel = n["uncertainty_rel"].in_range(0, 10);
  l.run_overheads = read_run_overheads(n);
  if (const auto rings = n.get("rings")) {
    for (const Node& r : rings->items()) {
      const costmodel::RingLinkCost ring = read_ring(r);
      if (l.find_ring(ring.ranks, ring.ranks_per_node) != nullptr)
        r["ranks"].fail("a ring shape (ranks, ranks_per_node) not listed before",
                        r["ranks"].describe());
      l.rings.push_back(ring);
    }
  }
  if (const auto ops = n.get("operations")) {
    for (const Node& o : ops->items()) {
      const costmodel::OperationLinkCost op = read_operation(o);
      if (l.find_operation(op.op) != nullptr)
        o["operation"].fail("an operation not listed before", o["operation"].describe());
      l.operations.push_back(op);
    }
  }
  return l;
}

costmodel::RooflineFit read_roofline(const Node& n) {
  n.expect_keys({"precision", "form", "compute_efficiency", "memory_efficiency",
                 "launch_overhead_s", "fitted_on", "held_out_error_rel"});
  costmodel::RooflineFit r;
  r.precision = read_regime(n["precision"]);
  const Node ce = n["compute_efficiency"];
  r.compute_efficiency = ce.in_range(0, 1);
  if (!(r.compute_efficiency > 0))
    ce.fail("number in (0, 1]", ce.describe(), "achieved / peak FLOP/s");
  // No upper bound: the traffic of a layer is an estimate, so achieved/peak may exceed 1.
  r.memory_efficiency = n["memory_efficiency"].positive();
  r.launch_overhead_s = n["launch_overhead_s"].within(costmodel::kDurationS);
  for (const Node& d : n["fitted_on"].items_nonempty()) r.fitted_on.push_back(d.string());
  if (auto f = n.get("form")) r.form = read_named(*f, costmodel::kRooflineFormNames);
  if (auto e = n.get("held_out_error_rel")) r.held_out_error_rel = e->in_range(0, 10);
  return r;
}

// Fails at `key_node` when `key` was seen before in the same list.
template <typename Key>
void expect_unique(std::set<Key>& seen, const Key& key, const Node& key_node,
                   const std::string& what) {
  if (!seen.insert(key).second) key_node.fail(what + " not listed before", key_node.describe());
}

}  // namespace

CostModelFile read_cost_model(const Node& root) {
  root.expect_schema(kCostModelSchema, kCostModelVersion, kPreRegimeVersion);
  root.expect_keys({"schema", "schema_version", "context", "devices", "links", "roofline"});
  CostModelFile f;
  f.context = read_context(root);
  std::set<std::pair<std::string, int>> devices;
  for (const Node& d : root["devices"].items()) {
    f.costs.devices.push_back(read_device_costs(d));
    const auto& back = f.costs.devices.back();
    expect_unique(devices, {back.device, static_cast<int>(back.precision)}, d["device"],
                  "a (device, precision) pair");
  }
  std::set<std::string> links;
  for (const Node& l : root["links"].items()) {
    f.costs.links.push_back(read_link(l));
    expect_unique(links, f.costs.links.back().link_class, l["link_class"], "a link class");
  }
  std::set<int> precisions;
  for (const Node& r : root["roofline"].items()) {
    f.costs.roofline.push_back(read_roofline(r));
    expect_unique(precisions, static_cast<int>(f.costs.roofline.back().precision), r["precision"],
                  "a precision");
  }
  return f;
}

CostModelFile read_cost_model(const std::string& path) {
  return read_cost_model(Node::parse_file(path));
}

Json write_cost_model_json(const CostModelFile& file) {
  Json j = document_head(kCostModelSchema, kCostModelVersion, file.context);
  j["devices"] = Json::array();
  for (const auto& d : file.costs.devices) j["devices"].push_back(write_device_costs(d));
  j["links"] = Json::array();
  for (const auto& l : file.costs.links) {
    j["links"].push_back({{"link_class", l.link_class},
                          {"latency_s", l.latency_s},
                          {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s},
                          {"source", costmodel::to_string(l.source)},
                          {"derived_from", l.derived_from},
                          {"uncertainty_rel", l.uncertainty_rel}});
    write_run_overheads(l.run_overheads, j["links"].back());
    if (!l.operations.empty()) {  // written only where a profile measured another operation
      Json ops = Json::array();
      for (const auto& o : l.operations) {
        ops.push_back({{"operation", costmodel::label_of(o.op)},
                       {"latency_s", o.latency_s},
                       {"bandwidth_bytes_per_s", o.bandwidth_bytes_per_s},
                       {"uncertainty_rel", o.uncertainty_rel},
                       {"derived_from", o.derived_from}});
      }
      j["links"].back()["operations"] = ops;
    }
    if (l.rings.empty()) continue;  // written only where a class has fits by ring shape
    Json rings = Json::array();
    for (const auto& r : l.rings) {
      rings.push_back({{"ranks", r.ranks},
                       {"ranks_per_node", r.ranks_per_node},
                       {"latency_s", r.latency_s},
                       {"bandwidth_bytes_per_s", r.bandwidth_bytes_per_s},
                       {"uncertainty_rel", r.uncertainty_rel},
                       {"derived_from", r.derived_from}});
    }
    j["links"].back()["rings"] = rings;
  }
  j["roofline"] = Json::array();
  for (const auto& r : file.costs.roofline) {
    j["roofline"].push_back({{"precision", costmodel::to_string(r.precision)},
                             {"form", costmodel::to_string(r.form)},
                             {"held_out_error_rel", r.held_out_error_rel},
                             {"compute_efficiency", r.compute_efficiency},
                             {"memory_efficiency", r.memory_efficiency},
                             {"launch_overhead_s", r.launch_overhead_s},
                             {"fitted_on", r.fitted_on}});
  }
  return j;
}

void write_cost_model(const std::string& path, const CostModelFile& file) {
  write_json_output(path, write_cost_model_json(file));
}

}  // namespace vitsim::schema
