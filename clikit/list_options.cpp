// Option value parsers of the command-line kit (see list_options.h).
#include "clikit/list_options.h"

#include <sys/stat.h>

#include <stdexcept>
#include <utility>

namespace vitsim::clikit {

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (item.empty()) {
      throw std::invalid_argument("--" + option + ": an empty item in '" + text +
                                  "' (hint: values separated by single commas, none at the ends)");
    }
    out.push_back(item);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

void refuse_repeated_files(const std::vector<std::string>& paths, const std::string& option) {
  std::vector<std::pair<std::pair<dev_t, ino_t>, std::string>> seen;
  for (const std::string& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // a missing file fails where it is read
    const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
    for (const auto& [other_id, other] : seen) {
      if (other_id == id)
        throw std::invalid_argument(option + ": " + path + " is given twice" +
                                    (other == path ? "" : " (also as " + other + ")") +
                                    " (hint: give each file once; its contents would count twice)");
    }
    seen.push_back({id, path});
  }
}

int64_t parse_integer(const std::string& s) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw std::invalid_argument("expected an integer");
  return v;
}

int64_t parse_positive_integer(const std::string& s) {
  const int64_t v = parse_integer(s);
  if (v < 1) throw std::invalid_argument("expected a positive integer");
  return v;
}

bool parse_on_off(const std::string& s) {
  if (s == "on") return true;
  if (s == "off") return false;
  throw std::invalid_argument("expected on or off");
}

double parse_number(const std::string& s) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw std::invalid_argument("expected a number");
  return v;
}

}  // namespace vitsim::clikit
