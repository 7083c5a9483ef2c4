// Checkpoint files (checkpoint.h; docs/formats/checkpoint.md). Format 3: three text lines, then
// the key as one line of JSON, then a Torch serialize archive (zip) with keys "model/<parameter>",
// "optimizer/...", "rng_state", "position_i64", "position_f64":
//   vitsim-train checkpoint
//   format 3
//   fnv1a64:<16 hex digits>      digest of everything after this line (key and archive)
//   {"world_size": ..., "model": {...}, "optimizer": {...}, ...}
//   PK...                        the archive
// The archive's zip CRCs are not checked by LibTorch's reader (a flipped bit in a weight loaded
// silently), hence the digest; the key is text so that `head -4` shows what a checkpoint is.
#include "trainer/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "schema/digest.h"
#include "schema/input_error.h"
#include "schema/output_file.h"
#include "schema/text_file.h"
#include "trainer/checkpoint_folder.h"
#include "trainer/train_options.h"

namespace vitsim::trainer {
namespace {

constexpr int64_t kFormatVersion = 3;  // 3: header, checksum, whole key; 2: regime in the key
constexpr const char* kMagic = "vitsim-train checkpoint";
constexpr size_t kMaxCheckpointBytes = size_t{64} << 30;  // 64 GiB: ViT-H/14 with AdamW is ~8

nlohmann::json key_json(const CheckpointKey& k) {
  const costmodel::ViTConfig& m = k.model;
  nlohmann::json optimizer = {{"name", costmodel::to_string(k.optimizer)},
                              {"learning_rate", k.learning_rate},
                              {"weight_decay", k.weight_decay}};
  if (k.optimizer == costmodel::Optimizer::kSgd) {
    optimizer["momentum"] = k.momentum;
  } else {
    optimizer["beta1"] = k.beta1;
    optimizer["beta2"] = k.beta2;
    optimizer["eps"] = k.adam_eps;
  }
  nlohmann::json key = {{"world_size", k.world_size},
                        {"micro_batch", k.micro_batch},
                        {"accumulation", k.accumulation},
                        {"seed", k.seed},
                        {"zero_stage", k.zero_stage},
                        {"precision", costmodel::to_string(k.precision)},
                        {"model",
                         {{"image_size", m.image_size},
                          {"patch_size", m.patch_size},
                          {"channels", m.channels},
                          {"width", m.width},
                          {"depth", m.depth},
                          {"heads", m.heads},
                          {"mlp_ratio", m.mlp_ratio},
                          {"classes", m.classes}}},
                        {"optimizer", optimizer}};
  if (k.rank >= 0) key["rank"] = k.rank;  // a sharded checkpoint's file: whose blocks it holds
  return key;
}

// Each key field, what sets it, and how to resume with the saved value ({} stands for it), in the
// order a mismatch is reported (the optimizer's name before its settings: another optimizer has
// other settings).
struct KeyField {
  const char* pointer;
  const char* option;
  const char* resume_with;
};
constexpr KeyField kKeyFields[] = {
    {"/model/image_size", "--image-size", "--image-size {}"},
    {"/model/patch_size", "--patch-size", "--patch-size {}"},
    {"/model/channels", "channels", "a --model of {} channels"},
    {"/model/width", "--width", "--width {}"},
    {"/model/depth", "--depth", "--depth {}"},
    {"/model/heads", "--heads", "--heads {}"},
    {"/model/mlp_ratio", "--mlp-ratio", "--mlp-ratio {}"},
    {"/model/classes", "classes (--data)", "a --data set of {} classes"},
    {"/optimizer/name", "--optimizer", "--optimizer {}"},
    {"/optimizer/learning_rate", "--lr", "--lr {}"},
    {"/optimizer/weight_decay", "--weight-decay", "--weight-decay {}"},
    {"/optimizer/momentum", "--momentum", "--momentum {}"},
    {"/optimizer/beta1", "beta1 (--config)", "a --config whose optimizer.params.betas[0] is {}"},
    {"/optimizer/beta2", "beta2 (--config)", "a --config whose optimizer.params.betas[1] is {}"},
    {"/optimizer/eps", "eps (--config)", "a --config whose optimizer.params.eps is {}"},
    {"/precision", "--precision", "--precision {}"},
    {"/zero_stage", "--zero-stage", "--zero-stage {}"},
    {"/world_size", "rank count (mpirun -np)", "mpirun -np {}"},
    {"/rank", "rank", "each rank's own file (rank<r>-of-<ranks>.pt), as written: rank {}"},
    {"/micro_batch", "--micro-batch", "--micro-batch {}"},
    {"/accumulation", "--accumulation", "--accumulation {}"},
    {"/seed", "--seed", "--seed {}"},
};

std::string shown(const nlohmann::json& v) {
  if (v.is_null()) return "nothing";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void check_key(const std::string& path, nlohmann::json saved, const CheckpointKey& key) {
  const nlohmann::json want = key_json(key);
  // Written before sharding existed: plain data parallelism.
  if (saved.is_object() && !saved.contains("zero_stage")) saved["zero_stage"] = 0;
  for (const KeyField& f : kKeyFields) {
    const nlohmann::json::json_pointer p(f.pointer);
    const nlohmann::json a = want.contains(p) ? want.at(p) : nlohmann::json();
    const nlohmann::json b = saved.contains(p) ? saved.at(p) : nlohmann::json();
    if (a == b) continue;
    std::string resume_with = f.resume_with;
    resume_with.replace(resume_with.find("{}"), 2, shown(b));
    throw schema::InputError::at(
        path, std::string("/key") + f.pointer,
        "a checkpoint of this run's " + std::string(f.option) + " (" + shown(a) + ")", shown(b),
        "resume with " + resume_with + ", as it was written, or start without --resume");
  }
  if (saved != want) {  // a field the table does not list: never silently another run
    throw schema::InputError::at(path, "/key", "the key of this run (" + want.dump() + ")",
                                 saved.dump(), "resume with the settings it was written with");
  }
}

// The next line of `text` from `at` (without its newline); `at` moves past it.
std::string next_line(const std::string& text, size_t& at) {
  const size_t end = text.find('\n', at);
  const size_t stop = end == std::string::npos ? text.size() : end;
  std::string line = text.substr(at, std::min<size_t>(stop - at, 200));
  at = end == std::string::npos ? text.size() : end + 1;
  return line;
}

// The key and the archive bytes of a checkpoint file, after checking its head and its digest.
std::pair<nlohmann::json, std::string> read_checked(const std::string& path) {
  const std::string text = schema::read_text_file(path, kMaxCheckpointBytes, "a checkpoint");
  auto refuse = [&](const std::string& where, const std::string& expected, const std::string& got,
                    const std::string& hint) {
    throw schema::InputError::at(path, where, expected, got, hint);
  };
  size_t at = 0;
  if (next_line(text, at) != kMagic) {
    refuse("", "a vitsim-train checkpoint (first line '" + std::string(kMagic) + "')",
           text.compare(0, 2, "PK") == 0 ? "a checkpoint of format 1 or 2 (no checksum)"
                                         : "another file",
           "older checkpoints cannot be checked: start without --resume");
  }
  const std::string format = next_line(text, at);
  if (format != "format " + std::to_string(kFormatVersion))
    refuse("format", "format " + std::to_string(kFormatVersion), "'" + format + "'",
           "written by another vitsim-train version: resume with that one");
  const std::string digest = next_line(text, at);
  const std::string body = text.substr(at);
  if (schema::digest_text(body) != digest)
    refuse("checksum", digest + " (as the file says)",
           schema::digest_text(body) + " of its contents",
           "the file is damaged (a changed byte or a truncation): resume from another checkpoint");
  size_t after_key = 0;
  const std::string key_line = next_line(body, after_key);
  nlohmann::json key;
  try {
    key = nlohmann::json::parse(body.substr(0, after_key));
  } catch (const nlohmann::json::exception& e) {
    refuse("key", "one line of JSON", "'" + key_line + "'", e.what());
  }
  return {key, body.substr(after_key)};
}

}  // namespace

CheckpointKey checkpoint_key(const TrainOptions& o, int64_t world_size) {
  CheckpointKey k;
  k.world_size = world_size;
  k.micro_batch = o.micro_batch;
  k.accumulation = o.accumulation;
  k.seed = o.seed;
  k.precision = o.precision;
  k.model = o.model;
  k.optimizer = o.optimizer;
  k.learning_rate = o.learning_rate;
  k.weight_decay = o.weight_decay;
  k.momentum = o.momentum;
  k.beta1 = o.beta1;
  k.beta2 = o.beta2;
  k.adam_eps = o.adam_eps;
  k.zero_stage = o.zero_stage;
  return k;
}

namespace {

NamedTensors named_parameters(torch::nn::Module& model) {
  NamedTensors out;
  for (const auto& item : model.named_parameters()) out.emplace_back(item.key(), item.value());
  return out;
}

// One checkpoint file's bytes: head, digest, key, archive (format 3).
std::string checkpoint_bytes(const NamedTensors& tensors, torch::optim::Optimizer& optimizer,
                             const TrainPosition& p, const CheckpointKey& key) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive model_archive, optimizer_archive;
  for (const auto& [name, tensor] : tensors) model_archive.write(name, tensor);
  archive.write("model", model_archive);
  optimizer.save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    archive.write("rng_state", gen.get_state());
  }
  archive.write("position_i64",
                torch::tensor({p.epoch, p.micro_step, p.global_step}, torch::kLong));
  archive.write("position_f64", torch::tensor({p.epoch_loss_sum, p.epoch_correct, p.epoch_samples,
                                               p.epoch_elapsed_s},
                                              torch::kDouble));
  std::ostringstream zip;
  archive.save_to(zip);
  const std::string body = key_json(key).dump() + "\n" + zip.str();
  return std::string(kMagic) + "\nformat " + std::to_string(kFormatVersion) + "\n" +
         schema::digest_text(body) + "\n" + body;
}

}  // namespace

std::string save_checkpoint(const std::string& dir, torch::nn::Module& model,
                            torch::optim::Optimizer& optimizer, const TrainPosition& p,
                            const CheckpointKey& key, int64_t keep,
                            const std::vector<schema::NamedPath>& inputs) {
  ::mkdir(dir.c_str(), 0755);
  const std::string name = checkpoint_step_name(p.global_step) + ".pt";
  const std::string path = dir + "/" + name;
  schema::OutputGroup written(inputs,
                              {{"--checkpoint-dir", path}, {"--checkpoint-dir", dir + "/latest"}});
  written.add(path, checkpoint_bytes(named_parameters(model), optimizer, p, key));
  written.add(dir + "/latest", name + "\n");  // last: it names the file above
  written.commit();
  prune_checkpoints(dir, p.global_step, keep);
  return path;
}

std::string save_sharded_part(const std::string& dir, const NamedTensors& blocks,
                              torch::optim::Optimizer& optimizer, const TrainPosition& p,
                              const CheckpointKey& key, int64_t ranks,
                              const std::vector<schema::NamedPath>& inputs) {
  const std::string step_dir = dir + "/" + checkpoint_step_name(p.global_step);
  ::mkdir(dir.c_str(), 0755);
  ::mkdir(step_dir.c_str(), 0755);  // every rank tries; the first makes it
  const std::string path = step_dir + "/" + sharded_part_name(key.rank, ranks);
  schema::OutputGroup written(inputs, {{"--checkpoint-dir", path}});
  written.add(path, checkpoint_bytes(blocks, optimizer, p, key));
  written.commit();
  return step_dir;
}

void commit_sharded(const std::string& dir, int64_t global_step, int64_t keep,
                    const std::vector<schema::NamedPath>& inputs) {
  schema::OutputGroup written(inputs, {{"--checkpoint-dir", dir + "/latest"}});
  written.add(dir + "/latest", checkpoint_step_name(global_step) + "\n");
  written.commit();
  prune_checkpoints(dir, global_step, keep);
}

std::string sharded_part_path(const std::string& where, int64_t rank, int64_t ranks) {
  const std::string path = resolve_checkpoint(where);
  if (!is_directory(path)) {
    throw schema::InputError::at(
        path, "", "a sharded checkpoint (a folder of one file per rank: --zero-stage 1, 2 or 3)",
        "a whole-model checkpoint file",
        "resume it with --zero-stage 0, as it was written, or start without --resume");
  }
  const std::string want = sharded_part_name(rank, ranks);
  std::string found;  // the rank files there, to say which rank count wrote them
  for (const std::string& name : list_directory(path)) {
    if (name == want) return path + "/" + name;
    if (name.rfind("rank", 0) == 0) found += (found.empty() ? "" : ", ") + name;
  }
  const size_t of = found.find("-of-");
  const std::string written_by =
      of == std::string::npos ? "?" : found.substr(of + 4, found.find(".pt", of) - of - 4);
  throw schema::InputError::at(
      path, want,
      "the part of rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
          " (a checkpoint of this run's rank count)",
      found.empty() ? "no rank files" : found,
      "a sharded checkpoint resumes under the rank count that wrote it: mpirun -np " + written_by +
          " (resharding to another count is not built)");
}

namespace {

std::string shape_text(torch::IntArrayRef shape) {
  std::string out;
  for (int64_t d : shape) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out.empty() ? "()" : out;
}

}  // namespace

TrainPosition load_checkpoint(const std::string& where, torch::nn::Module& model,
                              torch::optim::Optimizer& optimizer, const CheckpointKey& key,
                              const ResumeBounds& bounds) {
  const std::string path = resolve_checkpoint(where);
  if (is_directory(path)) {
    throw schema::InputError::at(
        path, "", "a whole-model checkpoint file (--zero-stage 0)",
        "a sharded checkpoint (a folder of one file per rank)",
        "resume with the --zero-stage it was written with (its files' key names it), or start "
        "without --resume");
  }
  return load_checkpoint(path, named_parameters(model), optimizer, key, bounds);
}

namespace {

// A tensor of the archive, read and checked against the shape and type the run expects.
torch::Tensor read_tensor(const std::string& path, torch::serialize::InputArchive& archive,
                          const std::string& name, const std::string& pointer,
                          torch::IntArrayRef shape, torch::ScalarType type) {
  torch::Tensor t;
  if (!archive.try_read(name, t))
    throw schema::InputError::at(path, pointer, "a tensor " + name, "none",
                                 "not a checkpoint of this vitsim-train: start without --resume");
  if (t.sizes() != shape || t.scalar_type() != type)
    throw schema::InputError::at(
        path, pointer,
        std::string("a ") + c10::toString(type) + " tensor of shape " + shape_text(shape),
        std::string(c10::toString(t.scalar_type())) + " of shape " + shape_text(t.sizes()),
        "a checkpoint of another run: resume from one this run wrote");
  return t;
}

TrainPosition read_position(const std::string& path, torch::serialize::InputArchive& archive) {
  const torch::Tensor pi =
      read_tensor(path, archive, "position_i64", "/position", {3}, torch::kLong);
  const torch::Tensor pf =
      read_tensor(path, archive, "position_f64", "/position", {4}, torch::kDouble);
  TrainPosition p;
  auto i = pi.accessor<int64_t, 1>();
  auto f = pf.accessor<double, 1>();
  p.epoch = i[0];
  p.micro_step = i[1];
  p.global_step = i[2];
  p.epoch_loss_sum = f[0];
  p.epoch_correct = f[1];
  p.epoch_samples = f[2];
  p.epoch_elapsed_s = f[3];
  return p;
}

TrainPosition load_archive(const std::string& path, const std::string& zip,
                           const NamedTensors& tensors, torch::optim::Optimizer& optimizer,
                           const ResumeBounds& bounds) {
  torch::serialize::InputArchive archive;
  archive.load_from(zip.data(), zip.size());
  // The position first: nothing is loaded from a checkpoint whose position is out of bounds.
  const TrainPosition p = read_position(path, archive);
  check_position(path, p, bounds);
  torch::serialize::InputArchive model_archive, optimizer_archive;
  archive.read("model", model_archive);
  std::vector<torch::Tensor> values;
  for (const auto& [name, target] : tensors)
    values.push_back(read_tensor(path, model_archive, name, "/model/" + name, target.sizes(),
                                 target.scalar_type()));
  {
    torch::NoGradGuard no_grad;
    for (size_t k = 0; k < tensors.size(); ++k) tensors[k].second.copy_(values[k]);
  }
  archive.read("optimizer", optimizer_archive);
  optimizer.load(optimizer_archive);
  torch::Tensor rng;
  archive.read("rng_state", rng);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  }
  return p;
}

}  // namespace

TrainPosition load_checkpoint(const std::string& path, const NamedTensors& tensors,
                              torch::optim::Optimizer& optimizer, const CheckpointKey& key,
                              const ResumeBounds& bounds) {
  const auto [saved_key, zip] = read_checked(path);
  check_key(path, saved_key, key);
  try {
    return load_archive(path, zip, tensors, optimizer, bounds);
  } catch (const c10::Error& e) {
    // What the checks above do not name (an archive whose parts do not load): still the file's.
    throw schema::InputError::at(path, "", "a vitsim-train checkpoint this run can load",
                                 "an archive LibTorch cannot read",
                                 std::string(e.what_without_backtrace()).substr(0, 300));
  }
}

}  // namespace vitsim::trainer
