// Prediction intervals from measured spread (docs/uncertainty.md). Pure arithmetic: the relative
// uncertainties of a prediction's parts (compute of the slowest rank, communication) and how they
// turn into p10-p50-p90 of the step and epoch time, applied OUTSIDE the simulation: the simulated
// step stays the median, identical ranks stay identical, and the straggler effect of independent
// per-rank variation comes from order statistics of the N ranks.
//
// Every uncertainty here is one relative standard deviation (1 sigma) of a normal error.
#pragma once

#include <cstdint>

#include "costmodel/transport_model.h"

namespace vitsim::costmodel {

// Standard normal quantile (inverse CDF), p in (0, 1); std::invalid_argument otherwise.
double normal_quantile(double p);

// Quantile p of the largest of n independent standard normals: Phi^-1(p^(1/n)).
double max_of_normals_quantile(int64_t n, double p);

// Held-out error of the transport model for one NCCL transport (docs/transport-model.md,
// "Validation"; tests/costmodel/uncertainty_test.cpp checks each is wider than a measurement).
double modelled_link_uncertainty_rel(Transport transport);

// A link's figures taken as the cluster file gives them (no transport, no measurement).
inline constexpr double kDatasheetLinkUncertaintyRel = 0.5;

// The relative uncertainty of a link as a prediction uses it: measured/imported links carry
// their fit's residual (when it is 0, nothing measured a spread: the transport's held-out error),
// modelled ones the transport's held-out error, datasheet figures kDatasheetLinkUncertaintyRel.
double link_uncertainty_rel(LinkSource source, Transport transport, double measured_residual_rel);

// The launch-to-launch spread of a GPU cluster's jobs where nothing measured it: the pooled
// relative spread, sqrt(sum d^2 / 2n), of the per-step time between two launches of one
// configuration in the reference study, its n = 4 logs against the development rows of the same
// cluster, GPU count and micro-batch (d = -0.1, -3.5, -7.8 and +0.0 %; docs/uncertainty.md,
// "Launch to launch"; app/launch_pairs.h computes it, tests/app/launch_pairs_test.cpp holds this
// figure to it). Four degrees of freedom: a prior, replaced by a measurement wherever
// calibration sees repeated launches on one host.
inline constexpr double kDefaultLaunchSpreadRel = 0.030;

struct RangeInputs {
  double step_time_s = 0;   // simulated (the median)
  double epoch_time_s = 0;  // simulated (the median)
  double compute_s = 0;     // slowest rank's compute per step
  int64_t ranks = 1;
  // Independent draws of the node spread: the nodes the ranks run on (ranks of one node share
  // its speed). 0 = one per rank.
  int64_t nodes = 0;
  int64_t steps_per_epoch = 1;
  double compute_systematic_rel = 0;   // common to every rank: fit residual, transfer
  double compute_per_rank_rel = 0;     // independent per node: node-to-node differences
  double compute_per_process_rel = 0;  // independent per rank: each rank's process (launch part)
  double step_noise_rel = 0;           // step to step (IQR of step times / 1.349)
  double comm_rel = 0;                 // the links the step's communication crosses
  // One launch against another of the same configuration (new processes, data loader, nodes of
  // the same kind): common to every rank and to the whole step, compute and communication (the
  // launch spread less compute_per_process_rel, which each rank draws on its own).
  double launch_rel = 0;
  // A launch spread was measured (or is the prior): it is measured between whole runs or profile
  // passes, so it already holds their step noise averaged over their steps, and the epoch counts
  // no step noise of its own. Also true where launch_rel > 0.
  bool launch_measured = false;
  // A term learned from training runs (docs/learning-from-runs.md) in the step: one sigma of it
  // in seconds per step, the runs' rank-to-rank spread of what they paid beyond the fit; common
  // to the step's ranks (one host) and to every step of a launch. 0: no learned term.
  double run_term_spread_s = 0;
  double coverage = 0.8;  // central share of the interval
};

struct Quantiles {
  double p10 = 0, p50 = 0, p90 = 0;
};

struct PredictionRange {
  double coverage = 0.8;
  Quantiles step_time_s;
  Quantiles epoch_time_s;
};

// Intervals around the simulated step and epoch (docs/uncertainty.md, "Method").
PredictionRange prediction_range(const RangeInputs& in);

}  // namespace vitsim::costmodel
