// NCCL's double binary tree, its rules, pure (docs/simulator.md, "Collectives"): two binary trees
// over the ranks, each carrying half of the message, reduced from the leaves to the root and
// broadcast back. Its SimGrid part (trees, chunks, flows) is sim/collective_tree.cpp.
#pragma once

#include <cstdint>

namespace vitsim::costmodel {

// Each tree carries half of the message: a tree edge carries M/2 up (reduce) and M/2 down
// (broadcast).
inline constexpr double kTreeEdgeShare = 0.5;

// Depth of a heap of n nodes: floor(log2 n).
int64_t tree_depth(int64_t n);
// Message phases of an all-reduce over a tree of `ranks` ranks: 2 x depth (up, then down); 0 for
// one rank.
int64_t tree_phases(int64_t ranks);

// NCCL moves a tree channel's data in chunks of one step of its SIMPLE protocol's buffer
// (src/enqueue.cc: stepSize = buffSizes[SIMPLE] / NCCL_STEPS = 4 MiB / 8; chunkSteps is 1 for the
// tree, and only LL128 shrinks it for small messages), each rank forwarding a chunk as soon as it
// has it (src/device/all_reduce.h, runTreeSplit). The step level pipelines each tree's half the
// same way, in chunks of this size...
inline constexpr double kTreeChunkBytes = 512.0 * 1024;
// ...but in at most this many (the cost of its simulation): above 32 MiB a tree the chunks grow.
inline constexpr int64_t kTreeMaxChunks = 64;
// Chunks a tree's `half_bytes` is pipelined in: ceil(half / kTreeChunkBytes), 1 to kTreeMaxChunks.
int64_t tree_chunks(double half_bytes);
// What the pipeline adds to the time of a tree's bytes flowing all at once (docs/simulator.md,
// "Where the levels differ"): K chunks of c = half / K bytes along a path of `hops` edges (up to
// the root and down), each forwarded by a hop once it has it. Where the pipeline is at least as
// long as it is deep (K >= hops), the slowest edge's links stay busy from its first chunk to its
// last, as long as the flow level's bandwidth time; before, the first chunk crosses the hops
// before that edge, after, the last chunk the hops after it, each alone on its links (the other
// chunks not yet there, or gone): c x (path_seconds_per_byte - slowest_seconds_per_byte), the
// path's hops' seconds per byte alone summed, less the slowest edge's. A shorter pipeline never
// fills: its chunks cross most hops alone, and the flow level's rate with every edge sharing the
// links already overstates what they share; 0 then.
double tree_pipeline_fill_s(double half_bytes, int64_t hops, double path_seconds_per_byte,
                            double slowest_seconds_per_byte);

}  // namespace vitsim::costmodel
