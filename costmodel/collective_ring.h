// The ring algorithm's rules, pure (docs/simulator.md, "Collectives"; docs/cost-model.md,
// section 3): how many rings NCCL runs at once over a node's NICs, and the time of an operation
// around a ring on uniform links. Its SimGrid part (groups, messages, flows) is
// sim/collective_ring.cpp; its name, kCollectiveNames (collective.h).
#pragma once

#include <cstdint>
#include <vector>

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

// NCCL_STEPS (NCCL's src/include/device.h): the slots of a connection's buffer. A ring's sender
// runs at most this many messages ahead of its receiver, so no phase waits for every edge
// (docs/cost-model.md, section 3, "A ring's latency").
inline constexpr int64_t kNcclSteps = 8;

// One edge of a ring as one message pays it: its route's latency and the seconds per byte of its
// share of the route's narrowest link (bandwidth / the edges crossing that link at once).
struct RingHop {
  double latency_s = 0;
  double seconds_per_byte = 0;
};

// A chunk's path around a ring: `hops` consecutive edges (it starts at any edge; an all-reduce's
// chunk makes 2(N-1) hops), the largest sums over the starts of its hops' latencies and seconds
// per byte (each largest apart: exact when one start has both, as on rings of alike nodes). With
// sends at most kNcclSteps phases ahead, the latency is also at least ceil(hops / kNcclSteps) x
// the slowest hop's (the window on the slowest edge). Empty ring or no hops: zeros.
struct ChunkPath {
  double latency_s = 0;
  double seconds_per_byte = 0;
};
ChunkPath ring_chunk_path(const std::vector<RingHop>& ring, int64_t hops);

// The least time of a pipelined ring's operation: its chunk's path with `bytes_per_hop` on every
// hop, latency_s + bytes_per_hop x seconds_per_byte; the ring takes the longer of this and its
// slowest edge's transfer of every phase (docs/cost-model.md, section 3).
double chunk_path_time_s(const ChunkPath& path, double bytes_per_hop);

}  // namespace vitsim::costmodel
