// LibTorch reports errors as c10::Error, whose what() carries a C++ stack trace (13 frames for a
// weight decay of -1). vitsim-train's errors are one line: the subcommands run their body through
// without_torch_backtrace(), which keeps LibTorch's message and drops the trace. Bad options are
// refused before LibTorch sees them (validate_options); this is for what slips through.
#pragma once

#include <c10/util/Exception.h>

#include <stdexcept>
#include <utility>

namespace vitsim::trainer {

template <typename Body>
int without_torch_backtrace(Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const c10::Error& e) {
    throw std::runtime_error(std::string("LibTorch: ") + e.what_without_backtrace());
  }
}

}  // namespace vitsim::trainer
