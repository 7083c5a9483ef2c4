// Checkpoint folders: names, --resume's resolution, pruning (checkpoint_folder.h).
#include "trainer/checkpoint_folder.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include "schema/input_error.h"
#include "schema/safe_name.h"

namespace vitsim::trainer {
namespace {

// The step of "checkpoint-step<N><tail>", or -1 for another name.
int64_t step_of(const std::string& name, const std::string& tail) {
  const std::string head = "checkpoint-step";
  if (name.size() <= head.size() + tail.size() || name.compare(0, head.size(), head) != 0 ||
      name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
    return -1;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - tail.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 18) return -1;
  return std::stoll(digits);
}

}  // namespace

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_directory(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string checkpoint_step_name(int64_t global_step) {
  return "checkpoint-step" + std::to_string(global_step);
}

std::string sharded_part_name(int64_t rank, int64_t ranks) {
  return "rank" + std::to_string(rank) + "-of-" + std::to_string(ranks) + ".pt";
}

std::string resolve_checkpoint(const std::string& path) {
  if (!is_directory(path)) return path;
  std::ifstream in(path + "/latest");
  if (!in) {
    for (const std::string& name : list_directory(path)) {
      if (name.rfind("rank", 0) == 0) return path;  // a sharded step's folder
    }
  }
  std::string name;
  if (!in || !std::getline(in, name) || name.empty()) {
    throw schema::InputError::at(path, "latest", "a checkpoint folder with a 'latest' file",
                                 "no readable 'latest'",
                                 "pass a checkpoint file, or the folder given to --checkpoint-dir");
  }
  // A file of the folder, never a path out of it ("../../x"): safe_name.h's rule.
  if (!schema::is_safe_name(name))
    throw schema::InputError::at(
        path + "/latest", "", "the name of a checkpoint of the folder",
        "\"" + name.substr(0, 200) + "\": " + schema::unsafe_name_reason(name),
        "vitsim-train writes checkpoint-step<N>.pt or checkpoint-step<N>");
  return path + "/" + name;
}

void prune_checkpoints(const std::string& dir, int64_t step, int64_t keep) {
  if (keep <= 0) return;
  std::vector<std::pair<int64_t, std::string>> older;
  for (const std::string& name : list_directory(dir)) {
    const int64_t file = step_of(name, ".pt");
    const int64_t folder = is_directory(dir + "/" + name) ? step_of(name + "/", "/") : -1;
    const int64_t n = file >= 0 ? file : folder;
    if (n >= 0 && n < step) older.emplace_back(n, name);
  }
  std::sort(older.rbegin(), older.rend());
  for (size_t i = static_cast<size_t>(keep - 1); i < older.size(); ++i) {
    const std::string old = dir + "/" + older[i].second;
    if (is_directory(old)) {
      for (const std::string& part : list_directory(old)) {
        if (part.rfind("rank", 0) == 0) ::unlink((old + "/" + part).c_str());
      }
      ::rmdir(old.c_str());
    } else {
      ::unlink(old.c_str());
    }
  }
}

}  // namespace vitsim::trainer
