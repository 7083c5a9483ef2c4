// The results of a sweep's configurations, one entry per configuration, and the shard file that
// carries a slice of them from one machine to `vitsim sweep --merge` (docs/formats/sweep-shard.md;
// docs/sweeps.md). A shard file is a prediction document ("vitsim.prediction") whose
// `configurations` are the slice's simulated configurations, plus a `shard` block: which slice of
// which sweep (the digest of its inputs) and, per configuration of the slice, whether it was
// simulated or skipped and why. The same entry form carries a configuration's result from a
// `--jobs` child to the parent (plan/sweep_jobs.h). Entries keep every rank (no cap): the merged
// CSV lists them all, as the single-machine run does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schema/digest.h"  // digest_text
#include "schema/json_node.h"
#include "schema/prediction.h"

namespace vitsim::schema {

// One configuration of a sweep and what became of it.
struct SweepEntry {
  int64_t configuration = 0;  // index in the sweep's configuration list (plan/sweep.h)
  bool requested = true;      // false: a 1-GPU baseline the sweep added for the speed-ups
  std::optional<ConfigPrediction> prediction;  // absent: not simulated (see `skipped`)
  std::string skipped;                         // "label: reason" when not simulated
};

// Which slice of which sweep a shard holds: configurations k with k % count == index.
struct ShardInfo {
  int64_t index = 0;
  int64_t count = 1;
  int64_t total_configurations = 0;  // of the whole sweep
  std::string sweep_digest;          // of the sweep's inputs and options (plan/sweep_shards.h)
  std::string goal;                  // "fastest-epoch" | "best-efficiency" | "cheapest-epoch" |
                                     // "best-throughput-per-dollar"
  // Of the shard's own contents (shard_contents_digest): set by read_shard, computed by the writer.
  std::string contents_digest;
};

struct ShardFile {
  Json context = Json::object();
  ShardInfo shard;
  std::vector<SweepEntry> entries;  // ascending configuration index
};

// One entry as a JSON object and back: {"configuration", "requested", then "prediction" (a
// configuration object of prediction.md, every rank listed) or "skipped"}.
Json write_sweep_entry(const SweepEntry& entry);
SweepEntry read_sweep_entry(const Node& node);

// The document with /shard/contents_digest set to shard_contents_digest of the rest.
Json write_shard_json(const ShardFile& shard);
void write_shard(const std::string& path, const ShardFile& shard);
// InputError naming the file and field for a malformed shard, when its entries are not exactly
// the configurations of its slice, and when its contents do not have the digest it records (the
// file was edited after it was written).
ShardFile read_shard(const std::string& path);
ShardFile read_shard(const Node& root);

// Refuses (InputError naming `path` and /context/tool_version or /context/git_sha) a shard that
// another vitsim wrote: its rows are that build's model, and the sweep digest covers the inputs
// and options, not the code. The build is this one's version and commit (schema/build_info.h);
// a build outside a git tree ("unknown") is held to the version alone. `vitsim sweep --merge`
// calls it for every shard before merging.
void check_shard_writer(const ShardFile& shard, const std::string& path);

// digest_text of a shard document's canonical text (keys sorted, no spaces, every number as a
// double) without its free-form "context" and without /shard/contents_digest: every
// configuration, rank and entry it holds.
std::string shard_contents_digest(const Json& document);

}  // namespace vitsim::schema
