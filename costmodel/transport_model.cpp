// The transport model (transport_model.h); each formula is derived, with its sources, in
// docs/transport-model.md. Bandwidths are the alpha-beta "bandwidth of one ring link" of LinkCost
// (nccl-tests' bus bandwidth at large messages), latencies the per-step latency of the ring.
#include "costmodel/transport_model.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>

#include "costmodel/uncertainty.h"

namespace vitsim::costmodel {
namespace {

// printf-style formatting into a string (costmodel links no formatting library).
std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

// Payload share of TCP/IPv4 over a framed link: MSS / (MTU + framing + ACK share). Both
// directions of a ring link carry data, so each also carries the ACKs of the opposite flow.
double tcp_efficiency(const TransportParameters& p, const TransportSpec& t) {
  const double framing = t.frame_overhead_bytes.value_or(p.ethernet_frame_overhead_bytes);
  const double headers = p.ipv4_header_bytes + p.tcp_header_bytes + p.tcp_timestamp_option_bytes;
  const double mtu = static_cast<double>(t.mtu_bytes);
  if (!(mtu > headers))
    throw std::invalid_argument(
        format("MTU %lld leaves no TCP payload", static_cast<long long>(t.mtu_bytes)));
  const double ack_frame = headers + framing;
  return (mtu - headers) / (mtu + framing + ack_frame / p.segments_per_ack);
}

// Payload share of an IB or RoCE v2 packet of `mtu` payload bytes.
double ib_efficiency(const TransportParameters& p, const TransportSpec& t) {
  const double mtu = static_cast<double>(t.mtu_bytes);
  const double overhead = t.link_layer == LinkLayer::kInfiniband
                              ? p.ib_packet_overhead_bytes
                              : p.roce_packet_overhead_bytes + p.ethernet_frame_overhead_bytes;
  return mtu / (mtu + overhead);
}

std::string gbit(double bytes_per_s) {
  return format("%g Gbit/s", bytes_per_s * 8 / 1e9);
}

std::string pcie_name(const TransportSpec& t) {
  return format("PCIe %lld.0 x%lld", static_cast<long long>(t.pcie_gen),
                static_cast<long long>(t.pcie_lanes));
}

LinkProvenance ethernet(const LinkModelInput& in, const TransportParameters& p) {
  const TransportSpec& t = in.transport;
  const double eff = tcp_efficiency(p, t);
  const double goodput = in.line_rate_bytes_per_s * eff;
  LinkProvenance out;
  out.model = format("%s transport over %s Ethernet, MTU %lld", to_string(t.kind),
                     gbit(in.line_rate_bytes_per_s).c_str(), static_cast<long long>(t.mtu_bytes));
  out.bandwidth_bytes_per_s = goodput;
  out.latency_s = in.latency_s;
  out.derived_from =
      format("TCP goodput = line %.4g B/s x %.4f (MSS / (MTU + framing + ACK share))",
             in.line_rate_bytes_per_s, eff);
  if (t.kind == Transport::kSocket && !in.fabric) {
    // NCCL's proxy thread moves every step of the Simple protocol's buffer itself (no helper
    // threads by default), so the per-step cost adds to the wire time of each step.
    const double step_bytes = p.nccl_simple_buffer_bytes / p.nccl_steps;
    out.bandwidth_bytes_per_s = 1.0 / (1.0 / goodput + p.nccl_step_latency_net_s / step_bytes);
    out.latency_s = p.nccl_step_latency_net_s + in.latency_s;
    out.derived_from += format(
        "; NCCL Simple steps of %.0f B each cost %.1f us more: 1 / (1/goodput + step latency / "
        "step bytes); latency = NCCL step %.1f us + hardware %.1f us",
        step_bytes, p.nccl_step_latency_net_s * 1e6, p.nccl_step_latency_net_s * 1e6,
        in.latency_s * 1e6);
  }
  return out;
}

// shm and p2p: the link's line rate is the GPU's PCIe rate (after encoding), per direction.
LinkProvenance host_memory(const LinkModelInput& in, const TransportParameters& p) {
  const TransportSpec& t = in.transport;
  const double rate = in.line_rate_bytes_per_s;
  const bool shm = t.kind == Transport::kShm;
  const double eff = shm ? p.shm_zero_copy_efficiency : p.pcie_tlp_efficiency;
  LinkProvenance out;
  out.model =
      format("%s transport over PCIe at %g GB/s per direction", to_string(t.kind), rate / 1e9) +
      (shm ? " through host shared memory" : " peer to peer");
  out.bandwidth_bytes_per_s = rate * eff;
  out.latency_s = p.nccl_step_latency_pcie_s + in.latency_s;
  out.derived_from =
      format("PCIe %.4g B/s x %s %.4f; latency = NCCL step %.1f us + hardware %.1f us", rate,
             shm ? "zero-copy efficiency" : "TLP efficiency", eff, p.nccl_step_latency_pcie_s * 1e6,
             in.latency_s * 1e6);
  return out;
}

LinkProvenance net_ib(const LinkModelInput& in, const TransportParameters& p,
                      const LinkCost* staging_cost) {
  const TransportSpec& t = in.transport;
  const double eff = ib_efficiency(p, t);
  const double wire = in.line_rate_bytes_per_s * eff;
  const char* layer = t.link_layer == LinkLayer::kInfiniband ? "InfiniBand" : "RoCE";
  LinkProvenance out;
  out.model =
      format("net-ib transport over %s %s, IB MTU %lld", gbit(in.line_rate_bytes_per_s).c_str(),
             layer, static_cast<long long>(t.mtu_bytes));
  out.bandwidth_bytes_per_s = wire;
  out.latency_s = in.latency_s;
  out.derived_from = format("wire = line %.4g B/s x %.4f (payload / (payload + packet overhead))",
                            in.line_rate_bytes_per_s, eff);
  if (in.fabric) return out;
  out.latency_s = p.nccl_step_latency_net_s + in.latency_s;
  if (t.gpudirect) {
    out.model += ", GPUDirect RDMA";
  } else {
    double staging = 0;
    std::string how;
    if (staging_cost != nullptr) {
      staging = staging_cost->bandwidth_bytes_per_s;
      how = format("%s %s (%.4g B/s)", to_string(staging_cost->source),
                   staging_cost->link_class.c_str(), staging);
      out.model += ", no GPUDirect RDMA, host staging informed by " +
                   std::string(to_string(staging_cost->source)) + " " + staging_cost->link_class;
    } else {
      staging = p.pcie_rate_bytes_per_s(t.pcie_gen, t.pcie_lanes) * p.shm_zero_copy_efficiency;
      how = format("%s x zero-copy efficiency %.4f (%.4g B/s)", pcie_name(t).c_str(),
                   p.shm_zero_copy_efficiency, staging);
      out.model += ", no GPUDirect RDMA, host staging over " + pcie_name(t);
    }
    out.bandwidth_bytes_per_s = std::min(staging, wire);
    out.derived_from += "; no GPUDirect RDMA: min(host staging = " + how + ", wire), pipelined";
  }
  out.derived_from += format("; latency = NCCL step %.1f us + hardware %.1f us",
                             p.nccl_step_latency_net_s * 1e6, in.latency_s * 1e6);
  return out;
}

LinkProvenance nvlink(const LinkModelInput& in, const TransportParameters& p) {
  LinkProvenance out;
  out.model = format("nvlink transport at %g GB/s per direction", in.line_rate_bytes_per_s / 1e9);
  out.bandwidth_bytes_per_s = in.line_rate_bytes_per_s * p.nvlink_efficiency;
  out.latency_s = p.nccl_step_latency_nvlink_s + in.latency_s;
  out.derived_from = format(
      "NVLink %.4g B/s x ring efficiency %.4f; latency = NCCL step %.1f us + hardware %.1f us",
      in.line_rate_bytes_per_s, p.nvlink_efficiency, p.nccl_step_latency_nvlink_s * 1e6,
      in.latency_s * 1e6);
  return out;
}

}  // namespace

const char* to_string(Transport t) {
  return t == Transport::kNone ? "none" : name_of(kTransportNames, t);
}

Transport parse_transport(const std::string& text) {
  return parse_named(kTransportNames, text, "transport");
}

const char* to_string(LinkLayer l) {
  return name_of(kLinkLayerNames, l);
}

bool valid_ib_mtu_bytes(int64_t mtu_bytes) {
  return mtu_bytes == 256 || mtu_bytes == 512 || mtu_bytes == 1024 || mtu_bytes == 2048 ||
         mtu_bytes == 4096;
}

const char* to_string(LinkSource s) {
  return name_of(kLinkSourceNames, s);
}

double TransportParameters::pcie_rate_bytes_per_s(int64_t generation, int64_t lanes) const {
  for (const auto& g : pcie) {
    if (g.generation == generation) {
      return g.transfer_rate_per_lane_per_s * static_cast<double>(lanes) * g.encoding_efficiency /
             8.0;
    }
  }
  throw std::invalid_argument(format("PCIe generation %lld is not in %s",
                                     static_cast<long long>(generation),
                                     file.empty() ? "the transport parameters" : file.c_str()));
}

LinkProvenance model_link(const LinkModelInput& in, const TransportParameters& params,
                          const LinkCost* host_staging) {
  LinkProvenance out;
  switch (in.transport.kind) {
    case Transport::kSocket:
    case Transport::kTcp:
      out = ethernet(in, params);
      break;
    case Transport::kShm:
    case Transport::kP2p:
      out = host_memory(in, params);
      break;
    case Transport::kNetIb:
      out = net_ib(in, params, host_staging);
      break;
    case Transport::kNvlink:
      out = nvlink(in, params);
      break;
    case Transport::kNone:
      throw std::invalid_argument("link class " + in.link_class + " names no transport to model");
  }
  out.link_class = in.link_class;
  out.source = LinkSource::kModelled;
  out.derived_from += " (docs/transport-model.md; parameters " + params.file + ")";
  return out;
}

namespace {

// The figures and where they come from; `fit_residual_rel` is the residual of the measured or
// imported fit they were taken from (the job's ring shape's where it has one), else 0.
LinkProvenance resolve_link_figures(const LinkModelInput& in, const CostModel* costs,
                                    const TransportParameters* params, double& fit_residual_rel) {
  fit_residual_rel = 0;
  if (costs != nullptr) {
    if (const LinkCost* c = costs->find_link(in.link_class)) {
      LinkProvenance out;
      out.link_class = in.link_class;
      out.source =
          c->source == CostSource::kImported ? LinkSource::kImported : LinkSource::kMeasured;
      out.bandwidth_bytes_per_s = c->bandwidth_bytes_per_s;
      out.latency_s = c->latency_s;
      out.model = std::string(to_string(out.source)) + " link cost";
      out.derived_from = c->derived_from;
      fit_residual_rel = c->uncertainty_rel;
      if (const RingLinkCost* r = c->find_ring(in.ring_ranks, in.ring_ranks_per_node)) {
        fit_residual_rel = r->uncertainty_rel;
        out.bandwidth_bytes_per_s = r->bandwidth_bytes_per_s;
        out.latency_s = r->latency_s;
        out.model += " of the job's ring shape";
        out.derived_from =
            r->derived_from + " (the class fit over every shape: " + c->derived_from + ")";
      }
      return out;
    }
  }
  if (params != nullptr && in.transport.kind != Transport::kNone) {
    const LinkCost* staging = nullptr;
    if (costs != nullptr && !in.transport.host_staging_link_class.empty())
      staging = costs->find_link(in.transport.host_staging_link_class);
    return model_link(in, *params, staging);
  }
  LinkProvenance out;
  out.link_class = in.link_class;
  out.source = LinkSource::kDatasheet;
  out.bandwidth_bytes_per_s = in.line_rate_bytes_per_s;
  out.latency_s = in.latency_s;
  out.model = "cluster file figures as given";
  out.derived_from =
      in.transport.kind == Transport::kNone
          ? "the link names no transport: its line rate and latency are used as given"
          : "no transport parameters loaded: line rate and latency used as given";
  return out;
}

}  // namespace

LinkProvenance resolve_link(const LinkModelInput& in, const CostModel* costs,
                            const TransportParameters* params) {
  double fit_residual_rel = 0;
  LinkProvenance out = resolve_link_figures(in, costs, params, fit_residual_rel);
  out.transport = in.transport.kind;
  out.wire_latency_s = in.latency_s;
  out.uncertainty_rel = link_uncertainty_rel(out.source, out.transport, fit_residual_rel);
  return out;
}

}  // namespace vitsim::costmodel
