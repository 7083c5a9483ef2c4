// DeepSpeed log parsing (see deepspeed_log.h and docs/calibration.md).
#include "calibrate/deepspeed_log.h"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "schema/input_error.h"

namespace vitsim::calibrate {

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

// Value of "| key: 12.34" in a timer line, in seconds; nullopt when the key is absent.
std::optional<double> timer_ms(const std::string& line, const std::string& key) {
  const std::string needle = "| " + key + ": ";
  const size_t pos = line.find(needle);
  if (pos == std::string::npos) return std::nullopt;
  const char* start = line.c_str() + pos + needle.size();
  char* end = nullptr;
  const double v = std::strtod(start, &end);
  if (end == start) return std::nullopt;
  return v / 1000.0;
}

std::optional<DeepSpeedStep> parse_step_line(const std::string& line, int64_t line_no,
                                             const std::string& file) {
  if (line.find("[Rank 0] time (ms) | fwd: ") == std::string::npos) return std::nullopt;
  DeepSpeedStep s;
  s.line = line_no;
  const auto stamp = parse_log_timestamp(line);
  const auto fwd = timer_ms(line, "fwd"), bwd = timer_ms(line, "bwd");
  const auto inner = timer_ms(line, "bwd_inner"), ar = timer_ms(line, "bwd_allreduce");
  const auto step = timer_ms(line, "step");
  if (!stamp || !fwd || !bwd || !inner || !ar || !step) {
    throw InputError::at(file, "line " + std::to_string(line_no),
                         "a timer line \"[time] ... [Rank 0] time (ms) | fwd: X | bwd: X | "
                         "bwd_inner: X | bwd_allreduce: X | step: X\"",
                         "\"" + line.substr(0, 160) + "\"");
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

struct EchoParser {
  std::regex world{R"(world_size\s*(?:=\s*|\s\.+\s+)(\d+))"};
  std::regex micro{R"(train_micro_batch_size_per_gpu(?:\(\):|\s+)\s*(\d+))"};
  std::regex accum{R"(gradient_accumulation_steps"?\s*(?:\.+|:)\s*(\d+))"};
  std::regex fp16{R"(\bfp16_enabled\s+\.+\s+(True|False))"};
  std::regex bf16{R"(\bbfloat16_enabled\s+\.+\s+(True|False))"};
  std::regex amp{R"(\bamp_enabled\s+\.+\s+(True|False))"};
  // The engine's echo (torch dtype or None) and the user config's JSON ("fp32", "fp16", ...).
  std::regex comm{R"(\bcommunication_data_type"?\s*(?:\.+|:)\s*"?(?:torch\.)?(\w+))"};
  std::regex fp32_allreduce{R"("fp32_allreduce"\s*:\s*(true|false))"};
  std::regex rundir{R"(((?:/[^\s/]+)*/p([0-9]*\.?[0-9]+)_b(\d+)_e(\d+))\s*$)"};
  std::regex gpu{R"((?:GPU name|gpu_name|Device name|device name)\s*[:=]\s*(.+?)\s*$)"};
  std::optional<bool> fp16_on, bf16_on, amp_on;
  bool comm_fp32 = false;

  void scan(const std::string& line, int64_t n, DeepSpeedLog& log) {
    std::smatch m;
    if (line.find("world_size") != std::string::npos && std::regex_search(line, m, world)) {
      set_once<int64_t>(log.world_size, std::stoll(m[1]), "world size", log.file, n);
    }
    if (line.find("train_micro_batch_size_per_gpu") != std::string::npos &&
        std::regex_search(line, m, micro)) {
      set_once<int64_t>(log.micro_batch, std::stoll(m[1]), "micro-batch", log.file, n);
    }
    if (line.find("gradient_accumulation_steps") != std::string::npos &&
        std::regex_search(line, m, accum)) {
      set_once<int64_t>(log.accumulation, std::stoll(m[1]), "accumulation", log.file, n);
    }
    if (line.find("fp16_enabled") != std::string::npos && std::regex_search(line, m, fp16)) {
      fp16_on = m[1] == "True";
    }
    if (line.find("bfloat16_enabled") != std::string::npos && std::regex_search(line, m, bf16)) {
      bf16_on = m[1] == "True";
    }
    if (line.find("amp_enabled") != std::string::npos && std::regex_search(line, m, amp)) {
      amp_on = m[1] == "True";
    }
    if (line.find("communication_data_type") != std::string::npos &&
        std::regex_search(line, m, comm)) {
      comm_fp32 = comm_fp32 || m[1] == "float32" || m[1] == "fp32" || m[1] == "float";
    }
    if (line.find("fp32_allreduce") != std::string::npos &&
        std::regex_search(line, m, fp32_allreduce)) {
      comm_fp32 = comm_fp32 || m[1] == "true";
    }
    if (line.find("_b") != std::string::npos && std::regex_search(line, m, rundir)) {
      RunDirectory d{m[1], std::stod(m[2]), std::stoll(m[3]), std::stoll(m[4])};
      if (!log.run_directory) log.run_directory = d;
    }
    if (!log.gpu_name && line.find("ame") != std::string::npos && std::regex_search(line, m, gpu)) {
      log.gpu_name = m[1];
    }
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
  if (log.steps.empty()) {
    throw InputError::at(file, "line " + std::to_string(n),
                         "DeepSpeed timer lines \"[Rank 0] time (ms) | fwd: ...\"",
                         "none in " + std::to_string(n) + " lines",
                         "run with \"wall_clock_breakdown\": true in the DeepSpeed config");
  }
  return log;
}

DeepSpeedLog parse_deepspeed_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::at(path, "", "a readable DeepSpeed log", "nothing (cannot open)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_deepspeed_log_text(ss.str(), path);
}

}  // namespace vitsim::calibrate
