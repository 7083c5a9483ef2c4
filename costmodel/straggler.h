// The expected wait for the slowest rank at a synchronisation (docs/simulator.md, "Stragglers").
// Data parallelism synchronises every step (the gradient all-reduce): the step ends when the
// slowest rank arrives. Each rank's step varies from step to step around its mean (the profiles'
// whole-step spread); the simulation runs every rank at its mean, so it would end the step at the
// largest mean, while the ranks' slowest arrives on average later:
//     E[max_i (m_i + s_i Z_i)] - max_i m_i  >= 0,    Z_i independent standard normals.
// Identical ranks: s x E[max of N standard normals] (0.564 s at N = 2, 1.029 s at 4, 1.424 s at
// 8). The callers give each rank its step-to-step spread, and with it the spread of its process's
// speed for the whole run where that was measured (sim/rank_plan.cpp); node-to-node differences
// are in the calibrated means already and in the range.
// Pure arithmetic; no SimGrid.
#pragma once

#include <cstdint>
#include <vector>

namespace vitsim::costmodel {

// Ranks alike in mean and spread.
struct RankGroup {
  double mean_s = 0;   // mean step compute
  double sigma_s = 0;  // its step-to-step standard deviation (>= 0)
  int64_t ranks = 1;   // how many ranks are alike (>= 1)
};

// E[max over all ranks] - max mean, by integrating the maximum's distribution F (the product of
// the ranks' normal CDFs) on either side of the largest mean: int (1 - F) above it minus int F
// below it, each by Simpson's rule in 1,000 intervals over 10 s (s the largest spread: beyond,
// F differs from 0 or 1 by less than N x 1e-23). 0 for a single rank or no spread.
// std::invalid_argument for a negative spread or a group of no rank.
double expected_straggler_wait_s(const std::vector<RankGroup>& groups);

}  // namespace vitsim::costmodel
