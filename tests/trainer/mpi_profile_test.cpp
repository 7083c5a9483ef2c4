// `mpirun -np K vitsim-train profile --shared-host`: K profilers sharing this host as K training
// ranks do (trainer/profile_ranks.h). One profile is written, by rank 0, recording
// `ranks_per_host` K; its figures pool every rank's timed steps and blocks. A GPU profile so is
// refused (ranks on one host do not share a device). Without --shared-host each rank of an mpirun
// job profiles alone (as each emulated host's script runs its own, scripts/validate-local). Real
// processes on a tiny ViT, as mpi_train_test.cpp's.
#include "mpi_train_harness.h"
#include "read_text.h"  // tests/support/

namespace mpi_profile_test {
namespace {

const char* const kTinyProfile =
    " profile --model vit_ti_16 --image-size 16 --patch-size 4 --width 32 --depth 1 --heads 2"
    " --micro-batches 2,4 --repetitions 3";

TEST_F(MpiTrain, ProfileUnderTwoRanksPoolsBothRanksSamples) {
  const std::string out = dir_ + "/profile-2-ranks.json";
  const Result r =
      run(mpirun(2, 180) + VITSIM_TRAIN_EXE + kTinyProfile + " --shared-host --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // One writer: rank 0's line, once.
  const std::string written = "written to " + out + " (2 ranks sharing this host)";
  const size_t at = r.output.find(written);
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(written, at + 1), std::string::npos) << r.output;
  const auto p = vitsim::schema::read_profile(out);
  EXPECT_EQ(p.ranks_per_host, 2);
  ASSERT_EQ(p.compute.size(), 2u);
  for (const auto& m : p.compute) {
    // Three timed steps of each rank, in three blocks of one: six steps, six blocks.
    EXPECT_EQ(m.repetitions, 6);
    // The whole step (the phases' means) is the mean over both ranks' blocks.
    expect_blocks_make_the_step(m, 6);
    EXPECT_TRUE(m.optimizer_after_wait_time_s.has_value());
  }
  EXPECT_TRUE(p.compute[0].process_start_time_s.has_value());
  EXPECT_TRUE(p.compute[0].peak_memory_bytes.has_value());

  // Without mpirun: one profiler, no ranks_per_host in the file (read back as 1).
  const std::string alone = dir_ + "/profile-alone.json";
  const Result one = run(std::string(VITSIM_TRAIN_EXE) + kTinyProfile + " --out " + alone);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(vitsim::schema::read_profile(alone).ranks_per_host, 1);
  EXPECT_EQ(vitsim::test::read_text(alone).find("ranks_per_host"), std::string::npos);
}

TEST_F(MpiTrain, ProfileOfAGpuUnderSeveralRanksIsRefused) {
  const Result r = run(mpirun(2, 60) + VITSIM_TRAIN_EXE + kTinyProfile +
                       " --shared-host --device cuda --out " + dir_ + "/gpu-2-ranks.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--shared-host --device cuda under mpirun -np 2: ranks on one host do "
                          "not share a GPU"),
            std::string::npos)
      << r.output;
}

// The emulated cluster's way: mpirun starts one script per host, each running its own profile
// (another micro-batch, its own file). Without --shared-host none waits for the others: both
// finish well inside the timeout, each file a profile of one rank alone.
TEST_F(MpiTrain, RanksOfAJobProfileAloneWithoutSharedHost) {
  const std::string each =
      std::string(VITSIM_TRAIN_EXE) +
      " profile --model vit_ti_16 --image-size 16 --patch-size 4 --width 32 --depth 1 --heads 2"
      " --repetitions 2 --micro-batches $((OMPI_COMM_WORLD_RANK + 1)) --out " +
      dir_ + "/alone-$OMPI_COMM_WORLD_RANK.json";
  const Result r = run(mpirun(2, 120) + "sh -c '" + each + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (int rank : {0, 1}) {
    const auto p = vitsim::schema::read_profile(dir_ + "/alone-" + std::to_string(rank) + ".json");
    EXPECT_EQ(p.ranks_per_host, 1);
    ASSERT_EQ(p.compute.size(), 1u);
    EXPECT_EQ(p.compute[0].micro_batch, rank + 1);
  }
}

}  // namespace
}  // namespace mpi_profile_test
