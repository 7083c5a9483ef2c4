// Issue 68 part 2 through the vitsim-train executable (one or two ranks under mpirun, the tiny
// ViT of mpi_train_harness.h):
//  - class 8: a checkpoint whose position is edited and its checksum recomputed (it is public) is
//    refused on resume with exit 2 naming the file and the field (a negative epoch or step, a
//    micro-step of 10^12 resumed with exit 0; a negative micro-step read labels out of bounds, a
//    LibTorch error with exit 1);
//  - class 1, the rule of outputs: an output that is one of the run's inputs (`--resume ck.pt
//    --run-log ck.pt`, a data file, --config, a checkpoint folder's `latest` linked to the resumed
//    checkpoint) or another output is refused with exit 2 before any work, the input unchanged;
//    make-dataset's files are one group (two of them one file: refused);
//  - class 13: a rank stopped by SIGTERM or SIGHUP exits 128 + the signal (143, 129; SIGTERM gave
//    130), and mpirun passes it on.
#include <sys/wait.h>

#include <array>
#include <csignal>
#include <filesystem>

#include "mpi_train_harness.h"
#include "process_support.h"  // tests/support/
#include "read_text.h"        // tests/support/
#include "schema/digest.h"

namespace mpi_train_hardening_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::read_text;

// The checkpoint's position tensor ([epoch, micro_step, global_step], int64, little-endian) set to
// `to`, and its checksum recomputed, as anyone can: `from` must occur exactly once in the file.
void edit_position(const std::string& file, const std::array<int64_t, 3>& from,
                   const std::array<int64_t, 3>& to) {
  std::string text = read_text(file);
  const std::string old(reinterpret_cast<const char*>(from.data()), sizeof from);
  const size_t at = text.find(old);
  ASSERT_NE(at, std::string::npos)
      << "no position " << from[0] << "," << from[1] << "," << from[2] << " in " << file;
  ASSERT_EQ(text.find(old, at + 1), std::string::npos) << "the position is not unique";
  text.replace(at, old.size(), reinterpret_cast<const char*>(to.data()), sizeof to);
  // Head: magic, format, digest lines; the digest covers everything after its line.
  const size_t l1 = text.find('\n'), l2 = text.find('\n', l1 + 1), l3 = text.find('\n', l2 + 1);
  text.replace(l2 + 1, l3 - l2 - 1, vitsim::schema::digest_text(text.substr(l3 + 1)));
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

void expect_refused(const Result& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
  for (const char* torch : {"INTERNAL ASSERT", "frame #", "c10::Error", "index out of"})
    EXPECT_EQ(r.output.find(torch), std::string::npos) << r.output;
}

TEST_F(MpiTrain, AnEditedCheckpointPositionIsRefused) {
  const std::string ck = dir_ + "/ck_position";
  fs::remove_all(ck);
  const Result made = train(
      1, "--micro-batch 8 --max-steps 3 --seed 3 --checkpoint-every 3 --checkpoint-dir " + ck);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string file = ck + "/checkpoint-step3.pt";
  const std::string saved = read_text(file);
  const std::string resume = "--micro-batch 8 --seed 3 --max-steps 4 --resume " + file;
  const std::vector<std::pair<std::array<int64_t, 3>, std::string>> edits = {
      {{-1, 3, 3}, "/position/epoch: expected an epoch 0..0 (--epochs 1), got -1"},
      {{7, 3, 3},
       "/position/epoch: expected an epoch 0..0 (--epochs 1), got 7 (hint: resume "
       "with --epochs 8 or more"},
      {{0, -1, 3}, "/position/micro_step: expected micro-steps done in the epoch: 0..8, got -1"},
      {{0, 1000000000000, 3}, "/position/micro_step: expected micro-steps done in the epoch"},
      {{0, 3, -5}, "/position/global_step: expected optimizer steps done in all"},
  };
  for (const auto& [to, expected] : edits) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << saved;
    edit_position(file, {0, 3, 3}, to);
    expect_refused(train(1, resume), file + ": " + expected);
  }
  // Two ranks' accumulation: a micro-step inside an optimizer step is no boundary.
  const std::string ck2 = dir_ + "/ck_position_acc";
  fs::remove_all(ck2);
  ASSERT_EQ(train(1,
                  "--micro-batch 4 --accumulation 2 --max-steps 1 --seed 3 --checkpoint-every "
                  "1 --checkpoint-dir " +
                      ck2)
                .exit_code,
            0);
  edit_position(ck2 + "/checkpoint-step1.pt", {0, 2, 1}, {0, 3, 2});
  expect_refused(
      train(1, "--micro-batch 4 --accumulation 2 --seed 3 --max-steps 3 --resume " + ck2),
      "/position/micro_step: expected the end of an optimizer step");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << saved;  // the file as written resumes
  const Result ok = train(1, resume);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST_F(MpiTrain, AnOutputNeverReplacesAnInputOfTheRun) {
  const std::string here = dir_ + "/rule";
  fs::remove_all(here);
  fs::create_directories(here);
  ASSERT_EQ(train(1, "--micro-batch 8 --max-steps 1 --checkpoint-every 1 --checkpoint-dir " + here +
                         "/ck")
                .exit_code,
            0);
  const std::string ck = here + "/ck/checkpoint-step1.pt";
  std::ofstream(here + "/ds.json") << R"({"train_micro_batch_size_per_gpu": 8})";
  fs::create_directories(here + "/other");
  fs::create_symlink(ck, here + "/other/latest");
  const std::string batch = dir_ + "/data/data_batch_1.bin";
  struct Case {
    std::string args, input, expected;
  };
  const std::vector<Case> cases = {
      {"--resume " + ck + " --run-log " + ck, ck, "(--run-log) is the input " + ck + " (--resume)"},
      {"--resume " + here + "/ck --dump-params " + ck, ck, "(--dump-params) is the input"},
      {"--resume " + ck + " --checkpoint-every 1 --checkpoint-dir " + here + "/other", ck,
       "(--checkpoint-dir) is the input"},
      {"--run-log " + batch, batch, "(--run-log) is the input " + batch + " (--data)"},
      {"--dump-init-params " + batch, batch, "(--dump-init-params) is the input"},
      {"--config " + here + "/ds.json --run-log " + here + "/ds.json", here + "/ds.json",
       "(--run-log) is the input " + here + "/ds.json (--config)"},
  };
  for (const Case& c : cases) {
    const std::string before = read_text(c.input);
    const Result r = train(1, "--micro-batch 8 --max-steps 1 " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(read_text(c.input), before) << c.args;
  }
  const Result two = train(1, "--micro-batch 8 --max-steps 1 --run-log " + here +
                                  "/r.json --dump-params " + here + "/r.json");
  EXPECT_EQ(two.exit_code, 2) << two.output;
  EXPECT_NE(two.output.find("(--run-log) and " + here + "/r.json (--dump-params) are the same"),
            std::string::npos)
      << two.output;
  EXPECT_FALSE(fs::exists(here + "/r.json"));
}

TEST_F(MpiTrain, MakeDatasetWritesItsFilesAsOneGroup) {
  const std::string out = dir_ + "/linked";
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out + "/data_batch_1.bin") << "previous";
  fs::create_symlink("data_batch_1.bin", out + "/data_batch_2.bin");
  const Result r = run(std::string(VITSIM_TRAIN_EXE) + " make-dataset --out " + out +
                       " --train-images 20 --test-images 4");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("data_batch_1.bin (--out) and " + out +
                          "/data_batch_2.bin (--out) are "
                          "the same"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(read_text(out + "/data_batch_1.bin"), "previous");
  EXPECT_FALSE(fs::exists(out + "/test_batch.bin"));
}

// Signals to the ranks themselves (as a batch system or a closed session sends them): every rank
// stops at a step boundary and exits 128 + the signal, and mpirun passes it on.
class MpiTrainSignal : public MpiTrain, public ::testing::WithParamInterface<int> {};

TEST_P(MpiTrainSignal, RanksExitByTheSignalThroughMpirun) {
  const int sig = GetParam();
  pid_t job = -1;
  std::vector<pid_t> ranks;
  start_endless_job(&job, &ranks);
  if (HasFatalFailure()) return;
  std::this_thread::sleep_for(std::chrono::seconds(2));  // training
  ::kill(ranks[0], sig);  // one rank: the other stops with it, by the same signal
  bool ended = false;
  const int status = wait_for_job(job, &ended);
  ASSERT_TRUE(ended) << "mpirun did not end within 30 s of the rank's signal " << sig;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig) << status;
}

INSTANTIATE_TEST_SUITE_P(Signals, MpiTrainSignal, ::testing::Values(SIGTERM, SIGHUP),
                         [](const auto& info) {
                           return info.param == SIGTERM ? "SIGTERM" : "SIGHUP";
                         });

}  // namespace
}  // namespace mpi_train_hardening_test
