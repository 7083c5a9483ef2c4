// Cost and energy of a run; see cost_of_run.h.
#include "costmodel/cost_of_run.h"

#include <cmath>
#include <stdexcept>

namespace vitsim::costmodel {

RunCostFigures cost_of_run(const std::map<std::string, DeviceRate>& devices, double epoch_time_s,
                           int64_t epochs) {
  if (!(epoch_time_s >= 0) || !std::isfinite(epoch_time_s))
    throw std::invalid_argument("epoch time must be finite and >= 0");
  if (epochs < 1) throw std::invalid_argument("epochs must be >= 1");
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
  f.run_usd = static_cast<double>(epochs) * f.epoch_usd;
  f.run_kwh = static_cast<double>(epochs) * f.epoch_kwh;
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
