// The link fit of a calibration: one alpha-beta fit per link class from the profiles' all-reduce
// benchmarks (ring form, docs/cost-model.md section 3), each message divided among NCCL's channels
// where a ring ran over hosts with a NIC per GPU, repeats averaged and checked (repeat_check.h),
// the latency prior taken from the cluster files' datasheet figures, and a fit per ring shape where
// a class was measured at two or more shapes. Not the reduce-scatter and all-gather fits
// (sharding_fit.h), nor the device costs (pipeline.h).
#include "calibrate/link_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "calibrate/block_spread.h"
#include "calibrate/burst_credit.h"
#include "calibrate/cost_fit.h"
#include "calibrate/repeat_check.h"
#include "costmodel/collective_ring.h"

namespace vitsim::calibrate {

using costmodel::CostSource;

namespace {

// Distinct message sizes among `pts`.
size_t message_sizes(const std::vector<AllreduceSample>& pts) {
  std::set<double> sizes;
  for (const auto& p : pts) sizes.insert(p.message_bytes);
  return sizes.size();
}

// Said after a fit's count of points where some were measured more than once (average_repeats).
std::string repeats_note(size_t measured, size_t points, double spread_rel) {
  if (measured == points) return "";
  return fmt::format(
      " ({} measurements; a point measured more than once at its mean, the "
      "repeats at most {:.1f}% apart)",
      measured, 100 * spread_rel);
}

// One alpha-beta fit per ring shape of a class measured at two or more shapes, each with two or
// more message sizes (docs/cost-model.md, section 3, "By ring shape"); `class_latency_s` is the
// prior where a shape's points cannot determine the latency. A shape left to the class fit is
// named in `notes`.
std::vector<costmodel::RingLinkCost> fit_rings(
    const std::string& link_class,
    const std::map<std::pair<int64_t, int64_t>, std::vector<AllreduceSample>>& shapes,
    double class_latency_s, std::vector<std::string>& notes) {
  std::vector<costmodel::RingLinkCost> rings;
  if (shapes.size() < 2) return rings;
  for (const auto& [shape, measured] : shapes) {
    double spread_rel = 0;
    const std::vector<AllreduceSample> pts = average_repeats(measured, &spread_rel);
    const std::string which = fmt::format("link {}: the ring of {} ranks, {} per node", link_class,
                                          shape.first, shape.second);
    if (message_sizes(pts) < 2) {
      notes.push_back(which + " was measured at one message size: it takes the class fit");
      continue;
    }
    AlphaBetaFit f;
    try {
      f = fit_alpha_beta(pts, class_latency_s);
    } catch (const std::invalid_argument&) {
      notes.push_back(fmt::format(
          "{} has points below the class fit's latency ({:.1f} us a step): it takes the class fit",
          which, class_latency_s * 1e6));
      continue;
    }
    costmodel::RingLinkCost r;
    r.ranks = shape.first;
    r.ranks_per_node = shape.second;
    r.latency_s = f.latency_s;
    r.bandwidth_bytes_per_s = f.bandwidth_bytes_per_s;
    r.uncertainty_rel = f.residual_rel;
    r.derived_from = fmt::format(
        "alpha-beta fit of the {} point(s){} measured at {} ranks, {} per node; {}; residual "
        "{:.2f}%",
        pts.size(), repeats_note(measured.size(), pts.size(), spread_rel), r.ranks,
        r.ranks_per_node, f.latency_fitted ? "latency fitted" : "latency = the class fit's",
        100 * f.residual_rel);
    rings.push_back(r);
  }
  return rings;
}

}  // namespace

std::vector<costmodel::LinkCost> fit_links(const std::vector<schema::ProfileInput>& profiles,
                                           const CalibrateOptions& o,
                                           std::vector<std::string>& notes,
                                           std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<AllreduceSample>> samples;
  std::map<std::string, std::vector<SourcedSample>> sourced;  // the same, with their files
  // The same points by ring shape (ranks, ranks per node) within each class.
  std::map<std::string, std::map<std::pair<int64_t, int64_t>, std::vector<AllreduceSample>>>
      by_ring;
  std::map<std::string, std::string> files;
  std::map<std::string, bool> measured;
  std::map<std::string, int64_t> most_channels;
  std::map<std::string, BlockSpread> blocks;
  std::map<std::string, double> most_credit_s;  // the most credit put back into a point
  for (const auto& in : profiles) {
    for (const auto& a : in.profile.allreduce) {
      // A ring over hosts with a NIC per GPU ran NCCL's channels, each through its own NIC:
      // the class's link (one NIC) carried 1/channels of every message.
      const int64_t channels =
          nic_per_gpu_class(o.clusters, a.link_class)
              ? costmodel::ring_channels(a.ranks / a.ranks_per_node, a.ranks_per_node)
              : 1;
      most_channels[a.link_class] = std::max(most_channels[a.link_class], channels);
      // The bucket's credit back in (burst_credit.h): the simulator grants it itself.
      for (const AllreduceSample& x :
           credited_samples(in.profile, a, costmodel::CollectiveOp::kAllReduce, channels,
                            o.clusters, most_credit_s[a.link_class])) {
        samples[a.link_class].push_back(x);
        sourced[a.link_class].push_back({x, a.ranks_per_node, in.file});
        by_ring[a.link_class][{a.ranks, a.ranks_per_node}].push_back(x);
      }
      for (const auto& p : a.points) blocks[a.link_class].add(p, in.file);
      std::string& f = files[a.link_class];
      if (f.find(in.file) == std::string::npos) f += (f.empty() ? "" : ", ") + in.file;
      measured[a.link_class] = measured[a.link_class] || in.profile.source == CostSource::kMeasured;
    }
  }
  std::vector<costmodel::LinkCost> links;
  for (const auto& [cls, measured_pts] : samples) {
    for (auto& w : check_repeats(cls, sourced[cls])) warnings.push_back(std::move(w));
    double spread_rel = 0;
    const std::vector<AllreduceSample> pts = average_repeats(measured_pts, &spread_rel);
    const auto prior = datasheet_latency_s(o.clusters, cls);
    const AlphaBetaFit f = fit_alpha_beta(pts, prior.value_or(0.0));
    costmodel::LinkCost l;
    l.link_class = cls;
    l.latency_s = f.latency_s;
    l.bandwidth_bytes_per_s = f.bandwidth_bytes_per_s;
    l.source = measured[cls] ? CostSource::kMeasured : CostSource::kImported;
    // The fit's residual (how well the form holds the points) and the link's own variation
    // (docs/uncertainty.md, "link, measured"), independent: in quadrature.
    l.uncertainty_rel = std::hypot(f.residual_rel, blocks[cls].rel());
    l.derived_from = fmt::format(
        "alpha-beta fit (ring: 2(N-1)/N*M/bw + 2(N-1)*lat) of {} point(s){} from [{}]{}; {}; "
        "residual {:.2f}%{}",
        pts.size(), repeats_note(measured_pts.size(), pts.size(), spread_rel), files[cls],
        most_channels[cls] > 1
            ? fmt::format(" (rings over hosts with a NIC per GPU: M / {} channels per NIC)",
                          most_channels[cls])
            : std::string(),
        f.latency_fitted ? "latency fitted"
                         : (prior ? fmt::format("latency = datasheet {:.1f} us of the cluster file "
                                                "(the points cannot determine it)",
                                                *prior * 1e6)
                                  : std::string("latency = 0 (no cluster file names this class)")),
        100 * f.residual_rel, blocks[cls].text());
    l.derived_from += credit_text(most_credit_s[cls], link_bucket(o.clusters, cls));
    if (!f.latency_fitted && !prior) notes.push_back("link " + cls + ": latency unknown, set to 0");
    l.rings = fit_rings(cls, by_ring[cls], f.latency_s, notes);
    for (auto& r : l.rings) {  // a shape's points are the class's: the class's pooled spread
      r.uncertainty_rel = std::hypot(r.uncertainty_rel, blocks[cls].rel());
      r.derived_from += blocks[cls].text();
    }
    links.push_back(l);
  }
  return links;
}

bool nic_per_gpu_class(const std::vector<schema::ClusterSpec>& clusters,
                       const std::string& link_class) {
  for (const auto& c : clusters) {
    for (const auto& n : c.nodes) {
      if (n.nic_per_gpu && n.nic.link_class == link_class) return true;
    }
  }
  return false;
}

std::optional<double> datasheet_latency_s(const std::vector<schema::ClusterSpec>& clusters,
                                          const std::string& link_class) {
  for (const auto& c : clusters) {
    std::vector<const schema::LinkSpec*> links = {&c.network.switch_link};
    for (const auto& n : c.nodes) {
      links.push_back(&n.nic);
      links.push_back(&n.intra_node.link);
    }
    for (const auto* l : links) {
      if (l->link_class == link_class) return l->latency_s;
    }
  }
  return std::nullopt;
}

}  // namespace vitsim::calibrate
