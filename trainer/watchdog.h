// A watchdog thread that ends the job when a collective takes too long: a peer that died or hangs
// must not leave the other ranks waiting forever. A rank arms it around every blocking collective;
// if the collective is still running after the timeout, the watchdog prints which collective and
// how long, and ends the process with kExitPeerLost. mpirun then terminates every other rank
// ("one process returned a non-zero exit code"), so the whole job ends within the timeout.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace vitsim::trainer {

inline constexpr int kExitPeerLost = 3;

class Watchdog {
 public:
  // timeout_s: how long one collective may take; rank: for the message.
  Watchdog(double timeout_s, int rank);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const char* what);  // a collective starts (what must outlive disarm)
  void disarm();               // it completed
  double timeout_s() const { return timeout_s_; }

 private:
  void loop();

  double timeout_s_;
  int rank_;
  std::atomic<const char*> what_{nullptr};
  std::atomic<int64_t> armed_at_ns_{0};  // steady clock; 0 = disarmed
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

// RAII: arms for the lifetime of the scope; does nothing when watchdog is null.
class WatchdogScope {
 public:
  WatchdogScope(Watchdog* watchdog, const char* what) : watchdog_(watchdog) {
    if (watchdog_) watchdog_->arm(what);
  }
  ~WatchdogScope() {
    if (watchdog_) watchdog_->disarm();
  }
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;

 private:
  Watchdog* watchdog_;
};

}  // namespace vitsim::trainer
