// The packed row of a rank's step summary (rank_summary_pack.h): the numeric fields in the order
// of kTimeFields, then the step count and the peak memory (-1 where not measured).
#include "trainer/rank_summary_pack.h"

#include <cstdint>
#include <iterator>
#include <stdexcept>

namespace vitsim::trainer {
namespace {

using schema::RankStepSummary;

// Every field of RankStepSummary that is a plain double; a new one is a line here.
constexpr double RankStepSummary::*kTimeFields[] = {
    &RankStepSummary::step_time_s,           &RankStepSummary::data_time_s,
    &RankStepSummary::host_to_device_time_s, &RankStepSummary::forward_time_s,
    &RankStepSummary::backward_time_s,       &RankStepSummary::allreduce_time_s,
    &RankStepSummary::allreduce_wait_time_s, &RankStepSummary::optimizer_time_s,
    &RankStepSummary::sync_time_s,           &RankStepSummary::bucket_copy_time_s,
    &RankStepSummary::reduce_scatter_time_s, &RankStepSummary::reduce_scatter_wait_time_s,
    &RankStepSummary::allgather_time_s,      &RankStepSummary::allgather_wait_time_s,
    &RankStepSummary::unit_free_time_s,      &RankStepSummary::recompute_time_s,
};
constexpr std::size_t kTimeFieldCount = std::size(kTimeFields);
constexpr std::size_t kStepsAt = kTimeFieldCount;           // int64_t, exact in a double
constexpr std::size_t kPeakMemoryAt = kTimeFieldCount + 1;  // optional: -1 = absent

}  // namespace

std::size_t packed_rank_summary_size() {
  return kTimeFieldCount + 2;
}

std::vector<double> pack_rank_summary(const RankStepSummary& summary) {
  std::vector<double> row(packed_rank_summary_size());
  for (std::size_t i = 0; i < kTimeFieldCount; ++i) row[i] = summary.*kTimeFields[i];
  row[kStepsAt] = static_cast<double>(summary.steps);
  row[kPeakMemoryAt] = summary.peak_memory_bytes.value_or(-1);
  return row;
}

std::vector<RankStepSummary> unpack_rank_summaries(const std::vector<double>& rows,
                                                   const std::vector<std::string>& hosts) {
  const std::size_t width = packed_rank_summary_size();
  if (rows.size() != hosts.size() * width) {
    throw std::logic_error("unpack_rank_summaries: " + std::to_string(rows.size()) +
                           " values for " + std::to_string(hosts.size()) + " ranks of " +
                           std::to_string(width));
  }
  std::vector<RankStepSummary> out(hosts.size());
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const double* x = rows.data() + r * width;
    RankStepSummary& s = out[r];
    s.rank = static_cast<int64_t>(r);
    s.host = hosts[r];
    for (std::size_t i = 0; i < kTimeFieldCount; ++i) s.*kTimeFields[i] = x[i];
    s.steps = static_cast<int64_t>(x[kStepsAt]);
    if (x[kPeakMemoryAt] >= 0) s.peak_memory_bytes = x[kPeakMemoryAt];
  }
  return out;
}

}  // namespace vitsim::trainer
