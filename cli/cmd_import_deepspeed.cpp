// vitsim import-deepspeed: placeholder until issue 5 (calibrate) lands.
#include "cli/commands.h"
#include "cli/run_app.h"

namespace vitsim::cli {

int cmd_import_deepspeed(int, char**) { return not_built("import-deepspeed", "issue 5 (calibrate)"); }

}  // namespace vitsim::cli
