// MPI process state and small collectives (mpi_world.h).
#include "trainer/mpi_world.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace vitsim::trainer {

void mpi_fail(const char* call, int rc, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  std::fprintf(stderr, "vitsim-train: %s failed at %s:%d: %s\n", call, file, line, text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

MpiWorld::MpiWorld(int* argc, char*** argv) {
  VITSIM_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &thread_level_));
  // Errors come back as codes so VITSIM_MPI_CHECK can say where.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  VITSIM_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  VITSIM_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPI_Comm local = MPI_COMM_NULL;
  VITSIM_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
  VITSIM_MPI_CHECK(MPI_Comm_rank(local, &local_rank_));
  VITSIM_MPI_CHECK(MPI_Comm_size(local, &local_size_));
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  VITSIM_MPI_CHECK(MPI_Get_processor_name(name, &len));
  std::vector<char> all(static_cast<size_t>(size_) * MPI_MAX_PROCESSOR_NAME, 0);
  VITSIM_MPI_CHECK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                                 MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD));
  for (int r = 0; r < size_; ++r) hosts_.emplace_back(all.data() + r * MPI_MAX_PROCESSOR_NAME);
}

MpiWorld::~MpiWorld() {
  // After an error on some ranks only, the others may never reach MPI_Finalize: bound it too.
  if (watchdog_) watchdog_->arm("MPI_Finalize");
  MPI_Finalize();
  watchdog_.reset();
}

bool MpiWorld::single_host() const {
  return std::all_of(hosts_.begin(), hosts_.end(), [&](const auto& h) { return h == hosts_[0]; });
}

void MpiWorld::start_watchdog(double timeout_s) {
  watchdog_ = std::make_unique<Watchdog>(timeout_s, rank_);
}

void MpiWorld::barrier() {
  WatchdogScope guard(watchdog_.get(), "MPI_Barrier");
  VITSIM_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

void MpiWorld::allreduce_sum(std::vector<double>& values) {
  WatchdogScope guard(watchdog_.get(), "MPI_Allreduce (step statistics)");
  VITSIM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                                 MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

void MpiWorld::allreduce_max(std::vector<double>& values) {
  WatchdogScope guard(watchdog_.get(), "MPI_Allreduce (max)");
  VITSIM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                                 MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
}

std::vector<double> MpiWorld::allgather(const std::vector<double>& values) {
  WatchdogScope guard(watchdog_.get(), "MPI_Allgather (timestamps)");
  std::vector<double> out(values.size() * size_);
  const int n = static_cast<int>(values.size());
  VITSIM_MPI_CHECK(
      MPI_Allgather(values.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, MPI_COMM_WORLD));
  return out;
}

void MpiWorld::broadcast(std::string& bytes, int root) {
  WatchdogScope guard(watchdog_.get(), "MPI_Bcast");
  long long n = static_cast<long long>(bytes.size());
  VITSIM_MPI_CHECK(MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD));
  bytes.resize(static_cast<size_t>(n));
  // Chunks below INT_MAX elements: MPI counts are int.
  const long long kChunk = 1LL << 30;
  for (long long off = 0; off < n; off += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, n - off));
    VITSIM_MPI_CHECK(MPI_Bcast(bytes.data() + off, count, MPI_CHAR, root, MPI_COMM_WORLD));
  }
}

double MpiWorld::now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double MpiWorld::estimate_clock_offset_s() {
  WatchdogScope guard(watchdog_.get(), "clock offset ping-pong");
  constexpr int kRounds = 10;
  double offset = 0;
  for (int peer = 1; peer < size_; ++peer) {
    if (rank_ == 0) {
      for (int i = 0; i < kRounds; ++i) {
        double ping = 0;
        VITSIM_MPI_CHECK(
            MPI_Recv(&ping, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        const double t0 = now_s();
        VITSIM_MPI_CHECK(MPI_Send(&t0, 1, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD));
      }
    } else if (rank_ == peer) {
      double best_rtt = 1e30;
      for (int i = 0; i < kRounds; ++i) {
        const double sent = now_s();
        VITSIM_MPI_CHECK(MPI_Send(&sent, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD));
        double t0 = 0;
        VITSIM_MPI_CHECK(MPI_Recv(&t0, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        const double back = now_s();
        // Rank 0 read its clock about halfway through the round trip; the shortest round trip
        // bounds the error best.
        if (back - sent < best_rtt) {
          best_rtt = back - sent;
          offset = t0 - (sent + back) / 2;
        }
      }
    }
  }
  return offset;
}

std::string MpiWorld::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<size_t>(len));
  const auto comma = s.find(',');  // "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
  return comma == std::string::npos ? s : s.substr(0, comma);
}

}  // namespace vitsim::trainer
