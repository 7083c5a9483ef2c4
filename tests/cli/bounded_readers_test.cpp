// Issue 68, class 6: readers bounded before they allocate, through the vitsim executable, each
// under a 1 GiB address-space limit (a reader that tried to hold what it was given would fail
// with bad_alloc, exit 1, instead of the exit 2 expected here):
//  - `cluster init --hosts-file`: a FIFO (nothing written to it: it would block forever) and a
//    device are refused at once; a file over 64 MiB, over 10^6 lines or with a line over 4 KiB
//    is refused naming the file (and the line);
//  - `platform --export-xml` of a valid cluster whose XML would hold 10^10 routes is refused with
//    the count and the limit, and writes nothing.
// Devices are the test's own (mknod, as root), never the system's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vitsim_cli.h"  // tests/support/

namespace bounded_readers_test {
namespace {

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;

const std::string kSrc = VITSIM_SOURCE_DIR;

// The address-space limit; none under AddressSanitizer, whose shadow memory alone reserves far
// more (make test's second build).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VITSIM_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(VITSIM_TEST_ASAN)
constexpr long kAddressSpaceKib = 0;
#else
constexpr long kAddressSpaceKib = 1048576;
#endif

class BoundedReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("bounded_readers_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // vitsim with at most 1 GiB of address space, and 60 s: a hang is a failure too.
  Result vitsim(const std::string& args) const {
    vitsim::test::VitsimRun how;
    how.address_space_kib = kAddressSpaceKib;
    how.timeout_s = 60;
    return vitsim::test::run_vitsim_with(args, how);
  }
  Result init_from(const std::string& hosts) const {
    return vitsim("cluster init --name lab --hosts-file " + hosts + " -o " + path("c.json"));
  }
  fs::path dir_;
};

TEST_F(BoundedReaders, AHostsFileThatIsNoRegularFileIsRefusedAtOnce) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  Result r = init_from(path("fifo"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("fifo") + ": expected a hosts file (a regular file), got a FIFO"),
            std::string::npos)
      << r.output;
  fs::create_directories(path("folder"));
  r = init_from(path("folder"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("directory"), std::string::npos) << r.output;  // CLI11's check
  if (::geteuid() == 0 && ::mknod(path("zero").c_str(), S_IFCHR | 0666, makedev(1, 5)) == 0) {
    r = init_from(path("zero"));  // an endless stream of NUL bytes
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("got a device"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(path("c.json")));
}

TEST_F(BoundedReaders, AHostsFileOverItsBoundsIsRefusedNamingWhy) {
  {
    std::ofstream big(path("big.txt"));
    big << "h1:rtx3070:10gbe\n";
  }
  fs::resize_file(path("big.txt"), (size_t{64} << 20) + 1);  // sparse: NUL bytes, 64 MiB + 1
  Result r = init_from(path("big.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("big.txt") + ": expected a hosts file of at most 64 MiB, got more"),
            std::string::npos)
      << r.output;
  {
    std::ofstream lines(path("lines.txt"));
    for (int i = 0; i <= 1000000; ++i) lines << "#\n";
  }
  r = init_from(path("lines.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("lines.txt") + ": expected at most 1000000 lines"),
            std::string::npos)
      << r.output;
  std::ofstream(path("long.txt")) << "h1:rtx3070:10gbe\nh2:rtx3070:10gbe # "
                                  << std::string(5000, 'x') << "\n";
  r = init_from(path("long.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("long.txt") + ": line 2: expected a host statement of at most 4096 "
                                             "bytes"),
            std::string::npos)
      << r.output;
  std::ofstream(path("ok.txt")) << "# lab\nh1:rtx3070:10gbe\n\n  h2:rtx3070:10gbe  # second\n";
  r = init_from(path("ok.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(2 host(s), 2 GPU(s))"), std::string::npos) << r.output;
}

TEST_F(BoundedReaders, TheXmlOfAClusterTooLargeForItIsRefusedWithTheCount) {
  std::ifstream in(kSrc + "/platforms/tesla.json");
  nlohmann::json c = nlohmann::json::parse(in);
  nlohmann::json node = c["nodes"][1];
  node["name"] = "n";
  node["count"] = 200000;  // 2 x 10^10 routes between pairs of nodes
  c["nodes"] = nlohmann::json::array({node});
  c.erase("host_sets");
  c["name"] = "big";
  std::ofstream(path("big.json")) << c.dump(1);
  const Result r = vitsim("platform " + path("big.json") + " --export-xml " + path("big.xml"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--export-xml " + path("big.xml") +
                          ": the SimGrid XML of 200000 node(s) would hold "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("above the 5000000 it writes"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("big.xml")));
}

}  // namespace
}  // namespace bounded_readers_test
