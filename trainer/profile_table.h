// The table `vitsim-train profile` prints per micro-batch: each layer's mean forward and backward
// with their interquartile ranges, the host-side costs, the whole step, and, where the timed steps
// were taken in independent blocks, the blocks' spread (docs/formats/profile.md).
#pragma once

#include "schema/profile.h"

namespace vitsim::trainer {

void print_profile_table(const schema::MicroBatchProfile& m);

}  // namespace vitsim::trainer
