// Polling MPI requests with sleeps (mpi_poll.h).
#include "trainer/mpi_poll.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "trainer/mpi_world.h"

namespace vitsim::trainer {

void poll_until_done(MPI_Request* requests, int count) {
  int done = 0;
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  while (!done && std::chrono::steady_clock::now() < spin_until) {
    VITSIM_MPI_CHECK(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE));
  }
  int sleep_us = 20;
  while (!done) {
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    sleep_us = std::min(2 * sleep_us, 200);
    VITSIM_MPI_CHECK(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE));
  }
}

}  // namespace vitsim::trainer
