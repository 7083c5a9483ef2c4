// The packed row of a rank's step summary: every field comes back where it was put, through the
// run log's writer (so a field left out of the list, or read at another position, shows as a
// difference in the JSON the run log would hold), and a missing peak memory stays missing.
#include "trainer/rank_summary_pack.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::trainer {
namespace rank_summary_pack_test {
namespace {

// Every field a distinct value (above 0, so the writer writes the optional ones).
schema::RankStepSummary distinct_summary(int rank, double base) {
  schema::RankStepSummary s;
  s.rank = rank;
  s.host = "host" + std::to_string(rank);
  s.steps = 7 + rank;
  double v = base;
  for (double* field :
       {&s.step_time_s, &s.data_time_s, &s.host_to_device_time_s, &s.forward_time_s,
        &s.backward_time_s, &s.allreduce_time_s, &s.allreduce_wait_time_s, &s.optimizer_time_s,
        &s.sync_time_s, &s.bucket_copy_time_s, &s.reduce_scatter_time_s,
        &s.reduce_scatter_wait_time_s, &s.allgather_time_s, &s.allgather_wait_time_s,
        &s.unit_free_time_s, &s.recompute_time_s}) {
    *field = v;
    v += 0.125;
  }
  s.peak_memory_bytes = 1e9 + rank;
  return s;
}

schema::Json ranks_json(const std::vector<schema::RankStepSummary>& ranks) {
  schema::RunLog log;
  log.ranks = ranks;
  return schema::write_run_log_json(log)["ranks"];
}

TEST(RankSummaryPack, EveryFieldComesBackFromItsOwnPosition) {
  const std::vector<schema::RankStepSummary> sent = {distinct_summary(0, 0.5),
                                                     distinct_summary(1, 3.0)};
  std::vector<double> rows = pack_rank_summary(sent[0]);
  const std::vector<double> second = pack_rank_summary(sent[1]);
  rows.insert(rows.end(), second.begin(), second.end());
  ASSERT_EQ(rows.size(), 2 * packed_rank_summary_size());
  const auto got = unpack_rank_summaries(rows, {"host0", "host1"});
  EXPECT_EQ(ranks_json(got).dump(), ranks_json(sent).dump());
}

TEST(RankSummaryPack, AbsentPeakMemoryStaysAbsent) {
  schema::RankStepSummary s = distinct_summary(0, 1.0);
  s.peak_memory_bytes.reset();
  const auto got = unpack_rank_summaries(pack_rank_summary(s), {"h"});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_FALSE(got[0].peak_memory_bytes.has_value());
  EXPECT_EQ(got[0].steps, s.steps);
  EXPECT_EQ(got[0].host, "h");
}

TEST(RankSummaryPack, RowsOfTheWrongSizeAreRefused) {
  const std::vector<double> one = pack_rank_summary(distinct_summary(0, 1.0));
  EXPECT_THROW(unpack_rank_summaries(one, {"a", "b"}), std::logic_error);
}

}  // namespace
}  // namespace rank_summary_pack_test
}  // namespace vitsim::trainer
