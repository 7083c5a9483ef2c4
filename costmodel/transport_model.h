// The transport model: the effective ring all-reduce bandwidth and per-step latency of a link
// class nobody measured, from the NCCL transport it uses (TCP sockets, host shared memory, PCIe
// peer-to-peer, InfiniBand/RoCE with or without GPUDirect RDMA, NVLink), first principles
// (frame and packet formats, PCIe encodings) and public nccl-tests measurements. Pure: the
// parameters come from platforms/transports.json (schema/transports_io.h), the link from a
// cluster file (schema/cluster.h). Every formula is derived in docs/transport-model.md.
//
// Resolution of one link class (resolve_link): a measured or imported LinkCost of the class wins;
// else the transport model ("modelled", with the model and its inputs in derived_from); else the
// cluster file's figures as given ("datasheet": a link built without a transport, or no
// parameters loaded). The result is a LinkProvenance, the per-class record that predictions can
// print next to their numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/enum_names.h"

namespace vitsim::costmodel {

// NCCL's transports (and plain TCP for MPI/Gloo). kNone: figures taken as given.
enum class Transport { kNone, kSocket, kTcp, kShm, kP2p, kNetIb, kNvlink };
// The transports a cluster file names (kNone, "none", is never written by a user).
inline constexpr EnumName<Transport> kTransportNames[] = {
    {Transport::kSocket, "socket"}, {Transport::kTcp, "tcp"},      {Transport::kShm, "shm"},
    {Transport::kP2p, "p2p"},       {Transport::kNetIb, "net-ib"}, {Transport::kNvlink, "nvlink"},
};
const char* to_string(Transport t);                  // a name of kTransportNames, or "none"
Transport parse_transport(const std::string& text);  // throws std::invalid_argument

enum class LinkLayer { kInfiniband, kEthernet };  // net-ib: native InfiniBand or RoCE v2
inline constexpr EnumName<LinkLayer> kLinkLayerNames[] = {
    {LinkLayer::kInfiniband, "infiniband"},
    {LinkLayer::kEthernet, "ethernet"},
};
const char* to_string(LinkLayer l);
// An IB MTU (net-ib, InfiniBand or RoCE v2): 256, 512, 1024, 2048 or 4096 bytes (IBTA Vol. 1).
bool valid_ib_mtu_bytes(int64_t mtu_bytes);

// What a cluster file says about a link's transport (docs/formats/cluster.md).
struct TransportSpec {
  Transport kind = Transport::kNone;
  int64_t mtu_bytes = 0;                       // socket, tcp: IP MTU; net-ib: IB MTU
  std::optional<double> frame_overhead_bytes;  // socket, tcp: per-frame bytes beyond the IP packet
  LinkLayer link_layer = LinkLayer::kInfiniband;  // net-ib
  bool gpudirect = false;                         // net-ib: GPUDirect RDMA
  int64_t pcie_gen = 0;    // shm, p2p, net-ib without GPUDirect: the GPU's PCIe generation
  int64_t pcie_lanes = 0;  // ... and width
  std::string host_staging_link_class;  // net-ib without GPUDirect: a class of the same nodes
                                        // whose measured cost informs the host-staging rate
};

struct PcieGeneration {
  int64_t generation = 0;
  double transfer_rate_per_lane_per_s = 0;  // GT/s x 1e9
  double encoding_efficiency = 0;           // 8b/10b = 0.8, 128b/130b
};

// Constants of the model, each with its source in platforms/transports.json.
struct TransportParameters {
  // Ethernet and TCP/IPv4 (IEEE 802.3, RFC 791, RFC 9293, RFC 7323, RFC 5681).
  double ethernet_frame_overhead_bytes = 0;  // preamble+SFD, MAC header, FCS, inter-frame gap
  double ipv4_header_bytes = 0;
  double tcp_header_bytes = 0;
  double tcp_timestamp_option_bytes = 0;
  double segments_per_ack = 0;  // delayed ACK
  // InfiniBand (IBTA spec) and RoCE v2 packet overheads beyond the payload.
  double ib_packet_overhead_bytes = 0;    // LRH + BTH + ICRC + VCRC
  double roce_packet_overhead_bytes = 0;  // IPv4 + UDP + BTH + ICRC (Ethernet framing apart)
  std::vector<PcieGeneration> pcie;
  double pcie_tlp_efficiency = 0;  // max payload / (payload + TLP overhead)
  // NCCL (src/include/device.h, collectives.h, src/graph/tuning.cc).
  double nccl_simple_buffer_bytes = 0;  // per channel and connection
  double nccl_steps = 0;                // the buffer's steps
  double nccl_step_latency_nvlink_s = 0;
  double nccl_step_latency_pcie_s = 0;
  double nccl_step_latency_net_s = 0;
  // Fitted on public nccl-tests rows (the dataset in transports.json's "fitted_on").
  double shm_zero_copy_efficiency = 0;
  double nvlink_efficiency = 0;
  std::string file;  // where they were read from

  // Bytes/s one direction of a PCIe link carries (line rate after encoding); throws
  // std::invalid_argument for a generation the table does not hold.
  double pcie_rate_bytes_per_s(int64_t generation, int64_t lanes) const;
};

enum class LinkSource { kMeasured, kImported, kModelled, kDatasheet };
inline constexpr EnumName<LinkSource> kLinkSourceNames[] = {
    {LinkSource::kMeasured, "measured"},
    {LinkSource::kImported, "imported"},
    {LinkSource::kModelled, "modelled"},
    {LinkSource::kDatasheet, "datasheet"},
};
const char* to_string(LinkSource s);

// One link class as a prediction used it: where its figures came from.
struct LinkProvenance {
  std::string link_class;
  LinkSource source = LinkSource::kDatasheet;
  double bandwidth_bytes_per_s = 0;  // alpha-beta convention of LinkCost (docs/cost-model.md)
  double latency_s = 0;
  // The cluster file's hardware latency of the path (NIC, cable, switch), whatever the figures'
  // source: the floor of an operation's latency a phase (sim/sharded_plan.h, OperationAdjust).
  double wire_latency_s = 0;
  std::string model;         // short: "socket transport over 10 Gbit/s Ethernet, MTU 1500"
  std::string derived_from;  // formula with its inputs, or the profiles of a measurement
  Transport transport = Transport::kNone;  // the cluster file's transport of the link
  double uncertainty_rel = 0;  // 1 sigma, relative (costmodel/uncertainty.h: link_uncertainty_rel)
};

// A link as the model sees it: the cluster file's figures and transport.
struct LinkModelInput {
  std::string link_class;
  double line_rate_bytes_per_s = 0;  // datasheet line rate, per direction
  double latency_s = 0;              // hardware latency of the path (NIC, cable, switch)
  TransportSpec transport;
  bool fabric = false;  // a switch-to-switch link: wire efficiency and its own latency only
  // The job's ring over this link (0 ranks: not known); a measured class with a fit of this
  // shape (LinkCost::rings) gives that fit.
  int64_t ring_ranks = 0;
  int64_t ring_ranks_per_node = 1;
};

// The transport model for one link (kModelled). Throws std::invalid_argument for a transport the
// model cannot evaluate (kNone, or a PCIe generation outside the table). host_staging: a
// measured or imported cost of spec.host_staging_link_class, when the cost model has one.
LinkProvenance model_link(const LinkModelInput& link, const TransportParameters& params,
                          const LinkCost* host_staging = nullptr);

// Measured/imported cost of the class (its fit of the link's ring shape where it has one), else
// the model (when params is given and the link has a transport), else the figures as given.
LinkProvenance resolve_link(const LinkModelInput& link, const CostModel* costs,
                            const TransportParameters* params);

}  // namespace vitsim::costmodel
