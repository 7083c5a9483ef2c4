// What a training run costs (docs/cost-model.md, "Cost and energy"): dollars and GPU energy per
// epoch and per run from the epoch time, the ranks of each device type, each type's price per
// GPU-hour and its power. The one home of these formulas; prices and powers come from
// platforms/prices.json and platforms/gpus.json (schema/prices_io.h), or the user.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace vitsim::costmodel {

inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kJoulesPerKwh = 3.6e6;
// Hours in a year for amortisation: 365.25 days, the hardware counted as busy every hour (the
// cheapest an owned GPU-hour can be; a user with idle time divides by the utilisation).
inline constexpr double kHoursPerYear = 365.25 * 24;

struct DeviceRate {
  int64_t ranks = 0;            // GPUs of this type in the configuration
  double usd_per_gpu_hour = 0;  // cloud list price, or the owned-mode rate
  double power_w = 0;           // per GPU (TDP: energy is then an upper bound)
};

struct RunCostFigures {
  double epoch_usd = 0, run_usd = 0;
  double epoch_kwh = 0, run_kwh = 0;
};

// How long a run of `epochs` epochs in one process takes: its first epoch (which pays the
// process's start) and epochs - 1 later ones (each paying the data loader's restart):
//   run_time_s = first_epoch_s + (epochs - 1) * later_epoch_s
// The one home of that rule (docs/cost-model.md, "Cost and energy"): the cost per run, the
// deadline per run of a sweep's goal and the run column of the answers all take it from here.
// std::invalid_argument for a negative or non-finite time, or epochs < 1.
double run_time_s(double first_epoch_s, double later_epoch_s, int64_t epochs);

// Every GPU of the configuration is paid (and draws power) for the whole epoch, waiting
// included: a rank idle behind a straggler still holds its GPU.
//   epoch_usd = epoch_time_s / 3600 * sum_d ranks_d * usd_per_gpu_hour_d
//   epoch_kwh = epoch_time_s * sum_d ranks_d * power_w_d / 3.6e6
// and the run's figures the same with run_s (run_time_s, above) for epoch_time_s.
// std::invalid_argument for a negative time or price.
RunCostFigures cost_of_run(const std::map<std::string, DeviceRate>& devices, double epoch_time_s,
                           double run_s);

// The hourly rate of a GPU one owns: its purchase price spread over the amortisation years, plus
// the electricity it draws at `power_w`.
//   usd_per_gpu_hour = purchase_usd / (years * 8766) + power_w / 1000 * usd_per_kwh
double owned_usd_per_gpu_hour(double purchase_usd, double amortisation_years, double power_w,
                              double usd_per_kwh);

}  // namespace vitsim::costmodel
