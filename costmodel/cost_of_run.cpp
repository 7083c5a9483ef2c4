// Cost and energy of a run; see cost_of_run.h.
#include "costmodel/cost_of_run.h"

#include <cmath>
#include <stdexcept>

namespace vitsim::costmodel {

namespace {
bool is_duration(double s) {
  return s >= 0 && std::isfinite(s);
}
}  // namespace

double run_time_s(double first_epoch_s, double later_epoch_s, int64_t epochs) {
  if (!is_duration(first_epoch_s) || !is_duration(later_epoch_s))
    throw std::invalid_argument("epoch times must be finite and >= 0");
  if (epochs < 1) throw std::invalid_argument("epochs must be >= 1");
  return first_epoch_s + static_cast<double>(epochs - 1) * later_epoch_s;
}

RunCostFigures cost_of_run(const std::map<std::string, DeviceRate>& devices, double epoch_time_s,
                           double run_s) {
  if (!is_duration(epoch_time_s) || !is_duration(run_s))
    throw std::invalid_argument("epoch and run times must be finite and >= 0");
  double usd_per_hour = 0, watts = 0;
  for (const auto& [device, d] : devices) {
    if (!(d.usd_per_gpu_hour >= 0) || !(d.power_w >= 0) || d.ranks < 0)
      throw std::invalid_argument("price, power and ranks of " + device + " must be >= 0");
    usd_per_hour += static_cast<double>(d.ranks) * d.usd_per_gpu_hour;
    watts += static_cast<double>(d.ranks) * d.power_w;
  }
  RunCostFigures f;
  f.epoch_usd = epoch_time_s / kSecondsPerHour * usd_per_hour;
  f.epoch_kwh = epoch_time_s * watts / kJoulesPerKwh;
  f.run_usd = run_s / kSecondsPerHour * usd_per_hour;
  f.run_kwh = run_s * watts / kJoulesPerKwh;
  return f;
}

double owned_usd_per_gpu_hour(double purchase_usd, double amortisation_years, double power_w,
                              double usd_per_kwh) {
  if (!(purchase_usd >= 0) || !(amortisation_years > 0) || !(power_w >= 0) || !(usd_per_kwh >= 0))
    throw std::invalid_argument(
        "owned mode needs purchase price >= 0, amortisation years > 0, power >= 0, kWh price >= 0");
  return purchase_usd / (amortisation_years * kHoursPerYear) + power_w / 1000.0 * usd_per_kwh;
}

}  // namespace vitsim::costmodel
