// The tree's rules; see collective_tree.h.
#include "costmodel/collective_tree.h"

#include <algorithm>
#include <cmath>

namespace vitsim::costmodel {

int64_t tree_depth(int64_t n) {
  int64_t d = 0;
  while ((int64_t{1} << (d + 1)) <= n) ++d;  // depth of position n-1 in a heap = floor(log2 n)
  return d;
}

int64_t tree_phases(int64_t ranks) {
  return ranks < 2 ? 0 : 2 * tree_depth(ranks);
}

int64_t tree_chunks(double half_bytes) {
  return static_cast<int64_t>(std::clamp(std::ceil(half_bytes / kTreeChunkBytes), 1.0,
                                         static_cast<double>(kTreeMaxChunks)));
}

double tree_pipeline_fill_s(double half_bytes, int64_t hops, double path_seconds_per_byte,
                            double slowest_seconds_per_byte) {
  const int64_t chunks = tree_chunks(half_bytes);
  if (chunks < hops) return 0;
  const double chunk_bytes = half_bytes / static_cast<double>(chunks);
  return chunk_bytes * std::max(0.0, path_seconds_per_byte - slowest_seconds_per_byte);
}

}  // namespace vitsim::costmodel
