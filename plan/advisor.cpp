// The simulated what-ifs; see advisor.h.
#include "plan/advisor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "costmodel/buckets.h"
#include "plan/sweep_goal.h"
#include "schema/input_error.h"

namespace vitsim::plan {
namespace {

// One what-if before it is simulated: the changed cluster and configuration.
struct Candidate {
  std::string what_if;
  schema::Json change = schema::Json::object();
  schema::ClusterSpec cluster;
  schema::TrainingConfig config;
};

std::string host_of_link(const std::string& link) {
  return link.substr(0, link.find('.'));
}

// Hosts the step waits on: the slowest rank's, then the top link's (when it is a node's).
std::vector<std::string> suspect_hosts(const schema::ConfigPrediction& p) {
  std::vector<std::string> out;
  const auto slow = std::max_element(p.ranks.begin(), p.ranks.end(), [](auto& a, auto& b) {
    return a.compute_time_s < b.compute_time_s;
  });
  const auto fast = std::min_element(p.ranks.begin(), p.ranks.end(), [](auto& a, auto& b) {
    return a.compute_time_s < b.compute_time_s;
  });
  if (slow->compute_time_s > fast->compute_time_s) out.push_back(slow->host);
  if (p.breakdown && !p.breakdown->exposed_comm_by_link.empty()) {
    const auto& links = p.breakdown->exposed_comm_by_link;
    const std::string h = host_of_link(links.front().link);
    // Only a host whose link stands out: when links of many hosts are saturated together, no one
    // host holds the step back.
    for (const auto& l : links) {
      if (host_of_link(l.link) != h && l.seconds >= 0.95 * links.front().seconds) return out;
    }
    const bool is_rank_host =
        std::any_of(p.ranks.begin(), p.ranks.end(), [&](auto& r) { return r.host == h; });
    if (is_rank_host && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

void drop_host(const AdviceRequest& q, const std::string& host, std::vector<Candidate>& out) {
  Candidate c{"drop host " + host, schema::Json::object(), *q.cluster, *q.config};
  c.config.hosts.clear();
  c.config.per_rank_micro_batch.clear();
  c.config.gpus_per_node.reset();
  const auto& ranks = q.base->ranks;
  for (const auto& r : ranks) {
    if (r.host == host) continue;
    c.config.hosts.push_back(r.host);
    if (!q.config->per_rank_micro_batch.empty())
      c.config.per_rank_micro_batch.push_back(r.micro_batch);
  }
  if (c.config.hosts.empty() || c.config.hosts.size() == ranks.size()) return;
  c.config.gpus = static_cast<int64_t>(c.config.hosts.size());
  c.change = {{"hosts", c.config.hosts}, {"gpus", c.config.gpus}};
  out.push_back(std::move(c));
}

// The node entry (index into cluster.nodes) that `host` expands from; -1 when none.
int node_entry_of(const schema::ClusterSpec& cluster, const std::string& host) {
  const schema::NodeSpec* n = schema::node_of_host(cluster, host);
  return n == nullptr ? -1 : static_cast<int>(n - cluster.nodes.data());
}

// The fastest NIC of another node of the cluster, given to `host` (to every host of its
// template when it is one).
void faster_nic(const AdviceRequest& q, const std::string& host, std::vector<Candidate>& out) {
  const int e = node_entry_of(*q.cluster, host);
  if (e < 0) return;
  const schema::NodeSpec& node = q.cluster->nodes[static_cast<size_t>(e)];
  const schema::LinkSpec* best = nullptr;
  for (const auto& n : q.cluster->nodes) {
    if (n.nic.bandwidth_bytes_per_s > (best ? best : &node.nic)->bandwidth_bytes_per_s &&
        n.nic.link_class != node.nic.link_class)
      best = &n.nic;
  }
  if (best == nullptr) return;
  const bool all = node.is_template && node.count > 1;
  Candidate c{(all ? "give every " + node.name + " node" : "give " + host) + " a " +
                  best->link_class + " NIC (as other nodes have)",
              schema::Json::object(), *q.cluster, *q.config};
  c.cluster.nodes[static_cast<size_t>(e)].nic = *best;
  c.change = {{"node", node.name}, {"nic_link_class", best->link_class}};
  out.push_back(std::move(c));
}

// The stragglers' micro-batch scaled down by their compute against the fastest rank's.
void lower_micro_batch(const AdviceRequest& q, std::vector<Candidate>& out) {
  const auto& ranks = q.base->ranks;
  double fastest = ranks.front().compute_time_s;
  for (const auto& r : ranks) fastest = std::min(fastest, r.compute_time_s);
  Candidate c{"", schema::Json::object(), *q.cluster, *q.config};
  bool changed = false;
  std::string who;
  std::set<std::string> named;
  for (const auto& r : ranks) {
    int64_t mb = r.micro_batch;
    if (r.compute_time_s > 1.05 * fastest) {
      mb = std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(mb) * fastest /
                                                                r.compute_time_s)));
    }
    // Named with the value, as the user would type it ("tesla0 to 4"), once per host.
    if (mb < r.micro_batch && named.insert(r.host).second)
      who += (who.empty() ? "" : ", ") + r.host + " to " + std::to_string(mb);
    changed = changed || mb < r.micro_batch;
    c.config.per_rank_micro_batch.push_back(mb);
  }
  if (!changed) return;
  c.what_if = "lower the micro-batch of " + who;
  c.change = {{"per_rank_micro_batch", c.config.per_rank_micro_batch}};
  out.push_back(std::move(c));
}

void overlap_smaller_buckets(const AdviceRequest& q, std::vector<Candidate>& out) {
  const bool small = q.config->bucket_bytes <= kAdviceBucketBytes;
  if (q.config->overlap && small) return;
  Candidate c{"overlap the all-reduce with the backward, 25 MiB buckets", schema::Json::object(),
              *q.cluster, *q.config};
  c.config.overlap = true;
  c.config.bucket_bytes = std::min(q.config->bucket_bytes, kAdviceBucketBytes);
  c.change = {{"overlap", true}, {"bucket_bytes", c.config.bucket_bytes}};
  out.push_back(std::move(c));
}

void other_collectives(const AdviceRequest& q, std::vector<Candidate>& out) {
  for (const auto& named : costmodel::kCollectiveNames) {
    const costmodel::Collective k = named.value;
    if (k == q.config->collective) continue;
    Candidate c{std::string("all-reduce with the ") + costmodel::to_string(k) + " collective",
                schema::Json::object(), *q.cluster, *q.config};
    c.config.collective = k;
    c.change = {{"collective", costmodel::to_string(k)}};
    out.push_back(std::move(c));
  }
}

std::vector<Candidate> candidates(const AdviceRequest& q) {
  std::vector<Candidate> out;
  const std::vector<std::string> hosts = suspect_hosts(*q.base);
  for (const auto& h : hosts) drop_host(q, h, out);
  for (const auto& h : hosts) faster_nic(q, h, out);
  lower_micro_batch(q, out);
  overlap_smaller_buckets(q, out);
  other_collectives(q, out);
  return out;
}

}  // namespace

std::vector<schema::WhatIf> advise(const AdviceRequest& q, size_t keep) {
  if (q.base->out_of_memory || q.base->ranks.empty() || !(q.base->epoch_time_s > 0)) return {};
  sim::SimOptions options = *q.options;
  options.trace_path.clear();  // the base run's trace stays the only one
  std::vector<schema::WhatIf> tried;
  std::vector<schema::ConfigPrediction> predictions;
  const std::vector<Candidate> all = candidates(q);
  for (size_t k = 0; k < all.size(); ++k) {
    const Candidate& c = all[k];
    if (q.progress && k > 0) q.progress(k, all.size());
    schema::ConfigPrediction p;
    try {
      p = sim::predict(c.cluster, *q.catalog, *q.model, c.config, *q.costs, options);
    } catch (const std::invalid_argument&) {
      continue;  // does not apply here (e.g. hierarchical on one GPU per node)
    } catch (const schema::InputError&) {
      continue;
    }
    if (p.out_of_memory || !(p.epoch_time_s > 0)) continue;
    tried.push_back({c.what_if, c.change, p.step_time_s, p.epoch_time_s,
                     p.epoch_time_s / q.base->epoch_time_s - 1.0});
    predictions.push_back(std::move(p));
  }
  if (q.progress && !all.empty()) q.progress(all.size(), all.size());
  // The what-ifs keep the data and never grow the global batch: the goal's order is the epoch's.
  std::vector<Rejected> flagged;
  std::vector<int> order = rank_for_goal(predictions, std::vector<bool>(predictions.size(), true),
                                         SweepGoal::kFastestEpoch, GoalLimits{}, &flagged);
  for (const Rejected& r : flagged) order.push_back(r.index);
  std::vector<schema::WhatIf> helps, rest;
  for (int i : order) {
    const schema::WhatIf& w = tried[static_cast<size_t>(i)];
    if (w.epoch_change_rel < 0 && helps.size() < keep)
      helps.push_back(w);
    else if (!(w.epoch_change_rel < 0))
      rest.push_back(w);
  }
  helps.insert(helps.end(), rest.begin(), rest.end());
  return helps;
}

}  // namespace vitsim::plan
