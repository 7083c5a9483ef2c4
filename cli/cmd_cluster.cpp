// vitsim cluster init: writes a cluster file (vitsim.cluster) from the profiles measured or
// imported on each host type and the hosts the user states, so that predicting one's own cluster
// is three commands: cluster init, calibrate, predict/sweep (README "Predict your own cluster").
// The work is import::init_cluster; this file reads the inputs and /proc and writes the file.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/run_app.h"
#include "costmodel/enum_names.h"
#include "costmodel/physical_bounds.h"
#include "costmodel/transport_model.h"
#include "import/cluster_init.h"
#include "import/hosts_file.h"
#include "schema/gpus_io.h"
#include "schema/input_error.h"
#include "schema/json_file.h"

namespace vitsim::cli {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int cmd_cluster(int argc, char** argv) {
  CLI::App app{
      "Cluster files. `vitsim cluster init` writes one from the profiles of your host types "
      "(vitsim-train profile / bench-allreduce, vitsim import-deepspeed / import-nccl-tests) and "
      "the hosts you state: name, device, GPUs, NIC rate (README \"Predict your own cluster\").",
      "vitsim cluster"};
  app.require_subcommand(1);
  auto* init = app.add_subcommand("init", "write a cluster file from profiles and stated hosts");
  std::vector<std::string> host_texts, profile_paths;
  std::string hosts_file, out, transport = "socket", link_layer, gpus_path;
  import::ClusterInitOptions opt;
  init->add_option("--name", opt.name, "cluster name (link classes are <name>-<nic>)")->required();
  init->add_option("--host", host_texts,
                   "NAME:DEVICE:NIC[:LINK_CLASS], one per host: DEVICE a catalog id, a profile's "
                   "device or 'auto' (the profile measured on NAME), '2xt4' for 2 GPUs; NIC "
                   "10gbe, 1gbe, 25gbe, 400mbit...");
  init->add_option("--hosts-file", hosts_file,
                   "file with one --host statement per line (#: comment)")
      ->check(CLI::ExistingFile);
  init->add_option("--profiles", profile_paths,
                   "profiles that name the devices (and whose link classes are measured)")
      ->check(CLI::ExistingFile);
  init->add_option("--transport", transport,
                   "NIC transport: socket (NCCL over TCP) | tcp (MPI, Gloo) | net-ib (NCCL's "
                   "NET/IB with GPUDirect RDMA: InfiniBand, or RoCE with --link-layer ethernet)")
      ->capture_default_str();
  init->add_option("--link-layer", link_layer,
                   "with --transport net-ib: infiniband (default) | ethernet (RoCE v2)");
  init->add_flag("--nic-per-gpu", opt.nic_per_gpu,
                 "one NIC per GPU (rail-optimized HGX/DGX nodes: each GPU its own NIC at the "
                 "stated rate) instead of one the host's GPUs share");
  init->add_option("--mtu-bytes", opt.mtu_bytes,
                   "MTU of the NICs: IP MTU (socket, tcp: 1500), IB MTU (net-ib: 4096)");
  init->add_option("--nic-latency-s", opt.nic_latency_s,
                   "NIC + switch latency (socket, tcp: 2.5e-05, as tesla.json; net-ib: 3e-06, as "
                   "h200-cluster.json)");
  init->add_option("--nic-burst-bytes", opt.nic_burst_bytes,
                   "every NIC's token bucket per direction: bytes sent at line speed after idling "
                   "(a shaper's or a cloud NIC's credit; docs/formats/cluster.md, burst_bytes)")
      ->capture_default_str();
  init->add_option("--intra", opt.intra_kind,
                   "hosts with 2+ GPUs: pcie-host | pcie-p2p | nvlink (default: the part's own "
                   "fabric in the catalog, intra_node_fabric: NVLink for an SXM part, PCIe "
                   "through host memory for a card)");
  add_gpus_json_option(*init, gpus_path);
  init->add_option("-o,--output", out, "cluster file to write")->required();
  const std::vector<std::string> args(argv, argv + argc);
  return clikit::run_app(app, argc, argv, [&] {
    clikit::refuse_repeated_files(profile_paths, "--profiles");
    std::vector<schema::NamedPath> read = schema::named_paths("--profiles", profile_paths);
    read.push_back({"--hosts-file", hosts_file});
    read.push_back({"--gpus-json", gpus_path});
    schema::OutputGroup written(read, {{"-o", out}});
    if (!hosts_file.empty())
      for (const auto& h : import::read_hosts_file(hosts_file)) host_texts.push_back(h);
    for (const auto& h : host_texts) opt.hosts.push_back(import::parse_host_statement(h));
    opt.nic_transport = costmodel::parse_transport(transport);
    const bool ib = opt.nic_transport == costmodel::Transport::kNetIb;
    if (opt.nic_transport != costmodel::Transport::kSocket &&
        opt.nic_transport != costmodel::Transport::kTcp && !ib)
      throw std::invalid_argument("--transport: expected socket, tcp or net-ib, got '" + transport +
                                  "'");
    if (!link_layer.empty()) {
      if (!ib)
        throw std::invalid_argument(
            "--link-layer: only with --transport net-ib (hint: "
            "--transport net-ib --link-layer " +
            link_layer + ")");
      opt.link_layer =
          costmodel::parse_named(costmodel::kLinkLayerNames, link_layer, "--link-layer");
    }
    // net-ib's defaults: an IB MTU, and h200-cluster.json's IB path (end to end 3 us).
    if (ib && init->count("--mtu-bytes") == 0) opt.mtu_bytes = 4096;
    if (ib && init->count("--nic-latency-s") == 0) opt.nic_latency_s = 3e-6;
    if (ib && !costmodel::valid_ib_mtu_bytes(opt.mtu_bytes))
      throw std::invalid_argument(
          "--mtu-bytes: expected an IB MTU with --transport net-ib: 256, "
          "512, 1024, 2048 or 4096, got " +
          std::to_string(opt.mtu_bytes) + " (hint: RoCE on a 1500-byte Ethernet MTU uses 1024)");
    if (!ib && !(opt.mtu_bytes >= 576 && opt.mtu_bytes <= 9216))
      throw std::invalid_argument("--mtu-bytes: expected 576 to 9216, got " +
                                  std::to_string(opt.mtu_bytes));
    if (!(opt.nic_latency_s >= 0 && opt.nic_latency_s <= 1))
      throw std::invalid_argument("--nic-latency-s: expected 0 to 1 s");
    if (std::string why = costmodel::bound_violation(costmodel::kBurstBytes, opt.nic_burst_bytes);
        !why.empty())
      throw std::invalid_argument(std::string("--nic-burst-bytes: expected ") +
                                  costmodel::kBurstBytes.what + ", got " + why);
    std::vector<schema::ProfileInput> profiles;
    for (const auto& f : profile_paths) profiles.push_back({f, schema::read_profile(f)});
    opt.cpuinfo_text = slurp("/proc/cpuinfo");
    opt.meminfo_text = slurp("/proc/meminfo");
    char host[256] = {0};
    ::gethostname(host, sizeof(host) - 1);
    opt.this_host = host;
    const costmodel::DeviceCatalog catalog = schema::read_gpus(gpus_path);
    auto result = import::init_cluster(profiles, catalog, opt);
    for (const auto& n : result.notes) std::cerr << "vitsim cluster init: note: " << n << "\n";
    result.cluster.file = out;
    warn_cluster_fabric("vitsim cluster init", {result.cluster}, catalog);
    schema::Json doc = schema::write_cluster_json(result.cluster);
    doc["context"] =
        schema::make_context("vitsim cluster init", args, {{"profiles", profile_paths}});
    schema::add_json(written, out, doc);
    written.commit();
    int64_t gpus = 0;
    for (const auto& n : result.cluster.nodes) gpus += n.gpus.front().count;
    std::cout << fmt::format(
        "wrote {} ({} host(s), {} GPU(s))\nnext: vitsim calibrate PROFILES... --clusters {} -o "
        "costs.json\n      vitsim predict --cluster {} --costs costs.json --hosts HOST,...\n",
        out, result.cluster.nodes.size(), gpus, out, out);
    return 0;
  });
}

}  // namespace vitsim::cli
