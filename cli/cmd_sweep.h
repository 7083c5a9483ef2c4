// What the parts of `vitsim sweep` share (cmd_sweep.cpp: its options, the single-machine sweep
// and the command; cmd_sweep_shards.cpp: --shard and --merge; cmd_sweep_search.cpp: the host-subset
// and device search of --hosts-from and --devices): the parsed options, the output every mode
// prints and writes, and the entry points of each mode. Internal to the sweep command.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cli/cost_options.h"
#include "cli/option_groups.h"
#include "clikit/model_options.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/vit_config.h"
#include "plan/sweep.h"
#include "schema/cluster.h"
#include "schema/output_rule.h"
#include "sim/simulator.h"

namespace vitsim::cli {

struct SweepArgs {
  InputArgs input;
  RunArgs run;
  GoalArgs goal;
  std::string out_prefix, json_path, shard;
  std::vector<std::string> merge;
  int jobs = 0;  // 0: default_sweep_jobs
  std::string progress = "auto";
  std::string hosts_from, devices;
  bool explain = false, quiet = false;  // the unmeasured parts' warnings (print_unmeasured)
  std::vector<std::string> given;       // the options on the command line (set after parsing)
};

// The table, what was skipped, the notes, the best and the Pareto front; the warnings on
// unmeasured parts; the files (--out, --json).
void print_and_write(const SweepArgs& a, const plan::SweepResult& r, const plan::SweepSpec& spec,
                     const costmodel::ViTConfig& model, schema::OutputGroup& written);

// A sweep with no best configuration answers nothing: exit 2, saying why (the skipped and the
// notes were printed above).
int nothing_found(const plan::SweepResult& r);

// Every device the sweep's configurations may use, for the one price mode of its cost column:
// the searched devices (--devices, parsed), else the cluster's.
std::set<std::string> priced_devices(const std::vector<std::string>& searched,
                                     const schema::ClusterSpec& cluster);

// The one file a shard writes: --json FILE, or PREFIX.json of --out PREFIX (not both: one would
// be ignored).
std::string shard_path(const SweepArgs& a);

// --merge: the shard files checked and merged into the single-machine result, picked and printed.
int merge(const SweepArgs& a, const clikit::ModelOptions& model_options,
          const std::vector<std::string>& args, schema::OutputGroup& written);

// What a shard's configurations are simulated with (not owned).
struct ShardInputs {
  const schema::ClusterSpec& cluster;
  const costmodel::DeviceCatalog& catalog;
  const costmodel::ViTConfig& model;
  const costmodel::CostModel& costs;
  const sim::SimOptions& options;
  const std::vector<std::string>& searched;  // --devices, parsed
};

// --shard I/N: simulates the slice and writes the shard file, only when the slice is whole (a
// partial shard cannot merge): interrupted, it writes nothing and exits 128 + the signal.
int shard(const SweepArgs& a, const plan::SweepSpec& spec, const ShardInputs& in,
          const CostArgs& cost, const std::vector<plan::SweepItem>& items,
          const std::vector<std::string>& args, schema::OutputGroup& written);

// --devices as catalog ids, through the one resolver (costmodel::match_device): an id, or a name
// only one device has; an ambiguous name ("a100") is refused listing its ids, as cluster init,
// calibrate and predict refuse it; a name nothing resembles gets the typo suggestion.
std::vector<std::string> resolve_searched(const std::string& text,
                                          const costmodel::DeviceCatalog& catalog,
                                          const schema::ClusterSpec& cluster);

// --hosts-from / --devices: the subset and device search (plan/subset_search.h).
plan::SweepResult search(const SweepArgs& a, const plan::SweepSpec& spec,
                         const schema::ClusterSpec& cluster,
                         const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& vit,
                         const costmodel::CostModel& costs, const sim::SimOptions& options,
                         const CostArgs& cost, const std::vector<std::string>& searched);

}  // namespace vitsim::cli
