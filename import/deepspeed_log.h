// Parser for DeepSpeed training logs written with "wall_clock_breakdown": true. It reads what the
// log itself says and nothing more: the per-step timer lines of rank 0
//   [2024-11-18 00:51:59,677] [INFO] [logging.py:128:log_dist] [Rank 0] time (ms) | fwd: 63.80 |
//       bwd: 142.27 | bwd_inner: 138.49 | bwd_allreduce: 3.77 | step: 17.25
// (the "*_microstep" duplicates are ignored), the configuration DeepSpeed echoes
// (train_micro_batch_size_per_gpu, gradient_accumulation_steps, fp16/bf16 enabled, world size),
// the run directory the study's script prints (".../p0.1_b16_e10": data fraction, micro-batch,
// epochs) and a GPU name where a line states one. Turning this into a profile is
// deepspeed_import.h; the procedure is documented in docs/calibration.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/regime.h"

namespace vitsim::import {

// One "[Rank 0] time (ms) | fwd: ..." line, converted to seconds.
struct DeepSpeedStep {
  int64_t line = 0;                 // 1-based line number in the log
  double timestamp_s = 0;           // the line's wall-clock stamp (seconds, arbitrary epoch)
  double forward_s = 0;             // fwd
  double backward_s = 0;            // bwd = bwd_inner + bwd_allreduce
  double backward_inner_s = 0;      // bwd_inner: backward compute
  double backward_allreduce_s = 0;  // bwd_allreduce: gradient all-reduce incl. waiting for peers
  double optimizer_s = 0;           // step: optimizer step
};

// The study's run directory, e.g. "/home/u/Scalable_ViT_DT/tesla/log/2_GPUs/p0.2_b16_e10".
struct RunDirectory {
  std::string path;
  double data_fraction = 1.0;  // p
  int64_t micro_batch = 0;     // b
  int64_t epochs = 0;          // e
};

struct DeepSpeedLog {
  std::string file;
  std::vector<DeepSpeedStep> steps;     // rank-0 step lines in log order
  std::optional<int64_t> micro_batch;   // train_micro_batch_size_per_gpu
  std::optional<int64_t> accumulation;  // gradient_accumulation_steps
  std::optional<int64_t> world_size;    // "world_size=N", "world_size = N", "world_size ... N"
  std::optional<costmodel::Regime> precision;  // fp16/bfloat16/amp_enabled, communication dtype
  std::optional<std::string> gpu_name;         // a "GPU name: ..." style line, when there is one
  std::optional<RunDirectory> run_directory;
};

// Throws schema::InputError ("file: line N: expected ..., got ...") for an unreadable file,
// contradicting echoes (two world sizes) or a log without a single step line.
DeepSpeedLog parse_deepspeed_log(const std::string& path);
DeepSpeedLog parse_deepspeed_log_text(const std::string& text, const std::string& file);

// "[2024-11-18 00:51:59,677]" at the start of a line -> seconds (days from the civil calendar, so
// a run across midnight or a month end keeps increasing). nullopt when the line has no stamp.
std::optional<double> parse_log_timestamp(const std::string& line);

}  // namespace vitsim::import
