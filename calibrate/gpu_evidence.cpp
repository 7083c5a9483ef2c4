// GPU evidence rows from profiles and timm's benchmark tables (see gpu_evidence.h).
#include "calibrate/gpu_evidence.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <regex>
#include <tuple>

#include "calibrate/sustained_rates.h"
#include "costmodel/gpu_transfer.h"
#include "costmodel/statistics.h"

namespace vitsim::calibrate {

using costmodel::Regime;

const char* to_string(EvidenceKind k) {
  switch (k) {
    case EvidenceKind::kTraining:
      return "training";
    case EvidenceKind::kForwardOnly:
      return "forward only";
    case EvidenceKind::kGemm:
      return "GEMM throughput";
  }
  return "?";
}

std::vector<GpuEvidence> evidence_from_profiles(const std::vector<schema::ProfileInput>& profiles,
                                                const costmodel::DeviceCatalog& catalog) {
  // (device, regime, micro-batch) -> the parts of every profile that measured it.
  std::map<std::tuple<std::string, Regime, int64_t>, std::vector<const schema::ProfileInput*>>
      groups;
  std::map<std::tuple<std::string, Regime, int64_t>, std::vector<size_t>> entry;
  for (const auto& in : profiles) {
    const auto* spec = catalog.find(in.profile.device);
    if (!spec || spec->sm_count <= 0 || !in.profile.model) continue;
    for (size_t i = 0; i < in.profile.compute.size(); ++i) {
      const auto key = std::make_tuple(spec->id, costmodel::compute_regime(in.profile.precision),
                                       in.profile.compute[i].micro_batch);
      groups[key].push_back(&in);
      entry[key].push_back(i);
    }
  }
  std::vector<GpuEvidence> out;
  for (const auto& [key, group] : groups) {
    std::vector<double> fwd, bwd, opt;
    std::string files;
    for (size_t j = 0; j < group.size(); ++j) {
      const schema::MicroBatchProfile& m = group[j]->profile.compute[entry.at(key)[j]];
      double f = 0, b = 0;
      for (const auto& l : m.layers) {
        f += l.forward_time_s;
        b += l.backward_time_s;
      }
      fwd.push_back(f);
      bwd.push_back(b);
      opt.push_back(m.optimizer_time_s);
      files +=
          (files.empty() ? "" : ", ") + std::filesystem::path(group[j]->file).filename().string();
    }
    GpuEvidence e;
    std::tie(e.gpu, e.regime, e.micro_batch) = key;
    e.kind = EvidenceKind::kTraining;
    e.attention = costmodel::AttentionImpl::kFused;
    e.model = *group.front()->profile.model;
    e.forward_s = costmodel::median(fwd);
    e.backward_s = costmodel::median(bwd);
    e.optimizer_s = costmodel::median(opt);
    e.total_s = e.forward_s + e.backward_s + e.optimizer_s;
    e.optimizer_bytes_per_parameter = costmodel::optimizer_step_bytes_per_parameter(e.regime);
    e.source = "profile";
    e.description = fmt::format("{} profile(s): {}", group.size(), files);
    if (e.total_s > 0) out.push_back(e);
  }
  return out;
}

namespace {

// timm's model name -> the preset's architecture at the row's image size (vit_base_patch16_224).
bool same_model(const std::string& timm_name, long long img_size, const costmodel::ViTConfig& m) {
  static const std::map<std::string, std::string> kSizes = {
      {"tiny", "vit_ti_16"}, {"small", "vit_s_16"}, {"base", "vit_b_16"}, {"large", "vit_l_16"}};
  static const std::regex kName(R"(vit_(tiny|small|base|large)_patch16_(\d+))");
  std::smatch s;
  if (!std::regex_match(timm_name, s, kName)) return false;
  const costmodel::ViTConfig c = costmodel::vit_preset(kSizes.at(s[1]));
  return c.width == m.width && c.depth == m.depth && c.heads == m.heads &&
         c.patch_size == m.patch_size && c.mlp_ratio == m.mlp_ratio &&
         std::stoll(s[2]) == m.image_size && img_size == m.image_size;
}

const costmodel::DeviceSpec* timm_gpu(const costmodel::DeviceCatalog& catalog,
                                      const std::string& name) {
  static const std::map<std::string, std::string> kAliases = {
      {"4090", "rtx4090"}, {"5090", "rtx5090"}, {"pro6000maxq", "rtx-pro-6000-max-q"}};
  if (const auto* s = catalog.find(name)) return s;
  auto it = kAliases.find(name);
  return it == kAliases.end() ? nullptr : catalog.find(it->second);
}

// A benchmark row's batch: 1 to 1,000,000 images (a larger one is no GPU's batch, a smaller one
// no measurement).
long long batch_of(const schema::CsvTable& t, size_t row) {
  const long long b = t.integer(row, "batch_size");
  if (b < 1 || b > 1000000) t.fail(row, "batch_size", "a batch of 1 to 1,000,000 images");
  return b;
}

bool timm_regime(const std::string& precision, Regime& out) {
  if (precision == "amp")
    out = Regime::kAmpFp16;
  else if (precision == "amp_bf16")
    out = Regime::kAmpBf16;
  else if (precision == "bf16")
    out = Regime::kDsBf16;  // the model itself in bf16, no autocast
  else
    return false;
  return true;
}

}  // namespace

std::vector<GpuEvidence> evidence_from_timm(const schema::CsvTable& t,
                                            const costmodel::DeviceCatalog& catalog,
                                            const costmodel::ViTConfig& model) {
  t.require_columns({"gpu", "precision", "torch_compile", "pytorch", "cuda", "model", "img_size",
                     "batch_size", "samples_per_sec", "source_file"});
  static const std::regex kPytorch(R"(pt(\d)(\d+))");
  using Key = std::tuple<std::string, Regime, long long, std::string, EvidenceKind>;
  std::map<Key, std::vector<double>> rates;
  std::map<Key, std::string> cuda;
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string& file = t.at(i, "source_file");
    EvidenceKind kind = EvidenceKind::kTraining;
    if (file.find("benchmark-train") != std::string::npos)
      kind = EvidenceKind::kTraining;
    else if (file.find("benchmark-infer") != std::string::npos)
      kind = EvidenceKind::kForwardOnly;
    else
      continue;  // model_benchmark_* files name no PyTorch version
    Regime regime = Regime::kFp32;
    std::smatch pt;
    const std::string& version = t.at(i, "pytorch");
    if (t.at(i, "torch_compile") != "eager" || !timm_regime(t.at(i, "precision"), regime) ||
        !std::regex_match(version, pt, kPytorch) ||
        !same_model(t.at(i, "model"), t.integer(i, "img_size"), model))
      continue;
    const auto* spec = timm_gpu(catalog, t.at(i, "gpu"));
    if (!spec || !spec->supports(regime)) continue;
    const Key key{spec->id, regime, batch_of(t, i), version, kind};
    rates[key].push_back(t.positive(i, "samples_per_sec"));
    cuda[key] = t.at(i, "cuda");
  }
  std::vector<GpuEvidence> out;
  for (const auto& [key, r] : rates) {
    GpuEvidence e;
    std::string version;
    long long batch = 0;
    std::tie(e.gpu, e.regime, batch, version, e.kind) = key;
    e.micro_batch = batch;
    e.attention = costmodel::attention_for_pytorch_major(version[2] - '0');
    e.model = model;
    e.total_s = static_cast<double>(batch) / costmodel::median(r);
    e.optimizer_bytes_per_parameter =
        e.kind == EvidenceKind::kTraining ? costmodel::kSgdMomentumStepBytesPerParameter : 0;
    e.source = e.kind == EvidenceKind::kTraining ? "timm training" : "timm inference";
    e.description = fmt::format("timm {} {} {} ({} row(s), median {:.1f} images/s; {})",
                                e.kind == EvidenceKind::kTraining ? "train" : "infer", version,
                                cuda.at(key), r.size(), costmodel::median(r),
                                std::filesystem::path(t.file()).filename().string());
    out.push_back(e);
  }
  return out;
}

std::vector<GpuEvidence> evidence_from_aitemplate(const schema::CsvTable& t,
                                                  const costmodel::DeviceCatalog& catalog,
                                                  const costmodel::ViTConfig& model) {
  t.require_columns({"gpu", "framework", "model", "mode", "batch_size", "latency_ms", "source"});
  static const std::regex kFramework(R"(PyTorch (\d+)\.(\d+)[^,]* eager.*)");
  static const std::regex kSize(R"(vit_[a-z]+_patch16_(\d+))");
  static const std::regex kA100(R"(A100.*40GB.*)");
  std::vector<GpuEvidence> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    std::smatch fw, size;
    const std::string& framework = t.at(i, "framework");
    const std::string& name = t.at(i, "model");
    if (t.at(i, "mode") != "inference" || !std::regex_match(framework, fw, kFramework) ||
        !std::regex_match(name, size, kSize) || !same_model(name, std::stoll(size[1]), model))
      continue;
    const auto* spec = std::regex_match(t.at(i, "gpu"), kA100) ? catalog.find("a100-sxm4-40gb")
                                                               : catalog.find(t.at(i, "gpu"));
    if (!spec || !spec->supports(Regime::kDsFp16)) continue;
    GpuEvidence e;
    e.gpu = spec->id;
    e.regime = Regime::kDsFp16;
    e.micro_batch = batch_of(t, i);
    e.kind = EvidenceKind::kForwardOnly;
    e.attention = costmodel::attention_for_pytorch_major(std::stoi(fw[1]));
    e.model = model;
    const double latency_ms = t.positive(i, "latency_ms");
    e.total_s = latency_ms / 1e3;
    e.source = "AITemplate inference";
    e.description =
        fmt::format("AITemplate's PyTorch {}.{} eager .half() forward ({:.2f} ms; {})", fw[1].str(),
                    fw[2].str(), latency_ms, std::filesystem::path(t.file()).filename().string());
    out.push_back(e);
  }
  return out;
}

bool is_aitemplate_table(const schema::CsvTable& t) {
  return t.has_column("latency_ms");
}

bool is_timm_table(const schema::CsvTable& t) {
  return t.has_column("samples_per_sec");
}

std::vector<GpuEvidence> evidence_from_public_table(const schema::CsvTable& t,
                                                    const costmodel::DeviceCatalog& catalog,
                                                    const costmodel::ViTConfig& model) {
  if (is_gemm_table(t)) return evidence_from_gemm_table(t, catalog);
  return is_aitemplate_table(t) ? evidence_from_aitemplate(t, catalog, model)
                                : evidence_from_timm(t, catalog, model);
}

std::vector<const costmodel::DeviceSpec*> gpus_with_evidence(
    const std::vector<GpuEvidence>& rows, const costmodel::DeviceCatalog& catalog, bool tensor) {
  std::map<std::string, const costmodel::DeviceSpec*> out;
  for (const auto& r : rows) {
    const auto* spec = catalog.find(r.gpu);
    if (spec && is_step(r) && spec->tensor_math(r.regime) == tensor) out[spec->id] = spec;
  }
  std::vector<const costmodel::DeviceSpec*> v;
  for (const auto& [id, spec] : out) v.push_back(spec);
  return v;
}

}  // namespace vitsim::calibrate
