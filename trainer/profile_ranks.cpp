// Pooling a profile's samples over the ranks that measured them together; see profile_ranks.h.
#include "trainer/profile_ranks.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace vitsim::trainer {
namespace {

// A step's numbers in a fixed order: the layers' forward, their backward, then the host phases.
constexpr size_t kHostPhases = 5;

void flatten(const ProfiledStep& s, size_t layers, std::vector<double>& out) {
  if (s.forward_s.size() != layers || s.backward_s.size() != layers)
    throw std::logic_error("profile: a step timed another number of layers than the model has");
  out.insert(out.end(), s.forward_s.begin(), s.forward_s.end());
  out.insert(out.end(), s.backward_s.begin(), s.backward_s.end());
  out.insert(out.end(),
             {s.data_s, s.host_to_device_s, s.overhead_s, s.optimizer_s, s.bucket_copy_s});
}

ProfiledStep unflatten(const double* v, size_t layers) {
  ProfiledStep s;
  s.forward_s.assign(v, v + layers);
  s.backward_s.assign(v + layers, v + 2 * layers);
  const double* h = v + 2 * layers;
  s.data_s = h[0];
  s.host_to_device_s = h[1];
  s.overhead_s = h[2];
  s.optimizer_s = h[3];
  s.bucket_copy_s = h[4];
  return s;
}

}  // namespace

std::vector<ProfiledStep> ProfileRanks::pool(const std::vector<ProfiledStep>& steps,
                                             size_t layers) {
  std::vector<double> mine;
  for (const auto& s : steps) flatten(s, layers, mine);
  const std::vector<double> all = world_.allgather(mine);
  const size_t width = 2 * layers + kHostPhases;
  std::vector<ProfiledStep> out;
  for (size_t i = 0; i + width <= all.size(); i += width) out.push_back(unflatten(&all[i], layers));
  return out;
}

std::optional<double> ProfileRanks::mean(const std::optional<double>& value) {
  const std::vector<double> all = world_.allgather({value ? 1.0 : 0.0, value.value_or(0)});
  double sum = 0, n = 0;
  for (size_t i = 0; i + 1 < all.size(); i += 2) {
    sum += all[i] * all[i + 1];
    n += all[i];
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::optional<double> ProfileRanks::max(const std::optional<double>& value) {
  const std::vector<double> all = world_.allgather({value ? 1.0 : 0.0, value.value_or(0)});
  std::optional<double> out;
  for (size_t i = 0; i + 1 < all.size(); i += 2)
    if (all[i] != 0) out = std::max(out.value_or(all[i + 1]), all[i + 1]);
  return out;
}

int64_t launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    try {
      return std::max<int64_t>(1, std::stoll(v));
    } catch (const std::exception&) {
      return 1;  // not a count: as if started alone
    }
  }
  return 1;
}

}  // namespace vitsim::trainer
