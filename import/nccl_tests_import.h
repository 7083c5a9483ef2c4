// `vitsim import-nccl-tests`: nccl-tests all_reduce_perf outputs (nccl_tests_output.h) become a
// profile with all-reduce points of one link class (schema/profile.h, source "imported"), which
// `vitsim calibrate` fits like a `vitsim-train bench-allreduce` profile (docs/calibration.md,
// "Importing nccl-tests output"). Per output one all-reduce entry: the rank count from the rank
// lines or --ranks (they must agree, and busbw/algbw must equal 2(n-1)/n), one point per nonzero
// size with the in-place time (frameworks all-reduce gradients in place) or the out-of-place one.
// reduce_scatter_perf and all_gather_perf outputs (ZeRO's collectives, docs/sharding.md) become
// reduce_scatter and all_gather entries the same way, busbw/algbw = (n-1)/n, their rows' rank count
// (size / count) the same n.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "import/nccl_tests_output.h"
#include "schema/profile.h"

namespace vitsim::import {

struct NcclImportOptions {
  std::string link_class;        // required: what the ranks talked over (cluster files' classes)
  std::optional<int64_t> ranks;  // when the output has no (complete) rank lines
  bool in_place = true;          // false: the out-of-place columns
  std::string gpu;  // device id recorded; "" = the rank lines' GPU matched in the catalog
};

struct NcclImportSummary {
  std::string file;
  std::string collective;  // "all-reduce", "reduce-scatter", "all-gather"
  int64_t ranks = 0;
  int64_t points = 0;
  int64_t skipped_lines = 0;
  double largest_bytes = 0;
  double largest_busbw_bytes_per_s = 0;
  std::optional<double> avg_busbw_bytes_per_s;  // nccl-tests' "Avg bus bandwidth"
};

struct NcclImportResult {
  schema::Profile profile;  // context left empty: the caller adds make_context(...)
  std::vector<NcclImportSummary> summaries;
};

// Throws schema::InputError naming the file (and line) for inconsistent input, and
// std::invalid_argument for bad options.
NcclImportResult import_nccl_tests(const std::vector<NcclTestsOutput>& outputs,
                                   const costmodel::DeviceCatalog& catalog,
                                   const NcclImportOptions& options);

}  // namespace vitsim::import
