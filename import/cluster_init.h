// `vitsim cluster init`: a cluster description (schema "vitsim.cluster") written from what was
// measured (profiles: which device each host has, a CPU's threads) and what the user states (host
// names, GPUs per host, NIC rates, the transport), so that a user's own cluster needs no
// hand-written JSON (README "Predict your own cluster", docs/formats/cluster.md "Written by
// vitsim cluster init"). Every figure the description carries says where it comes from: a
// datasheet rate of the stated NIC, the catalog's device, or, for a CPU "device", this machine's
// /proc with the profile's thread count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "schema/cluster.h"
#include "schema/profile.h"

namespace vitsim::import {

// One host as the user states it: "NAME:DEVICE[xGPUS]:NIC[:LINK_CLASS]", e.g. "h1:rtx3070:10gbe",
// "h3:rtx3070x2:1gbe", "node0:emu-cpu-40:400mbit:emu-tbf-400mbit". DEVICE may be "auto": the
// device of the profile whose context names this host.
struct HostStatement {
  std::string name;
  std::string device;
  int64_t gpus = 1;
  std::string nic;         // the rate as stated ("10gbe", "400mbit")
  std::string link_class;  // empty: "<cluster>-<nic>"
};

// Throws std::invalid_argument naming the field and the expected form.
HostStatement parse_host_statement(const std::string& text);

// Datasheet line rate per direction of a stated NIC: "1gbe", "2.5gbe", "10gbe", "25gbe", "40gbe",
// "100gbe" (IEEE 802.3 data rates) or an explicit "<number>mbit" / "<number>gbit" (10^6 / 10^9
// bit/s, as tc and ethtool print them). Throws std::invalid_argument otherwise.
double nic_rate_bytes_per_s(const std::string& nic);

struct ClusterInitOptions {
  std::string name;
  std::string description;
  std::vector<HostStatement> hosts;
  costmodel::Transport nic_transport = costmodel::Transport::kSocket;  // socket | tcp | net-ib
  // net-ib: InfiniBand, or RoCE v2 (ethernet), always with GPUDirect RDMA (the NIC reads and
  // writes GPU memory: HGX/DGX nodes; a host-staged path needs the GPU's PCIe figures, by hand).
  costmodel::LinkLayer link_layer = costmodel::LinkLayer::kInfiniband;
  bool nic_per_gpu = false;       // one NIC per GPU (rail-optimized) instead of one the node shares
  int64_t mtu_bytes = 1500;       // socket, tcp: IP MTU; net-ib: IB MTU (valid_ib_mtu_bytes)
  double nic_latency_s = 2.5e-5;  // NIC + switch, as platforms/tesla.json assumes for Ethernet
  double nic_burst_bytes = 0;     // every NIC's token bucket (LinkSpec::burst_bytes), 0 = none
  // Hosts with 2+ GPUs: pcie-host | pcie-p2p | nvlink; empty: the device's own fabric from the
  // catalog (intra_node_fabric: an SXM part's NVLink, a card's PCIe through host memory).
  std::string intra_kind;
  // What this machine says about its CPU, for CPU "devices" the catalog does not know.
  std::string cpuinfo_text, meminfo_text, this_host;
  double cpu_memory_bandwidth_per_thread_bytes_per_s = 5.7e9;  // docs/emulation.md, single thread
};

struct ClusterInit {
  schema::ClusterSpec cluster;
  std::vector<std::string> notes;  // assumptions and unmeasured link classes, for stderr
};

// Throws std::invalid_argument for a statement that contradicts itself or the profiles (duplicate
// host, a device neither the catalog nor any profile names, a name several catalog devices share
// such as "a100" (costmodel::match_device: the ids are listed), "auto" without a profile of that
// host).
ClusterInit init_cluster(const std::vector<schema::ProfileInput>& profiles,
                         const costmodel::DeviceCatalog& catalog,
                         const ClusterInitOptions& options);

// A CPU device measured by `vitsim-train profile --device cpu`: FP32 peak = threads x clock x
// FLOP per cycle of the widest vector FMA the flags name, memory = MemTotal; `source` says so.
costmodel::DeviceSpec cpu_device(const schema::Profile& profile, const ClusterInitOptions& options);

}  // namespace vitsim::import
