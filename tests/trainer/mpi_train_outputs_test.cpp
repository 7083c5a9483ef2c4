// vitsim-train's outputs (issue 27). Checkpoints prove what they hold: one resumed under another
// architecture (--heads keeps the parameter count, which was all the old key held), another
// optimizer (LibTorch asserted, exit 1) or another learning rate (LibTorch's load took the saved
// one silently), or with one bit flipped, is refused with exit 2 naming the field and the option
// to change; the folder keeps the newest --keep-checkpoints. The run log goes straight to a device
// (a private null-like node). Every writer (make-dataset, profile, train's checkpoints, parameter
// dump and run log) over every injection point of VITSIM_FAULT_INJECT completes or leaves the
// previous files. One rank each, a few optimizer steps of the tiny ViT.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <map>

#include "mpi_train_harness.h"
#include "read_text.h"  // tests/support/
#include "schema/digest.h"

namespace mpi_train_outputs_test {
namespace {

namespace fs = std::filesystem;

class MpiCheckpoint : public MpiTrain {
 protected:
  // A checkpoint folder of one optimizer step (AdamW, lr 0.001, 2 heads); returns its path.
  static std::string checkpoint(const std::string& name) {
    const std::string ck = dir_ + "/" + name;
    const Result r = train(
        1, "--micro-batch 8 --max-steps 1 --seed 3 --checkpoint-every 1 --checkpoint-dir " + ck);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return ck;
  }
  static void expect_refused(const Result& r, const std::string& field, const std::string& hint) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(field), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(hint), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("INTERNAL ASSERT"), std::string::npos) << r.output;
  }
};

TEST_F(MpiCheckpoint, ResumeUnderAnotherArchitectureOrOptimizerIsRefused) {
  const std::string ck = checkpoint("ck_key");
  const std::string four_heads =
      " --model vit_ti_16 --image-size 16 --patch-size 4 --width 32 --depth 1 --heads 4";
  expect_refused(
      train(1, "--micro-batch 8 --seed 3 --max-steps 2 --resume " + ck, 120, "", four_heads),
      "/key/model/heads", "resume with --heads 2, as it was written");
  expect_refused(train(1, "--micro-batch 8 --seed 3 --max-steps 2 --optimizer sgd --resume " + ck),
                 "/key/optimizer/name", "resume with --optimizer adamw");
  expect_refused(train(1, "--micro-batch 8 --seed 3 --max-steps 2 --lr 0.5 --resume " + ck),
                 "/key/optimizer/learning_rate", "resume with --lr 0.001");
}

TEST_F(MpiCheckpoint, ACheckpointWithOneFlippedBitIsRefused) {
  const std::string ck = checkpoint("ck_flip");
  const std::string file = ck + "/checkpoint-step1.pt";
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(bytes.size(), 10000u);
  bytes[bytes.size() / 2] ^= 0x04;  // the middle of the archive: the weights
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  expect_refused(train(1, "--micro-batch 8 --seed 3 --max-steps 2 --resume " + ck),
                 file + ": checksum", "the file is damaged");
}

TEST_F(MpiCheckpoint, TheFolderKeepsTheNewestCheckpoints) {
  const std::string ck = dir_ + "/ck_keep";
  const Result r = train(1, "--micro-batch 8 --max-steps 5 --checkpoint-every 1 --checkpoint-dir " +
                                ck + " --keep-checkpoints 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(ck)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"checkpoint-step4.pt", "checkpoint-step5.pt", "latest"}));
}

}  // namespace

namespace {

// --- Outputs that are devices, and fault injection on every write of vitsim-train -----------

using vitsim::test::read_text;  // tests/support/read_text.h

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_text(e.path());
  return files;
}

// A whole file as vitsim-train writes it, when its bytes vary from run to run (timings): a run
// log or profile its reader accepts, a checkpoint whose head and checksum hold, a "latest" that
// names a checkpoint.
bool whole(const fs::path& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  try {
    if (name == "run.json") return vitsim::schema::read_run_log(path).epochs.size() == 1;
    if (name == "profile.json") return !vitsim::schema::read_profile(path).compute.empty();
  } catch (const std::exception&) {
    return false;
  }
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".pt") == 0) {
    const size_t l1 = text.find('\n'), l2 = text.find('\n', l1 + 1), l3 = text.find('\n', l2 + 1);
    if (l1 == std::string::npos || l2 == std::string::npos || l3 == std::string::npos) return false;
    return text.compare(0, l2 + 1, "vitsim-train checkpoint\nformat 3\n") == 0 &&
           text.substr(l2 + 1, l3 - l2 - 1) == vitsim::schema::digest_text(text.substr(l3 + 1));
  }
  if (name.size() >= 6 && name.compare(name.size() - 6, 6, "latest") == 0)
    return text.rfind("checkpoint-step", 0) == 0 && text.back() == '\n';
  return false;
}

TEST_F(MpiCheckpoint, TheRunLogGoesStraightToADevice) {
  const std::string null_like = dir_ + "/null";
  ::unlink(null_like.c_str());
  if (::geteuid() != 0 || ::mknod(null_like.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod of a private device node needs root (uid " << ::geteuid() << ")";
  const Result r = train(1, "--micro-batch 8 --max-steps 1 --run-log " + null_like);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_character_file(null_like)) << "the device node was replaced by a file";
  ::unlink(null_like.c_str());
}

// Each of vitsim-train's writers over every injection point (tests/cli/fault_injection_test.cpp
// does vitsim's; make-dataset, one writer over six files: every 4th): counted with
// VITSIM_FAULT_INJECT=count, then a fault at each point: the run
// exits non-zero naming it and leaves each file previous, or whole; no temporary file stays. One
// process each (MPI's singleton start): rank 0 is the one that writes.
TEST_F(MpiCheckpoint, EveryWriterCompletesOrLeavesThePreviousFiles) {
  const std::string exe = VITSIM_TRAIN_EXE;
  struct Writer {
    std::string name, line;
    int every = 1;  // every `every`-th point and the last
  };
  const std::vector<Writer> writers = {
      // Six files of one writer: every 4th point reaches a write, an fsync and a rename of
      // different files.
      {"make-dataset", exe + " make-dataset --out data --train-images 16 --test-images 8", 4},
      {"profile", exe + " profile" + std::string(kTinyModel) +
                      " --micro-batches 2 --warmup 0 --repetitions 1 --out profile.json"},
      {"train", exe + " train --data " + dir_ + "/data" + kTinyModel +
                    " --no-eval --no-progress --micro-batch 8 --max-steps 1 --checkpoint-every 1"
                    " --checkpoint-dir ck --run-log run.json"},
  };
  int points = 0, run_points = 0;
  for (const Writer& w : writers) {
    const fs::path out = fs::path(dir_) / ("faults_" + w.name);
    auto run = [&](const std::string& inject) {
      const std::string line = "export VITSIM_FAULT_INJECT=" + inject + "; cd " + out.string() +
                               " && " + w.line + " > " + out.string() + ".txt 2>&1";
      const int status = std::system(line.c_str());
      return std::make_pair(status, read_text(out.string() + ".txt"));
    };
    fs::remove_all(out);
    fs::create_directories(out);
    const auto [clean, clean_said] = run("");
    ASSERT_EQ(clean, 0) << w.name << ": " << clean_said;
    const auto reference = snapshot(out);
    auto seed_previous = [&] {
      fs::remove_all(out);
      fs::create_directories(out);
      for (const auto& [name, text] : reference) {
        fs::create_directories((out / name).parent_path());
        std::ofstream(out / name, std::ios::binary) << "previous " << name << "\n";
      }
    };
    seed_previous();
    const auto [counted, counted_said] = run("count");
    ASSERT_EQ(counted, 0) << w.name << ": " << counted_said;
    const size_t at = counted_said.rfind("fault injection: ");
    ASSERT_NE(at, std::string::npos) << w.name << ": " << counted_said;
    const int n_points = std::atoi(counted_said.c_str() + at + 17);
    EXPECT_GT(n_points, 0) << w.name;
    int tried = 0;
    for (int n = 1; n <= n_points; ++n) {
      if ((n - 1) % w.every != 0 && n != n_points) continue;
      ++tried;
      seed_previous();
      const auto [status, said] = run(std::to_string(n));
      const std::string where = w.name + ", fault " + std::to_string(n) + ": ";
      EXPECT_NE(said.find("(injected fault " + std::to_string(n)), std::string::npos)
          << where << said;
      EXPECT_NE(status, 0) << where << said;
      EXPECT_NE(said.find("Input/output error"), std::string::npos) << where << said;
      for (const auto& [name, text] : snapshot(out)) {
        const auto ref = reference.find(name);
        const bool kept = text == "previous " + name + "\n";
        const bool same = ref != reference.end() && text == ref->second;
        EXPECT_TRUE(kept || same || whole(out, name, text))
            << where << name << " is neither the previous file nor a whole new one";
      }
    }
    std::cout << "fault injection: vitsim-train " << w.name << ": " << tried << " of " << n_points
              << " points\n";
    points += n_points;
    run_points += tried;
  }
  std::cout << "fault injection: vitsim-train: " << run_points << " of " << points
            << " injection points run, each failed cleanly\n";
}

// vitsim-train probe-dispatch (trainer/dispatch_probe.h): the file names the device as the
// system reports it and holds one timing per operation, host time never above wall time; bad
// counts exit 2 naming the option.
TEST_F(MpiTrain, ProbeDispatchTimesEachOperationPerCall) {
  const auto probe = [](const std::string& args) {
    return run("timeout -k 5 120 " VITSIM_TRAIN_EXE " probe-dispatch " + args);
  };
  const std::string file = dir_ + "/dispatch.json";
  const Result r = probe("--calls 50 --warmup 5 --width 16 --out " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("schema"), "vitsim.dispatch_probe");
  EXPECT_EQ(doc.at("device"), "cpu");
  EXPECT_NE(doc.at("device_name").get<std::string>().find("logical CPUs"), std::string::npos);
  std::vector<std::string> ops;
  for (const auto& op : doc.at("ops")) {
    ops.push_back(op.at("op"));
    EXPECT_GT(op.at("host_us_per_call").get<double>(), 0) << op.dump();
    EXPECT_LE(op.at("host_us_per_call").get<double>(), op.at("wall_us_per_call").get<double>())
        << op.dump();
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"add_", "linear", "layer_norm", "gelu",
                                           "linear+gelu forward+backward (autograd)"}));
  EXPECT_EQ(doc.at("ops").back().at("calls"), 5);  // the autograd probe runs calls / 10
  for (const char* bad : {"--calls 0", "--width -1", "--dtype fp8"}) {
    const Result b = probe(bad);
    EXPECT_EQ(b.exit_code, 2) << bad << "\n" << b.output;
    EXPECT_NE(b.output.find(std::string(bad).substr(0, std::string(bad).find(' '))),
              std::string::npos)
        << b.output;
  }
}

}  // namespace
}  // namespace mpi_train_outputs_test
