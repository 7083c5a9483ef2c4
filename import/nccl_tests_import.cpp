// nccl-tests output -> profile (see nccl_tests_import.h and docs/calibration.md).
#include "import/nccl_tests_import.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include "costmodel/collective_op.h"
#include "schema/input_error.h"

namespace vitsim::import {
namespace {

// The rank count of one output: rank lines and --ranks must agree when both are there. Under
// --ranks N every rank line names a rank below N (each once, the parser checked): nccl-tests may
// truncate a long list, never name a rank the run did not have.
int64_t ranks_of(const NcclTestsOutput& o, const NcclImportOptions& opt) {
  for (size_t i = 0; opt.ranks && i < o.rank_ids.size(); ++i) {
    if (o.rank_ids[i] < *opt.ranks) continue;
    throw schema::InputError(
        o.file + ":" + std::to_string(o.rank_lines[i]) + ": expected a rank below " +
        std::to_string(*opt.ranks) + " (--ranks " + std::to_string(*opt.ranks) + "), got rank " +
        std::to_string(o.rank_ids[i]) + " (hint: a rank line was edited, or --ranks is wrong)");
  }
  const int64_t listed = o.ranks_from_rank_lines();
  if (opt.ranks && listed > 0 && *opt.ranks != listed) {
    throw schema::InputError(o.file + ": expected " + std::to_string(*opt.ranks) +
                             " ranks (--ranks), got " + std::to_string(listed) +
                             " in its \"#  Rank\" lines (hint: leave --ranks out)");
  }
  if (opt.ranks) return *opt.ranks;
  if (listed > 0) return listed;
  throw schema::InputError(
      o.file + ": expected the rank count, got " +
      (listed < 0 ? std::string("incomplete \"#  Rank\" lines") : std::string("no rank lines")) +
      " (hint: give --ranks N, the number of GPUs all_reduce_perf ran on)");
}

costmodel::CollectiveOp collective_of(const NcclTestsOutput& o) {
  if (o.collective == "reduce_scatter_perf") return costmodel::CollectiveOp::kReduceScatter;
  if (o.collective == "all_gather_perf") return costmodel::CollectiveOp::kAllGather;
  return costmodel::CollectiveOp::kAllReduce;  // said so, or not said (older outputs)
}

// busbw / algbw = 2(n-1)/n for an all-reduce, (n-1)/n for a reduce-scatter or an all-gather
// (schema::busbw_factor): a check of the rank count and of the collective, on rows whose algbw is
// large enough for its two printed decimals to tell. A reduce-scatter's or all-gather's rows
// imply the rank count themselves (size / count): it must be n too.
void check_bus_factor(const NcclTestsOutput& o, int64_t ranks) {
  const costmodel::CollectiveOp c = collective_of(o);
  if (c != costmodel::CollectiveOp::kAllReduce && o.blocks > 0 && o.blocks != ranks) {
    throw schema::InputError(o.file + ": expected rows of " + std::to_string(ranks) +
                             " ranks (size = count x element size x ranks), got " +
                             std::to_string(o.blocks) + " (hint: give --ranks N, or leave it out)");
  }
  const double f = costmodel::bus_factor(c, ranks);
  for (const auto& r : o.rows) {
    for (const NcclTestsTiming* t : {&r.out_of_place, &r.in_place}) {
      if (t->algbw_gb_per_s < 1.0) continue;
      if (std::fabs(t->busbw_gb_per_s - t->algbw_gb_per_s * f) > 0.02 + 0.005 * t->busbw_gb_per_s) {
        const double ratio = t->busbw_gb_per_s / t->algbw_gb_per_s;
        throw schema::InputError(
            o.file + ":" + std::to_string(r.line) + ": expected busbw = algbw x " +
            (c == costmodel::CollectiveOp::kAllReduce ? "2(n-1)/n = " : "(n-1)/n = ") +
            std::to_string(t->algbw_gb_per_s * f) + " GB/s for n = " + std::to_string(ranks) +
            ", got " + std::to_string(t->busbw_gb_per_s) + " (busbw/algbw " +
            std::to_string(ratio) + ") (hint: the rank count is wrong, or this is not an " +
            costmodel::label_of(c) + "; give --ranks N)");
      }
    }
  }
}

schema::AllreduceProfile entry_of(const NcclTestsOutput& o, int64_t ranks,
                                  const NcclImportOptions& opt, NcclImportSummary& s) {
  schema::AllreduceProfile a;
  a.link_class = opt.link_class;
  a.ranks = ranks;
  // Complete rank lines name each rank's host; without them, not known (1).
  if (static_cast<int64_t>(o.hosts.size()) == ranks)
    a.ranks_per_node = schema::fewest_ranks_per_host(o.hosts);
  a.backend = "nccl";
  const double f = costmodel::bus_factor(collective_of(o), ranks);
  for (const auto& r : o.rows) {
    if (r.size_bytes == 0) continue;  // no bandwidth to learn from
    const NcclTestsTiming& t = opt.in_place ? r.in_place : r.out_of_place;
    schema::AllreducePoint p;
    p.message_bytes = static_cast<double>(r.size_bytes);
    p.time_s = t.time_us * 1e-6;
    p.algbw_bytes_per_s = p.message_bytes / p.time_s;
    p.busbw_bytes_per_s = p.algbw_bytes_per_s * f;
    a.points.push_back(p);
  }
  if (a.points.empty())
    throw schema::InputError(o.file + ": expected rows of nonzero size, got only size 0");
  s.file = o.file;
  s.collective = costmodel::label_of(collective_of(o));
  s.ranks = ranks;
  s.points = static_cast<int64_t>(a.points.size());
  s.skipped_lines = o.skipped_lines;
  s.largest_bytes = a.points.back().message_bytes;
  s.largest_busbw_bytes_per_s = a.points.back().busbw_bytes_per_s;
  if (o.avg_busbw_gb_per_s) s.avg_busbw_bytes_per_s = *o.avg_busbw_gb_per_s * 1e9;
  return a;
}

void set_device(const std::vector<NcclTestsOutput>& outputs,
                const costmodel::DeviceCatalog& catalog, const NcclImportOptions& opt,
                schema::Profile& p) {
  std::string name;
  for (const auto& o : outputs) {
    if (name.empty() && !o.devices.empty()) name = o.devices.front();
  }
  p.device_name = name;
  const std::string wanted = opt.gpu.empty() ? name : opt.gpu;
  if (!opt.gpu.empty() && costmodel::match_device(catalog, opt.gpu).candidates.size() > 1)
    throw std::invalid_argument(costmodel::device_name_error(catalog, "--gpu", opt.gpu));
  if (const auto* d = wanted.empty() ? nullptr : catalog.find(wanted)) {
    p.device = d->id;
    if (p.device_name.empty()) p.device_name = d->name;
  } else {
    // An all-reduce-only profile's device is a record, not a key: keep what the output says.
    p.device = !opt.gpu.empty() ? opt.gpu : (name.empty() ? "unknown-gpu" : name);
  }
}

}  // namespace

NcclImportResult import_nccl_tests(const std::vector<NcclTestsOutput>& outputs,
                                   const costmodel::DeviceCatalog& catalog,
                                   const NcclImportOptions& opt) {
  if (opt.link_class.empty())
    throw std::invalid_argument("--link-class is required: the class the ranks talked over");
  if (opt.ranks && *opt.ranks < 2)
    throw std::invalid_argument("--ranks must be >= 2 (an all-reduce of one rank moves nothing)");
  if (outputs.empty()) throw std::invalid_argument("no nccl-tests output given");
  NcclImportResult r;
  r.profile.source = costmodel::CostSource::kImported;
  r.profile.precision = costmodel::Regime::kFp32;  // unused by all-reduce-only profiles
  set_device(outputs, catalog, opt, r.profile);
  std::set<std::pair<int, int64_t>> seen;  // (collective, ranks)
  for (const auto& o : outputs) {
    const int64_t ranks = ranks_of(o, opt);
    if (ranks < 2) throw schema::InputError(o.file + ": expected >= 2 ranks, got 1");
    check_bus_factor(o, ranks);
    const costmodel::CollectiveOp c = collective_of(o);
    if (!seen.insert({static_cast<int>(c), ranks}).second) {
      throw schema::InputError(o.file + ": expected one " + costmodel::label_of(c) +
                               " output per rank count, got a second one of " +
                               std::to_string(ranks) +
                               " ranks (hint: import them separately, or keep the better run)");
    }
    NcclImportSummary s;
    schema::AllreduceProfile entry = entry_of(o, ranks, opt, s);
    (c == costmodel::CollectiveOp::kReduceScatter ? r.profile.reduce_scatter
     : c == costmodel::CollectiveOp::kAllGather   ? r.profile.all_gather
                                                  : r.profile.allreduce)
        .push_back(std::move(entry));
    r.summaries.push_back(s);
  }
  return r;
}

}  // namespace vitsim::import
