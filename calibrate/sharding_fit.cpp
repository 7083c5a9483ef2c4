// Fits of sharding's costs; see sharding_fit.h and docs/sharding.md ("Simulated").
#include "calibrate/sharding_fit.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "calibrate/block_spread.h"
#include "calibrate/burst_credit.h"
#include "calibrate/cost_fit.h"
#include "calibrate/link_fit.h"
#include "costmodel/collective_ring.h"
#include "costmodel/sharding.h"

namespace vitsim::calibrate {
namespace {

using costmodel::CollectiveOp;

// The benchmarks of `op` in a profile.
const std::vector<schema::AllreduceProfile>& benchmarks(const schema::Profile& p, CollectiveOp op) {
  return op == CollectiveOp::kReduceScatter ? p.reduce_scatter : p.all_gather;
}

// One operation's points per link class, as fit_links reads the all-reduce's: a ring over hosts
// with a NIC per GPU ran NCCL's channels, each class link carrying 1/channels of the message.
struct OperationPoints {
  std::vector<AllreduceSample> points;
  std::string files;
  double most_credit_s = 0;  // the most token-bucket credit put back into a point
  BlockSpread blocks;        // the benchmarks' run-to-run spread, as the all-reduce's
};

std::map<std::string, OperationPoints> operation_points(
    const std::vector<schema::ProfileInput>& profiles, const CalibrateOptions& o, CollectiveOp op) {
  std::map<std::string, OperationPoints> out;
  for (const auto& in : profiles) {
    for (const auto& a : benchmarks(in.profile, op)) {
      const int64_t channels =
          nic_per_gpu_class(o.clusters, a.link_class)
              ? costmodel::ring_channels(a.ranks / a.ranks_per_node, a.ranks_per_node)
              : 1;
      OperationPoints& pts = out[a.link_class];
      // The bucket's credit back in, as the all-reduce's (burst_credit.h).
      for (const AllreduceSample& x :
           credited_samples(in.profile, a, op, channels, o.clusters, pts.most_credit_s))
        pts.points.push_back(x);
      for (const auto& p : a.points) pts.blocks.add(p, in.file);
      if (pts.files.find(in.file) == std::string::npos)
        pts.files += (pts.files.empty() ? "" : ", ") + in.file;
    }
  }
  return out;
}

}  // namespace

std::string fit_sharding_costs(const std::vector<const schema::ProfileInput*>& group,
                               costmodel::DeviceCosts& c) {
  const costmodel::LayerGraph graph = build_layer_graph(c.model);
  const std::vector<costmodel::ShardUnit> units = costmodel::sharding_units(graph, 1);
  // vitsim-train times the gather and free of the first block (trainer/unit_profile.cpp).
  const double block = units.size() > 2 ? static_cast<double>(units[1].parameters) : 0;
  std::vector<FitPoint> recompute, gather, release;
  for (const auto* in : group) {
    for (const auto& m : in->profile.compute) {
      const double b = static_cast<double>(m.micro_batch);
      if (m.recompute_time_s && *m.recompute_time_s > 0)
        recompute.push_back({b, *m.recompute_time_s});
      if (block > 0 && m.unit_gather_time_s) gather.push_back({block, *m.unit_gather_time_s});
      if (block > 0 && m.unit_free_time_s) release.push_back({block, *m.unit_free_time_s});
    }
  }
  std::string clause;
  if (!recompute.empty()) {
    const CostFit f = fit_batch_cost(recompute);
    c.recompute = f.cost;
    clause += fmt::format(
        "; recomputation of the checkpointed blocks: {} fit of {} point(s), "
        "residual {:.2f}%",
        f.form, f.points, 100 * f.residual_rel);
  }
  if (!gather.empty()) c.unit_gather = fit_proportional(gather).cost;
  if (!release.empty()) c.unit_free = fit_proportional(release).cost;
  if (c.unit_gather || c.unit_free) {
    clause += fmt::format(
        "; a unit's local gather {:.3f} ms and free {:.4f} ms per block of {:.0f} parameters "
        "(proportional to parameters)",
        c.unit_gather ? c.unit_gather->at(block) * 1e3 : 0.0,
        c.unit_free ? c.unit_free->at(block) * 1e3 : 0.0, block);
  }
  return clause;
}

void fit_operation_links(const std::vector<schema::ProfileInput>& profiles,
                         const CalibrateOptions& options, std::vector<costmodel::LinkCost>& links,
                         std::vector<std::string>& notes) {
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    for (const auto& [cls, measured] : operation_points(profiles, options, op)) {
      costmodel::LinkCost* link = nullptr;
      for (auto& l : links) {
        if (l.link_class == cls) link = &l;
      }
      if (link == nullptr) {
        notes.push_back(fmt::format(
            "link {}: {} benchmarked but no all-reduce: not used (the simulated platform's link "
            "figures are the all-reduce's; benchmark it too)",
            cls, costmodel::label_of(op)));
        continue;
      }
      double spread_rel = 0;
      const std::vector<AllreduceSample> pts = average_repeats(measured.points, &spread_rel);
      AlphaBetaFit f;
      try {
        f = fit_alpha_beta(pts, link->latency_s, op);
      } catch (const std::invalid_argument&) {
        f = fit_alpha_beta(pts, 0.0, op);  // points below the all-reduce's latency: none
      }
      costmodel::OperationLinkCost o;
      o.op = op;
      o.latency_s = f.latency_s;
      o.bandwidth_bytes_per_s = f.bandwidth_bytes_per_s;
      // The fit's residual and the benchmarks' own variation, in quadrature, as the all-reduce's
      // (link_fit.cpp; docs/uncertainty.md, "link, measured").
      o.uncertainty_rel = std::hypot(f.residual_rel, measured.blocks.rel());
      o.derived_from = fmt::format(
          "alpha-beta fit ({}: (N-1)/N*M/bw + (N-1)*lat) of {} point(s) from [{}]; {}; residual "
          "{:.2f}%",
          costmodel::label_of(op), pts.size(), measured.files,
          f.latency_fitted ? "latency fitted" : "latency = the all-reduce fit's",
          100 * f.residual_rel);
      o.derived_from += measured.blocks.text();
      o.derived_from += credit_text(measured.most_credit_s, link_bucket(options.clusters, cls));
      link->operations.push_back(o);
    }
  }
}

}  // namespace vitsim::calibrate
