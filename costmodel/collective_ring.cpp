// The ring's rules; see collective_ring.h.
#include "costmodel/collective_ring.h"

#include <algorithm>

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

}  // namespace vitsim::costmodel
