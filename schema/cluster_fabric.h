// How a cluster file joins the GPUs inside each host, checked against the catalog, and the one
// home of the names of a cluster's link classes (docs/formats/cluster.md, "Link classes" and
// "Fabric inside a host"). `vitsim cluster init` names links by these rules and `vitsim-train
// bench-allreduce` records its measurement under the same name, so that a measurement is found by
// the cluster it measured. An SXM part's GPUs are joined by NVLink by construction (the catalog's
// `intra_node_fabric`, from its datasheet); a file that joins them over PCIe describes a machine
// that does not exist and flips comparisons (8 A100 SXM through host memory: 584 s an epoch
// against 209 s on NVLink), so every command that reads such a file warns, naming file and host.
#pragma once

#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "schema/cluster.h"

namespace vitsim::schema {

// "<cluster>-<nic>": the class of a host's NIC ("mylab-10gbe").
std::string nic_link_class(const std::string& cluster, const std::string& nic);

// The class of a host's intra-node fabric: "<cluster>-<device>-<shm | p2p | nvlink>" for the
// kinds pcie-host, pcie-p2p and nvlink ("here-cpu-shm"); without a cluster name
// "<device>-<...>", what bench-allreduce records on one host when it is not told the cluster.
std::string intra_link_class(const std::string& cluster, const std::string& device,
                             const std::string& intra_kind);

// The intra-node kind of a host of `device`: `stated` when not empty, else the part's fabric
// from the catalog (nvlink -> "nvlink"; pcie or not stated -> "pcie-host": a card's GPUs reach
// each other through host memory unless the board allows peer-to-peer).
std::string intra_kind_of(const costmodel::DeviceSpec* device, const std::string& stated);

// The link of an `intra_kind` fabric in a host of `gpus` x `device` (nullptr: a device the catalog
// lacks, e.g. a CPU standing in for one), named `link_class`; datasheet line rates
// (docs/formats/cluster.md, "Fabric inside a host"): nvlink at the part's NVLink per direction
// (DeviceSpec::nvlink_bandwidth_bytes_per_s; a device the catalog lacks: NVLink 4's 4.5e11), 2 us;
// pcie-host (transport shm) and pcie-p2p (p2p) at PCIe 3.0 x16 after encoding, 1.575e10 B/s,
// 10 us. std::invalid_argument naming `where` for nvlink on a part without NVLink, or on cards
// whose bridge pairs two with more than two in the host.
LinkSpec intra_link_of(const std::string& intra_kind, const costmodel::DeviceSpec* device,
                       int64_t gpus, const std::string& link_class, const std::string& where);

// `node` with its GPUs replaced by `device` (counts kept) and the fabric the part brings: an SXM
// part (intra_node_fabric nvlink) its baseboard's NVLink at the part's rate; a card in a host whose
// GPUs were joined by NVLink (an SXM baseboard) PCIe through host memory; a card in a PCIe host
// keeps the host's path and its link class (a measurement of that host's PCIe stays its own).
// Link classes of a new fabric are named by intra_link_class(`cluster`, ...). A `device` the
// catalog lacks (nullptr), or the part the host already has, keeps the fabric.
void replace_gpus(NodeSpec& node, const std::string& device_id, const costmodel::DeviceSpec* device,
                  const std::string& cluster);

// One line per host of `cluster` whose GPUs the catalog says are joined by NVLink (SXM parts)
// and the file joins otherwise: "FILE: host h1: 8 x a100-sxm4-40gb are SXM parts joined by NVLink
// by construction (catalog intra_node_fabric), but the file joins them by pcie-host: ... (hint:
// ...)"; and one per host joined by nvlink faster than its part's NVLink, or whose part has none
// (a file written before the catalog carried each part's rate: 8 A100 SXM4 at NVLink 4's rate).
// Empty when every host agrees with the catalog or its devices state no fabric.
std::vector<std::string> fabric_warnings(const ClusterSpec& cluster,
                                         const costmodel::DeviceCatalog& catalog);

}  // namespace vitsim::schema
