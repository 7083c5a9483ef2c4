// scripts/gpu-bundle's completeness check, and the bundle itself where one has been made.
// The check must name what is missing (a folder that is not a bundle; a bundle with a library
// taken out). And a real bundle: the source tree's .gpu-bundle, made by these tests with
// `scripts/gpu-bundle` where it is missing (it downloads Debian's packages, as scripts/install-deps
// does: a machine that cannot reach them fails these tests, it does not skip them). It is complete,
// and as root, with this machine's own Open MPI hidden in a private mount namespace, the bundled
// mpirun runs a 2-rank MPI job whose libmpi comes from it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "run_command.h"  // tests/support/

namespace gpu_bundle_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kBundleScript = std::string(VITSIM_SOURCE_DIR) + "/scripts/gpu-bundle";

fs::path scratch(const std::string& name) {
  return fs::path(::testing::TempDir()) / ("gpu_bundle_" + std::to_string(::getpid()) + name);
}

// The bundle the GPU session carries (.gpu-bundle in the source tree, ignored by git), made here
// if it is missing or incomplete (flock: the tests of this file, and of a second build folder, may
// run at the same time). "" and the script's output in `why` when it cannot be made.
std::string made_bundle(std::string* why) {
#ifndef VITSIM_EXE
  *why = "vitsim (the bundle stores its model graph) was not built";
  return "";
#else
  const fs::path b = fs::path(VITSIM_SOURCE_DIR) / ".gpu-bundle";
  const std::string make = quoted(kBundleScript) + " --check " + quoted(b.string()) +
                           " >/dev/null 2>&1 || { rm -rf " + quoted(b.string()) + " && " +
                           quoted(kBundleScript) + " --out " + quoted(b.string()) + " --vitsim " +
                           quoted(VITSIM_EXE) + "; }";
  const auto r =
      run_command("flock " + quoted(b.string() + ".lock") + " timeout 900 sh -c " + quoted(make));
  if (r.exit_code != 0) {
    *why = r.output;
    return "";
  }
  return b.string();
#endif
}

TEST(GpuBundle, CheckOfAFolderThatIsNoBundleNamesWhatIsMissing) {
  const fs::path dir = scratch("_empty");
  fs::create_directories(dir / "root");
  const auto r = run_command(quoted(kBundleScript) + " --check " + quoted(dir.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const char* missing :
       {"missing env.sh", "missing root/usr/bin/mpirun", "missing root/usr/include/CLI/CLI.hpp",
        "missing model/vit_b_16.json", "missing fallback/libmunge.so.2"}) {
    EXPECT_NE(r.output.find(missing), std::string::npos) << missing << "\n" << r.output;
  }
  EXPECT_NE(r.output.find("incomplete"), std::string::npos);
  EXPECT_NE(r.output.find("hint: scripts/gpu-bundle --out"), std::string::npos);
  fs::remove_all(dir);

  const auto none = run_command(quoted(kBundleScript) + " --check /nonexistent/bundle");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("/nonexistent/bundle: no such folder"), std::string::npos)
      << none.output;
}

TEST(GpuBundle, UsageErrorsExit2) {
  for (const std::string args : {"--frobnicate", "--rehearse /tmp", "--rehearse /tmp --"}) {
    const auto r = run_command(quoted(kBundleScript) + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
}

TEST(GpuBundle, MadeBundleIsCompleteAndALibraryTakenOutIsNamed) {
  std::string why;
  const std::string bundle = made_bundle(&why);
  ASSERT_FALSE(bundle.empty()) << "scripts/gpu-bundle could not make a bundle:\n" << why;
  const auto ok = run_command(quoted(kBundleScript) + " --check " + quoted(bundle));
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("complete"), std::string::npos);

  // A copy without Open MPI's portability layer: every user of it is reported, by name.
  const fs::path copy = scratch("_copy");
  fs::remove_all(copy);
  ASSERT_EQ(run_command("cp -a " + quoted(bundle) + " " + quoted(copy.string())).exit_code, 0);
  ASSERT_EQ(run_command("rm -f " + quoted(copy.string()) +
                        "/root/usr/lib/x86_64-linux-gnu/libopen-pal.so*")
                .exit_code,
            0);
  const auto broken = run_command(quoted(kBundleScript) + " --check " + quoted(copy.string()));
  EXPECT_EQ(broken.exit_code, 1) << broken.output;
  EXPECT_NE(broken.output.find("root/usr/lib/x86_64-linux-gnu/libmpi.so.40"), std::string::npos)
      << broken.output;
  EXPECT_NE(broken.output.find("needs libopen-pal.so.40"), std::string::npos) << broken.output;
  fs::remove_all(copy);
}

TEST(GpuBundle, BundledMpirunRunsTwoRanksWithTheSystemOpenMpiHidden) {
#ifndef VITSIM_MPI_PROBE_EXE
  GTEST_SKIP() << "SKIPPED: emu_probe (a plain MPI program) was not built";
#else
  std::string why;
  const std::string bundle = made_bundle(&why);
  ASSERT_FALSE(bundle.empty()) << "scripts/gpu-bundle could not make a bundle:\n" << why;
  if (::geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root (a private mount namespace)";
  if (run_command("unshare --mount true").exit_code != 0)
    GTEST_SKIP() << "SKIPPED: unshare --mount is not allowed here";
  const std::string probe = VITSIM_MPI_PROBE_EXE;
  const auto r = run_command(
      "timeout 120 " + quoted(kBundleScript) + " --rehearse " + quoted(bundle) +
      " -- sh -c 'test ! -s /usr/bin/orterun && echo system-mpirun-hidden; ldd " + quoted(probe) +
      " | grep libmpi.so; mpirun --oversubscribe -np 2 " + quoted(probe) + " allreduce 100000 3'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("system-mpirun-hidden"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("libmpi.so.40 => " + bundle + "/root/usr/lib/x86_64-linux-gnu/"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("rank=0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank=1"), std::string::npos) << r.output;
#endif
}

}  // namespace
}  // namespace gpu_bundle_test
