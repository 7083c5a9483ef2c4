// import::init_cluster (vitsim cluster init): stated hosts parse or are refused with the field
// named, NIC rates are the standard's line rates, a CPU device is described from /proc text and
// the profile's threads, and the written description reads back as a valid cluster file.
#include "import/cluster_init.h"

#include <gtest/gtest.h>

#include <functional>

#include "catalogs.h"  // tests/support/
#include "error_of.h"  // tests/support/
#include "schema/cluster_fabric.h"
#include "schema/gpus_io.h"
#include "schema/json_node.h"

namespace vitsim::import {
namespace cluster_init_test {
namespace {

// tests/support/catalogs.h
constexpr auto catalog = &vitsim::test::shipped_catalog;

// tests/support/error_of.h
using vitsim::test::error_of;

TEST(ClusterInit, HostStatementsParse) {
  const auto a = parse_host_statement("h1:rtx3070:10gbe");
  EXPECT_EQ(a.name, "h1");
  EXPECT_EQ(a.device, "rtx3070");  // the "x" inside an id is no GPU count
  EXPECT_EQ(a.gpus, 1);
  EXPECT_EQ(a.nic, "10gbe");
  EXPECT_EQ(a.link_class, "");
  const auto b = parse_host_statement("box-2:2xt4:1GbE:lab-1g");
  EXPECT_EQ(b.device, "t4");
  EXPECT_EQ(b.gpus, 2);
  EXPECT_EQ(b.nic, "1gbe");
  EXPECT_EQ(b.link_class, "lab-1g");
}

TEST(ClusterInit, BadHostStatementsNameTheField) {
  EXPECT_NE(error_of([] { parse_host_statement("h1:rtx3070"); }).find("NAME:DEVICE:NIC"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_host_statement("h1:rtx3070:10gbps"); }).find("NIC"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_host_statement("h1:0xt4:10gbe"); }).find("GPU count"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_host_statement("h 1:t4:10gbe"); }).find("host name"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_host_statement("h1::10gbe"); }).find("device"), std::string::npos);
}

TEST(ClusterInit, NicRatesAreLineRatesPerDirection) {
  EXPECT_DOUBLE_EQ(nic_rate_bytes_per_s("10gbe"), 1.25e9);
  EXPECT_DOUBLE_EQ(nic_rate_bytes_per_s("1gbe"), 1.25e8);
  EXPECT_DOUBLE_EQ(nic_rate_bytes_per_s("2.5gbe"), 3.125e8);
  EXPECT_DOUBLE_EQ(nic_rate_bytes_per_s("400mbit"), 5e7);
  EXPECT_DOUBLE_EQ(nic_rate_bytes_per_s("50gbit"), 6.25e9);
  EXPECT_THROW(nic_rate_bytes_per_s("0mbit"), std::invalid_argument);
  EXPECT_THROW(nic_rate_bytes_per_s("10"), std::invalid_argument);
  EXPECT_THROW(nic_rate_bytes_per_s("9000gbe"), std::invalid_argument);
}

schema::Profile cpu_profile(const std::string& host) {
  schema::Profile p;
  p.device = "lab-cpu";
  p.device_name = "Intel Xeon (2 logical CPUs)";
  p.context = {{"host", host}, {"intra_op_threads", 2}};
  p.model = costmodel::vit_preset("vit_ti_16");
  p.compute.emplace_back();
  p.compute.back().micro_batch = 8;
  return p;
}

ClusterInitOptions options_with_proc() {
  ClusterInitOptions o;
  o.name = "lab";
  o.cpuinfo_text = "model name\t: Intel Xeon\ncpu MHz\t\t: 2000.000\nflags\t\t: sse avx avx2 fma\n";
  o.meminfo_text = "MemTotal:        16777216 kB\n";
  o.this_host = "h1";
  return o;
}

TEST(ClusterInit, CpuDeviceFromProcAndThreads) {
  const auto d = cpu_device(cpu_profile("h1"), options_with_proc());
  EXPECT_EQ(d.id, "lab-cpu");
  // 2 threads x 2.0 GHz x 32 FLOP/cycle (AVX2 + FMA).
  EXPECT_DOUBLE_EQ(d.fp32_peak_flop_per_s, 2 * 2e9 * 32);
  EXPECT_DOUBLE_EQ(d.memory_bytes, 16777216.0 * 1024);
  EXPECT_NE(d.source.find("/proc"), std::string::npos);
  auto o = options_with_proc();
  o.cpuinfo_text = "";
  EXPECT_NE(error_of([&] { cpu_device(cpu_profile("h1"), o); }).find("cpu MHz"), std::string::npos);
}

TEST(ClusterInit, WritesAValidClusterWithStatedHostsAndMeasuredDevices) {
  auto o = options_with_proc();
  o.hosts = {parse_host_statement("h1:auto:400mbit"), parse_host_statement("h2:2xrtx3070:10gbe")};
  std::vector<schema::ProfileInput> profiles = {{"cpu.json", cpu_profile("h1")}};
  const auto r = init_cluster(profiles, catalog(), o);
  const auto& c = r.cluster;
  ASSERT_EQ(c.nodes.size(), 2u);
  EXPECT_EQ(c.nodes[0].gpus.front().device, "lab-cpu");  // "auto": the profile taken on h1
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.nodes[0].nic.link_class, "lab-400mbit");
  EXPECT_DOUBLE_EQ(c.nodes[0].nic.bandwidth_bytes_per_s, 5e7);
  EXPECT_EQ(c.nodes[1].intra_node.kind, "pcie-host");
  EXPECT_EQ(c.nodes[1].intra_node.link.link_class, "lab-rtx3070-shm");
  ASSERT_EQ(c.host_sets.size(), 3u);
  EXPECT_EQ(c.host_sets.at(3), (std::vector<std::string>{"h1", "h2", "h2"}));
  // Unmeasured classes and the unprofiled GPU are said, once each.
  int unmeasured = 0, unprofiled = 0;
  for (const auto& n : r.notes) {
    unmeasured += n.find("has no measurement") != std::string::npos;
    unprofiled += n.find("rtx3070 has no compute profile") != std::string::npos;
  }
  EXPECT_EQ(unmeasured, 3);
  EXPECT_EQ(unprofiled, 1);
  // What it writes is a cluster file the reader accepts, figures intact.
  const auto text = schema::write_cluster_json(c).dump();
  const auto back = schema::read_cluster(schema::Node::parse_text(text, "lab.json"));
  EXPECT_EQ(back.nodes[1].gpus.front().count, 2);
  EXPECT_EQ(back.devices.front().fp32_peak_flop_per_s, c.devices.front().fp32_peak_flop_per_s);
}

// The README's loop: bench-allreduce on one host recorded its measurement; whatever it named the
// class, the host of that device takes it, so that calibrate and predict use the measurement
// (docs/formats/cluster.md, "Link classes"). The default name is the one both share.
TEST(ClusterInit, AHostsFabricTakesTheAllReduceMeasuredOnOneHost) {
  auto o = options_with_proc();
  o.hosts = {parse_host_statement("h1:2xlab-cpu:10gbe")};
  schema::Profile ar = cpu_profile("h1");
  ar.compute.clear();
  ar.allreduce.push_back({"host-shm", 2, 2, "mpi", {}});
  const auto r = init_cluster({{"cpu.json", cpu_profile("h1")}, {"ar.json", ar}}, catalog(), o);
  EXPECT_EQ(r.cluster.nodes[0].intra_node.link.link_class, "host-shm");
  bool said = false;
  for (const auto& n : r.notes)
    said =
        said || n == "host h1: its GPUs' link class is host-shm, measured on one host by ar.json";
  EXPECT_TRUE(said);
  // Across two hosts (1 rank each) it is no host's fabric.
  ar.allreduce.front().ranks_per_node = 1;
  const auto r2 = init_cluster({{"cpu.json", cpu_profile("h1")}, {"ar.json", ar}}, catalog(), o);
  EXPECT_EQ(r2.cluster.nodes[0].intra_node.link.link_class, "lab-lab-cpu-shm");
  EXPECT_EQ(schema::intra_link_class("lab", "lab-cpu", "pcie-host"), "lab-lab-cpu-shm");
  EXPECT_EQ(schema::intra_link_class("", "cpu", "pcie-host"), "cpu-shm");
}

TEST(ClusterInit, RefusesWhatItCannotDescribe) {
  auto o = options_with_proc();
  o.hosts = {parse_host_statement("h1:gtx9999:10gbe")};
  EXPECT_NE(error_of([&] {
              init_cluster({}, catalog(), o);
            }).find("--host h1: no device 'gtx9999' in the catalog"),
            std::string::npos);
  o.hosts = {parse_host_statement("h1:t4:10gbe"), parse_host_statement("h1:t4:1gbe")};
  EXPECT_NE(error_of([&] { init_cluster({}, catalog(), o); }).find("stated twice"),
            std::string::npos);
  o.hosts = {parse_host_statement("h9:auto:10gbe")};
  EXPECT_NE(error_of([&] {
              init_cluster({{"cpu.json", cpu_profile("h1")}}, catalog(), o);
            }).find("'auto'"),
            std::string::npos);
  o.hosts.clear();
  EXPECT_NE(error_of([&] { init_cluster({}, catalog(), o); }).find("no host"), std::string::npos);
}

}  // namespace
}  // namespace cluster_init_test
}  // namespace vitsim::import
