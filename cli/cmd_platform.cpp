// vitsim platform: placeholder until issue 4 (simulator) lands.
#include "cli/commands.h"
#include "cli/run_app.h"

namespace vitsim::cli {

int cmd_platform(int, char**) { return not_built("platform", "issue 4 (simulator)"); }

}  // namespace vitsim::cli
