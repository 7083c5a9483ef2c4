// Profile (schema "vitsim.profile", version 3; docs/formats/profile.md): measured costs of one
// device type. Written by `vitsim-train profile`, `vitsim-train bench-allreduce` and
// `vitsim import-deepspeed`; read by `vitsim calibrate`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "costmodel/collective_op.h"
#include "costmodel/cost_model.h"
#include "costmodel/layer_graph.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kProfileSchema = "vitsim.profile";
// 2: precision holds a regime (regime.h); 3: process_start_time_s, and a measured profile's
// epoch_start_time_s is the loader's restart (version 2's was the process's first step).
inline constexpr int kProfileVersion = 3;

// Times are medians over repetitions; spreads are the interquartile range (p75 - p25).
struct LayerTiming {
  std::string name;  // layer name of the layer graph
  costmodel::LayerKind kind = costmodel::LayerKind::kNorm;
  double forward_time_s = 0;
  double forward_spread_s = 0;
  double backward_time_s = 0;
  double backward_spread_s = 0;
};

struct MicroBatchProfile {
  int64_t micro_batch = 0;  // samples per micro-step on one device
  int64_t repetitions = 0;  // timed repetitions behind each median
  std::vector<LayerTiming> layers;
  double optimizer_time_s = 0;  // one optimizer step (independent of micro-batch)
  // One optimizer step right after the process sat idle for optimizer_wait_s (a sleep), as a
  // multi-rank step's optimizer follows the rank's wait for the gradient all-reduce: a device
  // whose speed depends on what came before (an emulated device's CPU quota returns with its
  // period's budget unspent; docs/simulator.md, "Step") takes another time there. Both or neither;
  // absent where not measured (GPU profiles, imported logs, older profiles).
  std::optional<double> optimizer_after_wait_time_s;
  std::optional<double> optimizer_wait_s;
  // The data loader's exposed wait in the step that follows such a wait (the loader's thread
  // prepares the next batch on the same budget); absent where not measured, and only beside
  // optimizer_wait_s.
  std::optional<double> data_after_wait_time_s;
  double host_to_device_time_s = 0;  // copying one micro-batch of inputs + labels
  double data_time_s = 0;            // exposed wait for the data loader, one micro-batch
  double step_overhead_time_s = 0;   // per-step time outside the other timers
  // Of step_overhead_time_s, the framework's local pass over the gradient (DeepSpeed's flatten,
  // average, copy back: an imported 1-rank log's bwd_allreduce), at this profile's precision; a
  // pass over the gradient's bytes, which calibration scales to another regime's gradient
  // (docs/calibration.md, "Local gradient work"). Absent where not measured.
  std::optional<double> gradient_local_time_s;
  // The copy of every gradient into the all-reduce buckets (divided by the world size on the way
  // in) that vitsim-train makes at 2+ ranks and skips at one: outside this one-rank profile's
  // step, timed on its own right after each timed step's backward (docs/simulator.md, "Step").
  // Absent where not measured (imported logs: DeepSpeed's pass runs at every world size and is
  // gradient_local_time_s; older profiles).
  std::optional<double> bucket_copy_time_s;
  // Sharding and checkpointing (docs/sharding.md, "What is measured"), outside the step, absent
  // where not measured: the recomputation of every checkpointed block in one step's backward
  // (--activation-checkpointing), and one transformer block's gather (its flat buffer allocated,
  // the rank's block copied in: an all-gather of one rank) and free (ZeRO stage 3).
  std::optional<double> recompute_time_s;
  std::optional<double> unit_gather_time_s;
  std::optional<double> unit_free_time_s;
  std::optional<double> peak_memory_bytes;  // absent where it was not measured
  // Interquartile range of the whole step's time over the timed steps (forward, backward,
  // optimizer and the rest together): its step-to-step noise as measured, not a sum of the
  // phases' ranges; absent where it was not measured (older profiles, compute summaries).
  std::optional<double> step_spread_s;
  // The mean whole step of each of two or more independent blocks of timed steps, the blocks
  // taken one after another over the profile's span, interleaved with the other micro-batches'
  // (vitsim-train profile --repeat-blocks): their dispersion is the machine's own run-to-run
  // spread (frequency, memory bandwidth, neighbours moving over minutes), which consecutive
  // steps of one block hide (docs/formats/profile.md). Empty where not measured (older profiles,
  // imports): the spread is then unknown.
  std::vector<double> block_step_times_s;
  // How much longer an epoch's first step takes than a steady one when the epoch is not the
  // process's first (the data loader's restart): a vitsim-train profile's first step after a
  // restart of its loader, an imported log's epoch-first steps after the first epoch; absent
  // where not measured.
  std::optional<double> epoch_start_time_s;
  // How much longer the process's first training step takes than a steady one (loader start,
  // first-touch allocations, lazily initialised kernels, handles and optimizer state): a
  // vitsim-train profile's first step; absent where not measured (imported logs: their first
  // epoch's warm-up is a run's, not in them). A version-2 measured profile's epoch_start_time_s
  // is read here.
  std::optional<double> process_start_time_s;
};

// One point of a collective's benchmark. For an all-reduce message_bytes is the buffer each rank
// sums; for a reduce-scatter or an all-gather it is the whole buffer of n blocks (nccl-tests'
// "size" of both: the input of a reduce-scatter, the output of an all-gather).
struct AllreducePoint {
  double message_bytes = 0;
  double time_s = 0;             // median
  double algbw_bytes_per_s = 0;  // message_bytes / time_s
  double busbw_bytes_per_s = 0;  // algbw * busbw_factor (nccl-tests' definition)
  // The mean time of each of two or more independent blocks of the timed iterations, the blocks
  // taken in rounds over the message sizes (vitsim-train bench-allreduce --repeat-blocks): the
  // link's run-to-run spread. Empty where not measured (older files, imports).
  std::vector<double> block_times_s;
};

struct AllreduceProfile {
  std::string link_class;  // what the ranks talked over, matching cluster files' link_class
  int64_t ranks = 0;
  // Ranks on the host that held the fewest while it ran, where the benchmark knows it (nccl-tests'
  // rank lines, bench-allreduce's MPI processor names); 1 = one a host, or not known (optional
  // key, written when above 1). Calibration
  // reads a ring over several hosts with a NIC per GPU as NCCL's channels
  // (costmodel::ring_channels).
  int64_t ranks_per_node = 1;
  std::string backend;  // "mpi", "nccl", "deepspeed-nccl"
  std::vector<AllreducePoint> points;
  // Seconds every rank idled (computed) before each timed collective (bench-allreduce
  // --compute-before-s; optional key "idle_before_s"): a port with a token bucket refilled its
  // credit meanwhile (docs/formats/profile.md). Absent in older files and imports.
  std::optional<double> idle_before_s;
};

// `ranks_per_node` from the host of each rank: the ranks of the host that held the fewest (1
// for no hosts).
int64_t fewest_ranks_per_host(const std::vector<std::string>& host_of_rank);
// The same from the ranks on each host (hosts without ranks, 0, are not counted).
int64_t fewest_ranks_on_a_host(const std::vector<int64_t>& ranks_on_host);

struct Profile {
  Json context = Json::object();
  std::string device;       // device id (gpus.json or a cluster's own device, e.g. "cpu-2core")
  std::string device_name;  // human-readable
  // kMeasured (vitsim-train) or kImported (DeepSpeed logs); a profile is never kTransferred.
  costmodel::CostSource source = costmodel::CostSource::kMeasured;
  costmodel::Regime precision = costmodel::Regime::kFp32;
  std::optional<costmodel::ViTConfig> model;  // absent for allreduce-only profiles
  std::vector<MicroBatchProfile> compute;     // one entry per micro-batch
  std::vector<AllreduceProfile> allreduce;
  // Set (optional key "superseded") when a later measurement replaces this one: what replaces it
  // and why. Calibration refuses such a profile unless told to accept suspect evidence
  // (docs/calibration.md, "Evidence checked before use"). Empty: current.
  std::string superseded;
  // Reduce-scatter and all-gather benchmarks (ZeRO's collectives; optional keys, written where
  // not empty): the same entries, busbw with their own factor (busbw_factor).
  std::vector<AllreduceProfile> reduce_scatter;
  std::vector<AllreduceProfile> all_gather;
  // Ranks that shared the host while `compute` was measured (optional key "ranks_per_host",
  // written above 1; `mpirun -np K vitsim-train profile --shared-host`): a CPU device's ranks share
  // its cores, memory bandwidth and caches, so its speed depends on how many run beside each other
  // (docs/formats/profile.md). 1: the profiler ran alone.
  int64_t ranks_per_host = 1;
};

// A profile with the file it was read from (for provenance, derived_from, and errors).
struct ProfileInput {
  std::string file;
  Profile profile;
};

// Throws InputError (file: /pointer: expected ..., got ...).
Profile read_profile(const std::string& path);
Profile read_profile(const Node& root);
Json write_profile_json(const Profile& profile);
void write_profile(const std::string& path, const Profile& profile);  // atomic

}  // namespace vitsim::schema
