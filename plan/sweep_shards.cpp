// Shards of a sweep; see sweep_shards.h.
#include "plan/sweep_shards.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "schema/input_error.h"
#include "schema/model_io.h"

namespace vitsim::plan {
namespace {

int64_t parse_count(const std::string& text, const std::string& what) {
  size_t used = 0;
  int64_t v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < 0)
    throw std::invalid_argument("--shard: " + what + ": expected a non-negative integer, got '" +
                                text + "'");
  return v;
}

int64_t env_count(const std::function<const char*(const char*)>& getenv, const char* name,
                  bool required) {
  const char* v = getenv(name);
  if (v == nullptr) {
    if (!required) return 0;
    throw std::invalid_argument(std::string("--shard slurm: ") + name +
                                " is not set (hint: run it as a Slurm job array, sbatch "
                                "--array=0-N, or give --shard I/N)");
  }
  return parse_count(v, name);
}

[[noreturn]] void mismatch(const std::string& path, const std::string& field,
                           const std::string& expected, const std::string& got,
                           const std::string& hint) {
  throw schema::InputError(path + ": /shard/" + field + ": expected " + expected + ", got " + got +
                           " (hint: " + hint + ")");
}

}  // namespace

ShardSlice parse_shard(const std::string& text,
                       const std::function<const char*(const char*)>& getenv) {
  ShardSlice s;
  if (text == "slurm") {
    const int64_t id = env_count(getenv, "SLURM_ARRAY_TASK_ID", true);
    s.index = id - env_count(getenv, "SLURM_ARRAY_TASK_MIN", false);
    s.count = env_count(getenv, "SLURM_ARRAY_TASK_COUNT", true);
  } else {
    const size_t slash = text.find('/');
    if (slash == std::string::npos)
      throw std::invalid_argument("--shard: expected I/N (0 <= I < N) or slurm, got '" + text +
                                  "'");
    s.index = parse_count(text.substr(0, slash), "I");
    s.count = parse_count(text.substr(slash + 1), "N");
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard: expected 0 <= I < N, got I = " + std::to_string(s.index) +
                                ", N = " + std::to_string(s.count) +
                                (text == "slurm" ? " from the SLURM_ARRAY_TASK_* variables" : ""));
  return s;
}

std::vector<int64_t> shard_indices(int64_t total, const ShardSlice& slice) {
  std::vector<int64_t> out;
  for (int64_t k = slice.index; k < total; k += slice.count) out.push_back(k);
  return out;
}

std::string sweep_digest(const std::vector<SweepItem>& items, SweepGoal goal,
                         const costmodel::ViTConfig& model, const sim::SimOptions& options,
                         const schema::Json& row_options,
                         const std::vector<std::string>& input_paths) {
  schema::Json j = {{"goal", to_string(goal)}, {"model", schema::write_model(model)}};
  for (const SweepItem& item : items)
    j["configurations"].push_back({schema::write_training_config(item.config), item.requested});
  // Every field of SimOptions that changes a simulated row (not the trace, argv or progress).
  j["options"] = {{"network_model", options.network_model},
                  {"crosstraffic", options.crosstraffic},
                  {"simulated_steps", options.simulated_steps},
                  {"engine", static_cast<int>(options.engine)},
                  {"network_optim", options.network_optim},
                  {"transports", options.transports.has_value()},
                  {"force", options.force}};
  j["row_options"] = row_options;
  std::string text = j.dump();
  for (const std::string& path : input_paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string content = bytes.str();  // its length first: no two splits read the same
    text += "\n" + std::to_string(content.size()) + "\n" + content;
  }
  return schema::digest_text(text);
}

std::vector<schema::SweepEntry> merge_shards(const std::vector<schema::ShardFile>& shards,
                                             const std::vector<std::string>& paths) {
  if (shards.empty()) throw std::invalid_argument("--merge: no shard files given");
  const schema::ShardInfo& first = shards.front().shard;
  const std::string hint =
      "every shard must come from the same vitsim sweep command and inputs; "
      "the first was " +
      paths.front();
  std::map<int64_t, size_t> by_index;
  for (size_t i = 0; i < shards.size(); ++i) {
    const schema::ShardInfo& s = shards[i].shard;
    if (s.sweep_digest != first.sweep_digest)
      mismatch(paths[i], "sweep_digest", first.sweep_digest, s.sweep_digest, hint);
    if (s.count != first.count)
      mismatch(paths[i], "count", std::to_string(first.count), std::to_string(s.count), hint);
    if (s.total_configurations != first.total_configurations)
      mismatch(paths[i], "total_configurations", std::to_string(first.total_configurations),
               std::to_string(s.total_configurations), hint);
    if (s.goal != first.goal) mismatch(paths[i], "goal", first.goal, s.goal, hint);
    const auto [it, fresh] = by_index.emplace(s.index, i);
    if (!fresh)
      mismatch(paths[i], "index", "an index not given before",
               std::to_string(s.index) + ", as in " + paths[it->second],
               "give each shard file once");
  }
  for (int64_t k = 0; k < first.count; ++k) {
    if (by_index.count(k) == 0)
      throw schema::InputError(
          "--merge: shard " + std::to_string(k) + " of " + std::to_string(first.count) +
          " is missing (" + std::to_string(shards.size()) +
          " shard files given; hint: run "
          "vitsim sweep --shard " +
          std::to_string(k) + "/" + std::to_string(first.count) + " and add its file)");
  }
  std::vector<schema::SweepEntry> entries;
  for (int64_t k = 0; k < first.total_configurations; ++k) {
    const auto& shard = shards[by_index.at(k % first.count)];
    entries.push_back(shard.entries[static_cast<size_t>(k / first.count)]);
  }
  return entries;
}

ShardRun run_shard(const std::vector<SweepItem>& items, const ShardSlice& slice, SweepGoal goal,
                   const std::string& digest, SweepContext context, int jobs) {
  ShardRun run;
  run.file.shard = {slice.index,     slice.count, static_cast<int64_t>(items.size()), digest,
                    to_string(goal), ""};  // the contents digest: written by write_shard
  const std::vector<int64_t> indices = shard_indices(run.file.shard.total_configurations, slice);
  run.configurations = indices.size();
  context.interrupted = &run.interrupted;
  run.file.entries = simulate_sweep_items(items, indices, context, jobs);
  return run;
}

MergedSweep merge_sweep(const std::vector<schema::ShardFile>& shards,
                        const std::vector<std::string>& paths, GoalLimits limits) {
  const std::vector<schema::SweepEntry> entries = merge_shards(shards, paths);
  MergedSweep m;
  m.goal = parse_sweep_goal(shards.front().shard.goal);
  // A run's epochs are the shards' (their costs carry them); the merge picks with them.
  limits.epochs = 1;
  for (const auto& e : entries)
    if (e.prediction && e.prediction->cost) limits.epochs = e.prediction->cost->epochs;
  m.limits = limits;
  m.result = assemble_sweep(entries, m.goal, m.limits);
  const schema::Json& first = shards.front().context;
  if (first.is_object() && first.contains("model")) m.model = first["model"];
  return m;
}

}  // namespace vitsim::plan
