// CSV, RFC 4180 quoting ("a, b" and doubled quotes), both ways: a small reader for the study's
// tables (dev_epoch_times.csv, compute_summary.csv) and the public benchmarks, whose errors name
// the file, the row and the column like InputError does for JSON; and the record writer every CSV
// vitsim writes goes through (prediction_csv.h). Formats: docs/formats/predictions-csv.md.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vitsim::schema {

// Cells a table may hold: a cell costs its text plus some 40 bytes of bookkeeping, so a 1 GiB file
// of one-character cells would need tens of GB. The largest table vitsim reads (timm's inference
// benchmarks) holds about 60,000; ten million is far past any table of measurements.
inline constexpr size_t kCsvMaxCells = 10000000;

class CsvTable {
 public:
  // Throws schema::InputError for a missing file, an empty file or a row with the wrong number of
  // fields.
  static CsvTable read(const std::string& path);
  static CsvTable parse(const std::string& text, const std::string& file);

  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t rows() const { return rows_.size(); }
  bool has_column(const std::string& name) const { return index_.count(name) > 0; }
  // Every name must be a column; else InputError listing what is missing.
  void require_columns(const std::vector<std::string>& names) const;

  const std::string& at(size_t row, const std::string& column) const;
  // Parsed values; InputError "file: row N, column C: expected a number, got "x"" otherwise.
  double number(size_t row, const std::string& column) const;
  double positive(size_t row, const std::string& column) const;
  long long integer(size_t row, const std::string& column) const;
  // InputError "file: row N, column C: expected <expected>, got "x"" (for checks of callers).
  [[noreturn]] void fail(size_t row, const std::string& column, const std::string& expected) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::map<std::string, size_t> index_;
  std::vector<std::vector<std::string>> rows_;
};

// Splits one CSV record into fields (quotes removed). Exposed for tests.
std::vector<std::string> split_csv_record(const std::string& line);

// One field as RFC 4180 writes it: as is, or in double quotes (inner quotes doubled) when it holds
// a comma, a quote, a carriage return or a line feed.
std::string csv_field(const std::string& text);
// Fields joined by commas, each through csv_field, ending in "\n" (a line feed: what the files
// vitsim wrote before used; RFC 4180 readers accept it).
std::string csv_record(const std::vector<std::string>& fields);

}  // namespace vitsim::schema
