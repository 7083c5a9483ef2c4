// The one writer (schema/output_file.h) against what an output path can be: a regular file is
// replaced whole (permissions kept), a symbolic link keeps being a link and its target is
// replaced, a device node is written straight (a null-like device takes the bytes, a full-like
// one fails) and stays a device, a folder is refused; a group lands together or not at all; and
// with VITSIM_FAULT_INJECT every write, fsync and rename fails in turn, each failure leaving the
// previous files as they were. Device nodes are the test's own (mknod 1,3 and 1,7 in its folder,
// as root), never the system's.
#include "schema/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "read_text.h"  // tests/support/

namespace vitsim::schema {
namespace output_file_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

namespace fs = std::filesystem;

void put(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("output_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("VITSIM_FAULT_INJECT");
    fs::remove_all(dir_);
  }
  // Nothing but `names` in the folder (no temporary file or backup left behind).
  void expect_only(std::vector<std::string> names) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir_)) found.push_back(e.path().filename());
    std::sort(found.begin(), found.end());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(found, names);
  }
  // A character device of the test's own, or a skip saying why there is none.
  bool make_device(const fs::path& path, unsigned minor) {
    if (::geteuid() != 0) return false;
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  }
  fs::path dir_;
};

TEST_F(OutputFile, ReplacesARegularFileWholeAndKeepsItsPermissions) {
  const fs::path p = dir_ / "out.json";
  put(p, "old");
  ::chmod(p.c_str(), 0640);
  write_output(p, "new");
  EXPECT_EQ(read_text(p), "new");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  write_output(dir_ / "fresh.csv", "a,b\n");
  EXPECT_EQ(read_text(dir_ / "fresh.csv"), "a,b\n");
  expect_only({"out.json", "fresh.csv"});
}

TEST_F(OutputFile, FollowsLinksAndReplacesTheTarget) {
  fs::create_directories(dir_ / "real");
  put(dir_ / "real" / "target.json", "old");
  fs::create_symlink("real/target.json", dir_ / "link.json");  // relative to the link's folder
  fs::create_symlink("link.json", dir_ / "link2.json");        // a link to a link
  write_output(dir_ / "link2.json", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link2.json"));
  EXPECT_EQ(read_text(dir_ / "real" / "target.json"), "new");
  fs::create_symlink(dir_ / "real" / "later.json", dir_ / "dangling.json");
  write_output(dir_ / "dangling.json", "made");
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.json"));
  EXPECT_EQ(read_text(dir_ / "real" / "later.json"), "made");
}

TEST_F(OutputFile, WritesStraightToADeviceAndFailsWhenItIsFull) {
  const fs::path null_like = dir_ / "null", full_like = dir_ / "full";
  if (!make_device(null_like, 3) || !make_device(full_like, 7))
    GTEST_SKIP() << "mknod of a private device node needs root (uid " << ::geteuid() << ")";
  write_output(null_like, "into the void\n");
  EXPECT_TRUE(fs::is_character_file(null_like)) << "the node was replaced by a regular file";
  try {
    write_output(full_like, "no room\n");
    ADD_FAILURE() << "writing to a full device succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(full_like.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_character_file(full_like));
  fs::create_symlink("null", dir_ / "to-null");
  write_output(dir_ / "to-null", "via a link\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "to-null"));
  EXPECT_TRUE(fs::is_character_file(null_like));
  expect_only({"null", "full", "to-null"});
}

TEST_F(OutputFile, RefusesAFolder) {
  fs::create_directories(dir_ / "sub");
  EXPECT_THROW(write_output(dir_ / "sub", "x"), std::invalid_argument);
  expect_only({"sub"});
}

TEST_F(OutputFile, AGroupLandsTogetherOrNotAtAll) {
  put(dir_ / "p.json", "old json");
  OutputGroup broken;
  broken.add(dir_ / "p.json", "new json");
  broken.add(dir_ / "missing-folder" / "p.csv", "new csv");  // cannot be written
  EXPECT_THROW(broken.commit(), std::runtime_error);
  EXPECT_EQ(read_text(dir_ / "p.json"), "old json") << "the group's first file landed alone";
  OutputGroup fresh;
  fresh.add(dir_ / "q.json", "q");
  fresh.add(dir_ / "sub-missing" / "q.csv", "q");
  EXPECT_THROW(fresh.commit(), std::runtime_error);
  expect_only({"p.json"});
}

// Every counted operation of a group of two existing files fails in turn: each failure throws
// and leaves both previous files; past the last, both new files land.
TEST_F(OutputFile, EveryInjectedFaultLeavesThePreviousFiles) {
  const fs::path a = dir_ / "p.json", b = dir_ / "p.csv";
  int failures = 0;
  for (long k = 1;; ++k) {
    put(a, "old a");
    put(b, "old b");
    ::setenv("VITSIM_FAULT_INJECT", std::to_string(fault_points_counted() + k).c_str(), 1);
    OutputGroup g;
    g.add(a, "new a");
    g.add(b, "new b");
    try {
      g.commit();
    } catch (const std::runtime_error& e) {
      ++failures;
      EXPECT_NE(std::string(e.what()).find("Input/output error"), std::string::npos) << e.what();
      EXPECT_EQ(read_text(a), "old a") << "fault " << k;
      EXPECT_EQ(read_text(b), "old b") << "fault " << k;
      expect_only({"p.json", "p.csv"});
      continue;
    }
    EXPECT_EQ(read_text(a), "new a");
    EXPECT_EQ(read_text(b), "new b");
    break;
  }
  EXPECT_EQ(failures, 6) << "a write, an fsync and a rename per file";
  for (long k = 1; k <= 3; ++k) {  // one file: write, fsync, rename
    put(a, "old a");
    ::setenv("VITSIM_FAULT_INJECT", std::to_string(fault_points_counted() + k).c_str(), 1);
    EXPECT_THROW(write_output(a, "new a"), std::runtime_error) << "fault " << k;
    EXPECT_EQ(read_text(a), "old a") << "fault " << k;
  }
  expect_only({"p.json", "p.csv"});
}

}  // namespace
}  // namespace output_file_test
}  // namespace vitsim::schema
