// The "answers" part of a prediction (docs/formats/prediction.md, "breakdown", "advice", "cost"):
// why a step takes what it takes (the step split, the links that held the exposed communication,
// the bottleneck in one sentence), the simulated what-ifs that would change it most (and, out of
// memory, what would make it fit), and what a run costs in dollars and energy. Optional keys of a
// configuration's prediction: readers accept their absence (not computed, or out of memory).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schema/json_node.h"

namespace vitsim::schema {

// Exposed communication of the step that one link held: the seconds of the critical rank's
// blocked time during which this link was saturated in the simulation (docs/simulator.md,
// "Breakdown").
struct LinkExposure {
  std::string link;        // platform link name, e.g. "tesla3.nic"
  std::string link_class;  // its class in the cluster file
  double seconds = 0;
};

struct StepBreakdown {
  double step_time_s = 0;
  double compute_s = 0;         // the slowest rank's compute per step
  double straggler_wait_s = 0;  // the longest time a faster rank waits for the slowest one
  double exposed_comm_s = 0;    // step_time_s - compute_s: communication not hidden by compute
  // Per link, descending seconds; empty when not attributed (exposed_comm_attributed false).
  std::vector<LinkExposure> exposed_comm_by_link;
  // Exposed communication while no link was saturated (latencies, phases without a full link).
  double exposed_comm_unsaturated_s = 0;
  bool exposed_comm_attributed = false;  // false: the class-level simulation, or too many ranks
  // When not attributed: why, and how to get the per-link split (empty when attributed).
  std::string exposed_comm_unattributed_why;
  std::string bottleneck;  // one sentence
};

// One simulated what-if: what changed and the prediction it gave.
struct WhatIf {
  std::string what_if;           // "drop host tesla3"
  Json change = Json::object();  // the changed inputs, e.g. {"hosts": [...]}
  double step_time_s = 0;
  double epoch_time_s = 0;
  double epoch_change_rel = 0;  // (new - base) / base epoch time: negative is faster
};

// One change that makes an out-of-memory configuration fit (docs/simulator.md, "Advice"):
// simulated as a configuration of its own, with its cost where priced.
struct FitOption {
  std::string what_if;           // "ZeRO stage 3", "activation checkpointing", ...
  Json change = Json::object();  // the changed inputs, e.g. {"zero_stage": 3}
  int64_t gpus = 0;
  double step_time_s = 0;
  double epoch_time_s = 0;
  double memory_bytes = 0;                   // per rank, the largest
  double device_memory_bytes = 0;            // of that rank's device
  std::optional<double> epoch_usd, run_usd;  // absent where not priced
};

struct RunCost {
  std::string mode;                                      // "cloud" | "owned"
  std::map<std::string, double> price_usd_per_gpu_hour;  // per device id used
  std::string price_source;
  // "checked": every price is a verified table entry (a stored copy of its dated page gives it);
  // "unverified": at least one is not (platforms/prices.json `verified`); "--price": the user's.
  std::string price_status = "unverified";
  double epoch_usd = 0;
  double run_usd = 0;
  int64_t epochs = 1;
  double epoch_kwh = 0;
  double run_kwh = 0;
  bool energy_is_upper_bound = true;  // power is the device's TDP, not a measurement
  std::string power_source = "TDP";
};

Json write_breakdown(const StepBreakdown& b);
StepBreakdown read_breakdown(const Node& n);
Json write_advice(const std::vector<WhatIf>& advice);
std::vector<WhatIf> read_advice(const Node& n);
Json write_fit_options(const std::vector<FitOption>& options);
std::vector<FitOption> read_fit_options(const Node& n);
Json write_run_cost(const RunCost& c);
RunCost read_run_cost(const Node& n);

}  // namespace vitsim::schema
