// Collective watchdog (watchdog.h).
#include "trainer/watchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace vitsim::trainer {
namespace {
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Watchdog::Watchdog(double timeout_s, int rank)
    : timeout_s_(timeout_s), rank_(rank), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(const char* what) {
  what_.store(what);
  armed_at_ns_.store(now_ns());
}

void Watchdog::disarm() {
  armed_at_ns_.store(0);
}

void Watchdog::loop() {
  // Poll often enough that the job ends close to the timeout, rarely enough to cost nothing.
  const auto period = std::chrono::milliseconds(timeout_s_ < 5 ? 50 : 250);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_cv_.wait_for(lock, period, [this] { return stop_; })) {
    const int64_t since = armed_at_ns_.load();
    if (since == 0) continue;
    const double waited_s = (now_ns() - since) * 1e-9;
    if (waited_s < timeout_s_) continue;
    std::fprintf(stderr,
                 "[rank %d] vitsim-train: %s has not completed after %.1f s "
                 "(--collective-timeout-s %.1f): a peer rank died or hangs; ending this rank with "
                 "exit code %d so that mpirun ends the job\n",
                 rank_, what_.load() ? what_.load() : "a collective", waited_s, timeout_s_,
                 kExitPeerLost);
    std::fflush(stderr);
    std::_Exit(kExitPeerLost);  // no MPI_Finalize: the peers cannot take part in it
  }
}

}  // namespace vitsim::trainer
