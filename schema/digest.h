// A stable digest of bytes: "fnv1a64:<16 hex digits>" (FNV-1a, 64 bits), the same on every
// machine and build. It catches accidents (a file edited, truncated, a flipped bit, the wrong
// file), not an adversary: whoever edits a file can recompute it. Used by sweep shards (the
// sweep's inputs and the shard's own contents) and training checkpoints (their contents).
#pragma once

#include <string>

namespace vitsim::schema {

std::string digest_text(const std::string& text);

}  // namespace vitsim::schema
