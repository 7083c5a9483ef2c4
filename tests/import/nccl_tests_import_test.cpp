// nccl-tests output: the excerpts rebuilt from public rows (data/make_nccl_tests_excerpts.py, both
// table layouts, NCCL INFO lines in between) import into all-reduce points that calibrate fits
// back to the published bandwidth (tests/app/import_calibrate_test.cpp); malformed output fails
// with "file:line:" and a hint.
#include "import/nccl_tests_import.h"

#include <gtest/gtest.h>

#include <sstream>

#include "error_of.h"  // tests/support/
#include "schema/input_error.h"

namespace vitsim::import {
namespace nccl_tests_import_test {
namespace {

const std::string kData = std::string(VITSIM_TEST_DATA_DIR) + "/data/";

NcclTestsOutput parse_text(const std::string& text) {
  std::istringstream in(text);
  return parse_nccl_tests(in, "out.txt");
}

std::string error_of(const std::string& text, NcclImportOptions opt = {}) {
  if (opt.link_class.empty()) opt.link_class = "test-link";
  return vitsim::test::error_of<schema::InputError>(
      [&] { import_nccl_tests({parse_text(text)}, costmodel::DeviceCatalog{}, opt); });
}

// A well-formed output of the current layout with two ranks and the given rows.
std::string output(const std::string& rows, const std::string& ranks = "2") {
  std::string s =
      "# Collective test starting: all_reduce_perf\n# Using devices\n"
      "#  Rank  0 Group  0 Pid   4100 on      host0 device  0 [0000:3b:00] Tesla T4\n";
  if (ranks == "2")
    s += "#  Rank  1 Group  0 Pid   4101 on      host1 device  0 [0000:3b:00] Tesla T4\n";
  s += "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
       "time   algbw   busbw  #wrong\n";
  return s + rows;
}

const std::string kRow =
    "     1048576        262144     float     sum      -1    279.5    3.75    3.75       0    "
    "280.2    3.74    3.74       0\n";
const std::string kRow2 =
    "     2097152        524288     float     sum      -1    539.6    3.89    3.89       0    "
    "540.8    3.88    3.88       0\n";

TEST(NcclTestsImport, CurrentLayoutFromPublicRows) {
  const NcclTestsOutput o = parse_nccl_tests_file(kData + "nccl_tests_pcie3_2x2080ti.txt");
  EXPECT_EQ(o.collective, "all_reduce_perf");
  EXPECT_EQ(o.ranks_from_rank_lines(), 2);
  EXPECT_EQ(o.devices.front(), "NVIDIA GeForce RTX 2080 Ti");
  ASSERT_EQ(o.rows.size(), 28u);
  EXPECT_EQ(o.rows.back().size_bytes, 1073741824);
  EXPECT_DOUBLE_EQ(o.rows.back().in_place.time_us, 268461);
  ASSERT_TRUE(o.avg_busbw_gb_per_s.has_value());
  NcclImportOptions opt;
  opt.link_class = "autodl-shm";
  const NcclImportResult r = import_nccl_tests({o}, costmodel::DeviceCatalog{}, opt);
  EXPECT_EQ(r.profile.source, costmodel::CostSource::kImported);
  ASSERT_EQ(r.profile.allreduce.size(), 1u);
  const auto& a = r.profile.allreduce[0];
  EXPECT_EQ(a.link_class, "autodl-shm");
  EXPECT_EQ(a.ranks, 2);
  EXPECT_EQ(a.backend, "nccl");
  EXPECT_DOUBLE_EQ(a.points.back().time_s, 268461e-6);
  EXPECT_NEAR(a.points.back().busbw_bytes_per_s, 4.0e9, 0.01e9);
}

TEST(NcclTestsImport, OlderLayoutWithNcclInfoLinesAndEightRanks) {
  const NcclTestsOutput efa = parse_nccl_tests_file(kData + "nccl_tests_efa_2node_t4.txt");
  EXPECT_EQ(efa.collective, "");
  EXPECT_EQ(efa.ranks_from_rank_lines(), 2);
  EXPECT_EQ(efa.hosts, (std::vector<std::string>{"ip-10-0-1-10", "ip-10-0-1-11"}));
  EXPECT_EQ(efa.skipped_lines, 3);  // two NCCL INFO lines and "NCCL version ..."
  EXPECT_EQ(efa.rows.size(), 29u);
  const NcclTestsOutput dgx = parse_nccl_tests_file(kData + "nccl_tests_dgx1_8xv100.txt");
  EXPECT_EQ(dgx.ranks_from_rank_lines(), 8);
  NcclImportOptions opt;
  opt.link_class = "dgx1-nvlink";
  opt.in_place = false;
  const NcclImportResult r = import_nccl_tests({dgx}, costmodel::DeviceCatalog{}, opt);
  EXPECT_EQ(r.profile.allreduce[0].ranks, 8);
  EXPECT_DOUBLE_EQ(r.profile.allreduce[0].points.back().time_s, 1818.8e-6);  // out-of-place
}

TEST(NcclTestsImport, RankCountComesFromRankLinesOrRanksAndMustAgree) {
  NcclImportOptions opt;
  opt.ranks = 4;
  std::string e = error_of(output(kRow), opt);
  EXPECT_NE(e.find("out.txt: expected 4 ranks (--ranks), got 2"), std::string::npos) << e;
  e = error_of(output(kRow, "1"));  // rank 0 only: one rank
  EXPECT_NE(e.find("expected >= 2 ranks"), std::string::npos) << e;
  const std::string no_ranks =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
      "time   algbw   busbw  #wrong\n" +
      kRow;
  e = error_of(no_ranks);
  EXPECT_NE(e.find("expected the rank count, got no rank lines (hint: give --ranks N"),
            std::string::npos)
      << e;
  opt.ranks = 2;
  EXPECT_EQ(error_of(no_ranks, opt), "");
  // busbw / algbw = 2(n-1)/n: 2 ranks give 1, so 8 ranks contradict the printed columns.
  opt.ranks = 8;
  e = error_of(no_ranks, opt);
  EXPECT_NE(e.find("out.txt:2: expected busbw = algbw x 2(n-1)/n"), std::string::npos) << e;
}

// Issue 68, class 10: the rank lines name each rank once; under --ranks N every one is below N,
// and without --ranks they must be 0 .. N-1 (a list nccl-tests truncated needs --ranks).
TEST(NcclTestsImport, RankLinesAreRanksOfTheRunEachOnce) {
  const std::string head = "# Collective test starting: all_reduce_perf\n";
  auto rank = [](int id) {
    return "#  Rank " + std::to_string(id) + " Group  0 Pid   41 on  h device  0 [0x00] Tesla T4\n";
  };
  const std::string table =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
      "time   algbw   busbw  #wrong\n" +
      kRow;
  NcclImportOptions four;
  four.ranks = 4;
  const std::string skipped = head + rank(0) + rank(5) + rank(2) + rank(3) + table;
  std::string e = error_of(skipped, four);
  EXPECT_NE(e.find("out.txt:3: expected a rank below 4 (--ranks 4), got rank 5"), std::string::npos)
      << e;
  e = error_of(skipped);
  EXPECT_NE(e.find("expected the rank count, got incomplete \"#  Rank\" lines"), std::string::npos)
      << e;
  e = vitsim::test::error_of<schema::InputError>(
      [&] { parse_text(head + rank(0) + rank(0) + table); });
  EXPECT_NE(e.find("each rank listed once"), std::string::npos) << e;
  NcclImportOptions two;
  two.ranks = 2;
  EXPECT_EQ(error_of(head + rank(1) + rank(0) + table, two), "");  // any order
  EXPECT_EQ(error_of(head + rank(1) + rank(0) + table), "");
}

TEST(NcclTestsImport, MalformedRowsNameTheLine) {
  // Shifted columns (time and algbw swapped).
  std::string e = error_of(output(
      "     1048576        262144     float     sum      -1    27.95    3.75    3.75       0    "
      "280.2    3.74    3.74       0\n"));
  EXPECT_NE(e.find("out.txt:6: expected algbw = size / time"), std::string::npos) << e;
  e = error_of(output(
      "     1048576        262144     float     sum      -1    279.5    3.75    3.75       3    "
      "280.2    3.74    3.74       0\n"));
  EXPECT_NE(e.find("out.txt:6: expected #wrong 0, got \"3\""), std::string::npos) << e;
  e = error_of(output(kRow2 + kRow));
  EXPECT_NE(e.find("out.txt:7: expected a size above the previous row's 2097152"),
            std::string::npos)
      << e;
  e = error_of(output("     1048576        262144     float     sum      -1    279.5    3.75\n"));
  EXPECT_NE(e.find("out.txt:6: expected 13 fields"), std::string::npos) << e;
  e = error_of(output(
      "     1048576        262144     float     sum      -1      nan    3.75    3.75       0    "
      "280.2    3.74    3.74       0\n"));
  EXPECT_NE(e.find("out.txt:6: expected a time in us"), std::string::npos) << e;
  e = error_of(output(
      "     1048577        262144     float     sum      -1    279.5    3.75    3.75       0    "
      "280.2    3.74    3.74       0\n"));
  EXPECT_NE(e.find("expected size = count x 4 bytes (float) = 1048576"), std::string::npos) << e;
  e = error_of(output(
      "     1048576        262144     float    none      -1    279.5    3.75    3.75       0    "
      "280.2    3.74    3.74       0\n"));
  EXPECT_NE(e.find("another collective is not read"), std::string::npos) << e;
}

// ZeRO's collectives: reduce_scatter_perf and all_gather_perf print one rank's count beside the
// whole buffer's size and busbw = algbw x (n-1)/n; they become the profile's reduce_scatter and
// all_gather entries (docs/formats/nccl-tests.md). Rows: 1 and 2 MiB on 2 ranks, timings
// consistent.
const std::string kRsHead =
    "# Collective test starting: reduce_scatter_perf\n"
    "#  Rank  0 Group  0 Pid   4100 on      host0 device  0 [0000:3b:00] Tesla T4\n"
    "#  Rank  1 Group  0 Pid   4101 on      host0 device  1 [0000:3c:00] Tesla T4\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
    "time   algbw   busbw  #wrong\n";
const std::string kRsRows =
    "     1048576        131072     float     sum      -1    150.0    6.99    3.50       0    "
    "151.0    6.94    3.47       0\n"
    "     2097152        262144     float     sum      -1    280.0    7.49    3.74       0    "
    "281.0    7.46    3.73       0\n";
// An older all_gather_perf: no collective line, no redop and no root column, "error" for #wrong.
const std::string kOldAllGather =
    "#  Rank  0 Pid   4100 on      host0 device  0 [0x3b] Tesla T4\n"
    "#  Rank  1 Pid   4101 on      host1 device  0 [0x3b] Tesla T4\n"
    "#       size         count      type     time   algbw   busbw  error     time   algbw   "
    "busbw  error\n"
    "     1048576        131072     float    150.0    6.99    3.50  0e+00    151.0    6.94    "
    "3.47  0e+00\n"
    "     2097152        262144     float    280.0    7.49    3.74  0e+00    281.0    7.46    "
    "3.73  0e+00\n";

TEST(NcclTestsImport, ReduceScatterAndAllGatherOutputs) {
  NcclImportOptions opt;
  opt.link_class = "test-link";
  const NcclTestsOutput rs = parse_text(kRsHead + kRsRows);
  EXPECT_EQ(rs.collective, "reduce_scatter_perf");
  EXPECT_EQ(rs.blocks, 2);
  const NcclTestsOutput ag = parse_text(kOldAllGather);
  EXPECT_EQ(ag.collective, "all_gather_perf");  // the table without redop says so
  const NcclImportResult r = import_nccl_tests({rs, ag}, costmodel::DeviceCatalog{}, opt);
  EXPECT_TRUE(r.profile.allreduce.empty());
  ASSERT_EQ(r.profile.reduce_scatter.size(), 1u);
  ASSERT_EQ(r.profile.all_gather.size(), 1u);
  const schema::AllreducePoint& p = r.profile.reduce_scatter[0].points[1];
  EXPECT_DOUBLE_EQ(p.message_bytes, 2097152);  // the whole buffer, as nccl-tests' size
  EXPECT_DOUBLE_EQ(p.time_s, 281e-6);          // in place
  EXPECT_DOUBLE_EQ(p.busbw_bytes_per_s, p.algbw_bytes_per_s / 2);
  EXPECT_EQ(r.profile.all_gather[0].ranks, 2);
  EXPECT_EQ(r.summaries[1].collective, "all-gather");
  // The profile's own reader takes them back (its busbw check is (n-1)/n for both).
  const schema::Json j = schema::write_profile_json(r.profile);
  EXPECT_EQ(schema::read_profile(schema::Node(j, "p.json", "")).all_gather.size(), 1u);
}

TEST(NcclTestsImport, ReduceScatterAndAllGatherRefusals) {
  // The all-reduce's bus factor in a reduce-scatter's table: not (n-1)/n.
  std::string rows = kRsRows;
  rows.replace(rows.find("3.50"), 4, "6.99");
  std::string e = error_of(kRsHead + rows);
  EXPECT_NE(e.find("out.txt:5: expected busbw = algbw x (n-1)/n = 3.495"), std::string::npos) << e;
  // size = count x 4 bytes x ranks, the same ranks on every row.
  rows = kRsRows;
  rows.replace(rows.find("262144"), 6, "174763");
  e = error_of(kRsHead + rows);
  EXPECT_NE(
      e.find("out.txt:6: expected size = count x 4 bytes (float) x ranks = 1398104, got 2097152"),
      std::string::npos)
      << e;
  // Rows of 2 ranks, rank lines (or --ranks) of another count.
  NcclImportOptions three;
  three.ranks = 3;
  e = vitsim::test::error_of<schema::InputError>([&] {
    NcclImportOptions opt = three;
    opt.link_class = "x";
    const std::string no_rank_lines =
        kRsHead.substr(0, kRsHead.find('\n') + 1) + kRsHead.substr(kRsHead.rfind("#       size"));
    import_nccl_tests({parse_text(no_rank_lines + kRsRows)}, costmodel::DeviceCatalog{}, opt);
  });
  EXPECT_NE(e.find("out.txt: expected rows of 3 ranks"), std::string::npos) << e;
  // "none" is an all-gather's: without its collective line, another collective.
  e = error_of(output(
      "     1048576        131072     float    none      -1    150.0    6.99    3.50       0    "
      "151.0    6.94    3.47       0\n"));
  EXPECT_NE(e.find("expected a reduction (sum, prod, max, min, avg), got none"), std::string::npos)
      << e;
}

TEST(NcclTestsImport, WrongFilesAreRefused) {
  std::string e = error_of("# Collective test starting: broadcast_perf\n" + output(kRow));
  EXPECT_NE(e.find("out.txt:1: expected all_reduce_perf, reduce_scatter_perf or all_gather_perf "
                   "output, got a broadcast_perf run"),
            std::string::npos)
      << e;
  e = error_of("hello\nworld\n");
  EXPECT_NE(e.find("out.txt: expected nccl-tests all_reduce_perf result rows"), std::string::npos)
      << e;
  e = error_of(output(kRow) + std::string(5000, 'x') + "\n");
  EXPECT_NE(e.find("out.txt:7: expected a line of at most 4096 bytes"), std::string::npos) << e;
  e = error_of(output(kRow) + std::string("ab\0cd\n", 6));
  EXPECT_NE(e.find("out.txt:7: expected text, got a NUL byte"), std::string::npos) << e;
  // A GPU name that is not UTF-8 (found by fuzz_nccl_tests): the profile's JSON could not hold it,
  // and its writer threw a JSON library error instead of this refusal.
  std::string bad = output(kRow);
  bad.replace(bad.find("Tesla T4"), 8, "Tesla \x95T4");
  e = error_of(bad);
  EXPECT_NE(e.find("out.txt:3: expected UTF-8 text, got a byte that is not"), std::string::npos)
      << e;
  bad = output(kRow);
  bad.replace(bad.find("Tesla T4"), 8, "Tesla \xC3\xA9T4");  // valid UTF-8 stays accepted
  EXPECT_EQ(error_of(bad), "");
  e = error_of(
      "#  i_min\n#       size  count  type  redop  root  time  algbw  busbw  #wrong  "
      "i_min  i_max\n");
  EXPECT_NE(e.find("per-iteration columns"), std::string::npos) << e;
  e = error_of(output(kRow) + "#  Rank  1 Group  0 Pid 1 on h device 0 [0:0:0] T4\n");
  EXPECT_NE(e.find("out.txt:7: expected each rank listed once"), std::string::npos) << e;
  EXPECT_THROW(parse_nccl_tests_file(kData + "does-not-exist.txt"), schema::InputError);
  NcclImportOptions opt;
  EXPECT_THROW(import_nccl_tests({parse_text(output(kRow))}, costmodel::DeviceCatalog{}, opt),
               std::invalid_argument);  // no --link-class
}

}  // namespace
}  // namespace nccl_tests_import_test
}  // namespace vitsim::import
