// Tables of predictions; see prediction_table.h.
#include "present/prediction_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "schema/rank_groups.h"

namespace vitsim::present {
namespace {

std::string label_of(const schema::ConfigPrediction& p) {
  if (!p.config.label.empty()) return p.config.label;
  return fmt::format("{} GPU(s)", p.config.gpus);
}

// Per-rank micro-batches: up to 8 ranks each ("16/32/16"); more as runs ("32/64x1023"), or
// beyond 4 runs the range ("16-64 (per rank)").
std::string micro_batch_of(const schema::ConfigPrediction& p) {
  const std::vector<int64_t>& b = p.config.per_rank_micro_batch;
  if (b.empty()) return std::to_string(p.config.micro_batch);
  if (b.size() <= 8) {
    std::string s;
    for (int64_t x : b) s += (s.empty() ? "" : "/") + std::to_string(x);
    return s;
  }
  std::vector<std::pair<int64_t, int64_t>> runs;  // (micro-batch, ranks in a row)
  for (int64_t x : b) {
    if (!runs.empty() && runs.back().first == x)
      ++runs.back().second;
    else
      runs.emplace_back(x, 1);
  }
  if (runs.size() > 4) {
    return fmt::format("{}-{} (per rank)", *std::min_element(b.begin(), b.end()),
                       *std::max_element(b.begin(), b.end()));
  }
  std::string s;
  for (const auto& [x, n] : runs) {
    for (int64_t i = 0; i < (n > 2 ? 1 : n); ++i) s += (s.empty() ? "" : "/") + std::to_string(x);
    if (n > 2) s += "x" + std::to_string(n);
  }
  return s;
}

double max_memory_gb(const schema::ConfigPrediction& p) {
  double m = 0;
  for (const auto& r : p.ranks) m = std::max(m, r.memory_bytes);
  return m / 1e9;
}

// The one price mode of the rows' costs ("cloud", "owned"), "mixed" when they differ (rows read
// from files priced apart), "" when none has a cost.
std::string mode_of(const std::vector<schema::ConfigPrediction>& ps) {
  std::string mode;
  for (const auto& p : ps) {
    if (!p.cost) continue;
    if (!mode.empty() && mode != p.cost->mode) return "mixed";
    mode = p.cost->mode;
  }
  return mode;
}

// Cost columns: "-" without a cost (why: under the table); "*" marks a cost from a price nobody
// checked against a dated page (explained under the table); the mode in each cell only when the
// rows mix modes.
std::string epoch_usd(const schema::ConfigPrediction& p, bool mixed) {
  if (!p.cost) return "-";
  const std::string mark = p.cost->price_status == "unverified" ? "*" : "";
  return (mixed ? p.cost->mode + " " : "") +
         (p.cost->epoch_usd >= 1 ? fmt::format("{:.2f}", p.cost->epoch_usd)
                                 : fmt::format("{:.3g}", p.cost->epoch_usd)) +
         mark;
}
std::string epoch_kwh(const schema::ConfigPrediction& p) {
  return p.cost ? fmt::format("{:.3g}", p.cost->epoch_kwh) : "-";
}

// Under the table: which prices the cost column holds, and why a row has none ("-").
std::string cost_notes(const std::vector<schema::ConfigPrediction>& ps, const std::string& mode) {
  std::string s;
  if (mode == "cloud")
    s += "cost: cloud list prices per GPU-hour (platforms/prices.json or --price)\n";
  if (mode == "owned")
    s += "cost: owned GPUs, purchase price amortised plus electricity (platforms/prices.json or "
         "--price)\n";
  if (mode == "mixed")
    s += "cost: the rows were priced apart, in different modes (each cell names its mode): "
         "compare within one mode only\n";
  std::set<std::string> reasons;
  for (const auto& p : ps)
    if (!p.cost && !p.out_of_memory && !p.cost_missing.empty() &&
        reasons.insert(p.cost_missing).second)
      s += "cost -: " + p.cost_missing + "\n";
  return s;
}

// Under the table: which epoch the epoch column is (docs/simulator.md, "From steps to an epoch"),
// and for a single configuration how long the other kind takes.
std::string epoch_note(const std::vector<schema::ConfigPrediction>& ps) {
  if (ps.empty()) return "";
  const auto first = [](const schema::ConfigPrediction& p) { return p.config.first_epoch; };
  const bool one = ps.size() == 1 && !ps.front().out_of_memory && ps.front().epoch_time_s > 0;
  if (std::all_of(ps.begin(), ps.end(), first)) {
    return "epoch: the process's first (its first step pays the process's start: warm-up, first "
           "allocations)" +
           (one ? fmt::format("; a later one pays the data loader's restart instead and "
                              "takes {:.1f} s",
                              ps.front().later_epoch_time_s)
                : std::string()) +
           "\n";
  }
  if (std::none_of(ps.begin(), ps.end(), first)) {
    return "epoch: a later one of a run (its first step pays the data loader's restart); the "
           "process's first pays its start instead" +
           (one ? fmt::format(" and takes {:.1f} s", ps.front().first_epoch_time_s)
                : std::string()) +
           " (--epoch first; a scenario's \"epoch\": \"first\")\n";
  }
  return "epoch: the rows predict different epochs, the process's first or a later one (each "
         "configuration's \"epoch\")\n";
}

double max_idle(const schema::ConfigPrediction& p) {
  double m = 0;
  for (const auto& r : p.ranks) m = std::max(m, r.idle_time_s);
  return m;
}

}  // namespace

std::string prediction_table(const std::vector<schema::ConfigPrediction>& ps) {
  const std::string mode = mode_of(ps);
  const bool mixed = mode == "mixed";
  // The text columns are as wide as their widest cell (at least their usual width): a long label,
  // per-rank micro-batches or an OOM note must not push the numbers right of their headings.
  size_t lw = 34, mw = 11, pw = 10, cw = 17, fw = 4;
  for (const auto& p : ps) {
    lw = std::max(lw, label_of(p).size());
    mw = std::max(mw, micro_batch_of(p).size());
    pw = std::max(pw, p.config.placement.size());
    cw = std::max(cw, std::string(costmodel::to_string(p.config.collective)).size() + 1 +
                          std::string(costmodel::to_string(p.config.collective_level)).size());
    if (p.out_of_memory)
      fw =
          std::max(fw, fmt::format("OOM (max micro-batch {})", p.max_micro_batch_that_fits).size());
  }
  const auto row = [&](const std::string& label, const std::string& gpus, const std::string& mb,
                       const std::string& placement, const std::string& coll,
                       const std::vector<std::string>& numbers, const std::string& fit,
                       const std::vector<std::string>& tail) {
    return fmt::format(
        "{:<{}} {:>5} {:>{}} {:<{}} {:<{}} {:>7} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {:>7} {:>5} "
        "{:>7} {:<{}} {:>14} {:>9} {:>17}  {}\n",
        label, lw, gpus, mb, mw, placement, pw, coll, cw, numbers[0], numbers[1], numbers[2],
        numbers[3], numbers[4], numbers[5], numbers[6], numbers[7], numbers[8], numbers[9], fit, fw,
        tail[0], tail[1], tail[2], tail[3]);
  };
  std::string s = row("configuration", "gpus", "micro-batch", "placement", "collective",
                      {"steps", "step", "epoch", "compute", "comm", "max idle", "throughput",
                       "speedup", "eff", "memory"},
                      "fit",
                      {mode.empty() ? std::string("cost") : "cost (" + mode + ")", "energy",
                       "epoch p10-p90", "inputs (docs/uncertainty.md)"});
  s += row("", "count", "samples", "", "",
           {"/epoch", "s", "s", "s/step", "s/step", "s/step", "img/s", "x", "%", "GB"}, "",
           {"$/epoch", "kWh/epoch", "s", ""});
  for (const auto& p : ps) {
    const std::string coll = std::string(costmodel::to_string(p.config.collective)) + "/" +
                             costmodel::to_string(p.config.collective_level);
    const std::string gpus = std::to_string(p.config.gpus);
    const std::string memory = fmt::format("{:.2f}", max_memory_gb(p));
    if (p.out_of_memory) {
      s += row(label_of(p), gpus, micro_batch_of(p), p.config.placement, coll,
               {std::to_string(p.steps_per_epoch), "-", "-", "-", "-", "-", "-", "-", "-", memory},
               fmt::format("OOM (max micro-batch {})", p.max_micro_batch_that_fits),
               {"-", "-", "-", schema::provenance_summary(p.provenance)});
      continue;
    }
    const std::string speedup = p.speedup > 0 ? fmt::format("{:.2f}", p.speedup) : "-";
    const std::string eff =
        p.parallel_efficiency > 0 ? fmt::format("{:.0f}", 100 * p.parallel_efficiency) : "-";
    s += row(label_of(p), gpus, micro_batch_of(p), p.config.placement, coll,
             {std::to_string(p.steps_per_epoch), fmt::format("{:.4f}", p.step_time_s),
              fmt::format("{:.1f}", p.epoch_time_s), fmt::format("{:.4f}", p.compute_time_s),
              fmt::format("{:.4f}", p.exposed_comm_time_s), fmt::format("{:.4f}", max_idle(p)),
              fmt::format("{:.1f}", p.throughput_images_per_s), speedup, eff, memory},
             "ok",
             {epoch_usd(p, mixed), epoch_kwh(p),
              p.range ? fmt::format("{:.1f}-{:.1f}", p.range->epoch_time_s.p10,
                                    p.range->epoch_time_s.p90)
                      : std::string("-"),
              schema::provenance_summary(p.provenance)});
  }
  s += epoch_note(ps);
  s += cost_notes(ps, mode);
  const bool unverified = std::any_of(ps.begin(), ps.end(), [](const auto& p) {
    return p.cost && p.cost->price_status == "unverified";
  });
  if (unverified)
    s += "* cost from a price not checked against a dated copy of its page (platforms/prices.json "
         "`verified`): check it, or give your own with --price DEVICE=USD_PER_GPU_HOUR\n";
  return s;
}

std::string rank_table(const schema::ConfigPrediction& p) {
  // Times print to 0.1 ms: ranks within half of it of a row's first rank share the row (ring
  // positions a few microseconds apart would otherwise fill the table with rows that read
  // alike). The ranks and hosts columns are as wide as their widest cell, at least their
  // heading's usual width: a class of ranks over several ranges must not push the counts right.
  constexpr double kPrintedResolutionS = 1e-4;
  const auto groups = schema::group_identical_ranks(p.ranks, 0, kPrintedResolutionS / 2);
  std::vector<std::string> ranks;
  std::vector<std::string> hosts;
  size_t ranks_w = 22;
  size_t hosts_w = 34;
  for (const schema::RankGroup& g : groups) {
    ranks.push_back(schema::format_rank_ranges(g.ranks, 3));
    hosts.push_back(schema::format_hosts(g.hosts, 3));
    ranks_w = std::max(ranks_w, ranks.back().size());
    hosts_w = std::max(hosts_w, hosts.back().size());
  }
  auto row = [&](const std::string& rk, const std::string& count, const std::string& hs,
                 const std::string& rest) {
    return fmt::format("{:<{}} {:>6} {:<{}} {}\n", rk, ranks_w, count, hs, hosts_w, rest);
  };
  const char* head = "{:<10} {:>11} {:>9} {:>9} {:>9} {:>8} {:>8}";
  std::string s = row(
      "ranks", "count", "hosts",
      fmt::format(head, "device", "micro-batch", "compute", "comm", "idle", "memory", "device"));
  s += row("", "", "", fmt::format(head, "", "samples", "s/step", "s/step", "s/step", "GB", "GB"));
  for (size_t i = 0; i < groups.size(); ++i) {
    const schema::RankPrediction& r = groups[i].first;
    s += row(ranks[i], std::to_string(groups[i].count()), hosts[i],
             fmt::format("{:<10} {:>11} {:>9.4f} {:>9.4f} {:>9.4f} {:>8.2f} {:>8.2f}", r.device,
                         r.micro_batch, r.compute_time_s, r.exposed_comm_time_s, r.idle_time_s,
                         r.memory_bytes / 1e9, r.device_memory_bytes / 1e9));
  }
  return s;
}

std::string dump_with_head_first(const nlohmann::json& doc) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* head : {"schema", "schema_version", "context"}) {
    if (doc.contains(head)) out[head] = doc.at(head);
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!out.contains(it.key())) out[it.key()] = it.value();
  }
  return out.dump(2) + "\n";
}

}  // namespace vitsim::present
