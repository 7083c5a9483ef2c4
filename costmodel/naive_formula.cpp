// The naive formula; see naive_formula.h.
#include "costmodel/naive_formula.h"

#include <stdexcept>

#include "costmodel/collective_op.h"

namespace vitsim::costmodel {

double naive_step_time_s(double slowest_compute_s, int64_t ranks, double gradient_bytes,
                         double slowest_bandwidth_bytes_per_s) {
  if (ranks < 1) throw std::invalid_argument("naive formula: ranks must be >= 1");
  if (ranks == 1) return slowest_compute_s;
  if (!(slowest_bandwidth_bytes_per_s > 0))
    throw std::invalid_argument("naive formula: the slowest link's bandwidth must be > 0");
  return slowest_compute_s +
         allreduce_bus_factor(ranks) * gradient_bytes / slowest_bandwidth_bytes_per_s;
}

}  // namespace vitsim::costmodel
