// Gradient bucket assignment (see buckets.h).
#include "costmodel/buckets.h"

#include <stdexcept>

namespace vitsim::costmodel {

std::vector<std::vector<size_t>> assign_buckets(const std::vector<double>& gradient_bytes,
                                                double cap_bytes) {
  if (!(cap_bytes > 0)) throw std::invalid_argument("gradient bucket cap must be > 0 bytes");
  std::vector<std::vector<size_t>> out;
  std::vector<size_t> open;
  double bytes = 0;
  for (size_t i = 0; i < gradient_bytes.size(); ++i) {
    if (!(gradient_bytes[i] > 0)) continue;
    open.push_back(i);
    bytes += gradient_bytes[i];
    if (bytes >= cap_bytes) {
      out.push_back(std::move(open));
      open.clear();
      bytes = 0;
    }
  }
  if (!open.empty()) out.push_back(std::move(open));
  return out;
}

}  // namespace vitsim::costmodel
