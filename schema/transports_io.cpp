// Reader of the transport model's parameters (see transports_io.h and
// docs/formats/transports.md). Every block must say where its figures come from ("source", or
// "*_fitted_on" for the fitted efficiencies); numbers are range-checked so that a typo (an MTU
// overhead of 380, an efficiency of 2.5) is refused instead of silently moving every prediction.
#include "schema/transports_io.h"

#include <cstdlib>
#include <set>

#include "costmodel/physical_bounds.h"
#include "schema/common_io.h"
#include "schema/data_dir.h"

namespace vitsim::schema {
namespace {

void require_source(const Node& n, const char* key) {
  if (n[key].string().empty())
    n[key].fail("a non-empty source", "empty string", "say where the figures come from");
}

void read_ethernet(const Node& n, costmodel::TransportParameters& p) {
  n.expect_keys({"frame_overhead_bytes", "ipv4_header_bytes", "tcp_header_bytes",
                 "tcp_timestamp_option_bytes", "segments_per_ack", "source"});
  p.ethernet_frame_overhead_bytes = n["frame_overhead_bytes"].in_range(0, 100);
  p.ipv4_header_bytes = n["ipv4_header_bytes"].in_range(20, 60);
  p.tcp_header_bytes = n["tcp_header_bytes"].in_range(20, 60);
  p.tcp_timestamp_option_bytes = n["tcp_timestamp_option_bytes"].in_range(0, 40);
  p.segments_per_ack = n["segments_per_ack"].in_range(1, 64);
  require_source(n, "source");
}

void read_infiniband(const Node& n, costmodel::TransportParameters& p) {
  n.expect_keys({"packet_overhead_bytes", "roce_packet_overhead_bytes", "source"});
  p.ib_packet_overhead_bytes = n["packet_overhead_bytes"].in_range(0, 200);
  p.roce_packet_overhead_bytes = n["roce_packet_overhead_bytes"].in_range(0, 200);
  require_source(n, "source");
}

void read_pcie(const Node& n, costmodel::TransportParameters& p) {
  n.expect_keys({"generations", "tlp_efficiency", "source"});
  std::set<int64_t> seen;
  for (const Node& g : n["generations"].items_nonempty()) {
    g.expect_keys({"generation", "transfer_rate_per_lane_per_s", "encoding_efficiency"});
    costmodel::PcieGeneration gen;
    gen.generation = g["generation"].integer_at_least(1);
    if (!seen.insert(gen.generation).second)
      g["generation"].fail("a generation not listed before", g["generation"].describe());
    // Transfers/s per lane, held to a link's bandwidth bound (PCIe 6 is 6.4e10).
    gen.transfer_rate_per_lane_per_s =
        g["transfer_rate_per_lane_per_s"].within(costmodel::kLinkBandwidthBytesPerS);
    gen.encoding_efficiency = g["encoding_efficiency"].in_range(0.5, 1.0);
    p.pcie.push_back(gen);
  }
  p.pcie_tlp_efficiency = n["tlp_efficiency"].in_range(0.5, 1.0);
  require_source(n, "source");
}

void read_nccl(const Node& n, costmodel::TransportParameters& p) {
  n.expect_keys({"simple_buffer_bytes", "steps", "step_latency_nvlink_s", "step_latency_pcie_s",
                 "step_latency_net_s", "source"});
  p.nccl_simple_buffer_bytes = n["simple_buffer_bytes"].within(costmodel::kBytes);
  // NCCL cuts its buffer into NCCL_STEPS = 8; 1024 steps of a 4 MiB buffer would be 4 KiB each.
  const int64_t steps = n["steps"].integer_at_least(1);
  if (steps > 1024) n["steps"].fail("an integer in [1, 1024]", n["steps"].describe());
  p.nccl_steps = static_cast<double>(steps);
  p.nccl_step_latency_nvlink_s = n["step_latency_nvlink_s"].in_range(0, 1e-3);
  p.nccl_step_latency_pcie_s = n["step_latency_pcie_s"].in_range(0, 1e-3);
  p.nccl_step_latency_net_s = n["step_latency_net_s"].in_range(0, 1e-3);
  require_source(n, "source");
}

void read_fitted(const Node& n, costmodel::TransportParameters& p) {
  n.expect_keys(
      {"shm_zero_copy_efficiency", "shm_fitted_on", "nvlink_efficiency", "nvlink_fitted_on"});
  p.shm_zero_copy_efficiency = n["shm_zero_copy_efficiency"].in_range(0.01, 1.0);
  require_source(n, "shm_fitted_on");
  p.nvlink_efficiency = n["nvlink_efficiency"].in_range(0.01, 1.0);
  require_source(n, "nvlink_fitted_on");
}

}  // namespace

costmodel::TransportParameters read_transports(const Node& root) {
  root.expect_schema(kTransportsSchema, kTransportsVersion);
  root.expect_keys(
      {"schema", "schema_version", "context", "ethernet", "infiniband", "pcie", "nccl", "fitted"});
  read_context(root);
  costmodel::TransportParameters p;
  p.file = root.file();
  read_ethernet(root["ethernet"], p);
  read_infiniband(root["infiniband"], p);
  read_pcie(root["pcie"], p);
  read_nccl(root["nccl"], p);
  read_fitted(root["fitted"], p);
  return p;
}

costmodel::TransportParameters read_transports(const std::string& path) {
  return read_transports(Node::parse_file(path));
}

std::string default_transports_path() {
  const char* env = std::getenv("VITSIM_TRANSPORTS");
  if (env != nullptr && env[0] != '\0') return env;
  return data_file("platforms/transports.json");
}

}  // namespace vitsim::schema
