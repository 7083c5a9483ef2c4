// Exit-code rules of every subcommand (see run_app.h).
#include "clikit/run_app.h"

#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "clikit/suggest.h"
#include "schema/input_error.h"

namespace vitsim::clikit {

namespace {

// Every option name of app and its subcommands ("--cluster", "-o"), and the subcommand names.
void collect_names(CLI::App& app, std::vector<std::string>& options,
                   std::vector<std::string>& commands) {
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) options.push_back("--" + n);
    for (const auto& n : o->get_snames()) options.push_back("-" + n);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) commands.push_back(sub->get_name());
    collect_names(*sub, options, commands);
  }
}

// "unknown option --clustr (did you mean --cluster?)" for each argument nothing took, "" when
// none is an option (or, with subcommands, a word): a typo is named even when it made a required
// option missing, for the typo is the cause.
std::string unknown_arguments(CLI::App& app) {
  std::vector<std::string> options, commands;
  collect_names(app, options, commands);
  std::string out;
  for (const std::string& arg : app.remaining(true)) {
    std::string line;
    if (arg.size() > 1 && arg[0] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      line = "unknown option " + name + did_you_mean(name, options);
    } else if (!commands.empty() && !did_you_mean(arg, commands).empty()) {
      line = "unexpected argument '" + arg + "'" + did_you_mean(arg, commands);
    } else {
      continue;  // a value of an unknown option, or a stray positional: CLI11 says it
    }
    out += (out.empty() ? "" : "; ") + line;
  }
  return out;
}

}  // namespace

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
    const std::string unknown = unknown_arguments(app);
    const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
    std::cerr << app.get_name() << ": "
              << escape_control_bytes(unknown.empty() ? std::string(e.what())
                                      : extras        ? unknown
                                                      : unknown + "; " + e.what())
              << " (see --help)\n";
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
