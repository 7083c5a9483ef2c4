// The benchmarks' run-to-run spread of one link class and collective operation: each point's
// independent blocks (schema::AllreducePoint::block_times_s) around the point's mean, pooled over
// the points (docs/uncertainty.md, "link, measured"). Read by the all-reduce fit (link_fit.h) and
// the reduce-scatter and all-gather fits (sharding_fit.h) alike.
#pragma once

#include <string>

#include "schema/profile.h"

namespace vitsim::calibrate {

struct BlockSpread {
  double ss = 0;               // relative sum of squares of the blocks around their points' means
  int degrees_of_freedom = 0;  // blocks less one, summed over the points
  int fewest_blocks = 0;       // the fewest blocks a point's mean rests on
  std::string files;

  // A point of `file`; one with fewer than two blocks adds nothing.
  void add(const schema::AllreducePoint& p, const std::string& file);
  // What a run's collective may differ from the fit by for the link's own variation: a new draw
  // of it, and the benchmark's mean of `fewest_blocks` draws: spread x sqrt(1 + 1/blocks). 0 where
  // no point recorded blocks (older benchmarks, imports).
  double rel() const;
  // The clause `derived_from` carries ("" where nothing was measured).
  std::string text() const;
};

}  // namespace vitsim::calibrate
