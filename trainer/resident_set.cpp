// Peak resident set from /proc; see resident_set.h.
#include "trainer/resident_set.h"

#include <fstream>
#include <string>

namespace vitsim::trainer {

double peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kb = 0;
      in >> kb;
      return kb * 1024;
    }
    std::getline(in, key);
  }
  return -1;
}

bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";  // resets VmHWM to the current RSS (Linux >= 4.0)
  return static_cast<bool>(out.flush());
}

}  // namespace vitsim::trainer
