// The transport model against public measurements (see transport_check.h). The hardware figures
// of each case cite the vendor's datasheet or the dataset's own description.
#include "present/transport_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "costmodel/collective_ring.h"
#include "costmodel/statistics.h"

namespace vitsim::present {
namespace {

using costmodel::LinkLayer;
using costmodel::Transport;

costmodel::TransportSpec spec(Transport kind) {
  costmodel::TransportSpec t;
  t.kind = kind;
  return t;
}

costmodel::TransportSpec ib(LinkLayer layer, bool gpudirect, int64_t pcie_gen = 0,
                            int64_t pcie_lanes = 0) {
  costmodel::TransportSpec t = spec(Transport::kNetIb);
  t.link_layer = layer;
  t.mtu_bytes = 4096;
  t.gpudirect = gpudirect;
  t.pcie_gen = pcie_gen;
  t.pcie_lanes = pcie_lanes;
  return t;
}

PublicTransportCase excluded(const std::string& dataset, bool summary, const std::string& why) {
  PublicTransportCase c;
  c.dataset = dataset;
  c.summary_point = summary;
  c.role = "excluded";
  c.what = why;
  return c;
}

PublicTransportCase make(const std::string& dataset, bool summary, const std::string& role,
                         const std::string& what, costmodel::TransportSpec t, double line,
                         double parallel = 1) {
  PublicTransportCase c;
  c.dataset = dataset;
  c.summary_point = summary;
  c.role = role;
  c.what = what;
  c.transport = t;
  c.line_rate_bytes_per_s = line;
  c.parallel_links = parallel;
  return c;
}

// The model's figures for a case (hardware latency unknown: NCCL's step latency only).
costmodel::LinkProvenance model_of(const PublicTransportCase& c,
                                   const costmodel::TransportParameters& p) {
  costmodel::LinkModelInput in;
  in.link_class = c.dataset;
  in.transport = c.transport;
  in.line_rate_bytes_per_s = c.line_rate_bytes_per_s > 0
                                 ? c.line_rate_bytes_per_s
                                 : p.pcie_rate_bytes_per_s(c.pcie_gen, c.pcie_lanes);
  return costmodel::model_link(in, p);
}

TransportCheckRow check_dataset(const PublicTransportCase& c, const schema::CsvTable& m,
                                const costmodel::TransportParameters& p, TransportCheckRow row) {
  const costmodel::LinkProvenance model = model_of(c, p);
  const double bw = model.bandwidth_bytes_per_s * c.parallel_links;
  std::vector<double> errors;
  for (size_t i = 0; i < m.rows(); ++i) {
    if (m.at(i, "dataset") != c.dataset) continue;
    const double bytes = m.positive(i, "size_bytes");
    row.ranks = m.integer(i, "n_gpus");
    if (bytes < kCheckMinBytes) continue;
    const double t = costmodel::ring_allreduce_time_s(row.ranks, bytes, bw, model.latency_s);
    const double predicted = costmodel::allreduce_bus_factor(row.ranks) * bytes / t;
    const double measured = m.positive(i, "ip_busbw_GBps") * 1e9;
    errors.push_back((predicted - measured) / measured);
    if (bytes > row.largest_bytes) {
      row.largest_bytes = bytes;
      row.measured_busbw_bytes_per_s = measured;
      row.predicted_busbw_bytes_per_s = predicted;
      row.error_at_largest = errors.back();
    }
  }
  row.points = static_cast<int>(errors.size());
  std::vector<double> abs_errors;
  for (double e : errors) abs_errors.push_back(std::fabs(e));
  if (!abs_errors.empty()) {
    row.median_abs_error = costmodel::median(abs_errors);
    row.worst_abs_error = *std::max_element(abs_errors.begin(), abs_errors.end());
  }
  return row;
}

TransportCheckRow check_summary(const PublicTransportCase& c, const schema::CsvTable& s,
                                const costmodel::TransportParameters& p, TransportCheckRow row) {
  for (size_t i = 0; i < s.rows(); ++i) {
    if (s.at(i, "setup").rfind(c.dataset, 0) != 0) continue;
    row.points = 1;
    row.measured_busbw_bytes_per_s = s.positive(i, "value_GBps") * 1e9;
    row.predicted_busbw_bytes_per_s = model_of(c, p).bandwidth_bytes_per_s * c.parallel_links;
    row.error_at_largest = (row.predicted_busbw_bytes_per_s - row.measured_busbw_bytes_per_s) /
                           row.measured_busbw_bytes_per_s;
    row.median_abs_error = row.worst_abs_error = std::fabs(row.error_at_largest);
  }
  return row;
}

}  // namespace

std::vector<PublicTransportCase> public_transport_cases() {
  std::vector<PublicTransportCase> c;
  PublicTransportCase shm = make("pcie3_2x2080ti_noP2P", false, "fit",
                                 "shm: 2x RTX 2080 Ti, PCIe 3.0 x16, no P2P (dataset description); "
                                 "gives shm_zero_copy_efficiency",
                                 spec(Transport::kShm), 0);
  shm.pcie_gen = 3;
  shm.pcie_lanes = 16;
  c.push_back(shm);
  c.push_back(make("nvlink_dgx1_8xV100", false, "held-out",
                   "nvlink: V100 SXM2, 6 NVLink 2 links x 25 GB/s = 150 GB/s per direction "
                   "(NVIDIA V100 datasheet: 300 GB/s bidirectional)",
                   spec(Transport::kNvlink), 150e9));
  c.push_back(make("efa_2node_2xT4", false, "held-out",
                   "net-ib without GPUDirect: T4 on PCIe 3.0 x16 (T4 datasheet) staging through "
                   "host memory, AWS EFA 100 Gbit/s (RoCE packet overheads as the nearest stand-in "
                   "for EFA's SRD)",
                   ib(LinkLayer::kEthernet, false, 3, 16), 12.5e9));
  c.push_back(make("nvlink_bridge_2xH100PCIe", false, "held-out",
                   "nvlink: H100 PCIe NVLink bridge, 600 GB/s bidirectional (NVIDIA H100 PCIe "
                   "datasheet) = 300 GB/s per direction",
                   spec(Transport::kNvlink), 300e9));
  c.push_back(excluded("gcp_a3mega_2node_16xH100", false,
                       "two nodes of NVSwitch + GPUDirect-TCPXO: NCCL's hierarchical tree/NVLS "
                       "algorithms, not one link class"));
  c.push_back(excluded("coreweave_16node_128xA100_IB_SHARP", false,
                       "SHARP in-network reduction (CollNet); busbw/algbw = 1.938 implies 32 "
                       "ranks, not the 128 stated"));
  c.push_back(
      excluded("nvlink_bridge_2x2080ti", false,
               "inconsistent table: the printed algbw is half of size / time on every row"));
  c.push_back(excluded("ib_2node_1xH100_4nic_tree", false,
                       "NCCL_ALGO=Tree and messages of at most 32 MiB: the issue reports the ring "
                       "bandwidth is never reached"));
  c.push_back(excluded("nvlink_8xA100_sendrecv", false, "sendrecv, not all-reduce"));
  c.push_back(make("4 servers x 8 GPUs (32 GPUs), 1x 100Gb/s EDR", true, "held-out",
                   "net-ib with GPUDirect: one EDR 100 Gbit/s InfiniBand NIC per node",
                   ib(LinkLayer::kInfiniband, true), 12.5e9));
  c.push_back(make("DGX-1 (8x V100) with 4 IB adapters", true, "held-out",
                   "net-ib with GPUDirect: 4 EDR 100 Gbit/s InfiniBand NICs per DGX-1 (NVIDIA "
                   "DGX-1 datasheet), rings spread over the 4",
                   ib(LinkLayer::kInfiniband, true), 12.5e9, 4));
  c.push_back(make("single node, 8x A100, NVSwitch", true, "fit",
                   "nvlink: A100 NVLink 3, 12 links x 25 GB/s = 300 GB/s per direction (NVIDIA "
                   "A100 datasheet: 600 GB/s bidirectional); gives nvlink_efficiency",
                   spec(Transport::kNvlink), 300e9));
  c.push_back(make("2 nodes x 8x A100, 4x 200Gb IB per node", true, "held-out",
                   "net-ib with GPUDirect: 4 HDR 200 Gbit/s InfiniBand NICs per node",
                   ib(LinkLayer::kInfiniband, true), 25e9, 4));
  c.push_back(make("2 GPUs directly NVLink-connected (NV12)", true, "held-out",
                   "nvlink: two A100 joined by 12 NVLink 3 links = 300 GB/s per direction",
                   spec(Transport::kNvlink), 300e9));
  c.push_back(excluded("8x RTX 5090 PCIe", true,
                       "transport not stated (P2P or SHM through two CPUs; the maintainer: "
                       "bounded by CPU/memory bandwidth)"));
  c.push_back(excluded("2 nodes x 1 GPU, AWS EFA 100 Gbps", true,
                       "no figure (tree vs ring in Gbit/s, as prose)"));
  return c;
}

std::vector<TransportCheckRow> check_transports(const schema::CsvTable& measurements,
                                                const schema::CsvTable& summary_points,
                                                const costmodel::TransportParameters& params) {
  measurements.require_columns({"dataset", "n_gpus", "size_bytes", "ip_busbw_GBps"});
  summary_points.require_columns({"setup", "value_GBps"});
  std::vector<TransportCheckRow> rows;
  for (const auto& c : public_transport_cases()) {
    TransportCheckRow row;
    row.dataset = c.dataset;
    row.role = c.role;
    row.what = c.what;
    row.transport = c.role == "excluded" ? "-" : costmodel::to_string(c.transport.kind);
    if (c.role == "excluded") {
      rows.push_back(row);
    } else {
      rows.push_back(c.summary_point ? check_summary(c, summary_points, params, row)
                                     : check_dataset(c, measurements, params, row));
    }
  }
  return rows;
}

TransportCheckRow check_measured_point(const std::string& name,
                                       const costmodel::LinkModelInput& link,
                                       const costmodel::TransportParameters& params, int64_t ranks,
                                       double message_bytes, double measured_time_s) {
  const costmodel::LinkProvenance model = costmodel::model_link(link, params);
  TransportCheckRow row;
  row.dataset = name;
  row.role = "held-out";
  row.transport = costmodel::to_string(link.transport.kind);
  row.what = model.model;
  row.ranks = ranks;
  row.points = 1;
  row.largest_bytes = message_bytes;
  const double t = costmodel::ring_allreduce_time_s(ranks, message_bytes,
                                                    model.bandwidth_bytes_per_s, model.latency_s);
  row.measured_busbw_bytes_per_s =
      costmodel::allreduce_bus_factor(ranks) * message_bytes / measured_time_s;
  row.predicted_busbw_bytes_per_s = costmodel::allreduce_bus_factor(ranks) * message_bytes / t;
  row.error_at_largest = (t - measured_time_s) / measured_time_s;
  row.median_abs_error = row.worst_abs_error = std::fabs(row.error_at_largest);
  return row;
}

std::string format_transport_check(const std::vector<TransportCheckRow>& rows) {
  const char* head = "{:<46} {:<9} {:<7} {:>5} {:>6} {:>10} {:>10} {:>9} {:>9}\n";
  std::string s = fmt::format(head, "dataset", "role", "model", "ranks", "points", "measured",
                              "predicted", "median", "worst");
  s += fmt::format(head, "", "", "", "", "", "GB/s", "GB/s", "|err| %", "|err| %");
  for (const auto& r : rows) {
    const std::string name = r.dataset.size() > 46 ? r.dataset.substr(0, 43) + "..." : r.dataset;
    if (r.role == "excluded" || r.points == 0) {
      s += fmt::format("{:<46} {:<9} {}\n", name, r.role, r.what);
      continue;
    }
    s += fmt::format("{:<46} {:<9} {:<7} {:>5} {:>6} {:>10.3f} {:>10.3f} {:>9.1f} {:>9.1f}\n", name,
                     r.role, r.transport, r.ranks > 0 ? std::to_string(r.ranks) : "-", r.points,
                     r.measured_busbw_bytes_per_s / 1e9, r.predicted_busbw_bytes_per_s / 1e9,
                     100 * r.median_abs_error, 100 * r.worst_abs_error);
  }
  return s;
}

}  // namespace vitsim::present
