// The harness of the vitsim-train mpirun tests (mpi_train_test.cpp, mpi_train_ds_bf16_test.cpp):
// a fixture that makes a tiny synthetic CIFAR set once, runs `mpirun -np N vitsim-train train` on
// a tiny ViT (16x16 images, patch 4, width 32, depth 1) with a timeout, and reads dumped
// parameters back.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "mpi_consent.h"      // tests/support/
#include "process_support.h"  // tests/support/
#include "schema/profile.h"
#include "schema/run_log.h"
#ifdef VITSIM_HAVE_CUDA
#include "trainer/nccl_core.h"  // cuda_device_count
#endif

struct Result {
  int exit_code = -1;
  double wall_s = 0;
  std::string output;
};

// A profiled micro-batch's whole step (its phases' means) is the mean of its blocks'
// (docs/formats/profile.md, block_step_times_s), `blocks` of them.
inline void expect_blocks_make_the_step(const vitsim::schema::MicroBatchProfile& m, size_t blocks) {
  ASSERT_EQ(m.block_step_times_s.size(), blocks);
  double step_s =
      m.optimizer_time_s + m.host_to_device_time_s + m.data_time_s + m.step_overhead_time_s;
  double blocks_s = 0;
  for (const auto& l : m.layers) step_s += l.forward_time_s + l.backward_time_s;
  for (double x : m.block_step_times_s) blocks_s += x / static_cast<double>(blocks);
  EXPECT_NEAR(blocks_s, step_s, 1e-9 * step_s);
}

class MpiTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir() + "vitsim_mpi_" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0755);
    const std::string cmd = std::string(VITSIM_TRAIN_EXE) + " make-dataset --out " + dir_ +
                            "/data --train-images 64 --test-images 32 --seed 5 > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  // mpirun -np ranks vitsim-train train <tiny model> <args>; root needs Open MPI's consent.
  static constexpr const char* kTinyModel =
      " --model vit_ti_16 --image-size 16 --patch-size 4 --width 32 --depth 1 --heads 2";

  // "mpirun --oversubscribe -np N " under `timeout`; root needs Open MPI's consent. One rank:
  // mpirun's grace between SIGTERM and SIGKILL (odls_base_sigkill_timeout, 1 s) set to 0. When
  // a job's only rank exits non-zero (every refusal these tests check), mpirun still "kills" the
  // job and waits out that grace twice, though no process is left: 2.0 s of each refused run
  // (docs/build.md, "What make test runs"). Several ranks keep the grace: a rank that another's
  // failure stops may still be ending by itself.
  static std::string mpirun(int ranks, int timeout_s) {
    return vitsim::test::mpi_root_consent() + "timeout -k 5 " + std::to_string(timeout_s) +
           " " VITSIM_MPIRUN " --oversubscribe " +
           (ranks == 1 ? "--mca odls_base_sigkill_timeout 0 " : "") + "-np " +
           std::to_string(ranks) + " ";
  }

  // Runs the shell command `cmd`, its output in dir_/out.txt: exit code, wall time and output.
  static Result run(const std::string& cmd) {
    const std::string out = dir_ + "/out.txt";
    const std::string full = cmd + " > " + out + " 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system(full.c_str());
    Result r;
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream in(out);
    r.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
  }

  static Result train(int ranks, const std::string& args, int timeout_s = 120,
                      const std::string& data = "", const std::string& model = kTinyModel) {
    return run(mpirun(ranks, timeout_s) + VITSIM_TRAIN_EXE " train --data " +
               (data.empty() ? dir_ + "/data" : data) + model + " --no-eval --no-progress " + args);
  }

  static std::vector<float> params(const std::string& name) {
    std::ifstream in(dir_ + "/" + name, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<float> v(bytes.size() / sizeof(float));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
  }

  // Trains and returns the final parameters.
  static std::vector<float> final_params(int ranks, const std::string& args,
                                         const std::string& tag) {
    const Result r = train(ranks, args + " --dump-params " + dir_ + "/" + tag);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return params(tag);
  }

  static void expect_close(const std::vector<float>& a, const std::vector<float>& b, double rtol) {
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    double diff = 0, norm = 0;
    size_t worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      diff += (a[i] - b[i]) * double(a[i] - b[i]);
      norm += b[i] * double(b[i]);
      if (std::fabs(a[i] - b[i]) > std::fabs(a[worst] - b[worst])) worst = i;
    }
    EXPECT_LE(std::sqrt(diff / norm), rtol)
        << "worst element " << worst << ": " << a[worst] << " vs " << b[worst];
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(a[i], b[i], rtol * std::fabs(b[i]) + 1e-6) << "element " << i;
    }
  }

  // Starts `mpirun -np 2 vitsim-train train` for 100,000 epochs (a job only a signal ends) and
  // waits up to 60 s for mpirun to start both ranks: the job's pid and its ranks' (the signal
  // tests; a fatal failure when the ranks do not start).
  static void start_endless_job(pid_t* job, std::vector<pid_t>* ranks) {
    const std::vector<std::string> argv = {VITSIM_MPIRUN,
                                           "--oversubscribe",
                                           "-np",
                                           "2",
                                           VITSIM_TRAIN_EXE,
                                           "train",
                                           "--data",
                                           dir_ + "/data",
                                           "--model",
                                           "vit_ti_16",
                                           "--image-size",
                                           "16",
                                           "--patch-size",
                                           "4",
                                           "--width",
                                           "32",
                                           "--depth",
                                           "1",
                                           "--heads",
                                           "2",
                                           "--no-progress",
                                           "--no-eval",
                                           "--epochs",
                                           "100000"};
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    *job = vitsim::testing::spawn(argv);
    ASSERT_GT(*job, 0);
    for (int i = 0; i < 600 && ranks->size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      *ranks = vitsim::testing::children_of(*job);
    }
    ASSERT_EQ(ranks->size(), 2u) << "mpirun did not start two ranks";
  }

  // The job's wait status once it ends, up to 30 s; then it is killed and `ended` is false.
  static int wait_for_job(pid_t job, bool* ended) {
    int status = 0;
    *ended = false;
    for (int i = 0; i < 300 && !*ended; ++i) {
      *ended = ::waitpid(job, &status, WNOHANG) == job;
      if (!*ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!*ended) {
      ::kill(job, SIGKILL);
      ::waitpid(job, &status, 0);
    }
    return status;
  }

  inline static std::string dir_;
};
