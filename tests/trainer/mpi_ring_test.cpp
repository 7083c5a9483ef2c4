// The trainer's ring reduce-scatter and all-gather (trainer/mpi_ring.h) at 1, 2, 3 and 4 ranks
// under mpirun: mpi_ring_check compares each rank's blocks with Open MPI's
// MPI_Reduce_scatter_block and MPI_Allgather and with the sum in NCCL's ring order, under both
// MpiWait modes, and exits 0 only when every rank agrees. The loss curves of stages 1-3 against
// stage 0, which go through the same rings inside vitsim-train, are in mpi_train_shard_test.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "mpi_consent.h"  // tests/support/

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;
};

Outcome run_check(int ranks) {
  const std::string out = ::testing::TempDir() + "vitsim_mpi_ring_" + std::to_string(::getpid()) +
                          "_" + std::to_string(ranks) + ".txt";
  const std::string cmd =
      vitsim::test::mpi_root_consent() + "timeout -k 5 120 " VITSIM_MPIRUN " --oversubscribe -np " +
      std::to_string(ranks) + " " VITSIM_MPI_RING_CHECK_EXE " > " + out + " 2>&1";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(out);
  o.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(out.c_str());
  return o;
}

TEST(MpiRing, ReduceScatterAndAllGatherEqualMpisAndNcclsRingOrderAtOneToFourRanks) {
  for (int ranks = 1; ranks <= 4; ++ranks) {
    const Outcome o = run_check(ranks);
    EXPECT_EQ(o.exit_code, 0) << ranks << " ranks:\n" << o.output;
    EXPECT_NE(o.output.find("MPI ring: " + std::to_string(ranks) + " ranks ok"), std::string::npos)
        << o.output;
  }
}

}  // namespace
