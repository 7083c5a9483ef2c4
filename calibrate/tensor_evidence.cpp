// Tensor-core efficiency from public timm training benchmarks (see tensor_evidence.h).
#include "calibrate/tensor_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <vector>

#include "calibrate/roofline.h"
#include "costmodel/layer_graph.h"
#include "costmodel/statistics.h"

namespace vitsim::calibrate {

namespace {

// timm name -> preset, e.g. "vit_base_patch16_224" -> vit_b_16 at 224 px.
std::optional<costmodel::ViTConfig> timm_model(const std::string& name) {
  static const std::map<std::string, std::string> kSizes = {
      {"tiny", "vit_ti_16"}, {"small", "vit_s_16"}, {"base", "vit_b_16"}, {"large", "vit_l_16"}};
  static const std::regex kName(R"(vit_(tiny|small|base|large)_patch16_(\d+))");
  std::smatch m;
  if (!std::regex_match(name, m, kName)) return std::nullopt;
  costmodel::ViTConfig c = costmodel::vit_preset(kSizes.at(m[1]));
  c.image_size = std::stoll(m[2]);
  return c;
}

// A row of a training benchmark: timm's result files name it (benchmark-train-*); an inference
// row (benchmark-infer-*, the forward alone) is no 3x-forward step. A table without the column
// (written before timm's tables were shipped together) is taken as training rows.
bool training_row(const schema::CsvTable& t, size_t i) {
  return !t.has_column("source_file") ||
         t.at(i, "source_file").find("benchmark-train") != std::string::npos;
}

bool same_architecture(const costmodel::ViTConfig& a, const costmodel::ViTConfig& b) {
  return a.width == b.width && a.depth == b.depth && a.heads == b.heads &&
         a.patch_size == b.patch_size && a.mlp_ratio == b.mlp_ratio;
}

}  // namespace

std::optional<TensorEfficiencyEvidence> tensor_efficiency_from_timm(
    const schema::CsvTable& t, const costmodel::DeviceCatalog& catalog,
    const costmodel::ViTConfig& model) {
  t.require_columns({"gpu", "precision", "model", "img_size", "samples_per_sec"});
  // Rows at the model's own image size when there are any (attention's share grows with tokens).
  bool same_size_exists = false;
  for (size_t i = 0; i < t.rows(); ++i) {
    auto cfg = timm_model(t.at(i, "model"));
    same_size_exists = same_size_exists || (t.at(i, "precision") == "amp" && training_row(t, i) &&
                                            cfg && same_architecture(*cfg, model) &&
                                            t.integer(i, "img_size") == model.image_size);
  }
  std::vector<double> eta, rate;
  std::string gpu_used, model_used;
  const costmodel::DeviceSpec* spec_used = nullptr;
  double flop_used = 0, bytes_used = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "precision") != "amp" || !training_row(t, i)) continue;
    auto cfg = timm_model(t.at(i, "model"));
    if (!cfg || !same_architecture(*cfg, model)) continue;
    cfg->image_size = t.integer(i, "img_size");
    if (same_size_exists && cfg->image_size != model.image_size) continue;
    const auto* spec = catalog.find(t.at(i, "gpu"));
    if (!spec || !(spec->fp16_tensor_peak_flop_per_s > 0)) continue;
    const double flop_per_image = 3.0 * 2.0 * build_layer_graph(*cfg).forward_mac_per_sample();
    rate.push_back(t.positive(i, "samples_per_sec"));
    eta.push_back(rate.back() * flop_per_image / spec->fp16_tensor_peak_flop_per_s);
    gpu_used = spec->id;
    model_used = t.at(i, "model");
    spec_used = spec;
    flop_used = flop_per_image;
    bytes_used = 0;
    for (const auto& l : build_layer_graph(*cfg).layers) {
      for (bool bwd : {false, true}) {
        bytes_used += pass_bytes_per_sample(l, bwd, costmodel::Regime::kAmpFp16);
      }
    }
  }
  if (eta.empty()) return std::nullopt;
  TensorEfficiencyEvidence e;
  e.compute_efficiency = costmodel::median(eta);
  e.rows = static_cast<int>(eta.size());
  e.spread_rel =
      (*std::max_element(eta.begin(), eta.end()) - *std::min_element(eta.begin(), eta.end())) /
      (2 * e.compute_efficiency);
  e.image_time_s = 1.0 / costmodel::median(rate);
  e.flop_per_image = flop_used;
  e.bytes_per_image = bytes_used;
  e.peak_flop_per_s = spec_used->fp16_tensor_peak_flop_per_s;
  e.bandwidth_bytes_per_s = spec_used->memory_bandwidth_bytes_per_s;
  e.description = fmt::format(
      "timm training benchmark ({} AMP rows of {} on {}: median {:.1f} images/s -> {:.3f} of the "
      "fp16 tensor peak; {})",
      e.rows, model_used, gpu_used, costmodel::median(rate), e.compute_efficiency, t.file());
  return e;
}

}  // namespace vitsim::calibrate
