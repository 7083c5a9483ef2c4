// DeepSpeed's wall_clock_breakdown logs as a study's log format (log_format.h, "deepspeed"):
// each log imported on its own (calibrate sees the spread between nodes) by import_deepspeed
// (deepspeed_import.h, docs/calibration.md "Importing DeepSpeed logs"), its multi-rank ones with
// the local gradient work that the 1-rank logs of the same device and precision measure
// (local_gradient_work_s; one vote per log).
#pragma once

#include "import/log_format.h"

namespace vitsim::import {

const LogFormat& deepspeed_log_format();

}  // namespace vitsim::import
