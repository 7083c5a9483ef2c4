// Clocks and a median shared by the emulation's probes (emu_probe.cpp, cpu_canary.cpp and the
// canary's report): plain C++ and POSIX, no MPI, no vitsim code.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace vitsim::emulate_test {

// Wall time on the steady clock, s.
inline double steady_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The calling thread's CPU time, s: the time other processes hold the CPU is not in it.
inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The median (the mean of the middle two for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace vitsim::emulate_test
