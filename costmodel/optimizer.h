// The optimizer a training run uses, as far as the model cares: how many fp32 state tensors it
// keeps per parameter (memory, docs/cost-model.md "Memory"). Parsed once where text comes in
// (scenario files, command lines); everything inside passes the enum.
#pragma once

#include <string>

#include "costmodel/enum_names.h"

namespace vitsim::costmodel {

enum class Optimizer { kAdamW, kSgd };
inline constexpr EnumName<Optimizer> kOptimizerNames[] = {
    {Optimizer::kAdamW, "adamw"},
    {Optimizer::kSgd, "sgd"},
};

// A name of kOptimizerNames; throws std::invalid_argument listing them otherwise.
Optimizer parse_optimizer(const std::string& text);
const char* to_string(Optimizer optimizer);

}  // namespace vitsim::costmodel
