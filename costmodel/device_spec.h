// Datasheet figures of one device type (platforms/gpus.json, docs/gpus.md), and the catalog.
#pragma once

#include <string>
#include <vector>

#include "costmodel/regime.h"

namespace vitsim::costmodel {

struct DeviceSpec {
  std::string id;            // short key used by cluster files and cost models, e.g. "rtx3070"
  std::string name;          // vendor name, e.g. "GeForce RTX 3070"
  std::string variant;       // e.g. "8GB GDDR6 (reference)"
  std::string architecture;  // e.g. "Ampere"
  double compute_capability = 0;
  double fp32_peak_flop_per_s = 0;         // non-tensor FP32
  double fp16_tensor_peak_flop_per_s = 0;  // dense, FP32 accumulate (what autocast uses); 0 = none
  double bf16_tensor_peak_flop_per_s = 0;  // dense; 0 = no BF16 support
  double tf32_tensor_peak_flop_per_s = 0;  // dense; 0 = none
  double memory_bandwidth_bytes_per_s = 0;
  double memory_bytes = 0;  // device memory, bytes (GiB on datasheets taken as 2^30)
  double tdp_w = 0;
  // Features of the kernel-class transfer (docs/cost-model.md section 4); 0 / "" = unknown.
  std::string chip;           // die, e.g. "GH100": same chip and SM count = same-chip siblings
  int64_t sm_count = 0;       // streaming multiprocessors (wave quantization of GEMM tiles)
  double boost_clock_hz = 0;  // the datasheet's boost clock
  double l2_cache_bytes = 0;  // L2 cache
  int64_t launch_year = 0;    // the product's launch year (generation distance of a transfer)
  // Architecture class: die family and market ("datacenter", "geforce", "inference-70w", ...;
  // docs/cost-model.md section 4, "Architecture classes"): a GPU without kernel-level evidence of
  // its own takes its class's. "" = none stated.
  std::string arch_class;
  // How GPUs of this part are joined inside a node by construction: "nvlink" (an SXM module sits
  // on a baseboard whose GPUs are joined by NVLink, through NVSwitch on 8-GPU boards), "pcie"
  // (a PCIe card: the slot, through the host, unless a bridge pairs two); "" = not stated
  // (docs/formats/gpus.md). `vitsim cluster init` takes it as --intra's default.
  std::string intra_node_fabric;
  // One GPU's NVLink per direction, bytes/s: the datasheet's total over both directions halved
  // (H100 SXM 18 links: 4.5e11; A100 SXM4 12 links: 3e11; V100 SXM2 6 links: 1.5e11); for a card,
  // its bridge's, which pairs two cards only; 0 = no NVLink. What an `nvlink` fabric of this part
  // carries (schema/cluster_fabric.h).
  double nvlink_bandwidth_bytes_per_s = 0;
  std::string source;  // datasheet / whitepaper the row comes from

  // Peak FLOP/s for matrix work in this regime's math type: fp32 -> fp32 peak; fp16 -> tensor peak
  // where the device has tensor cores, else the fp32 peak (Pascal: AMP gives no speedup); bf16 ->
  // bf16 tensor peak (0 where unsupported); tf32 -> TF32 tensor peak (0 before Ampere: no TF32).
  double matrix_peak_flop_per_s(Regime p) const;
  bool supports(Regime p) const { return matrix_peak_flop_per_s(p) > 0; }
  // Why this device cannot run `p` (supports() false), for a message: "no TF32 tensor cores (the
  // first architecture with them: Ampere; its gpus.json row gives no TF32 peak)"; "" when it can.
  std::string missing_units(Regime p) const;
  // Whether this regime's matrix work runs on tensor cores (fp16/bf16/tf32 with a tensor peak),
  // not on the fp32 units: the two have separate efficiencies in the transfer.
  bool tensor_math(Regime p) const;
  // Same die and the same compute units enabled (docs/cost-model.md section 4, "Siblings"): H100
  // SXM and H200, the A100 variants. Needs both chips and SM counts known.
  bool same_chip(const DeviceSpec& other) const;
};

struct DeviceCatalog {
  std::vector<DeviceSpec> devices;
  // nullptr when absent. Matches an id, or a name only one device has (case-insensitive): "A100"
  // is the name of four devices and finds none (match_device says which).
  const DeviceSpec* find(const std::string& id_or_name) const;
  std::vector<std::string> ids() const;
};

// What a device name a user typed names (docs/formats/gpus.md, "Device names"): the one home of
// the rule, so that cluster init, calibrate, sweep --devices, predict and the importers accept
// and refuse the same names. `device`: the device `text` names exactly (an id, or a name only one
// device has); else nullptr and `candidates`: the ids whose id or name contains it (ignoring case),
// several for an ambiguous name ("a100": the four A100s), none for a name nothing resembles.
struct DeviceMatch {
  const DeviceSpec* device = nullptr;
  std::vector<std::string> candidates;
};
DeviceMatch match_device(const DeviceCatalog& catalog, const std::string& text);

// Why `text` (given as `where`, e.g. "--devices" or "--host h1") names no one device: "--devices:
// 'a100' names 4 devices of the catalog: a100-pcie-40gb, a100-sxm4-40gb, a100-pcie-80gb,
// a100-sxm4-80gb (give one of these ids)", or "... no device 'x' in the catalog (ids: ...)".
std::string device_name_error(const DeviceCatalog& catalog, const std::string& where,
                              const std::string& text);

// The device `text` names; std::invalid_argument with device_name_error otherwise.
const DeviceSpec& resolve_device(const DeviceCatalog& catalog, const std::string& where,
                                 const std::string& text);

// The catalog with `specific` devices (a cluster file's own "devices") added, in front. On an id
// clash the specific description wins: a cluster file describes the cards that cluster has
// (memory size, clocks of that board), gpus.json a reference board of the type. The one home of
// this precedence (simulator and calibration both merge through it).
DeviceCatalog with_devices(const DeviceCatalog& catalog, const std::vector<DeviceSpec>& specific);

}  // namespace vitsim::costmodel
