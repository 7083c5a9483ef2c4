// The ranges a physical quantity can take, for the checks at vitsim's edges (file readers, and the
// command lines that take the same quantities). One table, so that a bandwidth read from a cluster
// file and one read from a cost model are held to the same limits, each with the reason.
//
// The limits are far outside anything real (they are not tuning knobs): their job is to refuse
// values that would make the arithmetic meaningless (1e-300 B/s, a latency of 1e308 s, a denormal
// time of 1e-310 s, 10^9 GPUs in one node) with an error that says which field and why, instead of
// a simulation that never ends, a NaN in an output or a crash. docs/formats/README.md lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vitsim::costmodel {

// A real-valued quantity: 0 (when zero_allowed) or a value in [min, max]. min > 0 keeps out
// positive values too small to mean anything (below a clock's resolution, denormals).
struct Bound {
  double min = 0;
  double max = 0;
  bool zero_allowed = false;
  const char* what = "";  // "a duration in seconds"
  const char* why = "";   // the reason for the limits, for the error's hint
};

// A count: an integer in [min, max].
struct CountBound {
  int64_t min = 0;
  int64_t max = 0;
  const char* what = "";
  const char* why = "";
};

// Seconds of one measured or fitted operation (a layer, an optimizer step, an epoch): 0 .. 1e7 s
// (116 days). No lower limit above 0: medians, spreads and fits are differences of clock readings
// and legitimately come out below a clock's resolution (denormals are refused for every number).
inline constexpr Bound kDurationS{0, 1e7, true, "a duration in seconds: 0 .. 1e7",
                                  "above 1e7 s (116 days) is not one operation of a training step"};
// A duration that was timed and cannot be 0 (an all-reduce): 1 ns (below any clock's resolution)
// .. 1e7 s.
inline constexpr Bound kPositiveDurationS{
    1e-9, 1e7, false, "a duration in seconds: 1e-9 .. 1e7",
    "times below 1 ns are below any clock's resolution, above 1e7 s (116 days) not a measurement"};
// A factor a run's measured compute puts on the compute the costs predicted for it (calibrate
// --run-logs): 1e-3 .. 1e3; a run a thousand times faster or slower than its own profile measured
// another machine or another model.
inline constexpr Bound kComputeScale{1e-3, 1e3, false, "a ratio of compute times: 1e-3 .. 1e3",
                                     "measured over predicted compute of one run; beyond a factor "
                                     "of 1000 the run and the profile measured different work"};
// A link's bandwidth: 1 kB/s (8 kbit/s, slower than any network) .. 1e14 B/s (100 TB/s; NVLink 5
// is 1.8e12 B/s per GPU).
inline constexpr Bound kLinkBandwidthBytesPerS{
    1e3, 1e14, false, "a bandwidth in bytes/s: 1e3 .. 1e14",
    "write 1.25e9 for 10 Gbit/s; below 1 kB/s or above 100 TB/s is no real link"};
// A part's NVLink per direction: 0 (none) or 1 kB/s .. 1e14 B/s (an H100 SXM's 18 links: 4.5e11).
inline constexpr Bound kLinkBandwidthBytesPerSOrZero{
    1e3, 1e14, true, "a bandwidth in bytes/s: 0 (none) or 1e3 .. 1e14",
    "write 4.5e11 for NVLink 4's 900 GB/s (both directions); 0 = no NVLink"};
// A link's latency: 0 or 1 ns .. 10 s (a geostationary satellite hop is 0.6 s).
inline constexpr Bound kLinkLatencyS{
    1e-9, 10, true, "a latency in seconds: 0 or 1e-9 .. 10",
    "write 2.5e-5 for 25 us; no link is slower than 10 s, and below 1 ns is 0"};
// A throughput someone measured (algbw, busbw): small messages over a slow link can be far below
// a link's bandwidth, so only the upper limit is a link's.
inline constexpr Bound kMeasuredBandwidthBytesPerS{1e-3, 1e14, false,
                                                   "a bandwidth in bytes/s: 1e-3 .. 1e14",
                                                   "message_bytes / time_s of a real measurement"};
// Sizes of messages, buckets and device memory: 1 byte .. 1e15 (1 PB).
inline constexpr Bound kBytes{1, 1e15, false, "a size in bytes: 1 .. 1e15",
                              "a size above 1 PB is no real message, bucket or memory"};
// The same where 0 says "nothing" (memory not measured, no fixed memory).
inline constexpr Bound kBytesOrZero{1, 1e15, true, "a size in bytes: 0 or 1 .. 1e15",
                                    "a size above 1 PB is no real message, bucket or memory"};
// A port's token bucket (a NIC's burst credit, `tc tbf` burst): 0 (none) or 1 byte .. 1e10 (10 GB;
// tc's own limit is 4 GiB, a cloud NIC's credit is seconds at its rate).
inline constexpr Bound kBurstBytes{1, 1e10, true, "a size in bytes: 0 (no bucket) or 1 .. 1e10",
                                   "a token bucket's size; above 10 GB is no real port's credit"};
// A device's peak arithmetic rate: 1e6 .. 1e18 FLOP/s (a B200's sparse FP4 peak is ~2e16).
inline constexpr Bound kPeakFlopPerS{1e6, 1e18, false, "a rate in FLOP/s: 1e6 .. 1e18",
                                     "write 2.03e13 for 20.3 TFLOP/s"};
inline constexpr Bound kPeakFlopPerSOrZero{1e6, 1e18, true,
                                           "a rate in FLOP/s: 0 (none) or 1e6 .. 1e18",
                                           "write 2.03e13 for 20.3 TFLOP/s; 0 = not supported"};
// A device's memory bandwidth: 1e6 .. 1e14 B/s (an H200 has 4.8e12).
inline constexpr Bound kMemoryBandwidthBytesPerS{
    1e6, 1e14, false, "a bandwidth in bytes/s: 1e6 .. 1e14", "write 4.48e11 for 448 GB/s"};
// A device's power: 0 (unknown) or 1 .. 1e5 W.
inline constexpr Bound kPowerW{1, 1e5, true, "a power in watts: 0 or 1 .. 1e5",
                               "a device's TDP from its datasheet, 0 if unknown"};

// A GPU's clock: 0 (unknown) or 1 MHz .. 100 GHz.
inline constexpr Bound kClockHz{1e6, 1e11, true, "a clock in Hz: 0 or 1e6 .. 1e11",
                                "write 1.98e9 for 1980 MHz, 0 if unknown"};

// Streaming multiprocessors of one GPU: 1 .. 10^5 (a B200 has 148 per die).
inline constexpr CountBound kSmCount{1, 100000, "an SM count 1 .. 100000",
                                     "the datasheet's streaming multiprocessors"};
// A product's launch year: 1990 .. 2100.
inline constexpr CountBound kLaunchYear{1990, 2100, "a year 1990 .. 2100",
                                        "the year the GPU was launched (its datasheet's)"};

// Ranks of one job: 1 .. 10^6 (the largest GPU clusters have ~10^5 GPUs).
inline constexpr CountBound kRanks{1, 1000000, "a rank count 1 .. 1000000",
                                   "the largest GPU clusters have about 10^5 GPUs"};
// Nodes of a cluster (or of one template): 1 .. 10^6.
inline constexpr CountBound kNodes{1, 1000000, "a node count 1 .. 1000000",
                                   "the largest GPU clusters have about 10^5 GPUs"};
// GPUs in one node: 1 .. 1024 (the largest NVLink domains hold 72 to 576 GPUs).
inline constexpr CountBound kGpusPerNode{1, 1024, "a GPU count per node 1 .. 1024",
                                         "no node holds more than 1024 GPUs"};
// Ranks sharing one host while a profile measured: 1 .. 1024, as a node's devices above.
inline constexpr CountBound kRanksPerHost{1, 1024, "a rank count per host 1 .. 1024",
                                          "a cluster file places at most 1024 ranks on a node"};
// Samples per micro-step on one device: 1 .. 10^6.
inline constexpr CountBound kMicroBatch{1, 1000000, "a micro-batch 1 .. 1000000",
                                        "samples per device per micro-step"};
// Micro-steps per optimizer step: 1 .. 10^6.
inline constexpr CountBound kAccumulation{1, 1000000, "an accumulation 1 .. 1000000",
                                          "micro-steps per optimizer step"};
// Training images: 1 .. 10^12 (the largest image datasets hold a few 10^9).
inline constexpr CountBound kImages{1, 1000000000000, "an image count 1 .. 10^12",
                                    "the largest image datasets hold a few 10^9 images"};
// Repetitions behind a median, steps of a run: 1 .. 10^12.
inline constexpr CountBound kRepetitions{1, 1000000000000, "a count 1 .. 10^12",
                                         "repetitions or steps of a real measurement"};
// A planner's limits (--deadline, --budget; a prediction file's "selection"): far beyond any
// training, so that a limit stays a number when multiplied by a run's epochs; a value that
// overflows to infinity (--deadline 1e308d) would otherwise mean "no limit".
inline constexpr Bound kDeadlineS{1e-9, 1e12, false, "a deadline in seconds: 1e-9 .. 1e12",
                                  "1e12 s is 31,700 years; leave the limit out for none"};
inline constexpr Bound kBudgetUsd{1e-9, 1e15, false, "a budget in USD: 1e-9 .. 1e15",
                                  "1e15 USD is ten times the world's yearly output; leave the "
                                  "limit out for none"};

// "" when `x` is within `b`, else why not ("below 1e-09", "above 1e+14", "not finite",
// "a denormal number"): the caller adds file, field and the bound's `what` and `why`.
std::string bound_violation(const Bound& b, double x);
std::string bound_violation(const CountBound& b, int64_t x);

}  // namespace vitsim::costmodel
