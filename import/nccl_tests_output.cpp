// nccl-tests output parser (see nccl_tests_output.h and docs/formats/nccl-tests.md). The layout
// follows nccl-tests' src/util.cu (writeResultHeader, writeBenchmarkLine*, the "Using devices"
// lines, writeResultFooter); both the current table (with a root column) and the older one
// (without) are read.
#include "import/nccl_tests_output.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "schema/input_error.h"

namespace vitsim::import {
namespace {

[[noreturn]] void fail_at(const std::string& file, int64_t line, const std::string& expected,
                          const std::string& got, const std::string& hint = "") {
  std::string msg = file + ":" + std::to_string(line) + ": expected " + expected + ", got " + got;
  if (!hint.empty()) msg += " (hint: " + hint + ")";
  throw schema::InputError(msg);
}

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF):
// host and GPU names and the version line go into the profile's JSON, which holds UTF-8 only.
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i <= n) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

// Reads lines of at most kNcclTestsMaxLineBytes; a longer line, a NUL byte, a line that is not
// UTF-8 or too many lines is an error (not nccl-tests output), never a huge allocation.
class LineReader {
 public:
  LineReader(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}
  bool next(std::string& line) {
    line.clear();
    std::streambuf* buf = in_.rdbuf();
    bool any = false;
    for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
      any = true;
      if (c == '\n') break;
      if (c == '\0') fail_at(file_, line_ + 1, "text", "a NUL byte", "not nccl-tests output");
      if (line.size() >= kNcclTestsMaxLineBytes) {
        fail_at(file_, line_ + 1,
                "a line of at most " + std::to_string(kNcclTestsMaxLineBytes) + " bytes",
                "a longer one", "not nccl-tests output");
      }
      line.push_back(static_cast<char>(c));
    }
    if (!any) return false;
    if (++line_ > kNcclTestsMaxLines)
      fail_at(file_, line_, "at most 1000000 lines", "more", "import one run per file");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!valid_utf8(line))
      fail_at(file_, line_, "UTF-8 text", "a byte that is not", "not nccl-tests output");
    return true;
  }
  int64_t line() const { return line_; }

 private:
  std::istream& in_;
  std::string file_;
  int64_t line_ = 0;
};

std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<int64_t> as_integer(const std::string& t) {
  if (t.empty() || t.size() > 18) return std::nullopt;
  size_t i = t[0] == '-' ? 1 : 0;
  if (i == t.size()) return std::nullopt;
  for (size_t k = i; k < t.size(); ++k) {
    if (t[k] < '0' || t[k] > '9') return std::nullopt;
  }
  return std::strtoll(t.c_str(), nullptr, 10);
}

std::optional<double> as_number(const std::string& t) {
  if (t.empty() || t.size() > 32) return std::nullopt;
  char* end = nullptr;
  const double x = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// Element sizes of nccl-tests' type names (src/common.cu test_typenames).
std::optional<int64_t> type_bytes(const std::string& type) {
  static const std::map<std::string, int64_t> sizes = {
      {"int8", 1}, {"uint8", 1}, {"int32", 4},   {"uint32", 4},   {"int64", 8},  {"uint64", 8},
      {"half", 2}, {"float", 4}, {"double", 8},  {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1},
      {"char", 1}, {"int", 4},   {"float16", 2}, {"float32", 4},  {"float64", 8}};
  auto it = sizes.find(type);
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

struct Layout {
  bool known = false;  // a header line was seen
  bool has_root = true;
  bool has_redop = true;  // an older all_gather_perf prints none
};

// The tests whose tables vitsim reads (docs/formats/nccl-tests.md).
bool readable_collective(const std::string& c) {
  return c == "all_reduce_perf" || c == "reduce_scatter_perf" || c == "all_gather_perf";
}

class Parser {
 public:
  Parser(std::string file) { out_.file = std::move(file); }
  void line(const std::string& text, int64_t n);
  NcclTestsOutput finish();

 private:
  void comment(const std::vector<std::string>& t, int64_t n);
  void rank_line(const std::vector<std::string>& t, int64_t n);
  void row(const std::vector<std::string>& t, int64_t n);
  void check_size(const NcclTestsRow& r, int64_t n);
  NcclTestsTiming timing(const std::vector<std::string>& t, size_t at, int64_t size, int64_t n);
  double number(const std::string& token, int64_t n, const std::string& what);

  NcclTestsOutput out_;
  Layout layout_;
  std::set<int64_t> ranks_seen_;
};

double Parser::number(const std::string& token, int64_t n, const std::string& what) {
  const auto x = as_number(token);
  if (!x || *x < 0) fail_at(out_.file, n, what + " (a number >= 0)", "\"" + token + "\"");
  return *x;
}

void Parser::line(const std::string& text, int64_t n) {
  const std::vector<std::string> t = tokens(text);
  if (t.empty()) return;
  if (t[0][0] == '#') return comment(t, n);
  if (as_integer(t[0]) && t[0][0] != '-') return row(t, n);
  ++out_.skipped_lines;  // NCCL INFO lines, launcher notices, ...
}

void Parser::comment(const std::vector<std::string>& t, int64_t n) {
  // The words after "#", which may be glued to the first one ("#size").
  std::vector<std::string> w(t.begin() + 1, t.end());
  if (t[0] != "#") w.insert(w.begin(), t[0].substr(1));
  if (w.empty()) return;
  if (w.size() >= 4 && w[0] == "Collective" && w[1] == "test" && w[2] == "starting:") {
    out_.collective = w[3];
    if (!readable_collective(out_.collective)) {
      fail_at(out_.file, n, "all_reduce_perf, reduce_scatter_perf or all_gather_perf output",
              "a " + out_.collective + " run",
              "vitsim imports the collectives of data parallelism and ZeRO only");
    }
  } else if (w[0] == "Rank") {
    rank_line(w, n);
  } else if (w[0] == "nccl-tests" && w.size() >= 2 && w[1] == "version") {
    for (const auto& s : t) out_.version_line += (out_.version_line.empty() ? "" : " ") + s;
  } else if (w.size() >= 5 && w[0] == "Avg" && w[1] == "bus" && w[2] == "bandwidth") {
    out_.avg_busbw_gb_per_s = number(w[4], n, "the average bus bandwidth");
  } else if (w[0] == "size" && w.size() >= 2 && w[1] == "count") {
    for (const auto& s : w) {
      if (s == "i_min" || s == "i_cv%")
        fail_at(out_.file, n, "the standard result table", "per-iteration columns",
                "run all_reduce_perf without -I 1");
    }
    layout_.known = true;
    layout_.has_root = false;
    layout_.has_redop = false;
    for (const auto& s : w) {
      layout_.has_root = layout_.has_root || s == "root";
      layout_.has_redop = layout_.has_redop || s == "redop";
    }
    // Only all_gather_perf (before 2.13) prints no reduction column.
    if (!layout_.has_redop && out_.collective.empty()) out_.collective = "all_gather_perf";
  }
}

// "Rank 0 Group 0 Pid 123 on host device 0 [0x00] GPU name" (Group absent in older versions).
void Parser::rank_line(const std::vector<std::string>& w, int64_t n) {
  const auto id = w.size() > 1 ? as_integer(w[1]) : std::nullopt;
  size_t on = 0;
  for (size_t i = 2; i < w.size() && on == 0; ++i) on = w[i] == "on" ? i : 0;
  if (!id || *id < 0 || on == 0 || on + 3 >= w.size() || w[on + 2] != "device") {
    fail_at(out_.file, n, "a rank line \"#  Rank N Group G Pid P on HOST device D [BUS] NAME\"",
            "\"" + (w.size() > 1 ? w[0] + " " + w[1] : w[0]) + " ...\"");
  }
  if (!ranks_seen_.insert(*id).second)
    fail_at(out_.file, n, "each rank listed once", "rank " + std::to_string(*id) + " again",
            "concatenated outputs? import one run per file");
  std::string name;
  size_t first = on + 4;
  if (first < w.size() && w[first].front() == '[') {
    while (first < w.size() && w[first].back() != ']') ++first;
    ++first;
  }
  for (size_t i = first; i < w.size(); ++i) name += (name.empty() ? "" : " ") + w[i];
  out_.rank_ids.push_back(*id);
  out_.rank_lines.push_back(n);
  out_.hosts.push_back(w[on + 1]);
  out_.devices.push_back(name);
}

NcclTestsTiming Parser::timing(const std::vector<std::string>& t, size_t at, int64_t size,
                               int64_t n) {
  NcclTestsTiming x;
  x.time_us = number(t[at], n, "a time in us");
  if (!(x.time_us > 0)) fail_at(out_.file, n, "a time > 0 us", "\"" + t[at] + "\"");
  x.algbw_gb_per_s = number(t[at + 1], n, "algbw in GB/s");
  x.busbw_gb_per_s = number(t[at + 2], n, "busbw in GB/s");
  const std::string& wrong = t[at + 3];
  if (wrong != "N/A") {
    const auto w = as_number(wrong);
    if (!w) fail_at(out_.file, n, "#wrong (a count or N/A)", "\"" + wrong + "\"");
    if (*w != 0)
      fail_at(out_.file, n, "#wrong 0", "\"" + wrong + "\"",
              "nccl-tests found wrong results: this run's timings are not a measurement to use");
  }
  // algbw = size / time; printed with 2 decimals, so a tolerance of rounding plus 0.5%.
  const double algbw = static_cast<double>(size) / (x.time_us * 1e3);
  if (std::fabs(x.algbw_gb_per_s - algbw) > 0.006 + 0.005 * algbw) {
    fail_at(out_.file, n, "algbw = size / time = " + std::to_string(algbw) + " GB/s",
            t[at + 1] + " GB/s", "the columns do not belong together: edited or shifted?");
  }
  return x;
}

void Parser::row(const std::vector<std::string>& t, int64_t n) {
  bool root = layout_.has_root;
  const bool redop = !layout_.known || layout_.has_redop;
  if (!layout_.known) root = t.size() >= 13 && as_integer(t[4]).has_value();
  const size_t at = 3 + (redop ? 1 : 0) + (root ? 1 : 0);  // the out-of-place time
  const size_t need = at + 8;
  if (t.size() < need) {
    fail_at(out_.file, n,
            std::to_string(need) + " fields (size count type " + (redop ? "redop " : "") +
                (root ? "root " : "") + "time algbw busbw #wrong time algbw busbw #wrong)",
            std::to_string(t.size()) + " fields");
  }
  NcclTestsRow r;
  r.line = n;
  const auto size = as_integer(t[0]), count = as_integer(t[1]);
  if (!size || *size < 0) fail_at(out_.file, n, "a size in bytes", "\"" + t[0] + "\"");
  if (!count || *count < 0) fail_at(out_.file, n, "an element count", "\"" + t[1] + "\"");
  r.size_bytes = *size;
  r.count = *count;
  r.type = t[2];
  r.redop = redop ? t[3] : "none";
  if (r.redop == "none" && out_.collective != "all_gather_perf")
    fail_at(out_.file, n, "a reduction (sum, prod, max, min, avg)", "none",
            "all_gather_perf output needs its \"# Collective test starting\" line; another "
            "collective is not read");
  check_size(r, n);
  if (!out_.rows.empty() && r.size_bytes <= out_.rows.back().size_bytes) {
    fail_at(out_.file, n,
            "a size above the previous row's " + std::to_string(out_.rows.back().size_bytes),
            std::to_string(r.size_bytes), "concatenated outputs? import one run per file");
  }
  if (r.size_bytes > 0) {
    r.out_of_place = timing(t, at, r.size_bytes, n);
    r.in_place = timing(t, at + 4, r.size_bytes, n);
  }
  out_.rows.push_back(r);
}

// All-reduce: size = count x element size. Reduce-scatter and all-gather print one rank's count
// beside the whole buffer's size: size = count x element size x ranks, the same ranks each row.
void Parser::check_size(const NcclTestsRow& r, int64_t n) {
  const auto bytes = type_bytes(r.type);
  if (!bytes) return;
  const int64_t one = r.count * *bytes;
  const bool blocks =
      out_.collective == "reduce_scatter_perf" || out_.collective == "all_gather_perf";
  if (!blocks || one == 0) {
    if (one != r.size_bytes) {
      fail_at(out_.file, n,
              "size = count x " + std::to_string(*bytes) + " bytes (" + r.type +
                  ") = " + std::to_string(one),
              std::to_string(r.size_bytes), "the columns do not belong together");
    }
    if (!blocks) out_.blocks = 1;
    return;
  }
  const int64_t ranks = r.size_bytes / one;
  if (ranks < 1 || ranks * one != r.size_bytes || (out_.blocks > 0 && ranks != out_.blocks)) {
    fail_at(out_.file, n,
            "size = count x " + std::to_string(*bytes) + " bytes (" + r.type + ") x ranks" +
                (out_.blocks > 0 ? " = " + std::to_string(one * out_.blocks) : ""),
            std::to_string(r.size_bytes),
            "the columns do not belong together (a reduce-scatter's and an all-gather's count "
            "is one rank's)");
  }
  out_.blocks = ranks;
}

NcclTestsOutput Parser::finish() {
  if (out_.rows.empty()) {
    throw schema::InputError(out_.file +
                             ": expected nccl-tests all_reduce_perf result rows (\"size count "
                             "type redop root time algbw busbw #wrong ...\"), got none (hint: "
                             "paste the whole stdout of all_reduce_perf, reduce_scatter_perf or "
                             "all_gather_perf)");
  }
  return out_;
}

}  // namespace

int64_t NcclTestsOutput::ranks_from_rank_lines() const {
  if (rank_ids.empty()) return 0;
  int64_t max_id = 0;
  for (int64_t id : rank_ids) max_id = std::max(max_id, id);
  return static_cast<int64_t>(rank_ids.size()) == max_id + 1 ? max_id + 1 : -1;
}

NcclTestsOutput parse_nccl_tests(std::istream& in, const std::string& file) {
  LineReader reader(in, file);
  Parser parser(file);
  std::string text;
  while (reader.next(text)) parser.line(text, reader.line());
  return parser.finish();
}

NcclTestsOutput parse_nccl_tests_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw schema::InputError(path + ": cannot be read (hint: check the path)");
  return parse_nccl_tests(in, path);
}

}  // namespace vitsim::import
