// Checkpoint files (checkpoint.h). Format: a Torch serialize archive (zip) with keys
// "model/<parameter>", "optimizer/...", "rng_state", "position_i64", "position_f64", "key",
// "precision" (the regime's name, costmodel/regime.h; since format version 2).
#include "trainer/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "schema/input_error.h"
#include "schema/json_file.h"

namespace vitsim::trainer {
namespace {

constexpr int64_t kFormatVersion = 2;  // 2: the regime is part of the key

torch::Tensor key_tensor(const CheckpointKey& k) {
  return torch::tensor({kFormatVersion, k.world_size, k.micro_batch, k.accumulation,
                        static_cast<int64_t>(k.seed), k.parameters},
                       torch::kLong);
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string resolve(const std::string& path) {
  if (!is_dir(path)) return path;
  std::ifstream in(path + "/latest");
  std::string name;
  if (!in || !std::getline(in, name) || name.empty()) {
    throw schema::InputError::at(path, "latest", "a checkpoint folder with a 'latest' file",
                                 "no readable 'latest'",
                                 "pass a checkpoint file, or the folder given to --checkpoint-dir");
  }
  return path + "/" + name;
}

}  // namespace

std::string save_checkpoint(const std::string& dir, torch::nn::Module& model,
                            torch::optim::Optimizer& optimizer, const TrainPosition& p,
                            const CheckpointKey& key) {
  ::mkdir(dir.c_str(), 0755);
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive model_archive, optimizer_archive;
  for (const auto& item : model.named_parameters()) model_archive.write(item.key(), item.value());
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
  archive.write("key", key_tensor(key));
  archive.write("precision", c10::IValue(std::string(costmodel::to_string(key.precision))));
  const std::string name = "checkpoint-step" + std::to_string(p.global_step) + ".pt";
  const std::string path = dir + "/" + name;
  std::ostringstream bytes;
  archive.save_to(bytes);
  schema::write_output(path, bytes.str());
  schema::write_output(dir + "/latest", name + "\n");
  return path;
}

TrainPosition load_checkpoint(const std::string& where, torch::nn::Module& model,
                              torch::optim::Optimizer& optimizer, const CheckpointKey& key) {
  const std::string path = resolve(where);
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    throw schema::InputError::at(path, "", "a vitsim-train checkpoint", "an unreadable file",
                                 e.what_without_backtrace());
  }
  torch::Tensor saved_key;
  archive.read("key", saved_key);
  const torch::Tensor want = key_tensor(key);
  if (!saved_key.equal(want)) {
    auto show = [](const torch::Tensor& t) {
      auto a = t.accessor<int64_t, 1>();
      return "version " + std::to_string(a[0]) + ", " + std::to_string(a[1]) +
             " ranks, micro-batch " + std::to_string(a[2]) + ", accumulation " +
             std::to_string(a[3]) + ", seed " + std::to_string(a[4]) + ", " + std::to_string(a[5]) +
             " parameters";
    };
    throw schema::InputError::at(
        path, "key", "a checkpoint of this configuration (" + show(want) + ")", show(saved_key),
        "resume with the ranks, batch sizes, seed and model it was written with");
  }
  c10::IValue saved_precision;
  archive.read("precision", saved_precision);
  const std::string want_precision = costmodel::to_string(key.precision);
  if (!saved_precision.isString() || saved_precision.toStringRef() != want_precision) {
    const bool named = saved_precision.isString();
    throw schema::InputError::at(path, "precision",
                                 "a checkpoint trained in " + want_precision + " (--precision)",
                                 named ? saved_precision.toStringRef() : "no regime name",
                                 named ? "resume with --precision " + saved_precision.toStringRef()
                                       : "the file is damaged: resume from another checkpoint");
  }
  torch::serialize::InputArchive model_archive, optimizer_archive;
  archive.read("model", model_archive);
  {
    torch::NoGradGuard no_grad;
    for (auto& item : model.named_parameters()) {
      torch::Tensor t;
      model_archive.read(item.key(), t);
      item.value().copy_(t);
    }
  }
  archive.read("optimizer", optimizer_archive);
  optimizer.load(optimizer_archive);
  torch::Tensor rng, pi, pf;
  archive.read("rng_state", rng);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  }
  archive.read("position_i64", pi);
  archive.read("position_f64", pf);
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

}  // namespace vitsim::trainer
