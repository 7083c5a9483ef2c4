// The ring algorithm's rules, pure (docs/simulator.md, "Collectives"; docs/cost-model.md,
// section 3): how many rings NCCL runs at once over a node's NICs, and the time of an operation
// around a ring on uniform links. Its SimGrid part (groups, messages, flows) is
// sim/collective_ring.cpp; its name, kCollectiveNames (collective.h).
#pragma once

#include <cstdint>

#include "costmodel/collective_op.h"

namespace vitsim::costmodel {

// NCCL's ring channels: a ring over two or more nodes runs one channel per NIC, each crossing the
// node boundary through its own NIC and carrying 1/channels of the message, as many as the node
// with the fewest NICs among its ranks' GPUs has, at most NCCL's MAXCHANNELS (32); on one node, or
// with one NIC per node, a single ring (1). The simulator builds its rings by it, and calibration
// reads a measured ring's bus bandwidth as that many NICs' (calibrate/link_fit.cpp).
inline constexpr int64_t kMaxRingChannels = 32;
int64_t ring_channels(int64_t nodes, int64_t fewest_nics_per_node);

// `op` of M bytes around a ring of N ranks whose edges cross links of (bandwidth, latency):
//   t = bus_factor(op, N) * M / bandwidth + ring_phases(op, N) * latency
// (all-reduce: 2(N-1)/N * M / bandwidth + 2(N-1) * latency); 0 for one rank.
double ring_time_s(CollectiveOp op, int64_t ranks, double message_bytes,
                   double bandwidth_bytes_per_s, double latency_s);
double ring_allreduce_time_s(int64_t ranks, double message_bytes, double bandwidth_bytes_per_s,
                             double latency_s);

}  // namespace vitsim::costmodel
