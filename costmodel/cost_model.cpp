// Evaluation of fitted costs, including scaling to a model other than the measured one.
#include "costmodel/cost_model.h"

#include <algorithm>
#include <stdexcept>

namespace vitsim::costmodel {

double LinearCost::form_at(double x) const {
  return std::max(floor_s, fixed_s + per_unit_s * x);
}

double LinearCost::at(double x) const {
  if (knots.size() < 2) return form_at(x);
  const auto through = [&](const std::array<double, 2>& k) {
    const double f = form_at(k[0]);
    return f > 0 ? k[1] * form_at(x) / f : form_at(x);
  };
  if (x <= knots.front()[0]) return through(knots.front());
  if (x >= knots.back()[0]) return through(knots.back());
  const auto hi =
      std::upper_bound(knots.begin(), knots.end(), x,
                       [](double v, const std::array<double, 2>& k) { return v < k[0]; });
  const auto& a = *(hi - 1);
  const auto& b = *hi;
  return a[1] + (x - a[0]) / (b[0] - a[0]) * (b[1] - a[1]);
}

const char* to_string(CostSource s) {
  return name_of(kCostSourceNames, s);
}

CostSource parse_cost_source(const std::string& text) {
  return parse_named(kCostSourceNames, text, "cost source");
}

const char* to_string(RooflineForm f) {
  return name_of(kRooflineFormNames, f);
}

RooflineForm parse_roofline_form(const std::string& text) {
  return parse_named(kRooflineFormNames, text, "roofline form");
}

const DeviceCosts* CostModel::find(const std::string& device, Regime precision) const {
  for (const auto& d : devices) {
    // The allreduce-fp32 variants compute like their base regime (regime.h, compute_regime).
    if (d.device == device && compute_regime(d.precision) == compute_regime(precision)) return &d;
  }
  return nullptr;
}

const LinkCost* CostModel::find_link(const std::string& link_class) const {
  for (const auto& l : links) {
    if (l.link_class == link_class) return &l;
  }
  return nullptr;
}

const RingLinkCost* LinkCost::find_ring(int64_t ranks, int64_t ranks_per_node) const {
  for (const auto& r : rings) {
    if (r.ranks == ranks && r.ranks_per_node == ranks_per_node) return &r;
  }
  return nullptr;
}

const RunStepOverhead* LinkCost::find_run_overhead(const std::string& device, Regime precision,
                                                   int64_t ranks_per_node) const {
  for (const auto& r : run_overheads) {
    if (r.device == device && r.precision == precision && r.ranks_per_node == ranks_per_node)
      return &r;
  }
  return nullptr;
}

const OperationLinkCost* LinkCost::find_operation(CollectiveOp op) const {
  for (const auto& o : operations) {
    if (o.op == op) return &o;
  }
  return nullptr;
}

double LayerTimes::forward_total_s() const {
  double t = 0;
  for (double x : forward_s) t += x;
  return t;
}

double LayerTimes::backward_total_s() const {
  double t = 0;
  for (double x : backward_s) t += x;
  return t;
}

namespace {

// Work measure used to scale a layer between models: MACs, or traffic for element-wise layers.
double work(const Layer& l) {
  return l.forward_mac_per_sample > 0 ? l.forward_mac_per_sample : l.traffic_elements_per_sample;
}

}  // namespace

LayerTimes layer_times(const DeviceCosts& costs, const LayerGraph& target, double micro_batch) {
  if (costs.layers.empty()) {
    throw std::invalid_argument("cost model for " + costs.device + " has no layer costs");
  }
  LayerTimes out;
  const bool same_model = costs.model == target.config;
  const LayerGraph measured = build_layer_graph(costs.model);
  for (const Layer& layer : target.layers) {
    if (same_model) {
      auto it = std::find_if(costs.layers.begin(), costs.layers.end(),
                             [&](const LayerCost& c) { return c.layer == layer.name; });
      if (it != costs.layers.end()) {
        out.forward_s.push_back(it->forward.at(micro_batch));
        out.backward_s.push_back(it->backward.at(micro_batch));
        continue;
      }
    }
    // Scale from the measured layers of the same kind: time per unit of work at this b.
    double fwd = 0, bwd = 0, measured_work = 0;
    for (const LayerCost& c : costs.layers) {
      if (c.kind != layer.kind) continue;
      const int idx = measured.find(c.layer);
      if (idx < 0) continue;
      fwd += c.forward.at(micro_batch);
      bwd += c.backward.at(micro_batch);
      measured_work += work(measured.layers[idx]);
    }
    if (measured_work <= 0) {
      throw std::invalid_argument("cost model for " + costs.device + " has no '" +
                                  to_string(layer.kind) + "' layer to scale " + layer.name +
                                  " from");
    }
    const double ratio = work(layer) / measured_work;
    out.forward_s.push_back(fwd * ratio);
    out.backward_s.push_back(bwd * ratio);
  }
  return out;
}

double memory_bytes(const DeviceCosts& costs, const LayerGraph& target, double micro_batch) {
  if (costs.model == target.config) {
    return costs.memory_fixed_bytes + costs.memory_per_sample_bytes * micro_batch;
  }
  const LayerGraph measured = build_layer_graph(costs.model);
  const double param_ratio =
      static_cast<double>(target.parameters()) / static_cast<double>(measured.parameters());
  const double act_ratio =
      target.activation_bytes_per_sample() / measured.activation_bytes_per_sample();
  return costs.memory_fixed_bytes * param_ratio +
         costs.memory_per_sample_bytes * act_ratio * micro_batch;
}

}  // namespace vitsim::costmodel
