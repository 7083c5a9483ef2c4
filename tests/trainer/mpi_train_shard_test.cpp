// vitsim-train's ZeRO stages and activation checkpointing under mpirun (docs/sharding.md): the
// same seed and data give the loss curve and the parameters of plain data parallelism (stage 0)
// at every stage, with checkpointing, at 1, 2 and 3 ranks (3: shards of unequal use, padded);
// sharded checkpoints resume on the uninterrupted trajectory and refuse another rank count; the
// collectives carry the bytes each stage implies; the run log carries the new phases.
// Tiny ViT of two blocks (four units: the embedding, two blocks, the norm with the head).
//
// Tolerance. At 2 ranks every path adds the same two numbers once, so a stage can differ from
// stage 0 only where float32 rounding does: the optimizer's element-wise arithmetic on a block of
// a tensor instead of the whole tensor (the same operations, vectorised over other boundaries),
// the global gradient norm summed in another order (clipping), the window's gradient summed after
// the average instead of before (accumulation at stages 2-3), and at 3 ranks the three terms of a
// sum added in another order by another collective. Each is a rounding of ~6e-8 relative. AdamW
// divides by the root of the second moment, so a parameter whose gradient is near zero moves by
// about lr whatever the gradient's size: a rounding there changes the parameter by up to 2 lr a
// step, so no per-element bound is useful; the parameters are compared by the relative L2 norm of
// their difference, at most kRtol = 3e-5 (measured on a 2-core EPYC: 0 at 2 ranks, bit for bit;
// 4.3e-6 at 3 ranks, 9.0e-6 with the ring reduce-scatter on a Xeon; 5.8e-6 with accumulation;
// 1.4e-7 with clipping), and each step's loss within
// kLossRtol = 1e-5 relative (identical to the 6 printed decimals in every case measured).
#include <filesystem>
#include <map>
#include <regex>

#include "mpi_train_harness.h"

namespace mpi_train_shard_test {
namespace {

constexpr double kRtol = 3e-5;
constexpr double kLossRtol = 1e-5;
constexpr const char* kModel =
    " --model vit_ti_16 --image-size 16 --patch-size 4 --width 32 --depth 2 --heads 2";
const char* const kAdamW = " --micro-batch 4 --optimizer adamw --lr 0.003 --max-steps 3 --seed 7";

class MpiShard : public MpiTrain {
 protected:
  // Trains, returning the output; the final parameters go to dir_/tag.
  static Result shard_run(int ranks, const std::string& args, const std::string& tag) {
    const Result r =
        train(ranks, args + " --log-every 1 --dump-params " + dir_ + "/" + tag, 180, "", kModel);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return r;
  }
  // "step N loss L" lines: the loss curve.
  static std::map<int, double> losses(const std::string& output) {
    std::map<int, double> curve;
    const std::regex line(R"(step (\d+) loss ([-+0-9.eE]+))");
    for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
         it != std::sregex_iterator(); ++it)
      curve[std::stoi((*it)[1])] = std::stod((*it)[2]);
    return curve;
  }
  static void expect_same_curve(const std::string& a, const std::string& b) {
    const auto x = losses(a), y = losses(b);
    ASSERT_FALSE(x.empty()) << a;
    ASSERT_EQ(x.size(), y.size()) << a << "\n---\n" << b;
    for (const auto& [step, loss] : y)
      EXPECT_NEAR(x.at(step), loss, kLossRtol * std::fabs(loss)) << "step " << step;
  }
  // Stage 0's run of `args` at `ranks` ranks (run once per test program): its output, and its
  // parameters in the file it names.
  static const std::pair<Result, std::string>& stage_zero(int ranks, const std::string& args) {
    static std::map<std::string, std::pair<Result, std::string>> done;
    const std::string key = std::to_string(ranks) + args;
    auto it = done.find(key);
    if (it == done.end()) {
      const std::string tag = "base" + std::to_string(done.size()) + ".bin";
      it = done.emplace(key, std::make_pair(shard_run(ranks, args, tag), tag)).first;
    }
    return it->second;
  }
  // The stage (and flags) against stage 0 of the same run: loss curve and final parameters.
  // Returns the variant's output.
  static std::string expect_as_stage_zero(int ranks, const std::string& args,
                                          const std::string& variant, const std::string& tag) {
    const auto& [base, base_params] = stage_zero(ranks, args);
    const Result other = shard_run(ranks, args + variant, tag + ".bin");
    expect_same_curve(other.output, base.output);
    expect_close_in_norm(params(tag + ".bin"), params(base_params), kRtol);
    return other.output;
  }
  // |a - b| / |b| (L2 norms) at most rtol, and the same count of parameters.
  static void expect_close_in_norm(const std::vector<float>& a, const std::vector<float>& b,
                                   double rtol) {
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      diff += (a[i] - b[i]) * double(a[i] - b[i]);
      norm += b[i] * double(b[i]);
    }
    EXPECT_LE(std::sqrt(diff / norm), rtol);
  }
  // The trainer's measured peak tensor memory against costmodel::sharded_memory: within 10 %
  // (docs/sharding.md, "Memory"); returns the measured bytes (-1 without the line).
  static double expect_memory_model_within_ten_percent(const std::string& output) {
    const std::regex line(R"(measured (\d+) bytes .*modelled (\d+) bytes)");
    std::smatch m;
    if (!std::regex_search(output, m, line)) {
      ADD_FAILURE() << "no memory line in\n" << output;
      return -1;
    }
    const double measured = std::stod(m[1]), modelled = std::stod(m[2]);
    EXPECT_NEAR(modelled, measured, 0.10 * measured) << m[0];
    return measured;
  }
  // "vitsim-train: <what>: N bytes per optimizer step"
  static int64_t bytes_per_step(const std::string& output, const std::string& what) {
    const std::regex line("vitsim-train: " + what + R"(: (\d+) bytes per optimizer step)");
    std::smatch m;
    if (!std::regex_search(output, m, line)) return -1;
    return std::stoll(m[1]);
  }
};

// What each stage puts on the wire per optimizer step, checked on the same runs: stage 0
// all-reduces the gradients; stage 1 all-reduces them and all-gathers the weights; stage 2
// reduce-scatters and all-gathers; stage 3 all-gathers every unit before its forward and, but the
// last, before its backward. Each of the 4 units holds a multiple of 2 elements: no padding.
TEST_F(MpiShard, EveryStageFollowsStageZeroAtTwoRanksAndMovesTheBytesItImplies) {
  std::map<std::string, std::string> out;
  out["0"] = stage_zero(2, kAdamW).first.output;
  for (const char* stage : {"1", "2", "3"}) {
    SCOPED_TRACE(std::string("stage ") + stage);
    out[stage] = expect_as_stage_zero(2, kAdamW, std::string(" --zero-stage ") + stage,
                                      std::string("two-s") + stage);
  }
  // ... and the parameters did move: the comparison can fail.
  shard_run(2, " --micro-batch 4 --optimizer adamw --lr 1e-30 --max-steps 3 --seed 7",
            "two-still.bin");
  const auto moved = params(stage_zero(2, kAdamW).second), still = params("two-still.bin");
  double distance = 0;
  for (size_t i = 0; i < still.size(); ++i) distance += std::fabs(moved[i] - still[i]);
  EXPECT_GT(distance, 1e-2);

  const int64_t all = bytes_per_step(out["0"], "gradient all-reduce");
  ASSERT_EQ(all % 4, 0) << out["0"];
  const int64_t elements = all / 4;  // fp32 gradients: the model's parameters
  EXPECT_EQ(bytes_per_step(out["1"], "gradient all-reduce"), all);
  EXPECT_EQ(bytes_per_step(out["1"], "parameter all-gather"), all);
  EXPECT_EQ(bytes_per_step(out["2"], "gradient reduce-scatter"), all);
  EXPECT_EQ(bytes_per_step(out["2"], "parameter all-gather"), all);
  EXPECT_EQ(bytes_per_step(out["2"], "gradient all-reduce"), -1);  // none
  EXPECT_EQ(bytes_per_step(out["3"], "gradient reduce-scatter"), all);
  // The last unit, norm+head: 2 x 32 + 32 x 10 + 10 elements.
  const int64_t last_unit = 4 * (2 * 32 + 32 * 10 + 10);
  EXPECT_EQ(bytes_per_step(out["3"], "parameter all-gather"), 2 * all - last_unit);
  EXPECT_GT(elements, 20000);
}

TEST_F(MpiShard, OneRankRunsEveryStageAsStageZero) {
  expect_as_stage_zero(1, kAdamW, " --zero-stage 3 --activation-checkpointing", "one-s3");
  expect_as_stage_zero(1, kAdamW, " --zero-stage 2", "one-s2");
}

// 3 ranks: no unit's size is a multiple of 3 here, so every unit is padded.
TEST_F(MpiShard, ThreeRanksWithUnevenShards) {
  expect_as_stage_zero(3, kAdamW, " --zero-stage 3", "three-s3");
  expect_as_stage_zero(3, kAdamW, " --zero-stage 1", "three-s1");
}

TEST_F(MpiShard, ActivationCheckpointingFollowsThePlainBackward) {
  expect_as_stage_zero(2, kAdamW, " --activation-checkpointing", "ckpt-s0");
  expect_as_stage_zero(2, kAdamW, " --zero-stage 3 --activation-checkpointing", "ckpt-s3");
}

// DeepSpeed's accumulation at stages 2-3: a reduce-scatter at every micro-step, the averaged
// blocks summed in fp32; clipping by the norm summed over the ranks' blocks; overlap.
TEST_F(MpiShard, AccumulationClippingAndOverlapFollowStageZero) {
  const std::string acc = std::string(kAdamW) + " --accumulation 2";
  expect_as_stage_zero(2, acc, " --zero-stage 2", "acc-s2");
  const std::string clip = std::string(kAdamW) + " --gradient-clipping 0.05";
  expect_as_stage_zero(2, clip, " --zero-stage 3", "clip-s3");
  // Reduce-scatters overlapped with the backward (at most two in flight) sum the same.
  expect_as_stage_zero(2, kAdamW, " --zero-stage 3 --overlap on", "overlap-s3");
  // SGD with momentum: its state is sharded the same way.
  expect_as_stage_zero(2, " --micro-batch 4 --optimizer sgd --lr 0.05 --max-steps 3 --seed 7",
                       " --zero-stage 1", "sgd-s1");
}

// Every regime the CPU runs, at the stage that changes most (3) with checkpointing: bf16 weights
// and gradients (ds-bf16, its fp32 wire too) and autocast (amp-bf16).
TEST_F(MpiShard, PrecisionRegimesAtStageThree) {
  for (const char* regime : {"ds-bf16", "ds-bf16-allreduce-fp32", "amp-bf16"}) {
    SCOPED_TRACE(regime);
    const std::string args = std::string(kAdamW) + " --precision " + regime;
    // bf16 weights round each update: the parameters compared are the fp32 master copy.
    expect_as_stage_zero(2, args, " --zero-stage 3 --activation-checkpointing",
                         std::string("regime-") + regime);
  }
}

// Sharded checkpoints: one file per rank; a resumed run ends where the uninterrupted one does, bit
// for bit, and so where stage 0 does (within the tolerance); another rank count, or another stage,
// is refused before anything is loaded (exit 2).
TEST_F(MpiShard, ShardedCheckpointsResumeAndRefuseAnotherRankCount) {
  const std::string common = " --micro-batch 4 --optimizer adamw --lr 0.003 --seed 7 --epochs 2";
  for (const char* stage : {"2", "3"}) {
    SCOPED_TRACE(std::string("stage ") + stage);
    const std::string args = common + " --zero-stage " + stage;
    const std::string ck = dir_ + "/shard-ck" + stage;
    shard_run(2, args + " --max-steps 6", std::string("full") + stage);
    Result r = train(2, args + " --max-steps 3 --checkpoint-every 3 --checkpoint-dir " + ck, 180,
                     "", kModel);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream latest(ck + "/latest");
    std::string name;
    std::getline(latest, name);
    EXPECT_EQ(name, "checkpoint-step3");
    EXPECT_TRUE(std::ifstream(ck + "/checkpoint-step3/rank1-of-2.pt").good());
    shard_run(2, args + " --max-steps 6 --resume " + ck, std::string("resumed") + stage);
    const auto full = params(std::string("full") + stage),
               back = params(std::string("resumed") + stage);
    ASSERT_EQ(full.size(), back.size());
    EXPECT_EQ(std::memcmp(full.data(), back.data(), full.size() * sizeof(float)), 0);
  }
  // ... which is plain data parallelism's continuation, within the tolerance.
  shard_run(2, common + " --max-steps 6", "full0");
  expect_close_in_norm(params("resumed3"), params("full0"), kRtol);
  // Another rank count: each rank's file is missing, and the message says which count wrote it.
  const std::string ck = dir_ + "/shard-ck3";
  Result r = train(3, common + " --zero-stage 3 --max-steps 6 --resume " + ck, 120, "", kModel);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("rank0-of-2.pt, rank1-of-2.pt"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mpirun -np 2"), std::string::npos) << r.output;
  // Plain data parallelism cannot read it either.
  r = train(2, common + " --max-steps 6 --resume " + ck, 120, "", kModel);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("resume with the --zero-stage it was written with"), std::string::npos)
      << r.output;
  // Another stage at the same rank count: the key names the option.
  r = train(2, common + " --zero-stage 1 --max-steps 6 --resume " + dir_ + "/shard-ck2", 120, "",
            kModel);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("resume with --zero-stage 2"), std::string::npos) << r.output;
}

// The run log names the stage and checkpointing and carries the phases they add and the step's
// peak tensor memory, which the memory model predicts within 10 %.
TEST_F(MpiShard, RunLogCarriesTheShardedPhases) {
  const std::string log = dir_ + "/shard-run.json";
  const Result r =
      train(2, std::string(kAdamW) + " --zero-stage 3 --activation-checkpointing --run-log " + log,
            180, "", kModel);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto parsed = vitsim::schema::read_run_log(log);
  const double measured = expect_memory_model_within_ten_percent(r.output);
  ASSERT_TRUE(parsed.ranks[0].peak_memory_bytes.has_value());
  EXPECT_DOUBLE_EQ(*parsed.ranks[0].peak_memory_bytes, measured);
  EXPECT_EQ(parsed.config.zero_stage, 3);
  EXPECT_TRUE(parsed.config.activation_checkpointing);
  for (const auto& rank : parsed.ranks) {
    EXPECT_GT(rank.allgather_time_s, 0);
    EXPECT_GT(rank.reduce_scatter_time_s, 0);
    // The barriers before the reduce-scatters (MPI_Ibarrier takes microseconds even with no skew).
    EXPECT_GT(rank.reduce_scatter_wait_time_s, 0);
    EXPECT_LT(rank.reduce_scatter_wait_time_s, rank.step_time_s);
    // And before the all-gathers (stage 3: each unit's, in forward and backward).
    EXPECT_GT(rank.allgather_wait_time_s, 0);
    EXPECT_LT(rank.allgather_wait_time_s, rank.step_time_s);
    EXPECT_GT(rank.unit_free_time_s, 0);
    EXPECT_GT(rank.recompute_time_s, 0);
    EXPECT_LT(rank.recompute_time_s, rank.backward_time_s);
  }
  const std::string log2 = dir_ + "/shard-run2.json";
  const Result r2 =
      train(2, std::string(kAdamW) + " --zero-stage 2 --run-log " + log2, 180, "", kModel);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  expect_memory_model_within_ten_percent(r2.output);
  const auto two = vitsim::schema::read_run_log(log2);
  EXPECT_EQ(two.config.zero_stage, 2);
  EXPECT_FALSE(two.config.activation_checkpointing);
  EXPECT_GT(two.ranks[0].reduce_scatter_time_s, 0);
  EXPECT_GT(two.ranks[0].reduce_scatter_wait_time_s, 0);
  EXPECT_GT(two.ranks[0].allgather_time_s, 0);  // after the optimizer
  EXPECT_GT(two.ranks[0].allgather_wait_time_s, 0);
  EXPECT_EQ(two.ranks[0].recompute_time_s, 0);
}

// The profile times what checkpointing and stage 3 add on one rank, with --sharding-costs only:
// the blocks' recomputation and a block's gather and free (their sizes are benchmarks' business,
// docs/sharding.md; here: there, and taking time).
TEST_F(MpiShard, ProfileTimesTheRecomputationAndAUnitsGather) {
  const std::string out = dir_ + "/shard-profile.json";
  const std::string cmd = std::string(VITSIM_TRAIN_EXE) + " profile" + kModel +
                          " --micro-batches 4 --repetitions 3 --warmup 1 --out " + out;
  Result r = run(cmd + " --sharding-costs");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto p = vitsim::schema::read_profile(out);
  ASSERT_EQ(p.compute.size(), 1u);
  const auto& m = p.compute[0];
  ASSERT_TRUE(m.recompute_time_s && m.unit_gather_time_s && m.unit_free_time_s);
  EXPECT_GT(*m.recompute_time_s, 0);
  EXPECT_GT(*m.unit_gather_time_s, 0);
  EXPECT_GE(*m.unit_free_time_s, 0);
  EXPECT_NE(r.output.find("checkpointed blocks' recomputation"), std::string::npos) << r.output;
  r = run(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  p = vitsim::schema::read_profile(out);
  EXPECT_FALSE(p.compute[0].recompute_time_s.has_value());
  EXPECT_FALSE(p.compute[0].unit_gather_time_s.has_value());
}

TEST_F(MpiShard, BadStagesAreRefused) {
  Result r = train(1, "--zero-stage 4", 60, "", kModel);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--zero-stage: cannot read '4': expected 0, 1, 2, 3"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("HYBRID_SHARD"), std::string::npos) << r.output;
  r = train(1, "--zero-stage HYBRID_SHARD", 60, "", kModel);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("HYBRID_SHARD"), std::string::npos) << r.output;
}

// bench-allreduce --collective: ZeRO's collectives timed as the all-reduce, with nccl-tests' size
// (the whole buffer) and bus factor (n-1)/n, written where the profile keeps them.
TEST_F(MpiShard, BenchTimesReduceScatterAndAllGather) {
  for (const char* c : {"reduce-scatter", "all-gather"}) {
    SCOPED_TRACE(c);
    const std::string out = dir_ + "/" + c + ".json";
    const Result r = run(mpirun(2, 120) + VITSIM_TRAIN_EXE " bench-allreduce --collective " + c +
                         " --min-bytes 4K --max-bytes 16K --iterations 3 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::string("bench-allreduce: ") + c), std::string::npos) << r.output;
    const auto p = vitsim::schema::read_profile(out);
    EXPECT_TRUE(p.allreduce.empty());
    const auto& entries = std::string(c) == "reduce-scatter" ? p.reduce_scatter : p.all_gather;
    ASSERT_EQ(entries.size(), 1u);
    ASSERT_EQ(entries[0].points.size(), 3u);  // 4K, 8K, 16K
    for (const auto& point : entries[0].points)
      EXPECT_NEAR(point.busbw_bytes_per_s, point.algbw_bytes_per_s / 2,
                  1e-6 * point.algbw_bytes_per_s);
  }
  const Result bad = run(std::string(VITSIM_TRAIN_EXE) + " bench-allreduce --collective gather");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

// --compute-beside: a busy thread runs during each collective (docs/sharding.md, "Against the
// emulated cluster"); the header says so, and no profile is written (its times are not the
// link's figures, which calibrate would take them for).
TEST_F(MpiShard, BenchRunsABusyThreadBesideEachCollectiveWhenAsked) {
  const Result r = run(mpirun(2, 120) + VITSIM_TRAIN_EXE
                       " bench-allreduce --collective reduce-scatter --compute-beside"
                       " --min-bytes 4K --max-bytes 4K --iterations 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("a busy thread beside each"), std::string::npos) << r.output;
  const Result plain = run(mpirun(2, 120) + VITSIM_TRAIN_EXE
                           " bench-allreduce --collective reduce-scatter --min-bytes 4K"
                           " --max-bytes 4K --iterations 3");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.output.find("busy thread"), std::string::npos) << plain.output;
  const std::string out = dir_ + "/beside.json";
  const Result refused =
      run(std::string(VITSIM_TRAIN_EXE) + " bench-allreduce --compute-beside --out " + out);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--compute-beside"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace mpi_train_shard_test
