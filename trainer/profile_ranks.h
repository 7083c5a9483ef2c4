// The ranks of `mpirun -np K vitsim-train profile --shared-host`: K profilers on one host, each
// running the same schedule with the same seeds, started together after a barrier and kept together
// by one before each block of timed steps, so every timed step overlaps the others' as a training
// step's does (ranks that share a host's cores, memory bandwidth and caches run slower than one
// alone: docs/formats/profile.md, `ranks_per_host`). Rank 0 writes the one profile; its figures
// pool every rank's samples: the timed steps of all ranks summarised together (means and IQRs over
// them all, so the spread holds the ranks' differences), every rank's blocks listed, and what is
// measured once a micro-batch (first steps, the optimizer after a wait, sharding costs) the mean
// over the ranks (peak memory: the largest). No Torch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trainer/mpi_world.h"
#include "trainer/step_stats.h"

namespace vitsim::trainer {

class ProfileRanks {
 public:
  explicit ProfileRanks(MpiWorld& world) : world_(world) {}

  int rank() const { return world_.rank(); }
  int size() const { return world_.size(); }
  void barrier() { world_.barrier(); }

  // Every rank's steps (each rank the same count, of `layers` layers each), rank-major.
  std::vector<ProfiledStep> pool(const std::vector<ProfiledStep>& steps, size_t layers);
  // Every rank's values (the same count on each), rank-major.
  std::vector<double> pool(const std::vector<double>& values) { return world_.allgather(values); }
  // The mean over the ranks that measured the value; absent where none did.
  std::optional<double> mean(const std::optional<double>& value);
  // The largest over the ranks that measured it; absent where none did.
  std::optional<double> max(const std::optional<double>& value);

 private:
  MpiWorld& world_;
};

// The ranks a launcher started this process among (Open MPI's, PMIx's or PMI's environment),
// 1 when it was started alone: `vitsim-train profile` starts MPI only when there are more.
int64_t launched_ranks();

}  // namespace vitsim::trainer
