// Optimizer names (see optimizer.h).
#include "costmodel/optimizer.h"

namespace vitsim::costmodel {

Optimizer parse_optimizer(const std::string& text) {
  return parse_named(kOptimizerNames, text, "optimizer");
}

const char* to_string(Optimizer optimizer) {
  return name_of(kOptimizerNames, optimizer);
}

}  // namespace vitsim::costmodel
