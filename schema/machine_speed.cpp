// Reading the machine-speed file: see machine_speed.h.
#include "schema/machine_speed.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "schema/input_error.h"
#include "schema/text_file.h"

namespace vitsim::schema {

std::map<std::string, double> read_machine_speeds(const std::string& path) {
  std::istringstream in(read_text_file(path, size_t{16} << 20, "a machine-speed file"));
  std::map<std::string, double> speeds;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::vector<std::string> f;
    for (std::string w; words >> w;) f.push_back(w);
    if (f.empty() || f[0][0] == '#') continue;
    const std::string at = "line " + std::to_string(line_no);
    if (f.size() != 2)
      throw InputError::at(path, at, "2 fields (RUN FACTOR)", std::to_string(f.size()) + " fields");
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(f[1], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != f[1].size() || !std::isfinite(v) || v < kMinMachineSpeedFactor ||
        v > kMaxMachineSpeedFactor) {
      throw InputError::at(path, at + ": FACTOR",
                           "a number from 0.1 to 10 (the run's cost per unit of CPU work against "
                           "the profiles')",
                           "'" + f[1] + "'");
    }
    if (!speeds.emplace(f[0], v).second)
      throw InputError::at(path, at + ": RUN", "each run once", "'" + f[0] + "' again");
  }
  return speeds;
}

}  // namespace vitsim::schema
