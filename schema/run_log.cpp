// Run log reader and writer (schema "vitsim.run_log", version 1); see run_log.h and
// docs/formats/run-log.md. Times, sizes and counts are held to costmodel/physical_bounds.h.
// Cross-field checks: global_batch = micro_batch * accumulation *
// world_size, one host per rank, rank summaries within 0..world_size-1 without duplicates,
// epochs in increasing order, waiting time within the all-reduce time it is part of.
#include "schema/run_log.h"

#include <set>

#include "schema/common_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/safe_name.h"

namespace vitsim::schema {
namespace {

void read_run_shape(const Node& n, RunConfig& c) {
  // Bounded first: the product below cannot overflow (10^6 x 10^6 x 10^6 < 2^63).
  c.world_size = n["world_size"].count(costmodel::kRanks);
  c.micro_batch = n["micro_batch"].count(costmodel::kMicroBatch);
  c.accumulation = n["accumulation"].count(costmodel::kAccumulation);
  c.global_batch = n["global_batch"].integer_at_least(1);
  if (c.global_batch != c.micro_batch * c.accumulation * c.world_size) {
    n["global_batch"].fail("micro_batch * accumulation * world_size = " +
                               std::to_string(c.micro_batch * c.accumulation * c.world_size),
                           n["global_batch"].describe(),
                           "the global batch is what one optimizer step sees");
  }
  const Node hosts = n["hosts"];
  for (const Node& h : hosts.items()) c.hosts.push_back(h.string());
  if (static_cast<int64_t>(c.hosts.size()) != c.world_size) {
    hosts.fail("one host per rank (" + std::to_string(c.world_size) + ")", hosts.describe());
  }
}

RunConfig read_config(const Node& n) {
  n.expect_keys({"model",         "precision",     "cluster",      "hosts",
                 "device",        "world_size",    "micro_batch",  "accumulation",
                 "global_batch",  "data_fraction", "train_images", "optimizer",
                 "learning_rate", "bucket_bytes",  "overlap",      "backend",
                 "seed",          "dataset",       "zero_stage",   "activation_checkpointing"});
  RunConfig c;
  c.model = read_model(n["model"]);
  c.precision = read_regime(n["precision"]);
  c.cluster = n["cluster"].string();
  // validate --like looks the cluster up as <folder>/NAME.json (safe_name.h); "" = none named.
  if (!c.cluster.empty()) check_safe_name(c.cluster, n.file(), n["cluster"].pointer());
  c.device = n["device"].string();
  if (c.device.empty()) n["device"].fail("non-empty device id", "empty string");
  read_run_shape(n, c);
  // As the CSV reader of measured runs: validate matches fractions in parts per million, and one
  // below 1e-6 would match nothing.
  c.data_fraction = n["data_fraction"].in_range(0, 1);
  if (!(c.data_fraction >= 1e-6))
    n["data_fraction"].fail("a fraction of the images in [1e-6, 1]", n["data_fraction"].describe());
  c.train_images = n["train_images"].count(costmodel::kImages);
  c.optimizer = read_optimizer(n["optimizer"]);
  c.learning_rate = n["learning_rate"].nonnegative();
  c.bucket_bytes = n["bucket_bytes"].within(costmodel::kBytesOrZero);
  c.overlap = n["overlap"].boolean();
  c.backend = n["backend"].one_of({"mpi", "nccl"});
  c.seed = n["seed"].integer_at_least(0);
  c.dataset = n["dataset"].one_of({"cifar10", "cifar100"});
  if (auto z = n.get("zero_stage")) {
    c.zero_stage = z->integer();
    if (c.zero_stage < 0 || c.zero_stage > 3)
      z->fail("a ZeRO stage 0, 1, 2 or 3", z->describe(),
              "1 shards optimizer states, 2 also gradients, 3 also parameters");
  }
  if (auto a = n.get("activation_checkpointing")) c.activation_checkpointing = a->boolean();
  return c;
}

EpochRecord read_epoch(const Node& n) {
  n.expect_keys(
      {"epoch", "steps", "epoch_time_s", "train_loss", "train_accuracy", "test_accuracy"});
  EpochRecord e;
  e.epoch = n["epoch"].integer_at_least(0);
  e.steps = n["steps"].count(costmodel::kRepetitions);
  // A finished epoch took time: 0 would give an infinite error in validate (the CSV reader of
  // measured epoch times refuses it too).
  e.epoch_time_s = n["epoch_time_s"].within(costmodel::kPositiveDurationS);
  e.train_loss = n["train_loss"].nonnegative();
  e.train_accuracy = n["train_accuracy"].in_range(0, 1);
  e.test_accuracy = n["test_accuracy"].in_range(0, 1);
  return e;
}

RankStepSummary read_rank(const Node& n, int64_t world_size) {
  n.expect_keys({"rank",
                 "host",
                 "steps",
                 "step_time_s",
                 "data_time_s",
                 "host_to_device_time_s",
                 "forward_time_s",
                 "backward_time_s",
                 "allreduce_time_s",
                 "allreduce_wait_time_s",
                 "optimizer_time_s",
                 "sync_time_s",
                 "bucket_copy_time_s",
                 "reduce_scatter_time_s",
                 "reduce_scatter_wait_time_s",
                 "allgather_time_s",
                 "allgather_wait_time_s",
                 "unit_free_time_s",
                 "recompute_time_s",
                 "peak_memory_bytes"});
  RankStepSummary r;
  r.rank = n["rank"].integer_at_least(0);
  if (r.rank >= world_size) {
    n["rank"].fail("a rank in 0.." + std::to_string(world_size - 1), n["rank"].describe(),
                   "ranks are numbered below config.world_size");
  }
  r.host = n["host"].string();
  r.steps = n["steps"].integer_at_least(0);
  if (r.steps > 0) n["steps"].count(costmodel::kRepetitions);
  r.step_time_s = n["step_time_s"].within(costmodel::kDurationS);
  r.data_time_s = n["data_time_s"].within(costmodel::kDurationS);
  r.host_to_device_time_s = n["host_to_device_time_s"].within(costmodel::kDurationS);
  r.forward_time_s = n["forward_time_s"].within(costmodel::kDurationS);
  r.backward_time_s = n["backward_time_s"].within(costmodel::kDurationS);
  r.allreduce_time_s = n["allreduce_time_s"].within(costmodel::kDurationS);
  r.allreduce_wait_time_s = n["allreduce_wait_time_s"].within(costmodel::kDurationS);
  // Medians keep the order: wait <= all-reduce at every step implies it for the medians.
  if (r.allreduce_wait_time_s > r.allreduce_time_s * (1 + 1e-9)) {
    n["allreduce_wait_time_s"].fail(
        "at most allreduce_time_s (" + n["allreduce_time_s"].json().dump() + ")",
        n["allreduce_wait_time_s"].describe(), "the wait is part of the exposed all-reduce time");
  }
  r.optimizer_time_s = n["optimizer_time_s"].within(costmodel::kDurationS);
  if (n.has("sync_time_s")) r.sync_time_s = n["sync_time_s"].within(costmodel::kDurationS);
  if (n.has("bucket_copy_time_s"))
    r.bucket_copy_time_s = n["bucket_copy_time_s"].within(costmodel::kDurationS);
  // Each a part of the step: none can exceed it.
  for (auto [key, field] : {std::pair{"reduce_scatter_time_s", &r.reduce_scatter_time_s},
                            std::pair{"reduce_scatter_wait_time_s", &r.reduce_scatter_wait_time_s},
                            std::pair{"allgather_time_s", &r.allgather_time_s},
                            std::pair{"allgather_wait_time_s", &r.allgather_wait_time_s},
                            std::pair{"unit_free_time_s", &r.unit_free_time_s},
                            std::pair{"recompute_time_s", &r.recompute_time_s}}) {
    if (!n.has(key)) continue;
    *field = n[key].within(costmodel::kDurationS);
    if (*field > r.step_time_s * (1 + 1e-9)) {
      n[key].fail("at most step_time_s (" + n["step_time_s"].json().dump() + ")", n[key].describe(),
                  "a part of the step cannot take longer than the step");
    }
  }
  if (n.has("peak_memory_bytes"))
    r.peak_memory_bytes = n["peak_memory_bytes"].within(costmodel::kBytesOrZero);
  return r;
}

}  // namespace

RunLog read_run_log(const Node& root) {
  root.expect_schema(kRunLogSchema, kRunLogVersion, kPreRegimeVersion);
  root.expect_keys(
      {"schema", "schema_version", "context", "config", "epochs", "ranks", "rank_means"});
  RunLog log;
  log.context = read_context(root);
  log.config = read_config(root["config"]);
  for (const Node& e : root["epochs"].items()) {
    log.epochs.push_back(read_epoch(e));
    const size_t k = log.epochs.size();
    if (k > 1 && log.epochs[k - 1].epoch <= log.epochs[k - 2].epoch) {
      e["epoch"].fail("an epoch after " + std::to_string(log.epochs[k - 2].epoch),
                      e["epoch"].describe(), "epochs are listed once each, in order");
    }
  }
  std::set<int64_t> seen;
  for (const Node& r : root["ranks"].items()) {
    log.ranks.push_back(read_rank(r, log.config.world_size));
    if (!seen.insert(log.ranks.back().rank).second) {
      r["rank"].fail("a rank not listed before", r["rank"].describe(), "one summary per rank");
    }
  }
  if (root.has("rank_means")) {
    const Node& means = root["rank_means"];
    for (const Node& r : means.items()) {
      log.rank_means.push_back(read_rank(r, log.config.world_size));
      const RankStepSummary& m = log.rank_means.back();
      const size_t k = log.rank_means.size() - 1;
      if (k >= log.ranks.size() || log.ranks[k].rank != m.rank) {
        r["rank"].fail(k < log.ranks.size()
                           ? "rank " + std::to_string(log.ranks[k].rank)
                           : "no entry (ranks[] has " + std::to_string(log.ranks.size()) + ")",
                       r["rank"].describe(), "rank_means[] lists the ranks of ranks[], in order");
      }
    }
    if (log.rank_means.size() != log.ranks.size()) {
      means.fail(std::to_string(log.ranks.size()) + " entries, one per rank of ranks[]",
                 std::to_string(log.rank_means.size()) + " entries",
                 "rank_means[] lists the ranks of ranks[], in order");
    }
  }
  return log;
}

RunLog read_run_log(const std::string& path) {
  return read_run_log(Node::parse_file(path));
}

namespace {

Json write_config(const RunConfig& c) {
  Json j = {{"model", write_model(c.model)},
            {"precision", costmodel::to_string(c.precision)},
            {"cluster", c.cluster},
            {"hosts", c.hosts},
            {"device", c.device},
            {"world_size", c.world_size},
            {"micro_batch", c.micro_batch},
            {"accumulation", c.accumulation},
            {"global_batch", c.global_batch},
            {"data_fraction", c.data_fraction},
            {"train_images", c.train_images},
            {"optimizer", costmodel::to_string(c.optimizer)},
            {"learning_rate", c.learning_rate},
            {"bucket_bytes", c.bucket_bytes},
            {"overlap", c.overlap},
            {"backend", c.backend},
            {"seed", c.seed},
            {"dataset", c.dataset}};
  if (c.zero_stage > 0) j["zero_stage"] = c.zero_stage;
  if (c.activation_checkpointing) j["activation_checkpointing"] = true;
  return j;
}

Json write_epoch(const EpochRecord& e) {
  return {{"epoch", e.epoch},
          {"steps", e.steps},
          {"epoch_time_s", e.epoch_time_s},
          {"train_loss", e.train_loss},
          {"train_accuracy", e.train_accuracy},
          {"test_accuracy", e.test_accuracy}};
}

Json write_rank(const RankStepSummary& r) {
  Json j = {{"rank", r.rank},
            {"host", r.host},
            {"steps", r.steps},
            {"step_time_s", r.step_time_s},
            {"data_time_s", r.data_time_s},
            {"host_to_device_time_s", r.host_to_device_time_s},
            {"forward_time_s", r.forward_time_s},
            {"backward_time_s", r.backward_time_s},
            {"allreduce_time_s", r.allreduce_time_s},
            {"allreduce_wait_time_s", r.allreduce_wait_time_s},
            {"optimizer_time_s", r.optimizer_time_s},
            {"sync_time_s", r.sync_time_s}};
  if (r.bucket_copy_time_s > 0) j["bucket_copy_time_s"] = r.bucket_copy_time_s;
  if (r.reduce_scatter_time_s > 0) j["reduce_scatter_time_s"] = r.reduce_scatter_time_s;
  if (r.reduce_scatter_wait_time_s > 0)
    j["reduce_scatter_wait_time_s"] = r.reduce_scatter_wait_time_s;
  if (r.allgather_time_s > 0) j["allgather_time_s"] = r.allgather_time_s;
  if (r.allgather_wait_time_s > 0) j["allgather_wait_time_s"] = r.allgather_wait_time_s;
  if (r.unit_free_time_s > 0) j["unit_free_time_s"] = r.unit_free_time_s;
  if (r.recompute_time_s > 0) j["recompute_time_s"] = r.recompute_time_s;
  if (r.peak_memory_bytes) j["peak_memory_bytes"] = *r.peak_memory_bytes;
  return j;
}

}  // namespace

Json write_run_log_json(const RunLog& log) {
  Json j = document_head(kRunLogSchema, kRunLogVersion, log.context);
  j["config"] = write_config(log.config);
  j["epochs"] = Json::array();
  for (const auto& e : log.epochs) j["epochs"].push_back(write_epoch(e));
  j["ranks"] = Json::array();
  for (const auto& r : log.ranks) j["ranks"].push_back(write_rank(r));
  if (!log.rank_means.empty()) {
    j["rank_means"] = Json::array();
    for (const auto& r : log.rank_means) j["rank_means"].push_back(write_rank(r));
  }
  return j;
}

void write_run_log(const std::string& path, const RunLog& log) {
  write_json_output(path, write_run_log_json(log));
}

}  // namespace vitsim::schema
