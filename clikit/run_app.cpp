// Exit-code rules of every subcommand (see run_app.h).
#include "clikit/run_app.h"

#include <exception>
#include <iostream>
#include <stdexcept>

#include "schema/input_error.h"

namespace vitsim::clikit {

int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    return body();
  } catch (const schema::InputError& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace vitsim::clikit
