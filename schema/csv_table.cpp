// CSV reading and writing (see csv_table.h).
#include "schema/csv_table.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "schema/input_error.h"
#include "schema/text_file.h"

namespace vitsim::schema {

std::vector<std::string> split_csv_record(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  fields.push_back(cur);
  return fields;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_record(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
  return out + "\n";
}

CsvTable CsvTable::read(const std::string& path) {
  // Tables of measurements are kilobytes to megabytes; 1 GiB bounds a wrong path (/dev/zero).
  return parse(schema::read_text_file(path, size_t{1} << 30, "a CSV table"), path);
}

CsvTable CsvTable::parse(const std::string& text, const std::string& file) {
  CsvTable t;
  t.file_ = file;
  std::istringstream in(text);
  std::string line;
  size_t line_no = 0, cells = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    // Counted before splitting: the commas bound the line's cells.
    cells += static_cast<size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    if (cells > kCsvMaxCells) {
      throw InputError::at(file, "line " + std::to_string(line_no),
                           "a table of at most " + std::to_string(kCsvMaxCells) + " cells", "more",
                           "is this a table of measurements?");
    }
    auto fields = split_csv_record(line);
    if (t.header_.empty()) {
      t.header_ = fields;
      for (size_t i = 0; i < fields.size(); ++i) t.index_[fields[i]] = i;
      continue;
    }
    if (fields.size() != t.header_.size()) {
      throw InputError::at(
          file, "line " + std::to_string(line_no), std::to_string(t.header_.size()) + " fields",
          std::to_string(fields.size()) + " fields", "quote fields that contain commas");
    }
    t.rows_.push_back(std::move(fields));
  }
  if (t.header_.empty()) throw InputError::at(file, "line 1", "a CSV header", "an empty file");
  return t;
}

void CsvTable::require_columns(const std::vector<std::string>& names) const {
  std::string missing;
  for (const auto& n : names) {
    if (!has_column(n)) missing += (missing.empty() ? "" : ", ") + n;
  }
  if (!missing.empty()) {
    throw InputError::at(file_, "header", "columns " + missing, "a header without them",
                         "see the columns of data/vit-deepspeed-study/dev_epoch_times.csv");
  }
}

const std::string& CsvTable::at(size_t row, const std::string& column) const {
  auto it = index_.find(column);
  if (it == index_.end()) {
    throw InputError::at(file_, "header", "column " + column, "a header without it");
  }
  return rows_.at(row)[it->second];
}

void CsvTable::fail(size_t row, const std::string& column, const std::string& expected) const {
  throw InputError::at(file_, "row " + std::to_string(row + 1) + ", column " + column, expected,
                       "\"" + at(row, column) + "\"");
}

double CsvTable::number(size_t row, const std::string& column) const {
  const std::string& s = at(row, column);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno != 0 || !std::isfinite(v)) {
    fail(row, column, "a number");
  }
  return v;
}

double CsvTable::positive(size_t row, const std::string& column) const {
  const double v = number(row, column);
  if (!(v > 0)) fail(row, column, "a positive number");
  return v;
}

long long CsvTable::integer(size_t row, const std::string& column) const {
  const std::string& s = at(row, column);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno != 0) fail(row, column, "an integer");
  return v;
}

}  // namespace vitsim::schema
