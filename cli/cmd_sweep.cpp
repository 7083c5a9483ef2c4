// vitsim sweep: placeholder until issue 4 (simulator) lands.
#include "cli/commands.h"
#include "cli/run_app.h"

namespace vitsim::cli {

int cmd_sweep(int, char**) { return not_built("sweep", "issue 4 (simulator)"); }

}  // namespace vitsim::cli
