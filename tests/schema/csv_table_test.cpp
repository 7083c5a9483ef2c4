// CSV both ways (schema/csv_table.h): RFC 4180 quoting on write, the reader takes back what the
// writer wrote, and malformed tables are refused naming the file and line.
#include "schema/csv_table.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace csv_table_test {
namespace {

TEST(Csv, FieldsAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(csv_field("tesla"), "tesla");
  EXPECT_EQ(csv_field("1 GPU, b16"), "\"1 GPU, b16\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_record({"a", "b,c", ""}), "a,\"b,c\",\n");
}

TEST(Csv, ReaderTakesBackWhatTheWriterWrote) {
  const std::vector<std::string> row = {"x, \"y\"", "plain", "", "3.5"};
  const std::string text = csv_record({"h1", "h2", "h3", "h4"}) + csv_record(row);
  const CsvTable t = CsvTable::parse(text, "t.csv");
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(t.at(0, "h1"), row[0]);
  EXPECT_EQ(t.at(0, "h3"), "");
  EXPECT_DOUBLE_EQ(t.number(0, "h4"), 3.5);
  EXPECT_EQ(split_csv_record("a,\"b,\"\"c\"\"\",d"),
            (std::vector<std::string>{"a", "b,\"c\"", "d"}));
}

// Issue 68, class 6: cells are counted before they are made: a table of one-character cells that
// would need gigabytes of bookkeeping is refused naming the line.
TEST(Csv, ATableOverItsCellBoundIsRefusedBeforeItIsSplit) {
  std::string row(2 * 1000 - 1, ',');
  for (size_t i = 0; i < row.size(); i += 2) row[i] = 'x';  // 1000 cells a row
  row += "\n";
  std::string text;
  text.reserve(row.size() * (kCsvMaxCells / 1000 + 1));
  for (size_t rows = 0; rows <= kCsvMaxCells / 1000; ++rows) text += row;  // the header first
  try {
    CsvTable::parse(text, "big.csv");
    FAIL() << "a table over the bound was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("big.csv: line 10001: expected a table of at most "
                                         "10000000 cells"),
              std::string::npos)
        << e.what();
  }
}

TEST(Csv, MalformedTablesNameFileAndPlace) {
  const std::string short_row =
      testing::error_of([] { CsvTable::parse("a,b\n1,2\n3\n", "t.csv"); });
  EXPECT_NE(short_row.find("t.csv: line 3: expected 2 fields, got 1 fields"), std::string::npos)
      << short_row;
  const std::string bad_number =
      testing::error_of([] { CsvTable::parse("a\nx\n", "t.csv").number(0, "a"); });
  EXPECT_NE(bad_number.find("t.csv: row 1, column a: expected a number, got \"x\""),
            std::string::npos)
      << bad_number;
  EXPECT_NE(testing::error_of([] { CsvTable::parse("", "e.csv"); }).find("e.csv"),
            std::string::npos);
}

}  // namespace
}  // namespace csv_table_test
}  // namespace vitsim::schema
