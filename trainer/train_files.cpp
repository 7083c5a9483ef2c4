// The files of a training run; see train_files.h.
#include "trainer/train_files.h"

#include "trainer/checkpoint_folder.h"
#include "trainer/cifar_format.h"

namespace vitsim::trainer {

std::string dump_params_path(const TrainOptions& o, int rank) {
  std::string path = o.dump_params;
  const size_t at = path.find("{rank}");
  if (at != std::string::npos) path.replace(at, 6, std::to_string(rank));
  return path;
}

TrainFiles train_files(const TrainOptions& o, int rank, int ranks) {
  TrainFiles f;
  const CifarFormat format = detect_cifar_format(o.data_dir);
  for (bool train : {true, false}) {
    for (const std::string& name : cifar_file_names(format, train))
      f.inputs.push_back({"--data", o.data_dir + "/" + name});
  }
  f.inputs.push_back({"--config", o.config});
  if (!o.resume.empty()) {
    std::string resumed = resolve_checkpoint(o.resume);
    if (o.zero_stage > 0 && is_directory(resumed)) resumed += "/" + sharded_part_name(rank, ranks);
    f.inputs.push_back({"--resume", resumed});
  }
  f.outputs.push_back({"--run-log", o.run_log});
  f.outputs.push_back({"--dump-params", dump_params_path(o, rank)});
  f.outputs.push_back({"--dump-init-params", o.dump_init_params});
  if (!o.dump_init_params.empty())
    f.outputs.push_back({"--dump-init-params", o.dump_init_params + ".names"});
  if (!o.checkpoint_dir.empty())
    f.outputs.push_back({"--checkpoint-dir", o.checkpoint_dir + "/latest"});
  return f;
}

}  // namespace vitsim::trainer
