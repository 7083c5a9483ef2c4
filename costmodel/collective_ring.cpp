// The ring's rules; see collective_ring.h.
#include "costmodel/collective_ring.h"

#include <algorithm>
#include <cmath>

namespace vitsim::costmodel {

int64_t ring_channels(int64_t nodes, int64_t fewest_nics_per_node) {
  if (nodes < 2 || fewest_nics_per_node < 2) return 1;
  return std::min(fewest_nics_per_node, kMaxRingChannels);
}

double ring_time_s(CollectiveOp op, int64_t ranks, double message_bytes,
                   double bandwidth_bytes_per_s, double latency_s) {
  if (ranks < 2) return 0.0;
  return bus_factor(op, ranks) * message_bytes / bandwidth_bytes_per_s +
         static_cast<double>(ring_phases(op, ranks)) * latency_s;
}

double ring_allreduce_time_s(int64_t ranks, double message_bytes, double bandwidth_bytes_per_s,
                             double latency_s) {
  return ring_time_s(CollectiveOp::kAllReduce, ranks, message_bytes, bandwidth_bytes_per_s,
                     latency_s);
}

namespace {

// The largest sum of `hops` consecutive values of `x` around the cycle (any start): whole laps plus
// the largest window of the rest, slid one edge at a time.
double largest_cyclic_sum(const std::vector<double>& x, int64_t hops) {
  const auto n = static_cast<int64_t>(x.size());
  double lap = 0;
  for (double v : x) lap += v;
  const int64_t rest = hops % n;
  double window = 0;
  for (int64_t i = 0; i < rest; ++i) window += x[static_cast<size_t>(i)];
  double best = window;
  for (int64_t s = 1; rest > 0 && s < n; ++s) {
    window += x[static_cast<size_t>((s + rest - 1) % n)] - x[static_cast<size_t>(s - 1)];
    best = std::max(best, window);
  }
  return static_cast<double>(hops / n) * lap + best;
}

}  // namespace

int64_t ring_phase_chunks(double bytes_per_channel, double buffsize_bytes) {
  const double chunk_bytes =
      buffsize_bytes / static_cast<double>(kNcclSteps) * static_cast<double>(kNcclRingChunkSteps);
  if (!(bytes_per_channel > chunk_bytes)) return 1;  // NaN and empty phases too
  const double chunks = std::ceil(bytes_per_channel / chunk_bytes);
  return chunks >= static_cast<double>(kRingBufferChunks) ? kRingBufferChunks
                                                          : static_cast<int64_t>(chunks);
}

int64_t ring_window_phases(double bytes_per_channel, double buffsize_bytes) {
  return std::max<int64_t>(
      1, kRingBufferChunks / ring_phase_chunks(bytes_per_channel, buffsize_bytes));
}

bool ring_phase_fits_buffer(double bytes_per_channel, double buffsize_bytes) {
  return !(bytes_per_channel > buffsize_bytes);
}

ChunkPath ring_chunk_path(const std::vector<RingHop>& ring, int64_t hops) {
  if (ring.empty() || hops < 1) return {};
  std::vector<double> latency, per_byte;
  ChunkPath out;
  for (const RingHop& h : ring) {
    latency.push_back(h.latency_s);
    per_byte.push_back(h.seconds_per_byte);
    out.slowest_latency_s = std::max(out.slowest_latency_s, h.latency_s);
    out.slowest_seconds_per_byte = std::max(out.slowest_seconds_per_byte, h.seconds_per_byte);
  }
  out.latency_s = largest_cyclic_sum(latency, hops);
  out.seconds_per_byte = largest_cyclic_sum(per_byte, hops);
  out.hops = hops;
  return out;
}

double chunk_path_time_s(const ChunkPath& path, double bytes_per_hop) {
  const double window = static_cast<double>(ring_window_phases(bytes_per_hop));
  const double windows = std::ceil(static_cast<double>(path.hops) / window);
  return std::max(
      path.latency_s + bytes_per_hop * path.seconds_per_byte,
      windows * (path.slowest_latency_s + bytes_per_hop * path.slowest_seconds_per_byte));
}

}  // namespace vitsim::costmodel
