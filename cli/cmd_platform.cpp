// vitsim platform: check a cluster file (format, devices), print its nodes and links, and with
// --export-xml write the SimGrid XML platform equivalent to the one vitsim builds in C++.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/run_app.h"
#include "schema/cost_model_io.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/transports_io.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"
#include "sim/platform_xml.h"
#include "sim/simulator.h"

namespace vitsim::cli {

namespace {

// One row per host: its GPUs and NIC (the first 24; a template's hosts share one entry's figures),
// and the NIC's token bucket where a node has one (docs/formats/cluster.md, burst_bytes).
void print_nodes(const schema::ClusterSpec& cluster) {
  const bool bursts = std::any_of(cluster.nodes.begin(), cluster.nodes.end(),
                                  [](const schema::NodeSpec& n) { return n.nic.burst_bytes > 0; });
  const char* row = "{:<24} {:<28} {:<22} {:>10}";
  std::cout << fmt::format(row, "node", "GPUs", "NIC class", "NIC GB/s")
            << (bursts ? fmt::format(" {:>14}", "NIC burst B") : "") << "\n";
  size_t shown = 0, total = 0;
  for (const auto& n : cluster.nodes) {
    std::string gpus;
    for (const auto& g : n.gpus)
      gpus += (gpus.empty() ? "" : " + ") + std::to_string(g.count) + " x " + g.device;
    for (const auto& host : schema::node_host_names(n)) {
      ++total;
      if (shown == 24) continue;
      ++shown;
      std::cout << fmt::format("{:<24} {:<28} {:<22} {:>10.3f}", host, gpus, n.nic.link_class,
                               n.nic.bandwidth_bytes_per_s / 1e9)
                << (bursts ? fmt::format(" {:>14.0f}", n.nic.burst_bytes) : "") << "\n";
    }
  }
  if (shown < total) std::cout << "... " << total - shown << " more node(s)\n";
  std::cout << "\n";
}

// One row per link (the first 24), with its token bucket where a link of the plan has one.
void print_links(const sim::PlatformPlan& plan) {
  const bool bursts = std::any_of(plan.links.begin(), plan.links.end(),
                                  [](const sim::PlanLink& l) { return l.burst_bytes > 0; });
  const char* row = "{:<24} {:<22} {:>12} {:>12} {:<10}";
  const auto burst = [&](const std::string& text) {
    return bursts ? fmt::format(" {:>12}", text) : std::string();
  };
  std::cout << fmt::format(row, "link", "class", "bandwidth", "latency", "figures")
            << burst("burst") << "\n";
  std::cout << fmt::format(row, "", "", "GB/s", "us", "") << burst("B") << "\n";
  const size_t shown = std::min<size_t>(plan.links.size(), 24);
  for (size_t i = 0; i < shown; ++i) {
    const auto& l = plan.links[i];
    std::cout << fmt::format("{:<24} {:<22} {:>12.3f} {:>12.2f} {:<10}", plan.link_name(i),
                             plan.link_class(i), l.bandwidth_bytes_per_s / 1e9, l.latency_s * 1e6,
                             costmodel::to_string(
                                 plan.provenance[static_cast<size_t>(l.provenance)].source))
              << burst(fmt::format("{:.0f}", l.burst_bytes)) << "\n";
  }
  if (shown < plan.links.size()) std::cout << "... " << plan.links.size() - shown << " more\n";
}

}  // namespace

int cmd_platform(int argc, char** argv) {
  CLI::App app{
      "Check a cluster file and print its nodes, GPUs and links; --export-xml writes the "
      "equivalent SimGrid XML platform (every node, one host per GPU).",
      "vitsim platform"};
  std::string cluster_path, xml, costs_path, gpus_json;
  std::string transports_path = schema::default_transports_path();
  std::optional<int64_t> nodes;
  app.add_option("cluster", cluster_path, "cluster file (platforms/*.json)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--export-xml", xml, "write the SimGrid XML platform to FILE");
  app.add_option("--nodes", nodes, "node count of the cluster's node template");
  add_costs_option(app, costs_path, "its measured link costs replace the modelled figures");
  app.add_option("--transports", transports_path, "transport model parameters")
      ->default_str(schema::data_default("platforms/transports.json"));
  add_gpus_json_option(app, gpus_json);
  return clikit::run_app(app, argc, argv, [&] {
    schema::OutputGroup written({{"cluster", cluster_path},
                                 {"--costs", costs_path},
                                 {"--transports", transports_path},
                                 {"--gpus-json", gpus_json}},
                                {{"--export-xml", xml}});
    schema::ClusterSpec cluster = schema::read_cluster(cluster_path);
    const costmodel::DeviceCatalog catalog = schema::read_gpus(gpus_json);
    sim::check_cluster_devices(cluster, catalog);
    warn_cluster_fabric("vitsim platform", {cluster}, catalog);
    if (nodes) cluster = sim::with_node_count(cluster, *nodes);
    schema::CostModelFile costs;
    if (!costs_path.empty()) costs = schema::read_cost_model(costs_path);
    sim::Placement all;
    all.nodes = sim::expand_nodes(cluster);
    const auto transports = schema::read_transports(transports_path);
    const sim::PlatformPlan plan =
        sim::plan_platform(cluster, all, &costs.costs, /*all_nodes=*/true, &transports);
    std::string document;  // built before anything is printed: a refusal comes first
    if (!xml.empty()) {
      try {
        document = sim::platform_xml(plan);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--export-xml " + xml + ": " + e.what());
      }
    }
    int64_t gpus = 0;
    for (const auto& n : plan.nodes) gpus += static_cast<int64_t>(n.gpus());
    std::cout << fmt::format("{}: {} node(s), {} GPU(s), {} link(s), topology {}\n", cluster.name,
                             plan.nodes.size(), gpus, plan.links.size(),
                             schema::to_string(plan.topology));
    print_nodes(cluster);
    print_links(plan);
    std::cout << "(latency: each endpoint link carries half its class's per-message latency; see "
                 "docs/simulator.md)\n";
    for (const auto& p : plan.provenance) {
      std::cout << fmt::format("{}: {} ({}): {}\n", p.link_class, costmodel::to_string(p.source),
                               p.model, p.derived_from);
    }
    if (!xml.empty()) {
      written.add(xml, document);
      written.commit();
      std::cerr << "vitsim platform: wrote " << xml << "\n";
    }
    return 0;
  });
}

}  // namespace vitsim::cli
