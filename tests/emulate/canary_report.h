// The CPU canary's report (docs/validation.md, "The CPU canary"): how fast each of the machine's
// CPUs was during each span of a validate-local loop (a run, a profile pass), as the canary's
// median cost per work unit in the span against its median over the whole loop. Reads the
// canary's sample files and the loop's span file (docs/formats/cpu-canary.md); knows nothing of
// MPI, LibTorch or vitsim's model. Test-support code, as emu_probe is: scripts/validate-local runs
// it through tests/emulate/cpu_canary.cpp.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace vitsim::emulate_test {

// The parts of a work unit (cpu_canary.cpp): a dependent chain (the core's latency: what a
// busy sibling hardware thread leaves alone), independent vector multiply-adds (the core's
// throughput: what a rank's GEMMs need, and what a sibling thread takes a share of), a sum over a
// 16-MiB buffer (the cache and memory path beyond the core's own L2).
constexpr int kCanaryParts = 3;
constexpr const char* kCanaryPartNames[kCanaryParts] = {"latency", "throughput", "memory"};

// One work unit of the canary: when it started (Unix time, s) and the CPU time each part took (ms).
struct CanarySample {
  double start_unix_s = 0;
  std::array<double, kCanaryParts> cpu_ms{};
};

// One stretch of a loop: a run or a profile pass, from its start to its end (Unix time, s).
struct Span {
  std::string label;
  double start_unix_s = 0;
  double end_unix_s = 0;
};

// A span's reading, per CPU (in the order of the sample files) and part: the span's median cost
// against the CPU's median over the whole file (0 where no sample fell in the span), and how many
// samples.
struct SpanReading {
  std::string label;
  std::vector<std::array<double, kCanaryParts>> ratio;
  std::vector<int> samples;
};

// A CPU in an episode: its median cost of a part in a span this much above its median over the
// loop. The same bound as the notes' reading of the runs (one CPU's ranks >= 10 % slower than the
// other's, docs/validation.md, "The CPU canary"), so that the two can be
// compared.
constexpr double kEpisodeRatio = 1.10;

// "START LATENCY_MS THROUGHPUT_MS MEMORY_MS WALL_MS" lines; '#' lines are comments. Throws
// std::runtime_error naming the file, the line and the field on anything else (a last line cut
// short by the canary's end included: the canary writes each line whole).
std::vector<CanarySample> read_canary_samples(const std::string& path);

// "LABEL START END" lines (END >= START); '#' lines are comments. Throws as above.
std::vector<Span> read_spans(const std::string& path);

// Each span's reading against each CPU's samples (cpus[i]: one CPU's samples).
std::vector<SpanReading> read_spans_against(const std::vector<Span>& spans,
                                            const std::vector<std::vector<CanarySample>>& cpus);

// The group a span belongs to: its label less a trailing "-rN" (a run's round), or less the
// number after a trailing "pass" ("profile-pass3" -> "profile-pass"); other labels as they are
// (a configuration run once: "r2-mb24-400m-zero1").
std::string span_group(const std::string& label);

// The machine's speed during a span, as `vitsim validate --machine-speed` reads it
// (docs/formats/machine-speed.md): the mean over the CPUs of the span's latency-part ratio (the
// CPUs with samples in it), divided by the median of that mean over the spans of
// `reference_group` (the profile passes the loop calibrates from). 1.05: the CPUs did the same
// work 5 % slower than during the profiles. The latency part because it is the canary's steadiest
// reading of a CPU (its own spread 6.3 % in loop ub of 2026-12-01, against 11.8 and 9.6 % for
// throughput and memory) and the one a run's speed follows most closely (correlation 0.82
// against 0.78 and 0.73): docs/validation.md, "The machine's speed during a run".
constexpr int kSpeedPart = 0;
struct SpanSpeed {
  std::string label;
  double factor = 1;
};
// One per span outside the reference group that has samples; throws std::runtime_error when no
// reference span has any.
std::vector<SpanSpeed> machine_speeds(const std::vector<SpanReading>& readings,
                                      const std::string& reference_group);
// The file: a comment head, then "LABEL FACTOR" lines.
std::string format_machine_speeds(const std::vector<SpanSpeed>& speeds,
                                  const std::string& reference_group);

// The report: one row per span (each CPU's ratios, part by part; the CPUs and parts in an
// episode), then per group how many of its spans met an episode, and per part over all spans.
// cpu_names[i] names cpus[i]'s column.
std::string format_canary_report(const std::vector<std::string>& cpu_names,
                                 const std::vector<SpanReading>& readings);

}  // namespace vitsim::emulate_test
