// vitsim model: the layer graph of a ViT (parameters, MACs, activation memory per layer).
// FLOP convention (docs/layer-graph.md): MAC = one multiply-add; FLOPs = 2 x MACs.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/model_kernels.h"
#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/run_app.h"
#include "costmodel/layer_graph.h"
#include "costmodel/regime.h"
#include "schema/model_io.h"

namespace vitsim::cli {

namespace {

// The table and the JSON show fp32 figures (the layer graph's default element size).
constexpr costmodel::Regime kFp32 = costmodel::Regime::kFp32;

std::string with_commas(int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

nlohmann::json to_json(const costmodel::LayerGraph& g) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : g.layers) {
    layers.push_back({{"name", l.name},
                      {"kind", costmodel::to_string(l.kind)},
                      {"parameters", l.parameters},
                      {"forward_mac_per_sample", l.forward_mac_per_sample},
                      {"forward_flop_per_sample", l.forward_flop_per_sample()},
                      {"backward_flop_per_sample", 2 * l.backward_mac_per_sample()},
                      {"activation_bytes_per_sample", l.activation_bytes_per_sample()},
                      {"gradient_bytes", l.gradient_bytes(kFp32)}});
  }
  // The layer graph's backward rule, summed: the PyTorch comparison's MFU reads it (docs/gpu.md).
  double backward_mac = 0;
  for (const auto& l : g.layers) backward_mac += l.backward_mac_per_sample();
  return {{"model", schema::write_model(g.config)},
          {"flop_convention", "MAC = one multiply-add; FLOP = 2 x MAC"},
          {"activation_element_bytes", 4},
          {"layers", layers},
          {"totals",
           {{"parameters", g.parameters()},
            {"forward_mac_per_sample", g.forward_mac_per_sample()},
            {"forward_flop_per_sample", 2 * g.forward_mac_per_sample()},
            {"backward_flop_per_sample", 2 * backward_mac},
            {"activation_bytes_per_sample", g.activation_bytes_per_sample()},
            {"gradient_bytes", g.gradient_bytes(kFp32)}}}};
}

void print_table(const costmodel::LayerGraph& g) {
  const auto& c = g.config;
  std::cout << fmt::format(
      "{}: image {}x{}, patch {}, width {}, depth {}, heads {}, MLP {}, {} classes, {} tokens\n",
      c.name, c.image_size, c.image_size, c.patch_size, c.width, c.depth, c.heads, c.mlp_dim(),
      c.classes, c.tokens());
  const char* row = "{:<20} {:<12} {:>12} {:>14} {:>16} {:>12}\n";
  std::cout << fmt::format(row, "layer", "kind", "parameters", "forward", "activations",
                           "gradient");
  std::cout << fmt::format(row, "", "", "count", "GMAC/sample", "MB/sample fp32", "MB fp32");
  for (const auto& l : g.layers) {
    std::cout << fmt::format("{:<20} {:<12} {:>12} {:>14.4f} {:>16.3f} {:>12.3f}\n", l.name,
                             costmodel::to_string(l.kind), l.parameters,
                             l.forward_mac_per_sample / 1e9, l.activation_bytes_per_sample() / 1e6,
                             l.gradient_bytes(kFp32) / 1e6);
  }
  std::cout << fmt::format("{:<20} {:<12} {:>12} {:>14.4f} {:>16.3f} {:>12.3f}\n", "total", "",
                           g.parameters(), g.forward_mac_per_sample() / 1e9,
                           g.activation_bytes_per_sample() / 1e6, g.gradient_bytes(kFp32) / 1e6);
  std::cout
      << "\nparameters:           " << with_commas(g.parameters()) << "\n"
      << fmt::format("forward per sample:   {:.2f} GMAC = {:.2f} GFLOP (FLOP = 2 x multiply-add)\n",
                     g.forward_mac_per_sample() / 1e9, 2 * g.forward_mac_per_sample() / 1e9)
      << fmt::format("activations kept:     {:.1f} MB per sample (fp32; half in amp-*/ds-*)\n",
                     g.activation_bytes_per_sample() / 1e6)
      << fmt::format("gradient (fp32):      {} bytes\n", with_commas(g.gradient_bytes(kFp32)));
}

}  // namespace

int cmd_model(int argc, char** argv) {
  CLI::App app{
      "Print the layer graph of a ViT: per layer parameters, forward multiply-adds and "
      "activation memory, in execution order, with totals.",
      "vitsim model"};
  clikit::ModelOptions model;
  bool json = false, kernels = false;
  std::string precision = "fp32", attention = "fused", micro_batch = "64";
  clikit::add_model_options(app, model, clikit::PresetOption::kPositional);
  app.add_flag("--json", json, "print JSON instead of the table");
  app.add_flag("--kernels", kernels,
               "list the kernels of one training step as eager PyTorch/LibTorch launches them "
               "(the kernel-class transfer's inventory, docs/cost-model.md section 4)");
  app.add_option(
         "--precision", precision,
         "with --kernels: " +
             costmodel::joined(
                 costmodel::names_of(costmodel::kRegimeNames, costmodel::is_compute_regime), ", "))
      ->capture_default_str();
  app.add_option("--micro-batch", micro_batch, "with --kernels: samples per GPU")
      ->capture_default_str();
  app.add_option("--attention", attention,
                 "with --kernels: fused (scaled_dot_product_attention, PyTorch >= 2) or unfused "
                 "(PyTorch 1.x)")
      ->capture_default_str();
  return clikit::run_app(app, argc, argv, [&] {
    const auto graph = costmodel::build_layer_graph(model.resolve());
    if (!kernels) {
      for (const char* o : {"--precision", "--micro-batch", "--attention"}) {
        if (app.count(o) > 0) throw std::invalid_argument(std::string(o) + ": only with --kernels");
      }
    } else {
      KernelListing what;
      what.regime = clikit::parse_option(precision, "precision", costmodel::parse_regime);
      what.micro_batch =
          clikit::parse_option(micro_batch, "micro-batch", clikit::parse_positive_integer);
      if (what.micro_batch > (int64_t{1} << 20))
        throw std::invalid_argument("--micro-batch: " + micro_batch +
                                    " is absurd (at most 1048576)");
      if (attention != "fused" && attention != "unfused")
        throw std::invalid_argument("--attention: expected fused or unfused, got '" + attention +
                                    "'");
      what.attention = attention == "fused" ? costmodel::AttentionImpl::kFused
                                            : costmodel::AttentionImpl::kUnfused;
      const auto step =
          costmodel::step_kernels(graph, what.regime, what.attention, what.micro_batch);
      if (json) {
        std::cout << kernels_json(graph, what, step).dump(2) << "\n";
      } else {
        print_kernels(graph, what, step);
      }
      return 0;
    }
    if (json) {
      std::cout << to_json(graph).dump(2) << "\n";
    } else {
      print_table(graph);
    }
    return 0;
  });
}

}  // namespace vitsim::cli
