// Sweep entries and shard files; see sweep_shard_io.h and docs/formats/sweep-shard.md.
#include "schema/sweep_shard_io.h"

#include <fmt/format.h>

#include <limits>
#include <set>

#include "costmodel/sweep_goal_names.h"
#include "schema/build_info.h"
#include "schema/common_io.h"
#include "schema/json_file.h"

namespace vitsim::schema {
namespace {

// Entries list every rank, whatever their number: the merged CSV needs them all.
constexpr size_t kAllRanks = std::numeric_limits<size_t>::max();

Json entry_head(const SweepEntry& e) {
  return {{"configuration", e.configuration}, {"requested", e.requested}};
}

void read_entry_head(const Node& n, SweepEntry& e) {
  e.configuration = n["configuration"].integer_at_least(0);
  e.requested = n["requested"].boolean();
}

ShardInfo read_shard_info(const Node& n) {
  ShardInfo s;
  s.count = n["count"].integer_at_least(1);
  s.index = n["index"].integer_at_least(0);
  if (s.index >= s.count)
    n["index"].fail("an index below count (" + std::to_string(s.count) + ")",
                    n["index"].describe());
  s.total_configurations = n["total_configurations"].integer_at_least(0);
  s.sweep_digest = n["sweep_digest"].string();
  // Every goal of `vitsim sweep --goal`: the cost goals too, since shards carry each
  // prediction's cost.
  s.goal = n["goal"].one_of(costmodel::names_of(costmodel::kSweepGoalNames));
  return s;
}

// The entries must be exactly the configurations k < total with k % count == index, ascending.
void check_slice(const Node& entries, const ShardFile& f) {
  const ShardInfo& s = f.shard;
  // Written so that no intermediate overflows, whatever int64 values the file holds.
  const int64_t want =
      s.total_configurations > s.index ? (s.total_configurations - s.index - 1) / s.count + 1 : 0;
  if (static_cast<int64_t>(f.entries.size()) != want) {
    entries.fail(std::to_string(want) + " entries (the configurations k below " +
                     std::to_string(s.total_configurations) + " with k % " +
                     std::to_string(s.count) + " == " + std::to_string(s.index) + ")",
                 std::to_string(f.entries.size()) + " entries",
                 "the shard's run did not finish or the file was edited; run that shard again");
  }
  // Below: i < want, so index + i * count < total_configurations (no overflow).
  for (size_t i = 0; i < f.entries.size(); ++i) {
    const int64_t expected = s.index + static_cast<int64_t>(i) * s.count;
    if (f.entries[i].configuration != expected) {
      entries.items()[i]["configuration"].fail(
          std::to_string(expected), std::to_string(f.entries[i].configuration),
          "the shard file was edited or is corrupt; run that shard again");
    }
  }
}

}  // namespace

Json write_sweep_entry(const SweepEntry& e) {
  Json j = entry_head(e);
  if (e.prediction)
    j["prediction"] = write_config_prediction(*e.prediction, kAllRanks);
  else
    j["skipped"] = e.skipped;
  return j;
}

SweepEntry read_sweep_entry(const Node& n) {
  n.expect_keys({"configuration", "requested", "prediction", "skipped"});
  SweepEntry e;
  read_entry_head(n, e);
  if (n.has("prediction") == n.has("skipped"))
    n.fail("exactly one of \"prediction\" and \"skipped\"", n.describe());
  if (n.has("prediction"))
    e.prediction = read_config_prediction(n["prediction"]);
  else
    e.skipped = n["skipped"].string();
  return e;
}

Json write_shard_json(const ShardFile& f) {
  PredictionFile predictions;
  predictions.context = f.context;
  predictions.scenario = "sweep";
  Json entries = Json::array();
  for (const SweepEntry& e : f.entries) {
    Json j = entry_head(e);
    if (e.prediction) {
      j["prediction"] = predictions.configurations.size();
      predictions.configurations.push_back(*e.prediction);
    } else {
      j["skipped"] = e.skipped;
    }
    entries.push_back(j);
  }
  Json doc = write_prediction_json(predictions, kAllRanks);
  doc["shard"] = {{"index", f.shard.index},
                  {"count", f.shard.count},
                  {"total_configurations", f.shard.total_configurations},
                  {"sweep_digest", f.shard.sweep_digest},
                  {"goal", f.shard.goal},
                  {"entries", entries}};
  doc["shard"]["contents_digest"] = shard_contents_digest(doc);
  return doc;
}

void write_shard(const std::string& path, const ShardFile& shard) {
  write_json_output(path, write_shard_json(shard));
}

void check_shard_writer(const ShardFile& shard, const std::string& path) {
  const std::string hint =
      "a shard's rows are the model of the vitsim that simulated them: run every shard of a sweep "
      "with one build (vitsim --version), or merge with the build that wrote them";
  auto field = [&](const char* key) {
    const auto it = shard.context.find(key);
    return it != shard.context.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string version = field("tool_version"), sha = field("git_sha");
  if (version != build_info::version())
    Node(shard.context, path, "/context/tool_version")
        .fail(std::string("a shard written by vitsim ") + build_info::version() +
                  " (tool_version, this build's)",
              version.empty() ? "none" : "\"" + version + "\"", hint);
  const std::string mine = build_info::git_sha();
  if (mine != "unknown" && sha != mine)
    Node(shard.context, path, "/context/git_sha")
        .fail("a shard written by commit " + mine + " (git_sha, this build's)",
              sha.empty() ? "none" : "\"" + sha + "\"", hint);
}

ShardFile read_shard(const std::string& path) {
  return read_shard(Node::parse_file(path));
}

ShardFile read_shard(const Node& root) {
  if (!root.has("shard"))
    root.fail("a shard file (a \"shard\" block)", "a document without one",
              "write shards with vitsim sweep --shard I/N --json FILE");
  Json rest = root.json();
  rest.erase("shard");
  const PredictionFile predictions = read_prediction(Node(rest, root.file(), ""));
  const Node block = root["shard"];
  block.expect_keys({"index", "count", "total_configurations", "sweep_digest", "contents_digest",
                     "goal", "entries"});
  ShardFile f;
  f.context = predictions.context;
  f.shard = read_shard_info(block);
  std::set<int64_t> used;
  for (const Node& n : block["entries"].items()) {
    n.expect_keys({"configuration", "requested", "prediction", "skipped"});
    SweepEntry e;
    read_entry_head(n, e);
    if (n.has("prediction") == n.has("skipped"))
      n.fail("exactly one of \"prediction\" and \"skipped\"", n.describe());
    if (n.has("prediction")) {
      const int64_t p = n["prediction"].integer_at_least(0);
      if (p >= static_cast<int64_t>(predictions.configurations.size()) || !used.insert(p).second)
        n["prediction"].fail("the index of an unused entry of /configurations", std::to_string(p));
      e.prediction = predictions.configurations[static_cast<size_t>(p)];
    } else {
      e.skipped = n["skipped"].string();
    }
    f.entries.push_back(std::move(e));
  }
  if (used.size() != predictions.configurations.size())
    root["configurations"].fail("one entry per configuration in /shard/entries",
                                std::to_string(predictions.configurations.size()) +
                                    " configurations for " + std::to_string(used.size()) +
                                    " entries");
  check_slice(block["entries"], f);
  // Last: the checks above name what is wrong with a malformed file; this one, that a well-formed
  // file no longer holds what vitsim wrote.
  f.shard.contents_digest = block["contents_digest"].string();
  const std::string contents = shard_contents_digest(root.json());
  if (f.shard.contents_digest != contents) {
    block["contents_digest"].fail(contents + ", the digest of what the file holds",
                                  f.shard.contents_digest,
                                  "the shard file was changed after vitsim wrote it (a "
                                  "configuration, a rank, a time); run that shard again");
  }
  return f;
}

namespace {

// Every number as a double: 8589934592 and 8589934592.0 are one value, written either way by
// hand or by another JSON library, and must give one digest. (Readers bound nesting at 64 levels,
// so the recursion is shallow.)
void numbers_as_doubles(Json& j) {
  if (j.is_number()) {
    j = j.get<double>();
  } else if (j.is_structured()) {
    for (auto& item : j) numbers_as_doubles(item);
  }
}

}  // namespace

std::string shard_contents_digest(const Json& document) {
  Json rest = document;
  if (rest.is_object()) {
    rest.erase("context");
    if (rest.contains("shard") && rest["shard"].is_object()) rest["shard"].erase("contents_digest");
  }
  numbers_as_doubles(rest);
  return digest_text(rest.dump());
}

}  // namespace vitsim::schema
