// Per-device fits from profiles (see device_fit.h, docs/cost-model.md).
#include "calibrate/device_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "calibrate/cost_fit.h"
#include "calibrate/sharding_fit.h"
#include "calibrate/spread.h"
#include "costmodel/statistics.h"
#include "schema/input_error.h"

namespace vitsim::calibrate {

using costmodel::LinearCost;

costmodel::MemoryEstimate estimate_memory(const costmodel::ViTConfig& model,
                                          costmodel::Regime precision) {
  return costmodel::first_principles_memory(build_layer_graph(model), precision,
                                            costmodel::Optimizer::kAdamW);
}

namespace {

void check_group(const std::vector<const schema::ProfileInput*>& group) {
  const auto& first = group.front()->profile;
  if (!first.model) {
    throw schema::InputError::at(group.front()->file, "/model", "the profiled model",
                                 "nothing (an all-reduce-only profile)");
  }
  for (const auto* in : group) {
    if (!in->profile.model || *in->profile.model != *first.model) {
      throw schema::InputError::at(
          in->file, "/model",
          "the model of " + group.front()->file + " (" + first.model->name + ")",
          in->profile.model ? in->profile.model->name : "none",
          "profiles of one device and precision must measure one model");
    }
  }
}

// The points' centre at each x, when they hold two or more x: the measured values a layer pass
// keeps (LinearCost::at passes through them; the fitted form shapes it outside them). The centre
// is the one the fits use, cost_fit.h's relative_constant (the launches
// of one host entered as their median already: collect_points). A
// form that misses its own points at the micro-batches a user runs (the H200's amp-bf16 affine
// fits over micro-batches 1-256: +13 % at 64, -9 % at 256, launch-bound points weighing as much
// as the rest) would otherwise predict what nobody measured where it was measured.
std::vector<std::array<double, 2>> measured_knots(const std::vector<FitPoint>& pts) {
  std::map<double, std::vector<FitPoint>> by_x;
  for (const auto& p : pts) by_x[p.x].push_back(p);
  std::vector<std::array<double, 2>> knots;
  if (by_x.size() < 2) return knots;
  for (const auto& [x, at_x] : by_x)
    knots.push_back({x, relative_constant(at_x.begin(), at_x.end())});
  return knots;
}

// Fits one pass of one layer; zero-time layers (no MACs in an imported split) stay zero.
LinearCost fit_pass(const std::vector<FitPoint>& pts, double& residual, std::string& form) {
  std::vector<FitPoint> positive;
  for (const auto& p : pts) {
    if (p.y > 0) positive.push_back(p);
  }
  if (positive.empty()) {
    residual = 0;
    form = "zero";
    return LinearCost{};
  }
  const CostFit f = fit_batch_cost(positive);
  residual = f.residual_rel;
  form = f.form;
  LinearCost c = f.cost;
  c.knots = measured_knots(positive);
  return c;
}

std::string describe_forms(const std::map<std::string, int>& forms) {
  std::string out;
  for (const auto& [form, n] : forms) {
    out += (out.empty() ? "" : ", ") + fmt::format("{} {}", n, form);
  }
  return out;
}

// Every point of a group, by what it times.
struct GroupPoints {
  std::map<std::string, std::vector<FitPoint>> fwd, bwd;
  std::vector<FitPoint> opt, h2d, data, over, mem;
  std::vector<FitPoint> opt_after_wait;   // x = parameters, as opt
  std::vector<double> optimizer_waits;    // the waits before those
  std::vector<FitPoint> data_after_wait;  // x = micro-batch, as data
  std::vector<double> epoch_start;        // the profiles' measurements
  std::vector<FitPoint> process_start;    // x = the micro-batch it was measured at
  std::vector<double> gradient_local;     // per entry, 0 where not measured
  std::vector<FitPoint> bucket_copy;      // x = parameters, where measured
  std::set<int> batches;
  std::string files;
  bool any_measured = false;
};

// " (NVIDIA H100 80GB HBM3, 2026-11-26T01:30:02Z, vitsim-train cd3e3495aef7)" for a measured
// profile: what it ran on as the system reported it, when, and with which build, so that every
// prediction from it says so; empty for imported profiles (their logs' own names stay in the file).
std::string measured_on(const schema::Profile& p) {
  if (p.source != costmodel::CostSource::kMeasured) return "";
  auto text = [&](const char* key) {
    const auto it = p.context.find(key);
    return it != p.context.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::vector<std::string> parts;
  if (!p.device_name.empty() && p.device_name != p.device) parts.push_back(p.device_name);
  if (const std::string when = text("created_utc"); !when.empty()) parts.push_back(when);
  if (const std::string sha = text("git_sha"); !sha.empty())
    parts.push_back(text("tool") + " " + sha.substr(0, 12));
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

// Each profile's micro-batch measurements as the fit takes them. Repeats of one micro-batch on one
// host (validate-local's profile passes: separate launches of one device type on one machine)
// enter as their median, phase by phase, when there are 3 or more: a pass that a busy machine
// slowed (one CI run measured a 0.2-CPU device 3-4x slower than usual for two minutes, while the
// runs around it were not) then moves no prediction, where the mean of three would move every one
// by a third of it. Each repeat keeps its place as one point, so the weights of hosts and
// micro-batches in the fit are unchanged; with one or two repeats (and for imported profiles,
// whose host is not known) the measurements are taken as they are. The launch-to-launch spread
// still sees every repeat (spread.h).
std::vector<std::vector<schema::MicroBatchProfile>> fit_measurements(
    const std::vector<const schema::ProfileInput*>& group) {
  std::vector<std::vector<schema::MicroBatchProfile>> out;
  std::map<std::pair<std::string, int64_t>, std::vector<schema::MicroBatchProfile*>> repeats;
  for (const auto* in : group) out.push_back(in->profile.compute);
  for (size_t i = 0; i < group.size(); ++i) {
    const std::string host = profile_host(*group[i]);
    if (host.empty()) continue;
    for (auto& m : out[i]) repeats[{host, m.micro_batch}].push_back(&m);
  }
  for (auto& entry : repeats) {
    const std::vector<schema::MicroBatchProfile*>& ms = entry.second;
    if (ms.size() < 3) continue;
    auto center = [&](auto field) {
      std::vector<double> v;
      for (const auto* m : ms) v.push_back(field(*m));
      return costmodel::median(v);
    };
    schema::MicroBatchProfile mid = *ms.front();
    mid.optimizer_time_s = center([](const auto& m) { return m.optimizer_time_s; });
    const bool all_after_wait = std::all_of(ms.begin(), ms.end(), [](const auto* m) {
      return m->optimizer_after_wait_time_s.has_value();
    });
    if (all_after_wait) {
      mid.optimizer_after_wait_time_s =
          center([](const auto& m) { return *m.optimizer_after_wait_time_s; });
    }
    const bool all_bucket_copy = std::all_of(
        ms.begin(), ms.end(), [](const auto* m) { return m->bucket_copy_time_s.has_value(); });
    if (all_bucket_copy)
      mid.bucket_copy_time_s = center([](const auto& m) { return *m.bucket_copy_time_s; });
    const bool all_data_after_wait = std::all_of(
        ms.begin(), ms.end(), [](const auto* m) { return m->data_after_wait_time_s.has_value(); });
    if (all_data_after_wait) {
      mid.data_after_wait_time_s = center([](const auto& m) { return *m.data_after_wait_time_s; });
    }
    mid.host_to_device_time_s = center([](const auto& m) { return m.host_to_device_time_s; });
    mid.data_time_s = center([](const auto& m) { return m.data_time_s; });
    mid.step_overhead_time_s = center([](const auto& m) { return m.step_overhead_time_s; });
    for (auto& l : mid.layers) {
      auto layer_time = [&](double schema::LayerTiming::*t) {
        return center([&](const schema::MicroBatchProfile& m) {
          for (const auto& x : m.layers)
            if (x.name == l.name) return x.*t;
          return l.*t;  // a repeat that misses the layer: fit_layers names the file
        });
      };
      l.forward_time_s = layer_time(&schema::LayerTiming::forward_time_s);
      l.backward_time_s = layer_time(&schema::LayerTiming::backward_time_s);
    }
    for (auto* m : ms) {
      m->optimizer_time_s = mid.optimizer_time_s;
      if (all_after_wait) m->optimizer_after_wait_time_s = mid.optimizer_after_wait_time_s;
      if (all_data_after_wait) m->data_after_wait_time_s = mid.data_after_wait_time_s;
      if (all_bucket_copy) m->bucket_copy_time_s = mid.bucket_copy_time_s;
      m->host_to_device_time_s = mid.host_to_device_time_s;
      m->data_time_s = mid.data_time_s;
      m->step_overhead_time_s = mid.step_overhead_time_s;
      for (auto& l : m->layers) {
        for (const auto& x : mid.layers) {
          if (x.name != l.name) continue;
          l.forward_time_s = x.forward_time_s;
          l.backward_time_s = x.backward_time_s;
        }
      }
    }
  }
  return out;
}

GroupPoints collect_points(const std::vector<const schema::ProfileInput*>& group, double params) {
  GroupPoints g;
  const auto measurements = fit_measurements(group);
  for (size_t i = 0; i < group.size(); ++i) {
    const auto* in = group[i];
    g.any_measured = g.any_measured || in->profile.source == costmodel::CostSource::kMeasured;
    g.files += (g.files.empty() ? "" : ", ") + in->file + measured_on(in->profile);
    for (const auto& m : measurements[i]) {
      const double b = static_cast<double>(m.micro_batch);
      g.batches.insert(static_cast<int>(m.micro_batch));
      for (const auto& l : m.layers) {
        g.fwd[l.name].push_back({b, l.forward_time_s});
        g.bwd[l.name].push_back({b, l.backward_time_s});
      }
      if (m.optimizer_time_s > 0) g.opt.push_back({params, m.optimizer_time_s});
      if (m.optimizer_after_wait_time_s && m.optimizer_wait_s &&
          *m.optimizer_after_wait_time_s > 0) {
        g.opt_after_wait.push_back({params, *m.optimizer_after_wait_time_s});
        g.optimizer_waits.push_back(*m.optimizer_wait_s);
        if (m.data_after_wait_time_s) g.data_after_wait.push_back({b, *m.data_after_wait_time_s});
      }
      g.h2d.push_back({b, m.host_to_device_time_s});
      g.data.push_back({b, m.data_time_s});
      g.over.push_back({b, m.step_overhead_time_s});
      g.gradient_local.push_back(m.gradient_local_time_s.value_or(0.0));
      if (m.bucket_copy_time_s) g.bucket_copy.push_back({params, *m.bucket_copy_time_s});
      if (m.epoch_start_time_s) g.epoch_start.push_back(*m.epoch_start_time_s);
      if (m.process_start_time_s) g.process_start.push_back({b, *m.process_start_time_s});
      if (m.peak_memory_bytes) g.mem.push_back({b, *m.peak_memory_bytes});
    }
  }
  if (g.batches.empty()) {
    throw schema::InputError::at(group.front()->file, "/compute", "micro-batch measurements",
                                 "none");
  }
  return g;
}

// Layer fits; returns the median residual and counts the chosen forms.
double fit_layers(const costmodel::LayerGraph& graph, GroupPoints& g, const std::string& file,
                  costmodel::DeviceCosts& c, std::map<std::string, int>& forms) {
  std::vector<double> residuals;
  for (const auto& layer : graph.layers) {
    if (!g.fwd.count(layer.name)) {
      throw schema::InputError::at(file, "/compute/0/layers", "a timing of layer " + layer.name,
                                   "none", "a profile must time every layer of its model");
    }
    costmodel::LayerCost lc;
    lc.layer = layer.name;
    lc.kind = layer.kind;
    std::string form;
    lc.forward = fit_pass(g.fwd[layer.name], lc.forward_residual_rel, form);
    forms[form]++;
    lc.backward = fit_pass(g.bwd[layer.name], lc.backward_residual_rel, form);
    forms[form]++;
    residuals.push_back(lc.forward_residual_rel);
    residuals.push_back(lc.backward_residual_rel);
    c.layers.push_back(lc);
  }
  return costmodel::median(residuals);
}

// Returns true when the memory comes from measured peaks.
bool fit_memory(const GroupPoints& g, costmodel::DeviceCosts& c) {
  std::set<double> mem_batches;
  for (const auto& p : g.mem) mem_batches.insert(p.x);
  const costmodel::MemoryEstimate est = estimate_memory(c.model, c.precision);
  if (mem_batches.size() >= 2) {
    const CostFit f = fit_affine_absolute(g.mem);
    c.memory_fixed_bytes = f.cost.fixed_s;
    c.memory_per_sample_bytes = f.cost.per_unit_s;
    return true;
  }
  if (mem_batches.size() == 1) {
    // One micro-batch: first-principles growth per sample through the measured peak.
    std::vector<double> peaks;
    for (const auto& p : g.mem) peaks.push_back(p.y);
    c.memory_per_sample_bytes = est.per_sample_bytes;
    c.memory_fixed_bytes =
        std::max(0.0, costmodel::median(peaks) - est.per_sample_bytes * g.mem.front().x);
    return true;
  }
  c.memory_fixed_bytes = est.fixed_bytes;
  c.memory_per_sample_bytes = est.per_sample_bytes;
  return false;
}

// The process's first step beyond a steady one, against the micro-batch the profile began with:
// measured at one micro-batch, their median, the same at any; at several, fixed + per sample
// (ordinary least squares, both >= 0): a first step's first-touch of activations and workspaces
// grows with the micro-batch (docs/cost-model.md section 1, "The first step").
void fit_process_start(const std::vector<FitPoint>& points, costmodel::DeviceCosts& c) {
  if (points.empty()) return;  // nothing measured it: 0
  const CostFit f = fit_affine_absolute(points);
  if (f.distinct_x < 2) {
    std::vector<double> y;
    for (const auto& p : points) y.push_back(p.y);
    c.process_start_s = costmodel::median(y);
    return;
  }
  c.process_start_s = f.cost.fixed_s;
  c.process_start_per_sample_s = f.cost.per_unit_s;
}

bool any_nonzero(const std::vector<FitPoint>& pts) {
  return std::any_of(pts.begin(), pts.end(), [](const FitPoint& p) { return p.y != 0; });
}

}  // namespace

DeviceFit fit_device(const std::vector<const schema::ProfileInput*>& group) {
  check_group(group);
  const schema::Profile& first = group.front()->profile;
  DeviceFit out;
  costmodel::DeviceCosts& c = out.costs;
  c.device = first.device;
  c.precision = first.precision;
  c.model = *first.model;
  const costmodel::LayerGraph graph = build_layer_graph(c.model);
  const double params = static_cast<double>(graph.parameters());
  GroupPoints g = collect_points(group, params);
  c.source = g.any_measured ? costmodel::CostSource::kMeasured : costmodel::CostSource::kImported;
  std::map<std::string, int> forms;
  const double residual = fit_layers(graph, g, group.front()->file, c, forms);
  c.micro_batches.assign(g.batches.begin(), g.batches.end());
  if (!g.opt.empty()) c.optimizer = fit_proportional(g.opt).cost;  // x = parameters
  if (!g.opt_after_wait.empty()) {
    // Taken as the optimizer is; it applies after a wait of at least the longest one measured.
    c.optimizer_after_wait = fit_proportional(g.opt_after_wait).cost;
    c.optimizer_wait_s = *std::max_element(g.optimizer_waits.begin(), g.optimizer_waits.end());
    // The next step's data wait, fitted as the data wait is, where every such profile timed it.
    if (g.data_after_wait.size() == g.opt_after_wait.size())
      c.data_after_wait = fit_affine_absolute(g.data_after_wait).cost;
  }
  // A pass over the gradient, as the optimizer is one: x = parameters, where every profile timed
  // it.
  if (!g.bucket_copy.empty() && g.bucket_copy.size() == g.h2d.size())
    c.bucket_copy = fit_proportional(g.bucket_copy).cost;
  c.host_to_device = fit_affine_absolute(g.h2d).cost;
  c.data_wait = fit_affine_absolute(g.data).cost;
  c.step_overhead = fit_affine_absolute(g.over).cost;
  out.gradient_local_s = costmodel::median(g.gradient_local);
  // Once per epoch, measured by a profile's first step after its loader's restart or a log's
  // epoch-first steps, and by a profile's first step of the process: the medians.
  c.epoch_start_s = g.epoch_start.empty() ? 0.0 : costmodel::median(g.epoch_start);
  fit_process_start(g.process_start, c);
  out.host_costs_known = any_nonzero(g.h2d) || any_nonzero(g.data) || any_nonzero(g.over) ||
                         !g.epoch_start.empty() || !g.process_start.empty();
  out.memory_measured = fit_memory(g, c);
  const std::string sharding = fit_sharding_costs(group, c);
  const bool single = g.batches.size() == 1;
  std::string host = out.host_costs_known ? "from the profiles" : "not in the profiles";
  if (c.process_start_per_sample_s > 0) {
    const auto [lo, hi] =
        std::minmax_element(g.process_start.begin(), g.process_start.end(),
                            [](const FitPoint& a, const FitPoint& b) { return a.x < b.x; });
    host += fmt::format(
        " (process start {:.3f} s + {:.4f} s a sample, from first steps at "
        "micro-batches {:.0f}-{:.0f})",
        c.process_start_s, c.process_start_per_sample_s, lo->x, hi->x);
  }
  c.derived_from = fmt::format(
      "{} of {} profile(s) [{}]: layer passes {}{}; median layer residual {:.2f}%; optimizer "
      "proportional to parameters{}{}; host-side costs {}; memory {}{}",
      single ? "scaled" : "least-squares fit", group.size(), g.files, describe_forms(forms),
      single ? fmt::format(" (single micro-batch {}: t = c*b through the measured point, not a "
                           "fit; residual = spread between profiles)",
                           *g.batches.begin())
             : fmt::format(" through the measured points at micro-batches {}-{} (knots; the forms "
                           "outside them)",
                           *g.batches.begin(), *g.batches.rbegin()),
      100 * residual,
      c.optimizer_wait_s > 0
          ? fmt::format(" (after a {:.0f}-ms idle wait: {} of {} measurements{})",
                        c.optimizer_wait_s * 1e3, g.opt_after_wait.size(), g.opt.size(),
                        c.data_after_wait ? "; the next step's data wait too" : "")
          : "",
      c.bucket_copy ? fmt::format("; the copy into the all-reduce buckets at 2+ ranks {:.3f} ms "
                                  "(proportional to parameters)",
                                  c.bucket_copy->at(params) * 1e3)
                    : "",
      host,
      out.memory_measured ? "from measured peaks"
                          : "first-principles estimate (docs/cost-model.md)",
      sharding);
  return out;
}

}  // namespace vitsim::calibrate
