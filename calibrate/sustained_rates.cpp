// Sustained matrix rates from GEMM throughput tables (see sustained_rates.h).
#include "calibrate/sustained_rates.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "costmodel/statistics.h"

namespace vitsim::calibrate {

using costmodel::Regime;

const char* to_string(MatrixUnit u) {
  switch (u) {
    case MatrixUnit::kFp32:
      return "fp32";
    case MatrixUnit::kTensor16:
      return "16-bit";
    case MatrixUnit::kTf32:
      return "tf32";
  }
  return "?";
}

MatrixUnit matrix_unit(costmodel::MathType m) {
  switch (m) {
    case costmodel::MathType::kFp32:
      return MatrixUnit::kFp32;
    case costmodel::MathType::kFp16:
    case costmodel::MathType::kBf16:
      return MatrixUnit::kTensor16;
    case costmodel::MathType::kTf32:
      return MatrixUnit::kTf32;
  }
  return MatrixUnit::kFp32;
}

MatrixUnit unit_of(const costmodel::DeviceSpec& spec, Regime regime) {
  return spec.tensor_math(regime) ? matrix_unit(costmodel::math_type(regime)) : MatrixUnit::kFp32;
}

bool class_has_step_evidence(const std::vector<GpuEvidence>& rows,
                             const costmodel::DeviceCatalog& catalog,
                             const costmodel::DeviceSpec& target, Regime regime) {
  if (target.arch_class.empty()) return false;
  const MatrixUnit unit = unit_of(target, regime);
  for (const auto& r : rows) {
    const auto* spec = catalog.find(r.gpu);
    if (spec && is_step(r) && spec->arch_class == target.arch_class &&
        unit_of(*spec, r.regime) == unit)
      return true;
  }
  return false;
}

bool is_gemm_table(const schema::CsvTable& t) {
  return t.has_column("tflops") && t.has_column("dtype");
}

std::vector<GpuEvidence> evidence_from_gemm_table(const schema::CsvTable& t,
                                                  const costmodel::DeviceCatalog& catalog) {
  t.require_columns({"gpu", "device_name", "dtype", "tflops", "pytorch", "source"});
  static const std::map<std::string, Regime> kDtypes = {{"fp32", Regime::kFp32},
                                                        {"tf32", Regime::kTf32},
                                                        {"fp16", Regime::kDsFp16},
                                                        {"bf16", Regime::kDsBf16}};
  std::vector<GpuEvidence> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    const auto dtype = kDtypes.find(t.at(i, "dtype"));
    if (dtype == kDtypes.end()) t.fail(i, "dtype", "fp32, tf32, fp16 or bf16");
    const double tflops = t.positive(i, "tflops");
    if (tflops > 1e5) t.fail(i, "tflops", "a throughput in TFLOP/s below 1e5");
    const auto* spec = catalog.find(t.at(i, "gpu"));
    if (!spec) continue;
    // Pascal's fp16 has no tensor peak of its own (DeviceSpec falls back to fp32's): not evidence
    // of tensor cores, nor of fp32 units measured as fp32.
    const bool fp16_on_fp32_units =
        costmodel::math_type(dtype->second) == costmodel::MathType::kFp16 &&
        !spec->tensor_math(dtype->second);
    if (!spec->supports(dtype->second) || fp16_on_fp32_units) continue;
    GpuEvidence e;
    e.gpu = spec->id;
    e.regime = dtype->second;
    e.kind = EvidenceKind::kGemm;
    e.gemm_flop_per_s = tflops * 1e12;
    e.source = "torch.mm throughput";
    e.description = fmt::format("{} {} {:.2f} TFLOP/s (PyTorch {}; {}, {})", t.at(i, "device_name"),
                                t.at(i, "dtype"), tflops, t.at(i, "pytorch"), t.at(i, "source"),
                                std::filesystem::path(t.file()).filename().string());
    out.push_back(e);
  }
  return out;
}

SustainedRates::SustainedRates(const std::vector<GpuEvidence>& rows,
                               const costmodel::DeviceCatalog& catalog) {
  std::map<std::string, std::map<MatrixUnit, std::vector<double>>> f;
  for (const auto& r : rows) {
    if (r.kind != EvidenceKind::kGemm) continue;
    const auto* spec = catalog.find(r.gpu);
    if (!spec) continue;
    const double peak = spec->matrix_peak_flop_per_s(r.regime);
    f[spec->id][matrix_unit(costmodel::math_type(r.regime))].push_back(r.gemm_flop_per_s / peak);
  }
  for (const auto& [gpu, units] : f) {
    for (const auto& [unit, v] : units) {
      own_[gpu][unit] = costmodel::median(v);
      count_[gpu][unit] = static_cast<int>(v.size());
    }
    specs_.push_back(*catalog.find(gpu));
  }
}

namespace {

// The median over `gpus` (each one vote) of their own fraction of `unit`; 0 when none has one.
double vote(const std::map<std::string, std::map<MatrixUnit, double>>& own,
            const std::vector<std::string>& gpus, MatrixUnit unit, std::vector<std::string>& used) {
  std::vector<double> v;
  for (const auto& g : gpus) {
    auto it = own.find(g);
    if (it == own.end() || !it->second.count(unit)) continue;
    v.push_back(it->second.at(unit));
    used.push_back(g);
  }
  return v.empty() ? 0.0 : costmodel::median(v);
}

}  // namespace

SustainedFraction SustainedRates::fraction(const costmodel::DeviceSpec& spec,
                                           MatrixUnit unit) const {
  std::vector<std::string> self = {spec.id}, siblings, klass;
  for (const auto& s : specs_) {
    if (s.id != spec.id && s.same_chip(spec)) siblings.push_back(s.id);
    if (!spec.arch_class.empty() && s.arch_class == spec.arch_class) klass.push_back(s.id);
  }
  struct Step {
    const std::vector<std::string>* gpus;
    MatrixUnit unit;
    const char* what;
  };
  std::vector<Step> steps = {{&self, unit, "its own"},
                             {&siblings, unit, "its same-chip siblings'"}};
  if (unit == MatrixUnit::kTf32) {
    steps.push_back({&self, MatrixUnit::kTensor16, "its own 16-bit (same tensor cores)"});
    steps.push_back({&siblings, MatrixUnit::kTensor16, "its siblings' 16-bit (same tensor cores)"});
  }
  steps.push_back({&klass, unit, "its class's"});
  if (unit == MatrixUnit::kTf32)
    steps.push_back({&klass, MatrixUnit::kTensor16, "its class's 16-bit (same tensor cores)"});
  for (const Step& step : steps) {
    std::vector<std::string> used;
    const double v = vote(own_, *step.gpus, step.unit, used);
    if (!(v > 0)) continue;
    SustainedFraction f;
    f.value = v;
    f.evidence = true;
    int rows = 0;
    for (const auto& g : used) rows += count_.at(g).at(step.unit);
    f.from = fmt::format("{} torch.mm rows ({} of {}; {} row(s){})", step.what,
                         to_string(step.unit), fmt::join(used, ", "), rows,
                         step.gpus == &klass ? ", class " + spec.arch_class : "");
    return f;
  }
  SustainedFraction f;
  f.from = spec.arch_class.empty()
               ? "first principles (no kernel-level evidence, no architecture class)"
               : "first principles (no kernel-level evidence of class " + spec.arch_class + ")";
  return f;
}

costmodel::DeviceSpec SustainedRates::apply(const costmodel::DeviceSpec& spec) const {
  costmodel::DeviceSpec s = spec;
  s.fp32_peak_flop_per_s *= fraction(spec, MatrixUnit::kFp32).value;
  const double tensor = fraction(spec, MatrixUnit::kTensor16).value;
  s.fp16_tensor_peak_flop_per_s *= tensor;
  s.bf16_tensor_peak_flop_per_s *= tensor;
  s.tf32_tensor_peak_flop_per_s *= fraction(spec, MatrixUnit::kTf32).value;
  return s;
}

std::string SustainedRates::describe(const costmodel::DeviceSpec& spec) const {
  std::string s;
  for (MatrixUnit u : {MatrixUnit::kFp32, MatrixUnit::kTensor16, MatrixUnit::kTf32}) {
    if (u == MatrixUnit::kTensor16 && !(spec.fp16_tensor_peak_flop_per_s > 0)) continue;
    if (u == MatrixUnit::kTf32 && !(spec.tf32_tensor_peak_flop_per_s > 0)) continue;
    const SustainedFraction f = fraction(spec, u);
    s += fmt::format("{}{} {:.2f} of the datasheet ({})", s.empty() ? "" : ", ", to_string(u),
                     f.value, f.from);
  }
  return s;
}

std::string SustainedRates::classes_text(MatrixUnit unit) const {
  std::set<std::string> classes;
  for (const auto& s : specs_) {
    if (!s.arch_class.empty()) classes.insert(s.arch_class);
  }
  std::string out;
  for (const auto& c : classes) {
    std::vector<std::string> gpus, used;
    for (const auto& s : specs_) {
      if (s.arch_class == c) gpus.push_back(s.id);
    }
    const double v = vote(own_, gpus, unit, used);
    if (v > 0)
      out += fmt::format("{}{} {:.2f} ({})", out.empty() ? "" : "; ", c, v, fmt::join(used, ", "));
  }
  return out.empty() ? "none" : out;
}

}  // namespace vitsim::calibrate
