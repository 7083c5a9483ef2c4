// vitsim predict: placeholder until issue 4 (simulator) lands.
#include "cli/commands.h"
#include "cli/run_app.h"

namespace vitsim::cli {

int cmd_predict(int, char**) { return not_built("predict", "issue 4 (simulator)"); }

}  // namespace vitsim::cli
