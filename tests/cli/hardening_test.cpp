// Issue 27 (hardening, round 2), through the vitsim executable as a user would meet it:
//  - an output path that is a device node or a link: a null-like device takes the file and stays
//    a device, a full-like one fails with exit 1, a link keeps being a link (private nodes made
//    with mknod in the test's folder, as root; never the system's /dev/null or /dev/full);
//  - a prefix's files land together or not at all (PREFIX.csv a folder: no PREFIX.json either);
//  - values are never dropped silently: --price of a device no GPU of the cluster is, a device
//    given twice, a list with an empty item or a repeated value, the same input file twice, an
//    option --merge would ignore: exit 2 naming the option;
//  - --jobs 0 says what it expects; escape bytes from a hosts file never reach the terminal raw.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "read_text.h"   // tests/support/
#include "vitsim_cli.h"  // tests/support/

namespace hardening_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;

using vitsim::test::run_vitsim;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
const std::string kTesla = kSrc + "/platforms/tesla.json";

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("hardening_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// `vitsim cluster init`: the quickest command that writes a file (no simulation).
std::string init_to(const std::string& out) {
  return "cluster init --name lab --host h1:rtx3070:10gbe --host h2:rtx3070:10gbe -o " + out;
}

TEST_F(Hardening, OutputsToDevicesAreWrittenStraightAndLinksFollowed) {
  const std::string null_like = path("null"), full_like = path("full");
  if (::geteuid() != 0 || ::mknod(null_like.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod(full_like.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    GTEST_SKIP() << "mknod of a private device node needs root (uid " << ::geteuid() << ")";
  Result r = run_vitsim(init_to(null_like));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_character_file(null_like)) << "the device node was replaced by a file";
  r = run_vitsim(init_to(full_like));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(full_like + ": cannot write (No space left on device)"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::is_character_file(full_like));
  fs::create_symlink("real.json", path("link.json"));
  r = run_vitsim(init_to(path("link.json")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_NE(read_text(path("real.json")).find("\"vitsim.cluster\""), std::string::npos);
}

TEST_F(Hardening, APrefixsFilesLandTogetherOrNotAtAll) {
  fs::create_directories(path("p.csv"));  // PREFIX.csv cannot be written
  const Result r = run_vitsim("simulate " + kSrc + "/scenarios/tesla-strong.json --costs " +
                              kCosts + " --out " + path("p"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("p.csv") + ": is a folder"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("p.json"))) << "PREFIX.json landed without PREFIX.csv";
}

TEST_F(Hardening, PriceOfNoDeviceOfTheClusterOrGivenTwiceIsRefused) {
  const std::string predict =
      "predict --cluster " + kTesla + " --costs " + kCosts + " --gpus 2 --micro-batch 16 ";
  Result r = run_vitsim(predict + "--price rtx3O70=5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--price: no GPU of cluster tesla is a rtx3O70"), std::string::npos)
      << r.output;
  r = run_vitsim(predict + "--price rtx3070=5,rtx3070=6");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--price: device rtx3070 is given twice"), std::string::npos) << r.output;
  for (const char* bad : {"t4", "t4=", "=1", "t4=-1", "t4=abc", "t4=1x", "t4=nan", "t4=5000"}) {
    r = run_vitsim(predict + "--price " + bad);  // refused before anything is simulated
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--price: expected DEVICE=USD_PER_GPU_HOUR (0..1000), got '" +
                            std::string(bad) + "'"),
              std::string::npos)
        << r.output;
  }
  r = run_vitsim(predict + "--price rtx3070=5,p4=0.5 --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_vitsim("sweep --cluster " + kTesla + " --costs " + kCosts +
                 " --gpus 1,2 --price gtx1O70=1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--price: no GPU of cluster tesla is a gtx1O70"), std::string::npos)
      << r.output;
}

TEST_F(Hardening, ListsNeverDropOrRepeatAValue) {
  const std::string sweep = "sweep --cluster " + kTesla + " --costs " + kCosts + " ";
  Result r = run_vitsim(sweep + "--gpus 1,2,2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--gpus: '2' names a value given before"), std::string::npos) << r.output;
  r = run_vitsim(sweep + "--gpus 1,,2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--gpus: an empty item in '1,,2'"), std::string::npos) << r.output;
  r = run_vitsim(sweep + "--micro-batch 16,016");  // the same number, written twice
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--micro-batch: '016' names a value given before"), std::string::npos)
      << r.output;
  r = run_vitsim(sweep + "--gpus 1,2 --jobs 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--jobs: expected a count >= 1, got 0"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("1797"), std::string::npos) << r.output;
  r = run_vitsim("sweep --merge " + kCosts + " --gpus 1,2");  // the merge would drop --gpus
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--gpus does not apply to --merge"), std::string::npos) << r.output;
  r = run_vitsim("calibrate " + kSrc + "/platforms/profiles/h100-sxm-vit_b_16-fp32.json " + kSrc +
                 "/platforms/profiles/../profiles/h100-sxm-vit_b_16-fp32.json -o " +
                 path("c.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("profiles: " + kSrc +
                          "/platforms/profiles/../profiles/h100-sxm-vit_b_16-fp32.json is given "
                          "twice"),
            std::string::npos)
      << r.output;
}

TEST_F(Hardening, EscapeBytesFromAHostsFileAreNotEchoedRaw) {
  std::ofstream(path("hosts.txt")) << "h1:rtx3070:10gbe\nh2\x1b]0;pwned\x07:rtx3070:1gbe\n";
  const Result r = run_vitsim("cluster init --name lab --hosts-file " + path("hosts.txt") + " -o " +
                              path("c.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "a raw escape byte reached the terminal";
  EXPECT_EQ(r.output.find('\x07'), std::string::npos);
  EXPECT_NE(r.output.find(path("hosts.txt") + ": line 2: expected a host statement (printable "
                                              "text), got 'h2\\x1b]0;pwned\\x07:rtx3070:1gbe'"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace hardening_test
