// Host-subset and device search; see subset_search.h.
#include "plan/subset_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "costmodel/buckets.h"
#include "schema/cluster_fabric.h"
#include "schema/input_error.h"
#include "schema/rank_groups.h"
#include "sim/placement.h"

namespace vitsim::plan {
namespace {

std::string class_key(const sim::NodeInstance& n) {
  std::string devices;
  for (const auto& d : *n.gpu_devices) devices += (devices.empty() ? "" : "+") + d;
  const schema::NodeSpec& s = *n.spec;
  return fmt::format("{} | nic {} {:g} B/s{} | {} {:g} B/s", devices, s.nic.link_class,
                     s.nic.bandwidth_bytes_per_s, s.nic_per_gpu ? " per GPU" : "",
                     s.intra_node.kind, s.intra_node.link.bandwidth_bytes_per_s);
}

// One candidate: counts per class -> explicit hosts (each host once per GPU).
schema::TrainingConfig config_for(const SubsetSearch& s, const std::vector<HostClass>& classes,
                                  const std::vector<int64_t>& counts,
                                  const std::map<std::string, int64_t>& gpus_of,
                                  const std::string& device) {
  schema::TrainingConfig c = s.base;
  c.hosts.clear();
  c.per_rank_micro_batch.clear();
  c.gpus_per_node.reset();
  std::vector<std::string> used;
  for (size_t k = 0; k < classes.size(); ++k) {
    for (int64_t i = 0; i < counts[k]; ++i) {
      const std::string& h = classes[k].hosts[static_cast<size_t>(i)];
      for (int64_t g = 0; g < gpus_of.at(h); ++g) c.hosts.push_back(h);
      used.push_back(h);
    }
  }
  c.gpus = static_cast<int64_t>(c.hosts.size());
  // Runs of numbered hosts as ranges ("h200-0..h200-19"): a 20-host subset's label stays short,
  // and its table column with it.
  c.label = (s.base.label.empty() ? "" : s.base.label + ": ") +
            (device.empty() ? "" : device + " on ") + schema::format_host_ranges(used);
  return c;
}

// Speed-up and efficiency against the fastest 1-GPU candidate (the best one of these GPUs does
// alone), through the rule's one home (sim::apply_speedups, costmodel::speedups: the first 1-GPU
// run in the order given is the baseline, so that candidate goes first). Mixed devices make "the"
// 1-GPU baseline ambiguous; the fastest is the one a user would compare against.
void speedups_against_fastest_single(std::vector<schema::ConfigPrediction>& all) {
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < all.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool a1 = all[a].config.gpus == 1 && !all[a].out_of_memory;
    const bool b1 = all[b].config.gpus == 1 && !all[b].out_of_memory;
    if (a1 != b1) return a1;
    return a1 && all[a].throughput_images_per_s > all[b].throughput_images_per_s;
  });
  sim::apply_speedups(all, order);
}

struct Evaluator {
  const SubsetSearch& s;
  const std::vector<HostClass>& classes;
  const std::map<std::string, int64_t>& gpus_of;
  const schema::ClusterSpec& cluster;  // with the device already replaced
  const std::string& device;
  const costmodel::DeviceCatalog& catalog;
  const costmodel::ViTConfig& model;
  const costmodel::CostModel& costs;
  const sim::SimOptions& options;
  const std::function<void(schema::ConfigPrediction&)>& attach_cost;
  SubsetResult& out;

  // Index of the new prediction, or -1 when it cannot run.
  int run(const std::vector<int64_t>& counts) {
    const schema::TrainingConfig c = config_for(s, classes, counts, gpus_of, device);
    try {
      schema::ConfigPrediction p = sim::predict(cluster, catalog, model, c, costs, options);
      if (attach_cost) attach_cost(p);
      out.predictions.configurations.push_back(std::move(p));
      out.requested.push_back(true);
      return static_cast<int>(out.predictions.configurations.size()) - 1;
    } catch (const std::invalid_argument& e) {
      out.skipped.push_back(c.label + ": " + e.what());
    } catch (const schema::InputError& e) {
      out.skipped.push_back(c.label + ": " + e.what());
    }
    return -1;
  }

  void exhaustive() {
    std::vector<int64_t> counts(classes.size(), 0);
    for (;;) {
      size_t k = 0;  // odometer over counts[k] in 0..size of class k
      while (k < counts.size() && counts[k] == static_cast<int64_t>(classes[k].hosts.size()))
        counts[k++] = 0;
      if (k == counts.size()) return;
      ++counts[k];
      run(counts);
    }
  }

  // Backward elimination from every host; each round tries dropping one host of each class.
  void greedy() {
    std::vector<int64_t> counts;
    for (const auto& c : classes) counts.push_back(static_cast<int64_t>(c.hosts.size()));
    int current = run(counts);
    for (;;) {
      int best = -1;
      size_t best_class = 0;
      for (size_t k = 0; k < counts.size(); ++k) {
        if (counts[k] == 0) continue;
        std::vector<int64_t> fewer = counts;
        --fewer[k];
        if (std::all_of(fewer.begin(), fewer.end(), [](int64_t n) { return n == 0; })) continue;
        const int i = run(fewer);
        if (i < 0) continue;
        speedups_against_fastest_single(out.predictions.configurations);
        const std::vector<bool> two = pair_mask(current, i, best);
        const BestPick pick = pick_best(out.predictions.configurations, two, s.goal, s.limits);
        if (pick.best == i) best = i, best_class = k;
      }
      if (best < 0) return;
      current = best;
      --counts[best_class];
    }
  }

  // Only `a`, `b` and `c` (where >= 0) as candidates.
  std::vector<bool> pair_mask(int a, int b, int c) const {
    std::vector<bool> m(out.predictions.configurations.size(), false);
    for (int i : {a, b, c}) {
      if (i >= 0) m[static_cast<size_t>(i)] = true;
    }
    return m;
  }
};

}  // namespace

std::vector<HostClass> host_classes(const schema::ClusterSpec& cluster,
                                    const std::vector<std::string>& hosts) {
  const std::vector<sim::NodeInstance> nodes = sim::expand_nodes(cluster);
  std::map<std::string, const sim::NodeInstance*> by_name;
  for (const auto& n : nodes) by_name[n.host] = &n;
  std::vector<std::string> wanted = hosts;
  if (wanted.empty()) {
    for (const auto& n : nodes) wanted.push_back(n.host);
  }
  std::vector<HostClass> out;
  std::set<std::string> seen;
  for (const auto& h : wanted) {
    auto it = by_name.find(h);
    if (it == by_name.end())
      throw std::invalid_argument("--hosts-from: host '" + h + "' is not in cluster " +
                                  cluster.name);
    if (!seen.insert(h).second)
      throw std::invalid_argument("--hosts-from: host '" + h + "' is listed twice");
    const std::string key = class_key(*it->second);
    auto c = std::find_if(out.begin(), out.end(), [&](const auto& x) { return x.key == key; });
    if (c == out.end()) {
      out.push_back({key, {}});
      c = out.end() - 1;
    }
    c->hosts.push_back(h);
  }
  return out;
}

schema::ClusterSpec with_device(const schema::ClusterSpec& cluster, const std::string& device,
                                const costmodel::DeviceCatalog& catalog) {
  schema::ClusterSpec out = cluster;
  // The merged catalog lives as long as `spec`, which points into it.
  const costmodel::DeviceCatalog devices = costmodel::with_devices(catalog, cluster.devices);
  const costmodel::DeviceSpec* spec = devices.find(device);
  for (auto& n : out.nodes) schema::replace_gpus(n, device, spec, cluster.name);
  return out;
}

SubsetResult search_subsets(const SubsetSearch& s, const schema::ClusterSpec& cluster,
                            const costmodel::DeviceCatalog& catalog,
                            const costmodel::ViTConfig& model, const costmodel::CostModel& costs,
                            const sim::SimOptions& options,
                            const std::function<void(schema::ConfigPrediction&)>& attach_cost) {
  SubsetResult out;
  out.predictions.scenario = "subset-search";
  const std::vector<HostClass> classes = host_classes(cluster, s.hosts);
  std::map<std::string, int64_t> gpus_of;
  for (const auto& n : sim::expand_nodes(cluster)) gpus_of[n.host] = static_cast<int64_t>(n.gpus());
  out.combinations = 1;
  for (const auto& c : classes) {
    out.combinations *= static_cast<int64_t>(c.hosts.size()) + 1;
    if (out.combinations > s.max_exhaustive) break;
  }
  out.combinations -= 1;  // not the empty subset
  out.greedy = out.combinations >= s.max_exhaustive;
  sim::SimOptions one = options;
  one.trace_path.clear();
  const std::vector<std::string> devices =
      s.devices.empty() ? std::vector<std::string>{""} : s.devices;
  const std::vector<schema::TrainingConfig> variants =
      s.variants.empty() ? std::vector<schema::TrainingConfig>{s.base} : s.variants;
  for (const auto& d : devices) {
    const schema::ClusterSpec cl = d.empty() ? cluster : with_device(cluster, d, catalog);
    for (size_t i = 0; i < cl.nodes.size(); ++i) {
      const schema::IntraNodeFabric& was = cluster.nodes[i].intra_node;
      const schema::IntraNodeFabric& now = cl.nodes[i].intra_node;
      if (now.kind == was.kind && now.link.bandwidth_bytes_per_s == was.link.bandwidth_bytes_per_s)
        continue;
      out.fabric_changes.push_back(
          {d, schema::node_host_names(cluster.nodes[i]).front(), was, now});
      break;
    }
    for (const schema::TrainingConfig& v : variants) {
      SubsetSearch with = s;
      with.base = v;
      Evaluator e{with, classes, gpus_of, cl, d, catalog, model, costs, one, attach_cost, out};
      if (out.greedy)
        e.greedy();
      else
        e.exhaustive();
    }
  }
  speedups_against_fastest_single(out.predictions.configurations);
  return out;
}

std::vector<schema::TrainingConfig> subset_variants(const SweepSpec& spec) {
  std::vector<schema::TrainingConfig> out;
  for (costmodel::Regime p : precisions_of(spec))
    for (int64_t b : spec.micro_batches) {
      schema::TrainingConfig base = spec.base;
      base.precision = p;
      base.micro_batch = b;
      for (schema::TrainingConfig& c : run_variants(spec, base, false)) out.push_back(std::move(c));
    }
  if (out.size() == 1) out.front().label.clear();
  return out;
}

SubsetSearch subset_search_of(const SweepSpec& spec, const std::vector<std::string>& hosts,
                              const std::vector<std::string>& devices) {
  SubsetSearch s;
  s.hosts = hosts;
  s.devices = devices;
  s.base = spec.base;
  s.variants = subset_variants(spec);
  s.goal = spec.goal;
  s.limits = spec.limits;
  return s;
}

SweepResult as_sweep_result(SubsetResult found) {
  SweepResult r;
  r.predictions = std::move(found.predictions);
  r.requested = std::move(found.requested);
  r.skipped = std::move(found.skipped);
  return r;
}

}  // namespace vitsim::plan
