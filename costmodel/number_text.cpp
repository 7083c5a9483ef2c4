// A number as vitsim's errors write it; see number_text.h.
#include "costmodel/number_text.h"

#include <sstream>

namespace vitsim::costmodel {

std::string number_text(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

}  // namespace vitsim::costmodel
