// A number as vitsim's errors write it next to a limit or a range ("above 1e+14", "0 .. 512"):
// what a C++ stream writes by default, six significant digits. One home, so that the file
// readers' bounds (physical_bounds.h) and vitsim-train's checks of a checkpoint's position
// (trainer/checkpoint_position.cpp) write a value the same way.
#pragma once

#include <string>

namespace vitsim::costmodel {

std::string number_text(double x);

}  // namespace vitsim::costmodel
