// The process's peak resident set (VmHWM) on Linux, and its reset: what `vitsim-train profile`
// reads as a CPU micro-batch's peak memory (layer_profiler.h). Not the tensors' own peak
// (memory_meter.h): the resident set also holds the allocator's free lists and the code.
#pragma once

namespace vitsim::trainer {

// Peak resident set since the last reset, bytes; -1 where /proc cannot tell.
double peak_rss_bytes();

// Resets the peak to the current resident set (Linux >= 4.0); false where it cannot.
bool reset_peak_rss();

}  // namespace vitsim::trainer
