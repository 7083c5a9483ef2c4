// Roofline fit and transfer (see roofline.h, docs/cost-model.md).
#include "calibrate/roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace vitsim::calibrate {

using costmodel::Regime;

double pass_flop_per_sample(const costmodel::Layer& layer, bool backward) {
  return backward ? 2.0 * layer.backward_mac_per_sample() : layer.forward_flop_per_sample();
}

double pass_fixed_bytes(const costmodel::Layer& layer, bool backward, Regime p) {
  return static_cast<double>(layer.parameters) *
         costmodel::weight_cast_bytes_per_parameter(p, backward);
}

double pass_bytes_per_sample(const costmodel::Layer& layer, bool backward, Regime p) {
  const double bytes = layer.traffic_elements_per_sample * costmodel::activation_element_bytes(p);
  return backward ? 2.0 * bytes : bytes;
}

void collect_roofline_samples(const costmodel::DeviceCosts& costs,
                              const costmodel::DeviceSpec& spec,
                              std::vector<RooflineSample>& layers,
                              std::vector<OptimizerSample>& optimizer) {
  const costmodel::LayerGraph graph = build_layer_graph(costs.model);
  const double peak = spec.matrix_peak_flop_per_s(costs.precision);
  for (int b : costs.micro_batches) {
    for (const auto& c : costs.layers) {
      const int idx = graph.find(c.layer);
      if (idx < 0) continue;
      const costmodel::Layer& l = graph.layers[static_cast<size_t>(idx)];
      for (bool bwd : {false, true}) {
        const double t = bwd ? c.backward.at(b) : c.forward.at(b);
        if (!(t > 0)) continue;
        layers.push_back({costs.device, pass_flop_per_sample(l, bwd) * b,
                          pass_bytes_per_sample(l, bwd, costs.precision) * b +
                              pass_fixed_bytes(l, bwd, costs.precision),
                          t, peak, spec.memory_bandwidth_bytes_per_s});
      }
    }
  }
  const double params = static_cast<double>(graph.parameters());
  const double t_opt = costs.optimizer.at(params);
  if (t_opt > 0) {
    optimizer.push_back({costs.device,
                         params * costmodel::optimizer_step_bytes_per_parameter(costs.precision),
                         t_opt, spec.memory_bandwidth_bytes_per_s});
  }
}

double roofline_time_s(const costmodel::RooflineFit& fit, double flop, double bytes,
                       double peak_flop_per_s, double bandwidth_bytes_per_s) {
  const double compute = flop / (fit.compute_efficiency * peak_flop_per_s);
  const double memory = bytes / (fit.memory_efficiency * bandwidth_bytes_per_s);
  return fit.pass_time_s(compute, memory) + fit.launch_overhead_s;
}

namespace {

// Lowest compute efficiency the eta_c search considers: 0.2 % of the datasheet peak is below any
// GPU running dense layers (the study's devices fit at 0.4), so the optimum is never cut off.
constexpr double kEtaMin = 0.002;

std::map<std::string, double> equal_device_weights(const std::vector<std::string>& devices) {
  std::map<std::string, double> count;
  for (const auto& d : devices) count[d] += 1;
  for (auto& [d, n] : count) n = 1.0 / n;
  return count;
}

// For a given eta_c: the best overhead o >= 0 (weighted relative least squares, closed form) and
// the objective sum w ((base + o - t) / t)^2.
std::pair<double, double> overhead_and_objective(const std::vector<RooflineSample>& s,
                                                 const std::vector<double>& w,
                                                 const costmodel::RooflineFit& shape, double eta_c,
                                                 double eta_m) {
  double num = 0, den = 0;
  std::vector<double> base(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    base[i] = shape.pass_time_s(s[i].flop / (eta_c * s[i].peak_flop_per_s),
                                s[i].bytes / (eta_m * s[i].bandwidth_bytes_per_s));
    num += w[i] * (s[i].time_s - base[i]) / (s[i].time_s * s[i].time_s);
    den += w[i] / (s[i].time_s * s[i].time_s);
  }
  const double o = std::max(0.0, num / den);
  double obj = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const double r = (base[i] + o - s[i].time_s) / s[i].time_s;
    obj += w[i] * r * r;
  }
  return {o, obj};
}

double fit_memory_efficiency(const std::vector<OptimizerSample>& opt) {
  // t = bytes / (eta_m * bw): with u = 1/eta_m and r = bytes / (bw * t), min sum_d w (u r - 1)^2.
  std::vector<std::string> devs;
  for (const auto& o : opt) devs.push_back(o.device);
  const auto weight = equal_device_weights(devs);
  double num = 0, den = 0;
  for (const auto& o : opt) {
    const double r = o.bytes / (o.bandwidth_bytes_per_s * o.time_s);
    num += weight.at(o.device) * r;
    den += weight.at(o.device) * r * r;
  }
  return den / num;
}

}  // namespace

costmodel::RooflineFit fit_roofline(Regime precision, const std::vector<RooflineSample>& layers,
                                    const std::vector<OptimizerSample>& optimizer,
                                    costmodel::RooflineForm form) {
  if (layers.empty()) throw std::invalid_argument("roofline fit: no measured layer passes");
  costmodel::RooflineFit fit;
  fit.precision = precision;
  fit.form = form;
  std::vector<std::string> devs;
  for (const auto& s : layers) devs.push_back(s.device);
  const auto weight = equal_device_weights(devs);
  std::vector<double> w;
  for (const auto& s : layers) w.push_back(weight.at(s.device));
  for (const auto& [d, unused] : weight) fit.fitted_on.push_back(d);
  // Without optimizer steps eta_m cannot be told from eta_c: take eta_m = 1 (memory terms small).
  fit.memory_efficiency = optimizer.empty() ? 1.0 : std::min(1.0, fit_memory_efficiency(optimizer));
  // eta_c: log-spaced grid over [kEtaMin, 1], then golden-section refinement around the best.
  auto objective = [&](double eta) {
    return overhead_and_objective(layers, w, fit, eta, fit.memory_efficiency).second;
  };
  const int kGrid = 400;
  double best = 1, best_obj = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= kGrid; ++i) {
    const double eta = kEtaMin * std::pow(1 / kEtaMin, static_cast<double>(i) / kGrid);
    const double obj = objective(eta);
    if (obj < best_obj) {
      best_obj = obj;
      best = eta;
    }
  }
  const double step = std::pow(1 / kEtaMin, 1.0 / kGrid);
  double lo = best / step, hi = std::min(1.0, best * step);
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 100; ++it) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (objective(a) < objective(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  fit.compute_efficiency = (lo + hi) / 2;
  fit.launch_overhead_s =
      overhead_and_objective(layers, w, fit, fit.compute_efficiency, fit.memory_efficiency).first;
  return fit;
}

HeldOutCheck leave_one_device_out(Regime precision, const std::vector<RooflineSample>& layers,
                                  const std::vector<OptimizerSample>& optimizer,
                                  costmodel::RooflineForm form) {
  HeldOutCheck check;
  check.form = form;
  std::map<std::string, int> devices;
  for (const auto& s : layers) devices[s.device] += 1;
  if (devices.size() < 3) return check;  // fitting on one device says nothing about a second
  double sum_sq = 0;
  for (const auto& [held, unused] : devices) {
    std::vector<RooflineSample> fit_layers, test;
    std::vector<OptimizerSample> fit_opt;
    for (const auto& s : layers) (s.device == held ? test : fit_layers).push_back(s);
    for (const auto& o : optimizer) {
      if (o.device != held) fit_opt.push_back(o);
    }
    const costmodel::RooflineFit fit = fit_roofline(precision, fit_layers, fit_opt, form);
    double measured = 0, predicted = 0;
    for (const auto& s : test) {
      measured += s.time_s;
      predicted +=
          roofline_time_s(fit, s.flop, s.bytes, s.peak_flop_per_s, s.bandwidth_bytes_per_s);
    }
    const double err = (predicted - measured) / measured;
    check.devices.push_back({held, err});
    sum_sq += err * err;
  }
  check.rms_error_rel = std::sqrt(sum_sq / static_cast<double>(check.devices.size()));
  return check;
}

double device_factor(const costmodel::DeviceCosts& measured, const costmodel::DeviceSpec& spec,
                     const costmodel::RooflineFit& fit) {
  std::vector<RooflineSample> layers;
  std::vector<OptimizerSample> opt;
  collect_roofline_samples(measured, spec, layers, opt);
  double t_meas = 0, t_roof = 0;
  for (const auto& s : layers) {
    t_meas += s.time_s;
    t_roof += roofline_time_s(fit, s.flop, s.bytes, s.peak_flop_per_s, s.bandwidth_bytes_per_s);
  }
  return t_roof > 0 ? t_meas / t_roof : 1.0;
}

costmodel::DeviceCosts transfer_layers(const costmodel::DeviceSpec& spec, Regime precision,
                                       const costmodel::RooflineFit& fit,
                                       const costmodel::ViTConfig& model, double compute_factor) {
  const double peak = spec.matrix_peak_flop_per_s(precision);
  if (!(peak > 0) || !(spec.memory_bandwidth_bytes_per_s > 0)) {
    throw std::invalid_argument("device " + spec.id + " has no datasheet peak for " +
                                costmodel::to_string(precision));
  }
  costmodel::DeviceCosts c;
  c.device = spec.id;
  c.precision = precision;
  c.source = costmodel::CostSource::kTransferred;
  c.model = model;
  const costmodel::LayerGraph graph = build_layer_graph(model);
  for (const auto& l : graph.layers) {
    costmodel::LayerCost lc;
    lc.layer = l.name;
    lc.kind = l.kind;
    for (bool bwd : {false, true}) {
      // Both roofline terms are proportional to b: t(b) = overhead + per_sample * b.
      const double cast_s = pass_fixed_bytes(l, bwd, precision) /
                            (fit.memory_efficiency * spec.memory_bandwidth_bytes_per_s);
      const double per_sample =
          fit.pass_time_s(pass_flop_per_sample(l, bwd) / (fit.compute_efficiency * peak),
                          pass_bytes_per_sample(l, bwd, precision) /
                              (fit.memory_efficiency * spec.memory_bandwidth_bytes_per_s));
      costmodel::LinearCost& cost = bwd ? lc.backward : lc.forward;
      cost.fixed_s = fit.launch_overhead_s + cast_s * compute_factor;
      cost.per_unit_s = per_sample * compute_factor;
    }
    c.layers.push_back(lc);
  }
  return c;
}

}  // namespace vitsim::calibrate
