// Device catalog reader (schema "vitsim.gpus", version 1) and the device object shared with
// cluster files; see gpus_io.h and docs/formats/gpus.md. platforms/gpus.json itself is generated
// from data/gpu_specs.csv by scripts/gen-gpus-json.
#include "schema/gpus_io.h"

#include <cstdlib>
#include <set>
#include <utility>

#include "schema/common_io.h"
#include "schema/data_dir.h"

namespace vitsim::schema {
namespace {

// Ids are keys in cluster files and cost models: short, lower case, no spaces.
bool is_valid_id(const std::string& id) {
  if (id.empty()) return false;
  for (char c : id) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string optional_string(const Node& n, const char* key) {
  auto v = n.get(key);
  return v ? v->string() : std::string();
}

// 0 when absent (unknown, or not supported).
double optional_within(const Node& n, const char* key, const costmodel::Bound& bound) {
  auto v = n.get(key);
  return v ? v->within(bound) : 0.0;
}

}  // namespace

costmodel::DeviceSpec read_device_spec(const Node& n) {
  n.expect_keys({"id",
                 "name",
                 "variant",
                 "architecture",
                 "compute_capability",
                 "fp32_peak_flop_per_s",
                 "fp16_tensor_peak_flop_per_s",
                 "bf16_tensor_peak_flop_per_s",
                 "tf32_tensor_peak_flop_per_s",
                 "memory_bandwidth_bytes_per_s",
                 "memory_bytes",
                 "tdp_w",
                 "chip",
                 "sm_count",
                 "boost_clock_hz",
                 "l2_cache_bytes",
                 "launch_year",
                 "arch_class",
                 "intra_node_fabric",
                 "nvlink_bandwidth_bytes_per_s",
                 "source"});
  costmodel::DeviceSpec d;
  d.id = n["id"].string();
  if (!is_valid_id(d.id)) {
    n["id"].fail("an id of lower-case letters, digits, '-', '_' or '.'", n["id"].describe(),
                 "e.g. \"rtx3070\"; the vendor name goes in \"name\"");
  }
  d.name = n["name"].string();
  d.variant = optional_string(n, "variant");
  d.architecture = optional_string(n, "architecture");
  if (auto v = n.get("compute_capability")) d.compute_capability = v->in_range(0, 100);
  d.fp32_peak_flop_per_s = n["fp32_peak_flop_per_s"].within(costmodel::kPeakFlopPerS);
  for (auto [key, field] :
       {std::pair{"fp16_tensor_peak_flop_per_s", &d.fp16_tensor_peak_flop_per_s},
        std::pair{"bf16_tensor_peak_flop_per_s", &d.bf16_tensor_peak_flop_per_s},
        std::pair{"tf32_tensor_peak_flop_per_s", &d.tf32_tensor_peak_flop_per_s}}) {
    *field = optional_within(n, key, costmodel::kPeakFlopPerSOrZero);
  }
  d.memory_bandwidth_bytes_per_s =
      n["memory_bandwidth_bytes_per_s"].within(costmodel::kMemoryBandwidthBytesPerS);
  d.memory_bytes = n["memory_bytes"].within(costmodel::kBytes);
  d.tdp_w = optional_within(n, "tdp_w", costmodel::kPowerW);
  d.chip = optional_string(n, "chip");
  if (auto v = n.get("sm_count")) d.sm_count = v->count(costmodel::kSmCount);
  d.boost_clock_hz = optional_within(n, "boost_clock_hz", costmodel::kClockHz);
  d.l2_cache_bytes = optional_within(n, "l2_cache_bytes", costmodel::kBytesOrZero);
  if (auto v = n.get("launch_year")) d.launch_year = v->count(costmodel::kLaunchYear);
  d.arch_class = optional_string(n, "arch_class");
  d.intra_node_fabric = optional_string(n, "intra_node_fabric");
  if (!d.intra_node_fabric.empty() && d.intra_node_fabric != "nvlink" &&
      d.intra_node_fabric != "pcie") {
    n["intra_node_fabric"].fail("\"nvlink\" or \"pcie\"", n["intra_node_fabric"].describe(),
                                "how the part's GPUs are joined inside a node by construction");
  }
  d.nvlink_bandwidth_bytes_per_s =
      optional_within(n, "nvlink_bandwidth_bytes_per_s", costmodel::kLinkBandwidthBytesPerSOrZero);
  d.source = optional_string(n, "source");
  return d;
}

Json write_device_spec(const costmodel::DeviceSpec& d) {
  Json j = {{"id", d.id},
            {"name", d.name},
            {"variant", d.variant},
            {"architecture", d.architecture},
            {"compute_capability", d.compute_capability},
            {"fp32_peak_flop_per_s", d.fp32_peak_flop_per_s},
            {"fp16_tensor_peak_flop_per_s", d.fp16_tensor_peak_flop_per_s},
            {"bf16_tensor_peak_flop_per_s", d.bf16_tensor_peak_flop_per_s},
            {"tf32_tensor_peak_flop_per_s", d.tf32_tensor_peak_flop_per_s},
            {"memory_bandwidth_bytes_per_s", d.memory_bandwidth_bytes_per_s},
            {"memory_bytes", d.memory_bytes},
            {"tdp_w", d.tdp_w},
            {"source", d.source}};
  // The transfer's features only where known (0 = unknown is not a valid count).
  if (!d.chip.empty()) j["chip"] = d.chip;
  if (d.sm_count > 0) j["sm_count"] = d.sm_count;
  if (d.boost_clock_hz > 0) j["boost_clock_hz"] = d.boost_clock_hz;
  if (d.l2_cache_bytes > 0) j["l2_cache_bytes"] = d.l2_cache_bytes;
  if (d.launch_year > 0) j["launch_year"] = d.launch_year;
  if (!d.arch_class.empty()) j["arch_class"] = d.arch_class;
  if (!d.intra_node_fabric.empty()) j["intra_node_fabric"] = d.intra_node_fabric;
  if (d.nvlink_bandwidth_bytes_per_s > 0)
    j["nvlink_bandwidth_bytes_per_s"] = d.nvlink_bandwidth_bytes_per_s;
  return j;
}

costmodel::DeviceCatalog read_gpus(const Node& root) {
  root.expect_schema(kGpusSchema, kGpusVersion);
  root.expect_keys({"schema", "schema_version", "context", "devices"});
  read_context(root);
  costmodel::DeviceCatalog catalog;
  std::set<std::string> ids;
  for (const Node& d : root["devices"].items_nonempty()) {
    catalog.devices.push_back(read_device_spec(d));
    if (!ids.insert(catalog.devices.back().id).second) {
      d["id"].fail("an id not listed before", d["id"].describe(), "ids must be unique");
    }
  }
  return catalog;
}

costmodel::DeviceCatalog read_gpus(const std::string& path) {
  return read_gpus(Node::parse_file(path));
}

std::string default_gpus_path() {
  const char* env = std::getenv("VITSIM_GPUS");
  if (env != nullptr && env[0] != '\0') return env;
  return data_file("platforms/gpus.json");
}

}  // namespace vitsim::schema
