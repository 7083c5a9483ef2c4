// Checks of a value against a physical bound (see physical_bounds.h).
#include "costmodel/physical_bounds.h"

#include <cmath>

#include "costmodel/number_text.h"

namespace vitsim::costmodel {

std::string bound_violation(const Bound& b, double x) {
  if (!std::isfinite(x)) return "not a finite number";
  if (x == 0 && b.zero_allowed) return "";
  // Denormals first: they are below every min and would read as "below 1e-09" otherwise, which
  // hides that the number itself has lost its precision.
  if (std::fpclassify(x) == FP_SUBNORMAL) return "a denormal number (no precision left)";
  if (x < b.min) return "below " + number_text(b.min);
  if (x > b.max) return "above " + number_text(b.max);
  return "";
}

std::string bound_violation(const CountBound& b, int64_t x) {
  if (x < b.min) return "below " + std::to_string(b.min);
  if (x > b.max) return "above " + std::to_string(b.max);
  return "";
}

}  // namespace vitsim::costmodel
