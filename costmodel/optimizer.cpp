// Optimizer names (see optimizer.h).
#include "costmodel/optimizer.h"

#include <stdexcept>

namespace vitsim::costmodel {

Optimizer parse_optimizer(const std::string& text) {
  if (text == "adamw") return Optimizer::kAdamW;
  if (text == "sgd") return Optimizer::kSgd;
  throw std::invalid_argument("unknown optimizer '" + text + "' (expected adamw or sgd)");
}

const char* to_string(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kAdamW:
      return "adamw";
    case Optimizer::kSgd:
      return "sgd";
  }
  return "?";
}

}  // namespace vitsim::costmodel
