// vitsim model --kernels: the kernel inventory of one training step (model_kernels.h).
#include "cli/model_kernels.h"

#include <fmt/format.h>

#include <array>
#include <iostream>
#include <string>

#include "schema/model_io.h"

namespace vitsim::cli {

namespace {

using costmodel::KernelClass;

constexpr std::array<KernelClass, 3> kClasses = {KernelClass::kMatrix, KernelClass::kAttention,
                                                 KernelClass::kMemory};

struct Totals {
  int64_t kernels = 0;
  double flop = 0, bytes = 0;
  void add(const costmodel::Kernel& k) {
    ++kernels;
    flop += k.flop;
    bytes += k.bytes;
  }
};

std::array<Totals, 3> class_totals(const std::vector<costmodel::StepKernel>& step) {
  std::array<Totals, 3> t;
  for (const auto& s : step) t[static_cast<size_t>(s.kernel.cls)].add(s.kernel);
  return t;
}

const char* pass_name(bool backward) {
  return backward ? "backward" : "forward";
}

}  // namespace

nlohmann::json kernels_json(const costmodel::LayerGraph& graph, const KernelListing& what,
                            const std::vector<costmodel::StepKernel>& step) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& s : step) {
    const auto& k = s.kernel;
    kernels.push_back({{"layer", s.layer},
                       {"pass", pass_name(s.backward)},
                       {"name", k.name},
                       {"class", costmodel::to_string(k.cls)},
                       {"flop", k.flop},
                       {"bytes", k.bytes},
                       {"rows", k.rows},
                       {"cols", k.cols},
                       {"blocks", k.blocks}});
  }
  nlohmann::json totals = nlohmann::json::object();
  const auto t = class_totals(step);
  for (const auto c : kClasses) {
    const auto& x = t[static_cast<size_t>(c)];
    totals[costmodel::to_string(c)] = {
        {"kernels", x.kernels}, {"flop", x.flop}, {"bytes", x.bytes}};
  }
  return {{"model", schema::write_model(graph.config)},
          {"precision", costmodel::to_string(what.regime)},
          {"micro_batch", what.micro_batch},
          {"attention", costmodel::to_string(what.attention)},
          {"scope", "forward and backward of every layer, one training step; the optimizer apart"},
          {"kernels", kernels},
          {"totals", totals}};
}

void print_kernels(const costmodel::LayerGraph& graph, const KernelListing& what,
                   const std::vector<costmodel::StepKernel>& step) {
  std::cout << fmt::format(
      "{}, {}, micro-batch {}, {} attention: the kernels of one training step as eager "
      "PyTorch/LibTorch launches them (forward and backward; the optimizer apart; "
      "docs/cost-model.md, section 4)\n\n",
      graph.config.name, costmodel::to_string(what.regime), what.micro_batch,
      costmodel::to_string(what.attention));
  const char* row = "{:<12} {:>8} {:>12} {:>12}\n";
  std::cout << fmt::format(row, "class", "kernels", "GFLOP", "GB moved");
  const auto t = class_totals(step);
  Totals all;
  for (const auto c : kClasses) {
    const auto& x = t[static_cast<size_t>(c)];
    std::cout << fmt::format("{:<12} {:>8} {:>12.1f} {:>12.2f}\n", costmodel::to_string(c),
                             x.kernels, x.flop / 1e9, x.bytes / 1e9);
    all.kernels += x.kernels;
    all.flop += x.flop;
    all.bytes += x.bytes;
  }
  std::cout << fmt::format("{:<12} {:>8} {:>12.1f} {:>12.2f}\n\n", "total", all.kernels,
                           all.flop / 1e9, all.bytes / 1e9);
  // One line per layer pass: its kernels by class.
  std::cout << fmt::format("{:<20} {:<9} {:>8} {:>14} {:>14} {:>12}\n", "layer", "pass", "kernels",
                           "matrix GFLOP", "attn GFLOP", "memory GB");
  size_t i = 0;
  while (i < step.size()) {
    const auto& first = step[i];
    Totals m, a, mem;
    size_t j = i;
    for (; j < step.size() && step[j].layer == first.layer && step[j].backward == first.backward;
         ++j) {
      const auto& k = step[j].kernel;
      (k.cls == KernelClass::kMatrix ? m : k.cls == KernelClass::kAttention ? a : mem).add(k);
    }
    std::cout << fmt::format("{:<20} {:<9} {:>8} {:>14.2f} {:>14.2f} {:>12.3f}\n", first.layer,
                             pass_name(first.backward), j - i, m.flop / 1e9, a.flop / 1e9,
                             mem.bytes / 1e9);
    i = j;
  }
}

}  // namespace vitsim::cli
