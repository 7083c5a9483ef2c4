// DeepSpeed log parsing (see deepspeed_log.h and docs/calibration.md). Hand-written scanning, no
// std::regex: logs are user input of any line length.
#include "import/deepspeed_log.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "costmodel/physical_bounds.h"
#include "import/line_cursor.h"
#include "schema/input_error.h"
#include "schema/text_file.h"

namespace vitsim::import {

using schema::InputError;

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::string shown(std::string_view text) {
  return "\"" + std::string(text.substr(0, 60)) + (text.size() > 60 ? "...\"" : "\"");
}

[[noreturn]] void refuse(const std::string& file, int64_t line_no, const std::string& expected,
                         const std::string& got, const std::string& hint = "") {
  throw InputError::at(file, "line " + std::to_string(line_no), expected, got, hint);
}

// A count the log echoes, held to its physical bound (a world size of 0 divided by zero later).
int64_t echoed_count(std::string_view digits, const costmodel::CountBound& bound, const char* what,
                     const std::string& file, int64_t line_no) {
  int64_t v = 0;
  for (char c : digits) {
    if (v > (bound.max - (c - '0')) / 10) {  // beyond the bound, and before int64 overflows
      refuse(file, line_no, std::string(what) + ": " + bound.what, shown(digits), bound.why);
    }
    v = v * 10 + (c - '0');
  }
  if (v < bound.min) {
    refuse(file, line_no, std::string(what) + ": " + bound.what, shown(digits),
           "no run has " + std::string(what) + " " + std::to_string(v) +
               ": is the log damaged, or not DeepSpeed's?");
  }
  return v;
}

// Value of "| key: 12.34" (milliseconds) in a timer line, in seconds; nullopt when the key is
// absent. A value that is not a plain decimal number of milliseconds is refused.
std::optional<double> timer_ms(const std::string& line, const std::string& key,
                               const std::string& file, int64_t line_no) {
  const std::string needle = "| " + key + ": ";
  const size_t pos = line.find(needle);
  if (pos == std::string::npos) return std::nullopt;
  Cursor c(line, pos + needle.size());
  const std::string_view text = c.decimal();
  const std::string_view after = c.rest();
  if (text.empty() || !(after.empty() || after[0] == ' ')) {
    refuse(file, line_no, key + " as a number of milliseconds >= 0",
           shown(text.empty() ? after : line.substr(pos + needle.size())),
           "DeepSpeed prints its timers as fixed-point milliseconds; NaN or a negative time is a "
           "broken timer");
  }
  const double ms = std::strtod(std::string(text).c_str(), nullptr);
  const double s = ms / 1000.0;
  if (!costmodel::bound_violation(costmodel::kDurationS, s).empty()) {
    refuse(file, line_no, key + " " + costmodel::kDurationS.what + " (in ms: x 1000)", shown(text),
           costmodel::kDurationS.why);
  }
  return s;
}

std::optional<DeepSpeedStep> parse_step_line(const std::string& line, int64_t line_no,
                                             const std::string& file) {
  if (line.find("[Rank 0] time (ms) | fwd: ") == std::string::npos) return std::nullopt;
  DeepSpeedStep s;
  s.line = line_no;
  const auto stamp = parse_log_timestamp(line);
  const auto fwd = timer_ms(line, "fwd", file, line_no), bwd = timer_ms(line, "bwd", file, line_no);
  const auto inner = timer_ms(line, "bwd_inner", file, line_no);
  const auto ar = timer_ms(line, "bwd_allreduce", file, line_no);
  const auto step = timer_ms(line, "step", file, line_no);
  if (!stamp || !fwd || !bwd || !inner || !ar || !step) {
    refuse(file, line_no,
           "a timer line \"[time] ... [Rank 0] time (ms) | fwd: X | bwd: X | bwd_inner: X | "
           "bwd_allreduce: X | step: X\"",
           shown(line));
  }
  s.timestamp_s = *stamp;
  s.forward_s = *fwd;
  s.backward_s = *bwd;
  s.backward_inner_s = *inner;
  s.backward_allreduce_s = *ar;
  s.optimizer_s = *step;
  return s;
}

template <typename T>
void set_once(std::optional<T>& slot, const T& value, const std::string& what,
              const std::string& file, int64_t line_no) {
  if (slot && *slot != value) {
    throw InputError::at(file, "line " + std::to_string(line_no), "one " + what + " per log",
                         "a second, different value",
                         "a log must hold one run; split concatenated logs");
  }
  slot = value;
}

// "<key> ... True|False" as DeepSpeed's configuration echo prints a flag.
std::optional<bool> echoed_flag(const std::string& line, std::string_view key) {
  std::optional<bool> out;
  search(line, key, [&](Cursor& c, size_t at) {
    if (at > 0 && is_word(line[at - 1])) return false;
    if (c.spaces() == 0 || c.repeated('.') == 0 || c.spaces() == 0) return false;
    if (c.literal("True")) out = true;
    if (!out && c.literal("False")) out = false;
    return out.has_value();
  });
  return out;
}

// Whether the line asks DeepSpeed to all-reduce in fp32: the engine's echo
// "communication_data_type ...... torch.float32" or the user config's "communication_data_type":
// "fp32" / "fp32_allreduce": true. "seq_parallel_communication_data_type" is another setting.
bool asks_fp32_communication(const std::string& line) {
  const std::string comm = "communication_data_type";
  const size_t at = line.find(comm);
  if (at != std::string::npos && (at == 0 || !is_word(line[at - 1]))) {
    const std::string rest = line.substr(at + comm.size());
    const std::string value = rest.substr(0, rest.find_first_of(",}"));
    if (value.find("float32") != std::string::npos || value.find("fp32") != std::string::npos)
      return true;
  }
  const std::string key = "\"fp32_allreduce\"";
  const size_t k = line.find(key);
  if (k == std::string::npos) return false;
  const std::string rest = line.substr(k + key.size());
  return rest.substr(0, rest.find_first_of(",}")).find("true") != std::string::npos;
}

// The study's run directory at the end of a line: ".../p0.2_b16_e10" (p a decimal, b and e
// integers), the path being the run of "/segment" parts before it.
std::optional<RunDirectory> run_directory(const std::string& line, const std::string& file,
                                          int64_t n) {
  const std::string_view s = trim_right(line);
  const size_t slash = s.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  Cursor c(s, slash + 1);
  if (!c.literal("p")) return std::nullopt;
  const std::string_view p = c.decimal();
  if (p.empty() || p.back() == '.' || !c.literal("_b")) return std::nullopt;
  const std::string_view b = c.digits();
  if (b.empty() || !c.literal("_e")) return std::nullopt;
  const std::string_view e = c.digits();
  if (e.empty() || !c.at_end()) return std::nullopt;
  size_t from = slash;
  for (;;) {  // earlier "/segment" parts of the path
    size_t j = from;
    while (j > 0 && !is_space(s[j - 1]) && s[j - 1] != '/') --j;
    if (j == 0 || s[j - 1] != '/' || j == from) break;
    from = j - 1;
  }
  RunDirectory d;
  d.path = std::string(s.substr(from));
  d.data_fraction = std::strtod(std::string(p).c_str(), nullptr);
  if (!(d.data_fraction > 0 && d.data_fraction <= 1)) {
    refuse(file, n, "a run directory's data fraction p in (0, 1]", shown(d.path),
           "p0.1 keeps a tenth of the training images; p0 would train on none");
  }
  d.micro_batch =
      echoed_count(b, costmodel::kMicroBatch, "a run directory's micro-batch b", file, n);
  d.epochs = echoed_count(e, costmodel::kRepetitions, "a run directory's epochs e", file, n);
  return d;
}

// "GPU name: NVIDIA ..." (or gpu_name, Device name, device name; ':' or '='), the leftmost.
std::optional<std::string> gpu_name(const std::string& line) {
  std::optional<std::string> name;
  size_t best = std::string::npos;
  for (std::string_view key : {"GPU name", "gpu_name", "Device name", "device name"}) {
    search(line, key, [&](Cursor& c, size_t at) {
      c.spaces();
      if (!c.one_of(":=")) return false;
      c.spaces();
      const std::string_view value = trim_right(c.rest());
      if (value.empty()) return false;
      if (at < best) {
        best = at;
        // A name is a few words; a longer "name" stays readable in the error that refuses it.
        name = std::string(value.substr(0, 200)) + (value.size() > 200 ? "..." : "");
      }
      return true;
    });
  }
  return name;
}

// Integer echoes: "<key><separator><digits>" with the separators DeepSpeed prints.
enum class Separator {
  kEqualsOrDots,  // "world_size = 2", "world_size=2", "world_size ....... 2"
  kCallOrSpaces,  // "train_micro_batch_size_per_gpu(): 64", "... per_gpu  64"
  kDotsOrColon,   // "gradient_accumulation_steps .. 1", "\"gradient_accumulation_steps\": 1"
};

std::optional<std::string_view> echoed_digits(const std::string& line, std::string_view key,
                                              Separator sep) {
  std::optional<std::string_view> out;
  search(line, key, [&](Cursor& c, size_t) {
    switch (sep) {
      case Separator::kEqualsOrDots: {
        const size_t sp = c.spaces();
        if (c.literal("=")) {
          c.spaces();
        } else if (sp == 0 || c.repeated('.') == 0 || c.spaces() == 0) {
          return false;
        }
        break;
      }
      case Separator::kCallOrSpaces:
        if (!c.literal("():") && c.spaces() == 0) return false;
        c.spaces();
        break;
      case Separator::kDotsOrColon:
        c.literal("\"");
        c.spaces();
        if (c.repeated('.') == 0 && !c.literal(":")) return false;
        c.spaces();
        break;
    }
    const std::string_view d = c.digits();
    if (!d.empty()) out = d;
    return out.has_value();
  });
  return out;
}

struct EchoParser {
  std::optional<bool> fp16_on, bf16_on, amp_on;
  bool comm_fp32 = false;

  void scan(const std::string& line, int64_t n, DeepSpeedLog& log) {
    const std::string& f = log.file;
    if (auto d = echoed_digits(line, "world_size", Separator::kEqualsOrDots)) {
      set_once<int64_t>(log.world_size, echoed_count(*d, costmodel::kRanks, "world_size", f, n),
                        "world size", f, n);
    }
    if (auto d = echoed_digits(line, "train_micro_batch_size_per_gpu", Separator::kCallOrSpaces)) {
      set_once<int64_t>(log.micro_batch,
                        echoed_count(*d, costmodel::kMicroBatch, "micro-batch", f, n),
                        "micro-batch", f, n);
    }
    if (auto d = echoed_digits(line, "gradient_accumulation_steps", Separator::kDotsOrColon)) {
      set_once<int64_t>(log.accumulation,
                        echoed_count(*d, costmodel::kAccumulation, "accumulation", f, n),
                        "accumulation", f, n);
    }
    if (auto v = echoed_flag(line, "fp16_enabled")) fp16_on = v;
    if (auto v = echoed_flag(line, "bfloat16_enabled")) bf16_on = v;
    if (auto v = echoed_flag(line, "amp_enabled")) amp_on = v;
    comm_fp32 = comm_fp32 || asks_fp32_communication(line);
    if (line.find("_b") != std::string::npos) {
      if (auto d = run_directory(line, f, n); d && !log.run_directory) log.run_directory = d;
    }
    if (!log.gpu_name && line.find("ame") != std::string::npos) log.gpu_name = gpu_name(line);
  }

  void finish(DeepSpeedLog& log) const {
    // DeepSpeed's fp16/bf16 blocks are its own mixed precision (16-bit weights and gradients,
    // FP16_Optimizer / BF16_Optimizer): the ds-* regimes, all-reduced in fp32 only when
    // communication_data_type or fp32_allreduce asks. amp_enabled is apex AMP (O1, fp16 autocast
    // over fp32 weights). Both fp16 and bf16 echoes are needed to say fp32.
    using costmodel::MathType;
    if (fp16_on && *fp16_on) {
      log.precision = costmodel::deepspeed_regime(MathType::kFp16, comm_fp32);
    } else if (bf16_on && *bf16_on) {
      log.precision = costmodel::deepspeed_regime(MathType::kBf16, comm_fp32);
    } else if (amp_on && *amp_on) {
      log.precision = costmodel::Regime::kAmpFp16;
    } else if (fp16_on && bf16_on) {
      log.precision = costmodel::Regime::kFp32;
    }
  }
};

// Step lines must move forward in time: the wall interval between two of them is the step's
// duration, and a backwards or repeated stamp (concatenated or reordered logs) would make it 0 or
// negative, and the per-step overhead derived from it negative.
void check_time_order(const DeepSpeedLog& log) {
  for (size_t i = 1; i < log.steps.size(); ++i) {
    const DeepSpeedStep& a = log.steps[i - 1];
    const DeepSpeedStep& b = log.steps[i];
    if (!(b.timestamp_s > a.timestamp_s)) {
      refuse(log.file, b.line,
             "a timestamp after the previous step line's (line " + std::to_string(a.line) + ")",
             b.timestamp_s == a.timestamp_s ? "the same timestamp" : "an earlier timestamp",
             "step lines must be in time order, one run per log: split concatenated logs");
    }
  }
}

}  // namespace

std::optional<double> parse_log_timestamp(const std::string& line) {
  // [YYYY-MM-DD HH:MM:SS,mmm]
  if (line.size() < 25 || line[0] != '[' || line[5] != '-' || line[8] != '-' || line[11] != ' ' ||
      line[14] != ':' || line[17] != ':' || line[20] != ',' || line[24] != ']') {
    return std::nullopt;
  }
  auto num = [&](size_t pos, size_t len) -> std::optional<int64_t> {
    int64_t v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (line[i] < '0' || line[i] > '9') return std::nullopt;
      v = v * 10 + (line[i] - '0');
    }
    return v;
  };
  const auto y = num(1, 4), mo = num(6, 2), d = num(9, 2), h = num(12, 2), mi = num(15, 2),
             s = num(18, 2), ms = num(21, 3);
  if (!y || !mo || !d || !h || !mi || !s || !ms) return std::nullopt;
  const int64_t days = days_from_civil(*y, *mo, *d);
  return static_cast<double>(days * 86400 + *h * 3600 + *mi * 60 + *s) +
         static_cast<double>(*ms) / 1000.0;
}

DeepSpeedLog parse_deepspeed_log_text(const std::string& text, const std::string& file) {
  DeepSpeedLog log;
  log.file = file;
  EchoParser echo;
  std::istringstream in(text);
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (auto step = parse_step_line(line, n, file)) {
      log.steps.push_back(*step);
      continue;
    }
    if (line.find("time (ms)") != std::string::npos) continue;  // microstep duplicates
    echo.scan(line, n, log);
  }
  echo.finish(log);
  check_time_order(log);
  if (log.steps.empty()) {
    throw InputError::at(file, "line " + std::to_string(n),
                         "DeepSpeed timer lines \"[Rank 0] time (ms) | fwd: ...\"",
                         "none in " + std::to_string(n) + " lines",
                         "run with \"wall_clock_breakdown\": true in the DeepSpeed config");
  }
  return log;
}

DeepSpeedLog parse_deepspeed_log(const std::string& path) {
  // A long run's log is tens of megabytes (two timer lines per step); 1 GiB bounds a wrong path.
  return parse_deepspeed_log_text(schema::read_text_file(path, size_t{1} << 30, "a DeepSpeed log"),
                                  path);
}

}  // namespace vitsim::import
