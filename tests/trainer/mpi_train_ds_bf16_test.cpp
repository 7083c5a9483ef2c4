// vitsim-train's DeepSpeed-style bf16 mode (ds-bf16) under mpirun, on the tiny ViT of
// mpi_train_harness.h: the ranks stay identical and the loss falls; the communicator is handed 2
// bytes per parameter in ds-bf16 and 4 in fp32, amp-bf16 and ds-bf16-allreduce-fp32 (counted by
// the communicator where buffers go to MPI_Allreduce, printed by the trainer); a bucket cap holds
// twice as many bf16 parameters; resume is bit-identical (and refused in another regime); the
// profile names the regime; ds-fp16 is refused.
#include <cstdio>
#include <regex>

#include "mpi_train_harness.h"
#include "number_after.h"

namespace mpi_train_ds_bf16_test {
namespace {

using vitsim::test::number_after;

struct WireCount {
  double parameters = -1, bytes_per_step = -1, buckets = -1;
};

WireCount wire_count(const Result& r) {
  WireCount w;
  const std::regex params(R"(\(([0-9]+) parameters\))");
  std::smatch m;
  if (std::regex_search(r.output, m, params)) w.parameters = std::stod(m[1]);
  w.bytes_per_step = number_after(r.output, "gradient all-reduce:");
  const std::regex buckets(R"(([0-9]+) gradient bucket\(s\))");
  if (std::regex_search(r.output, m, buckets)) w.buckets = std::stod(m[1]);
  return w;
}

TEST_F(MpiTrain, DsBf16KeepsRanksIdenticalAndLossFalls) {
  const std::string log = dir_ + "/ds-bf16-run.json";
  const Result r = train(2,
                         "--precision ds-bf16 --micro-batch 8 --epochs 6 --lr 0.003 --seed 1 "
                         "--run-log " +
                             log + " --dump-params " + dir_ +
                             "/ds-{rank}.bin "
                             "--dump-init-params " +
                             dir_ + "/ds-init.bin");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ds-bf16"), std::string::npos) << r.output;
  // Every rank ends with the same (fp32 master) weights, bit for bit: the bf16 sum is commutative
  // and every rank applies the same averaged gradient.
  const auto rank0 = params("ds-0.bin"), rank1 = params("ds-1.bin");
  ASSERT_FALSE(rank0.empty());
  ASSERT_EQ(rank0.size(), rank1.size());
  EXPECT_EQ(std::memcmp(rank0.data(), rank1.data(), rank0.size() * sizeof(float)), 0);
  // ... and they moved from the initial weights.
  const auto init = params("ds-init.bin");
  ASSERT_EQ(init.size(), rank0.size());
  double moved = 0;
  for (size_t i = 0; i < init.size(); ++i) moved += std::fabs(rank0[i] - init[i]);
  EXPECT_GT(moved, 1e-2);
  const auto parsed = vitsim::schema::read_run_log(log);
  EXPECT_EQ(parsed.config.precision, vitsim::costmodel::Regime::kDsBf16);
  ASSERT_EQ(parsed.epochs.size(), 6u);
  EXPECT_LT(parsed.epochs[5].train_loss, 0.8 * parsed.epochs[0].train_loss);
  EXPECT_LT(parsed.epochs[5].train_loss, std::log(10.0));
}

TEST_F(MpiTrain, AllreduceCarriesTheRegimesBytesPerParameter) {
  const std::string common = "--micro-batch 8 --max-steps 2 --seed 3 ";
  const WireCount fp32 = wire_count(train(2, common + "--precision fp32"));
  ASSERT_GT(fp32.parameters, 0);
  EXPECT_EQ(fp32.bytes_per_step, 4 * fp32.parameters);
  const WireCount amp = wire_count(train(2, common + "--precision amp-bf16"));
  EXPECT_EQ(amp.bytes_per_step, 4 * fp32.parameters);  // autocast keeps fp32 gradients
  const WireCount ds = wire_count(train(2, common + "--precision ds-bf16"));
  EXPECT_EQ(ds.bytes_per_step, 2 * fp32.parameters);
  // The DeepSpeed config's bf16 block selects ds-bf16; communication_data_type fp32 widens the
  // wire back to 4 bytes.
  const std::string cfg = dir_ + "/bf16-fp32-comm.json";
  std::ofstream(cfg) << R"({"bf16": {"enabled": true}, "communication_data_type": "fp32"})";
  const Result widened = train(2, common + "--config " + cfg);
  ASSERT_EQ(widened.exit_code, 0) << widened.output;
  EXPECT_NE(widened.output.find("ds-bf16-allreduce-fp32"), std::string::npos) << widened.output;
  EXPECT_EQ(wire_count(widened).bytes_per_step, 4 * fp32.parameters);

  // A bucket cap of half the fp32 gradient: two fp32 buckets, one bf16 bucket (bytes counted at
  // 2 per parameter). MiB = 2^20, so the cap survives the decimal round trip exactly.
  char cap[64];
  std::snprintf(cap, sizeof(cap), "%.17g", 2 * fp32.parameters / 1048576.0);
  const std::string bucketed = common + "--bucket-mb " + cap + " --precision ";
  EXPECT_EQ(wire_count(train(2, bucketed + "fp32")).buckets, 2);
  EXPECT_EQ(wire_count(train(2, bucketed + "ds-bf16")).buckets, 1);
}

// Checkpoints hold the fp32 master copy and the optimizer state; on resume the bf16 weights are
// refreshed from the master, so the resumed run ends where the uninterrupted one does, bit for bit.
// Resuming it in another regime is refused: that would be another trajectory.
TEST_F(MpiTrain, DsBf16ResumeEqualsUninterruptedRun) {
  const std::string common = "--precision ds-bf16 --micro-batch 8 --epochs 2 --lr 0.003 --seed 1 ";
  const auto full = final_params(2, common, "ds-full.bin");
  const std::string ck = dir_ + "/ds-ck";
  const Result first =
      train(2, common + "--max-steps 3 --checkpoint-every 3 --checkpoint-dir " + ck);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const Result other =
      train(2, "--precision fp32 --micro-batch 8 --epochs 2 --lr 0.003 --seed 1 --resume " + ck);
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("precision"), std::string::npos) << other.output;
  EXPECT_NE(other.output.find("resume with --precision ds-bf16"), std::string::npos)
      << other.output;
  const auto resumed = final_params(2, common + "--resume " + ck, "ds-resumed.bin");
  ASSERT_EQ(full.size(), resumed.size());
  ASSERT_FALSE(full.empty());
  EXPECT_EQ(std::memcmp(full.data(), resumed.data(), full.size() * sizeof(float)), 0);
}

TEST_F(MpiTrain, ProfileInDsBf16NamesTheRegime) {
  const std::string prof = dir_ + "/profile-ds-bf16.json";
  const std::string cmd = std::string(VITSIM_TRAIN_EXE) +
                          " profile --model vit_ti_16 --image-size 16 --patch-size 4 --width 32"
                          " --depth 1 --heads 2 --micro-batches 2 --repetitions 3 --precision "
                          "ds-bf16 --out " +
                          prof + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto p = vitsim::schema::read_profile(prof);
  EXPECT_EQ(p.precision, vitsim::costmodel::Regime::kDsBf16);
  ASSERT_EQ(p.compute.size(), 1u);
  ASSERT_EQ(p.compute[0].layers.size(), 5u);
  EXPECT_GT(p.compute[0].layers[1].backward_time_s, 0);
  EXPECT_GT(p.compute[0].optimizer_time_s, 0);
}

TEST_F(MpiTrain, DsFp16IsRefusedWithAClearMessage) {
  const Result r = train(1, "--precision ds-fp16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--precision"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ds-fp16"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("frame #"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mpi_train_ds_bf16_test
