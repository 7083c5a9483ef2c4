// `vitsim validate --like RUN_LOG`: the configuration a vitsim-train run log records (its hosts,
// one per rank; the model it trained; precision regime, micro-batch, accumulation, images and
// data fraction, optimizer, bucket size, overlap) predicted on the cluster it ran on, so that a
// user's own run is predicted and compared in one command, nothing redefined by hand. The run log
// does not say which links joined its hosts: that is the cluster file's (--cluster, or the file
// the log's cluster name has in the platforms folder). docs/calibration.md, "Validating your own
// runs".
#pragma once

#include <string>
#include <vector>

#include "present/validation.h"
#include "schema/run_log.h"
#include "sim/simulator.h"

namespace vitsim::validate {

// The configuration the run log's `config` describes (collective: ring, what NCCL and Open MPI
// use for gradients of this size; the data fraction and images as recorded).
schema::TrainingConfig config_like(const schema::RunConfig& run);

struct LikeOptions {
  std::string cluster_path;  // empty: <the catalog's folder>/<the log's cluster>.json
  std::string costs_path;    // the cost model (vitsim calibrate)
  std::string gpus_json;     // the device catalog; its folder holds the shipped clusters
  std::string transports;    // transport model parameters, for links the costs did not measure
};

struct LikeRun {
  std::string file;  // the run log
  schema::RunLog log;
  std::string cluster_file;  // the cluster predicted on
  size_t prediction = 0;     // its configuration in LikeResult::predicted
};

struct LikeResult {
  std::vector<LikeRun> runs;                   // one per run log, in order
  std::vector<present::MeasuredRun> measured;  // keyed as their predictions (same order)
  present::NamedPrediction predicted;          // one configuration per distinct run
  std::vector<std::string> notes;              // for stderr: what differs from the log, and why
  // For stderr, louder: what makes the comparison doubtful (a cluster file joining SXM parts over
  // PCIe, schema::fabric_warnings; a profile and a run that saw different machines).
  std::vector<std::string> warnings;
};

// Throws schema::InputError naming the run log and field for a run that cannot be predicted as
// recorded (no cluster file, a host the cluster lacks, a device other than the cluster's), and
// for two logs of one configuration that differ in what the table does not show.
LikeResult predict_like(const std::vector<std::string>& run_logs, const LikeOptions& options);

// Per distinct run: what was predicted (present/run_comparison.h, like_summary) and its step
// measured against predicted, part by part; what validate prints above its table.
std::string like_text(const LikeResult& result);

}  // namespace vitsim::validate
