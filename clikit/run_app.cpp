// Exit-code rules of every subcommand (see run_app.h).
#include "clikit/run_app.h"

#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "schema/input_error.h"

namespace vitsim::clikit {

CLI::Validator positive_count() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        try {
          size_t used = 0;
          if (std::stoll(v, &used) >= 1 && used == v.size()) return "";
        } catch (const std::exception&) {
        }
        return "expected a count >= 1, got " + v;
      },
      "COUNT>=1");
}

CLI::Validator unit_fraction() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        try {
          size_t used = 0;
          const double f = std::stod(v, &used);
          if (f > 0 && f <= 1 && used == v.size()) return "";
        } catch (const std::exception&) {
        }
        return "expected a fraction in (0, 1], got " + v;
      },
      "FRACTION in (0,1]");
}

std::string escape_control_bytes(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b >= 0x20 && b != 0x7f) || c == '\n' || c == '\t') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
    }
  }
  return out;
}

CLI::Validator number_in(double lo, double hi) {
  std::ostringstream range;
  range << "[" << lo << ", " << hi << "]";
  return CLI::Validator(
      [lo, hi, text = range.str()](std::string& v) -> std::string {
        try {
          size_t used = 0;
          const double x = std::stod(v, &used);
          if (x >= lo && x <= hi && used == v.size()) return "";
        } catch (const std::exception&) {
        }
        return "expected a number in " + text + ", got " + v;
      },
      "NUMBER in " + range.str());
}

int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << escape_control_bytes(e.what()) << " (see --help)\n";
    return 2;
  }
  try {
    return body();
  } catch (const schema::InputError& e) {
    std::cerr << app.get_name() << ": " << escape_control_bytes(e.what()) << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << app.get_name() << ": " << escape_control_bytes(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << escape_control_bytes(e.what()) << "\n";
    return 1;
  }
}

}  // namespace vitsim::clikit
