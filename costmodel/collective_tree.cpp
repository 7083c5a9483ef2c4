// The tree's rules; see collective_tree.h.
#include "costmodel/collective_tree.h"

namespace vitsim::costmodel {

int64_t tree_depth(int64_t n) {
  int64_t d = 0;
  while ((int64_t{1} << (d + 1)) <= n) ++d;  // depth of position n-1 in a heap = floor(log2 n)
  return d;
}

int64_t tree_phases(int64_t ranks) {
  return ranks < 2 ? 0 : 2 * tree_depth(ranks);
}

}  // namespace vitsim::costmodel
