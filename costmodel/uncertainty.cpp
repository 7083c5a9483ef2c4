// Prediction intervals; see uncertainty.h and docs/uncertainty.md.
#include "costmodel/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace vitsim::costmodel {

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p must be in (0, 1)");
  // Acklam's rational approximation (relative error < 1.2e-9), then one Newton step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  double x;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - lo) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double max_of_normals_quantile(int64_t n, double p) {
  if (n < 1) throw std::invalid_argument("max_of_normals_quantile: n must be >= 1");
  return normal_quantile(std::pow(p, 1.0 / static_cast<double>(n)));
}

double modelled_link_uncertainty_rel(Transport transport) {
  // RMS of the held-out cases' median |error| per transport in docs/transport-model.md's
  // validation table (busbw at >= 16 MiB). p2p has no held-out case: it shares the PCIe path
  // and its error with shm. tcp is the socket model without NCCL. NVLink leaves out the bridged
  // H100 pair, which the page says to measure (the model fits NVSwitch and cube-mesh systems).
  switch (transport) {
    case Transport::kSocket:
    case Transport::kTcp:
      return 0.08;  // the study's 2-GPU 10 GbE log: 8.0 %
    case Transport::kShm:
    case Transport::kP2p:
      return 0.11;  // the study's 2-GPU T4 log: 10.8 %
    case Transport::kNetIb:
      return 0.16;  // EFA 28.2, EDR 1.8, DGX-1 3.5, 2 x 8 A100 15.5 %: RMS 16.2 %
    case Transport::kNvlink:
      return 0.10;  // DGX-1 cube mesh 7.2, NV12 pair 11.8 %: RMS 9.8 %
    case Transport::kNone:
      break;
  }
  return kDatasheetLinkUncertaintyRel;
}

namespace {

// A fit through its points leaves rounding, not spread: residuals below this are exact fits.
constexpr double kExactFitResidualRel = 1e-9;

}  // namespace

double link_uncertainty_rel(LinkSource source, Transport transport, double measured_residual_rel) {
  switch (source) {
    case LinkSource::kMeasured:
    case LinkSource::kImported:
      // A residual of 0: the alpha-beta fit went through its points exactly (one imported
      // all-reduce, or two points for two parameters), so no spread was measured; the figure is
      // then as uncertain as the transport model's would be.
      if (measured_residual_rel > kExactFitResidualRel) return measured_residual_rel;
      return transport == Transport::kNone ? kDatasheetLinkUncertaintyRel
                                           : modelled_link_uncertainty_rel(transport);
    case LinkSource::kModelled:
      return modelled_link_uncertainty_rel(transport);
    case LinkSource::kDatasheet:
      break;
  }
  return kDatasheetLinkUncertaintyRel;
}

namespace {

// Relative offsets (below, above the median) of the slowest rank's compute.
std::pair<double, double> compute_offsets(const RangeInputs& in, double noise_rel) {
  const double lo_p = (1 - in.coverage) / 2, hi_p = 1 - lo_p;
  const double z = normal_quantile(hi_p);
  // Order statistics of N ranks, relative to the median of their maximum (the simulated step
  // uses each rank's median cost; the calibrated logs already include their own stragglers).
  // Ranks of one node share its draw: the maximum is over the nodes.
  const int64_t draws = in.nodes > 0 ? std::min(in.nodes, in.ranks) : in.ranks;
  const double m50 = max_of_normals_quantile(draws, 0.5);
  const double rank_lo = (m50 - max_of_normals_quantile(draws, lo_p)) * in.compute_per_rank_rel;
  const double rank_hi = (max_of_normals_quantile(draws, hi_p) - m50) * in.compute_per_rank_rel;
  // Each rank's process draws its own part of the launch spread: the maximum is over the ranks.
  const double p50 = max_of_normals_quantile(in.ranks, 0.5);
  const double proc_lo =
      (p50 - max_of_normals_quantile(in.ranks, lo_p)) * in.compute_per_process_rel;
  const double proc_hi =
      (max_of_normals_quantile(in.ranks, hi_p) - p50) * in.compute_per_process_rel;
  const double common = z * std::hypot(in.compute_systematic_rel, noise_rel);
  return {std::hypot(common, std::hypot(rank_lo, proc_lo)),
          std::hypot(common, std::hypot(rank_hi, proc_hi))};
}

// launch_half: the launch's half-width, relative to the whole step; run_half: the learned run
// term's, in seconds per step (both common to every rank and step of a launch).
Quantiles scaled(double median, double compute_s, double comm_s, std::pair<double, double> c,
                 double comm_half, double launch_half, double run_half_s) {
  const double whole = std::hypot(median * launch_half, run_half_s);
  const double lo = std::hypot(std::hypot(compute_s * c.first, comm_s * comm_half), whole);
  const double hi = std::hypot(std::hypot(compute_s * c.second, comm_s * comm_half), whole);
  return {std::max(0.0, median - lo), median, median + hi};
}

}  // namespace

PredictionRange prediction_range(const RangeInputs& in) {
  if (!(in.coverage > 0 && in.coverage < 1))
    throw std::invalid_argument("prediction_range: coverage must be in (0, 1)");
  if (in.ranks < 1 || in.steps_per_epoch < 1)
    throw std::invalid_argument("prediction_range: ranks and steps_per_epoch must be >= 1");
  if (!(in.run_term_spread_s >= 0))
    throw std::invalid_argument("prediction_range: run_term_spread_s must be >= 0");
  PredictionRange r;
  r.coverage = in.coverage;
  const double z = normal_quantile(0.5 + in.coverage / 2);
  // The step splits into the slowest rank's compute and the rest (exposed communication and the
  // waits it causes); each part varies with its own inputs, independently.
  const double compute_s = std::min(in.compute_s, in.step_time_s);
  const double comm_s = in.step_time_s - compute_s;
  r.step_time_s = scaled(in.step_time_s, compute_s, comm_s, compute_offsets(in, in.step_noise_rel),
                         z * in.comm_rel, z * in.launch_rel, z * in.run_term_spread_s);
  // Over an epoch the step-to-step noise averages out (1/sqrt(steps)); what is common to all
  // steps (a slower node, a mis-estimated cost, this launch) does not. A launch spread is
  // measured between whole runs or passes: their step noise, averaged, is in it already.
  const double epoch_noise =
      in.launch_measured || in.launch_rel > 0
          ? 0.0
          : in.step_noise_rel / std::sqrt(static_cast<double>(in.steps_per_epoch));
  const double k = in.step_time_s > 0 ? in.epoch_time_s / in.step_time_s : 0.0;
  const Quantiles e = scaled(in.step_time_s, compute_s, comm_s, compute_offsets(in, epoch_noise),
                             z * in.comm_rel, z * in.launch_rel, z * in.run_term_spread_s);
  // e x (epoch / step) is not the epoch to the last bit: a zero-width range must still hold it.
  r.epoch_time_s = {std::min(e.p10 * k, in.epoch_time_s), in.epoch_time_s,
                    std::max(e.p90 * k, in.epoch_time_s)};
  return r;
}

}  // namespace vitsim::costmodel
