// Layer costs from the kernel-class transfer (see transfer_costs.h).
#include "calibrate/transfer_costs.h"

#include <array>
#include <map>

#include "calibrate/cost_fit.h"
#include "costmodel/kernel_inventory.h"
#include "costmodel/layer_graph.h"

namespace vitsim::calibrate {

using costmodel::Regime;

std::vector<int64_t> transfer_micro_batches() {
  std::vector<int64_t> out;
  for (int64_t b = 1; b <= 1024; b *= 2) out.push_back(b);
  return out;
}

namespace {

// Pass time of every layer of `model` at b: [layer][0 forward, 1 backward]. Layers of one kind
// share their kernels (the encoder blocks): computed once per kind.
std::vector<std::array<double, 2>> layer_pass_times(const costmodel::DeviceSpec& spec, Regime r,
                                                    const costmodel::TransferParams& p,
                                                    const costmodel::ViTConfig& model, int64_t b) {
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(model);
  std::map<costmodel::LayerKind, std::array<double, 2>> by_kind;
  std::vector<std::array<double, 2>> out;
  for (const auto& layer : graph.layers) {
    auto it = by_kind.find(layer.kind);
    if (it == by_kind.end()) {
      std::array<double, 2> t{};
      for (int bwd = 0; bwd < 2; ++bwd) {
        const auto kernels =
            costmodel::pass_kernels(layer, model, bwd == 1, r, costmodel::AttentionImpl::kFused, b);
        t[bwd] = costmodel::pass_time(costmodel::pass_load(kernels, spec, r), p).time_s();
      }
      it = by_kind.emplace(layer.kind, t).first;
    }
    out.push_back(it->second);
  }
  return out;
}

// Fits each layer pass over the micro-batches: times[i][layer][pass] at batches[i].
costmodel::DeviceCosts fitted(const costmodel::DeviceSpec& spec, Regime r,
                              const costmodel::ViTConfig& model,
                              const std::vector<std::vector<std::array<double, 2>>>& times) {
  const auto batches = transfer_micro_batches();
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(model);
  costmodel::DeviceCosts c;
  c.device = spec.id;
  c.precision = r;
  c.source = costmodel::CostSource::kTransferred;
  c.model = model;
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    costmodel::LayerCost lc;
    lc.layer = graph.layers[l].name;
    lc.kind = graph.layers[l].kind;
    for (int bwd = 0; bwd < 2; ++bwd) {
      std::vector<FitPoint> pts;
      for (size_t i = 0; i < batches.size(); ++i) {
        // An anchor layer measured at 0 (an imported log's zero-MAC final norm) stays 0.
        if (times[i][l][bwd] > 0)
          pts.push_back({static_cast<double>(batches[i]), times[i][l][bwd]});
      }
      if (pts.empty()) continue;  // the pass keeps its zero cost
      const CostFit f = fit_batch_cost(pts);
      (bwd ? lc.backward : lc.forward) = f.cost;
      (bwd ? lc.backward_residual_rel : lc.forward_residual_rel) = f.residual_rel;
    }
    c.layers.push_back(lc);
  }
  return c;
}

}  // namespace

costmodel::DeviceCosts model_layer_costs(const costmodel::DeviceSpec& spec, Regime regime,
                                         const costmodel::TransferParams& params,
                                         const costmodel::ViTConfig& model) {
  std::vector<std::vector<std::array<double, 2>>> times;
  for (int64_t b : transfer_micro_batches())
    times.push_back(layer_pass_times(spec, regime, params, model, b));
  return fitted(spec, regime, model, times);
}

costmodel::DeviceCosts anchored_layer_costs(const costmodel::DeviceCosts& anchor,
                                            const costmodel::DeviceSpec& anchor_spec,
                                            const costmodel::DeviceSpec& spec, Regime regime,
                                            const costmodel::TransferParams& params) {
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(anchor.model);
  std::vector<std::vector<std::array<double, 2>>> times;
  for (int64_t b : transfer_micro_batches()) {
    const auto target = layer_pass_times(spec, regime, params, anchor.model, b);
    const auto base = layer_pass_times(anchor_spec, anchor.precision, params, anchor.model, b);
    const costmodel::LayerTimes measured =
        costmodel::layer_times(anchor, graph, static_cast<double>(b));
    std::vector<std::array<double, 2>> t(graph.layers.size());
    for (size_t l = 0; l < graph.layers.size(); ++l) {
      t[l][0] = measured.forward_s[l] * target[l][0] / base[l][0];
      t[l][1] = measured.backward_s[l] * target[l][1] / base[l][1];
    }
    times.push_back(t);
  }
  return fitted(spec, regime, anchor.model, times);
}

double model_layers_time_s(const costmodel::DeviceSpec& spec, Regime regime,
                           const costmodel::TransferParams& params,
                           const costmodel::ViTConfig& model, int64_t micro_batch) {
  double t = 0;
  for (const auto& pass : layer_pass_times(spec, regime, params, model, micro_batch))
    t += pass[0] + pass[1];
  return t;
}

}  // namespace vitsim::calibrate
