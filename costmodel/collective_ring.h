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

// NCCL's connection buffer (docs/simulator.md, "Small buckets on many ranks", names the lines):
// NCCL_STEPS = 8 slots per connection (src/include/device.h), NCCL_BUFFSIZE = 4 MiB by default
// (src/init.cc, DEFAULT_BUFFSIZE), so a slot is 512 KiB in the Simple protocol; a ring all-reduce,
// reduce-scatter or all-gather moves a phase as chunks of ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2
// slots (src/include/collectives.h; the same for the other two), each chunk taking all its slots
// however few its bytes (src/device/prims_simple.h, genericOp).
inline constexpr int64_t kNcclSteps = 8;
inline constexpr double kNcclBuffSizeBytes = 4.0 * 1024 * 1024;
inline constexpr int64_t kNcclRingChunkSteps = kNcclSteps / 2;

// The chunks a phase of `bytes_per_channel` takes in its connection's buffer: ceil(bytes / chunk
// bytes) with chunk bytes = buffsize / NCCL_STEPS x kNcclRingChunkSteps (2 MiB by default), at
// least 1 and at most the buffer's NCCL_STEPS / kNcclRingChunkSteps = 2 (a larger phase runs
// with the whole buffer).
int64_t ring_phase_chunks(double bytes_per_channel, double buffsize_bytes = kNcclBuffSizeBytes);
// The chunks a connection's buffer holds: NCCL_STEPS / kNcclRingChunkSteps = 2.
inline constexpr int64_t kRingBufferChunks = kNcclSteps / kNcclRingChunkSteps;
// How many phases a ring's sender runs ahead of its receiver: the buffer's chunks / a phase's
// chunks, floored, at least 1: 2 for phases of up to 2 MiB per channel, 1 above.
int64_t ring_window_phases(double bytes_per_channel, double buffsize_bytes = kNcclBuffSizeBytes);

// Whether a ring phase of `bytes_per_channel` fits its connection's buffer (<= buffsize): if so
// its sender writes all of it before its receiver takes any; a larger phase streams through the
// buffer, so all but buffsize of it waits for the receiver.
bool ring_phase_fits_buffer(double bytes_per_channel, double buffsize_bytes = kNcclBuffSizeBytes);

// One edge of a ring as one message pays it: its route's latency and the seconds per byte of its
// share of the route's narrowest link (bandwidth / the edges crossing that link at once).
struct RingHop {
  double latency_s = 0;
  double seconds_per_byte = 0;
};

// A chunk's path around a ring: `hops` consecutive edges (it starts at any edge; an all-reduce's
// chunk makes 2(N-1) hops), the largest sums over the starts of its hops' latencies and seconds
// per byte (each largest apart: exact when one start has both, as on rings of alike nodes); and
// the slowest hop's latency and seconds per byte (each largest apart), on which the window
// bounds the ring. Empty ring or no hops: zeros.
struct ChunkPath {
  double latency_s = 0;
  double seconds_per_byte = 0;
  int64_t hops = 0;
  double slowest_latency_s = 0;
  double slowest_seconds_per_byte = 0;
};
ChunkPath ring_chunk_path(const std::vector<RingHop>& ring, int64_t hops);

// The least time of a pipelined ring's operation with `bytes_per_hop` per channel on every hop:
// the longer of its chunk's path (latency_s + bytes x seconds_per_byte) and the window's bound on
// the slowest edge, whose sender waits for its receiver to take phase p - W before it sends p:
// ceil(hops / W) x (slowest latency + bytes x slowest seconds per byte), W =
// ring_window_phases(bytes_per_hop). The ring takes the longer of this and its slowest edge's
// transfer of every phase (docs/cost-model.md, section 3).
double chunk_path_time_s(const ChunkPath& path, double bytes_per_hop);

}  // namespace vitsim::costmodel
