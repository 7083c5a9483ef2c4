// The project's one parser of nccl-tests output: the stdout of `all_reduce_perf`,
// `reduce_scatter_perf` or `all_gather_perf` as users paste it (docs/formats/nccl-tests.md). What
// it reads:
//   - "# Collective test starting: all_reduce_perf" (newer versions), which of the three it is (to
//     refuse another test);
//   - "#  Rank  0 Group  0 Pid 1234 on host device  0 [0000:07:00] NVIDIA H100 80GB HBM3" (and
//     the older form without "Group"): the ranks, their hosts and GPU names;
//   - the table header "#  size  count  type  redop  [root]  time  algbw  busbw  #wrong  time
//     algbw  busbw  #wrong", which fixes the columns (older versions have no root column, and an
//     older all_gather_perf no redop column either);
//   - result rows: size and count integers, type, redop, [root], then out-of-place and in-place
//     time (us), algbw and busbw (GB/s) and #wrong (or "N/A");
//   - "# Avg bus bandwidth    : 12.34".
// Other lines (NCCL INFO lines, mpirun notices) are counted and skipped. It is hardened: lines
// are read with a bounded length, no std::regex, every number checked finite and in range, and
// every error names "file:line:" with what was expected and a hint (schema::InputError).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace vitsim::import {

inline constexpr size_t kNcclTestsMaxLineBytes = 4096;
inline constexpr int64_t kNcclTestsMaxLines = 1000000;

struct NcclTestsTiming {
  double time_us = 0;
  double algbw_gb_per_s = 0;  // as printed (GB = 1e9 bytes)
  double busbw_gb_per_s = 0;
};

struct NcclTestsRow {
  int64_t line = 0;
  int64_t size_bytes = 0;
  int64_t count = 0;
  std::string type;
  std::string redop;
  NcclTestsTiming out_of_place;
  NcclTestsTiming in_place;
};

struct NcclTestsOutput {
  std::string file;
  std::string collective;  // "" when the output does not say (read as all_reduce_perf)
  // reduce_scatter_perf and all_gather_perf print one rank's element count beside the whole
  // buffer's size: size / (count x element size), the rank count the rows imply (1 otherwise,
  // and 0 when no row says).
  int64_t blocks = 0;
  std::string version_line;          // "# nccl-tests version ..." when printed
  std::vector<int64_t> rank_ids;     // from the rank lines, in order (each once)
  std::vector<int64_t> rank_lines;   // the line of each
  std::vector<std::string> hosts;    // per rank line
  std::vector<std::string> devices;  // GPU name per rank line
  std::optional<double> avg_busbw_gb_per_s;
  std::vector<NcclTestsRow> rows;  // in file order, sizes strictly increasing
  int64_t skipped_lines = 0;       // lines that are neither '#' lines nor rows
  // Ranks from the rank lines (max id + 1, checked complete); 0 when there are none.
  int64_t ranks_from_rank_lines() const;
};

// Throws schema::InputError ("file:line: ...") on malformed input.
NcclTestsOutput parse_nccl_tests(std::istream& in, const std::string& file);
NcclTestsOutput parse_nccl_tests_file(const std::string& path);

}  // namespace vitsim::import
