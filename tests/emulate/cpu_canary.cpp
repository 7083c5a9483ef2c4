// cpu_canary: how fast one CPU of this machine is, minute by minute, measured while a loop runs
// beside it (docs/validation.md, "The CPU canary"). The VM's two CPUs take turns at being 10-75 %
// slower for minutes; scripts/validate-local pins one canary to each CPU for the whole loop and
// reads, per run and profile pass, whether a CPU was in such an episode. No MPI, LibTorch or
// vitsim code.
//
//   cpu_canary sample [--period-ms P] [--limit-s L]
//       every P ms (1000), one work unit of three parts, each timed by the thread's CPU time: a
//       dependent chain of multiply-adds (the core's latency, which a busy sibling hardware
//       thread leaves alone), independent vector multiply-adds (the core's throughput, which a
//       rank's GEMMs need and a sibling thread shares), a sum over a 16-MiB buffer (cache and
//       memory beyond the core's L2); one line "START_UNIX_S LATENCY_MS THROUGHPUT_MS MEMORY_MS
//       WALL_MS" on stdout, written whole; ends after L s (14400), on SIGTERM, or when its parent
//       ends. CPU time leaves out the time other processes of this machine hold the CPU; a CPU
//       that does the same work slower is in it.
//   cpu_canary report --spans FILE [--speeds OUT --reference GROUP] NAME=SAMPLES...
//       the report of canary_report.h: each span of FILE against each named CPU's samples;
//       with --speeds, each span's machine speed against the spans of GROUP (machine_speeds),
//       written to OUT (a temporary file, then a rename) for `vitsim validate --machine-speed`.
//
// Costs about 1 % of a CPU at the default period (a unit is about 10 ms of CPU). Bad usage or
// input: a one-line error naming the option or file, exit 2.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "canary_report.h"
#include "probe_clock.h"

namespace {

using vitsim::emulate_test::CanarySample;
using vitsim::emulate_test::steady_s;
using vitsim::emulate_test::thread_cpu_s;

constexpr long kChainIterations = 1'000'000;        // the latency part's multiply-adds
constexpr long kThroughputIterations = 400'000;     // the throughput part's rounds
constexpr size_t kBufferBytes = 16u * 1024 * 1024;  // the memory part's sum

volatile double g_sink = 0;  // keeps the work's results alive

double unix_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void latency_part() {
  volatile double seed = 1.0;
  double x = seed;
  for (long i = 0; i < kChainIterations; ++i) x = x * 0.999999 + 1e-7;  // each on the last
  g_sink = x;
}

// Twelve independent accumulators of 16 floats: enough chains to keep the vector units busy, as a
// GEMM's inner loop does; the widest vectors the CPU has (ifunc dispatch at start).
typedef float Floats16 __attribute__((vector_size(64)));
__attribute__((target_clones("avx512f", "avx2", "default"))) void throughput_part() {
  constexpr int kChains = 12;
  volatile float seed = 1.0f;
  Floats16 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = Floats16{} + seed + static_cast<float>(k);
  const Floats16 m = Floats16{} + 0.999999f;
  const Floats16 a = Floats16{} + 1e-7f;
  for (long i = 0; i < kThroughputIterations; ++i) {
    for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * m + a;
  }
  float sum = 0;
  for (int k = 0; k < kChains; ++k) sum += acc[k][0] + acc[k][15];
  g_sink = sum;
}

// Eight accumulators: the sum runs at the speed the caches and memory feed it.
void memory_part(const std::vector<double>& buffer) {
  double acc[8] = {};
  for (size_t i = 0; i + 8 <= buffer.size(); i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += buffer[i + k];
  }
  g_sink = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
}

int usage_error(const std::string& what) {
  std::fprintf(
      stderr,
      "cpu_canary: %s\nusage: cpu_canary sample [--period-ms P] [--limit-s L]\n"
      "       cpu_canary report --spans FILE [--speeds OUT --reference GROUP] NAME=SAMPLES...\n",
      what.c_str());
  return 2;
}

// A whole number in [lo, hi] for `option`, or -1.
long bounded(const std::string& text, long lo, long hi) {
  size_t used = 0;
  long v = -1;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    return -1;
  }
  return used == text.size() && v >= lo && v <= hi ? v : -1;
}

int sample(int argc, char** argv) {
  long period_ms = 1000;
  long limit_s = 14400;
  for (int i = 2; i < argc; i += 2) {
    const std::string opt = argv[i];
    if (i + 1 >= argc) return usage_error(opt + ": missing value");
    const std::string value = argv[i + 1];
    if (opt == "--period-ms") {
      if ((period_ms = bounded(value, 100, 60000)) < 0)
        return usage_error("--period-ms: expected a whole number from 100 to 60000, got '" + value +
                           "'");
    } else if (opt == "--limit-s") {
      if ((limit_s = bounded(value, 1, 86400)) < 0)
        return usage_error("--limit-s: expected a whole number from 1 to 86400, got '" + value +
                           "'");
    } else {
      return usage_error("unknown option '" + opt + "'");
    }
  }
  // Ends with the loop that started it, even when that loop is killed outright.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 0;
  std::vector<double> buffer(kBufferBytes / sizeof(double));
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<double>(i % 1000);
  std::printf(
      "# cpu_canary sample: start_unix_s latency_ms throughput_ms memory_ms wall_ms "
      "(docs/formats/cpu-canary.md)\n");
  std::fflush(stdout);
  const double t0 = steady_s();
  for (long k = 0; steady_s() - t0 < static_cast<double>(limit_s); ++k) {
    const double start = unix_s();
    const double w0 = steady_s();
    const double c0 = thread_cpu_s();
    latency_part();
    const double c1 = thread_cpu_s();
    throughput_part();
    const double c2 = thread_cpu_s();
    memory_part(buffer);
    const double c3 = thread_cpu_s();
    const double wall_ms = (steady_s() - w0) * 1e3;
    char line[128];
    const int n = std::snprintf(line, sizeof(line), "%.3f %.4f %.4f %.4f %.4f\n", start,
                                (c1 - c0) * 1e3, (c2 - c1) * 1e3, (c3 - c2) * 1e3, wall_ms);
    if (write(STDOUT_FILENO, line, static_cast<size_t>(n)) != n) return 1;  // one whole line
    const double next = t0 + static_cast<double>((k + 1) * period_ms) * 1e-3;
    const double wait_s = next - steady_s();
    if (wait_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  }
  return 0;
}

// `text` to `path` whole: a temporary file beside it, then a rename.
void write_whole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot be written");
  const bool ok = std::fputs(text.c_str(), f) >= 0;
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot be written");
  }
}

int report(int argc, char** argv) {
  std::string spans_path, speeds_path, reference;
  std::vector<std::string> names;
  std::vector<std::vector<CanarySample>> cpus;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--spans") {
        if (i + 1 >= argc) return usage_error("--spans: missing value");
        spans_path = argv[++i];
      } else if (arg == "--speeds" || arg == "--reference") {
        if (i + 1 >= argc) return usage_error(arg + ": missing value");
        (arg == "--speeds" ? speeds_path : reference) = argv[++i];
      } else if (arg.rfind("--", 0) == 0) {
        return usage_error("unknown option '" + arg + "'");
      } else {
        const size_t eq = arg.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
          return usage_error("expected NAME=SAMPLES, got '" + arg + "'");
        names.push_back(arg.substr(0, eq));
        cpus.push_back(vitsim::emulate_test::read_canary_samples(arg.substr(eq + 1)));
      }
    }
    if (spans_path.empty()) return usage_error("--spans: missing (the loop's span file)");
    if (cpus.empty()) return usage_error("no NAME=SAMPLES (one per CPU)");
    if (speeds_path.empty() != reference.empty())
      return usage_error("--speeds and --reference go together (the file, the profiles' group)");
    const auto spans = vitsim::emulate_test::read_spans(spans_path);
    const auto readings = vitsim::emulate_test::read_spans_against(spans, cpus);
    if (!speeds_path.empty()) {
      write_whole(speeds_path,
                  vitsim::emulate_test::format_machine_speeds(
                      vitsim::emulate_test::machine_speeds(readings, reference), reference));
    }
    std::fputs(vitsim::emulate_test::format_canary_report(names, readings).c_str(), stdout);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "cpu_canary report: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "sample") return sample(argc, argv);
  if (mode == "report") return report(argc, argv);
  if (mode == "-h" || mode == "--help") {
    std::printf(
        "usage: cpu_canary sample [--period-ms P] [--limit-s L]\n"
        "       cpu_canary report --spans FILE [--speeds OUT --reference GROUP] NAME=SAMPLES...\n"
        "  sample   every P ms [1000] one work unit, a line 'START_UNIX_S LATENCY_MS\n"
        "           THROUGHPUT_MS MEMORY_MS WALL_MS'; ends after L s [14400], on SIGTERM or when\n"
        "           its parent ends\n"
        "  report   each span of FILE ('LABEL START END' lines) against each CPU's samples;\n"
        "           --speeds: also each span's machine speed against the spans of GROUP\n"
        "           (e.g. profile-pass) to OUT, as vitsim validate --machine-speed reads it\n"
        "(docs/formats/cpu-canary.md)\n");
    return 0;
  }
  return usage_error(mode.empty() ? "missing mode" : "unknown mode '" + mode + "'");
}
