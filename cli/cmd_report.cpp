// vitsim report: placeholder until issue 5 (calibrate) lands.
#include "cli/commands.h"
#include "cli/run_app.h"

namespace vitsim::cli {

int cmd_report(int, char**) { return not_built("report", "issue 5 (calibrate)"); }

}  // namespace vitsim::cli
