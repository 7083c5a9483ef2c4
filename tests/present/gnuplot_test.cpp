// gnuplot's outputs appear whole or not at all (present/gnuplot.h): issue 11 found
// figures/*.gp.run files and a 0-byte PNG after `vitsim reproduce` was killed. A successful run
// leaves exactly the outputs; a failing script leaves none; a killed caller takes gnuplot with it
// and leaves no output under its final name and no helper file.
#include "present/gnuplot.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "process_support.h"  // tests/support/

namespace vitsim::present {
namespace gnuplot_test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("vitsim_gnuplot_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

const std::vector<GnuplotOutput> kOutputs = {{"vitsim_png", "f.png"}, {"vitsim_svg", "f.svg"}};

// A script that draws into both outputs; `middle` runs between the PNG and the SVG.
std::string write_script(const fs::path& dir, const std::string& middle) {
  const fs::path path = dir / "f.gp";
  std::ofstream(path) << gnuplot_output_defaults(kOutputs)
                      << "set terminal pngcairo size 200,100\nset output vitsim_png\nplot x\n"
                      << middle
                      << "set terminal svg size 200,100\nset output vitsim_svg\nplot x\n"
                         "unset output\n";
  return path.string();
}

TEST(Gnuplot, WritesTheOutputsAndNothingElse) {
  ASSERT_TRUE(gnuplot_available()) << "gnuplot-nox is installed by scripts/install-deps";
  const fs::path dir = fresh_dir("ok");
  run_gnuplot(write_script(dir, ""), dir.string(), kOutputs);
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"f.gp", "f.png", "f.svg"}));
  EXPECT_GT(fs::file_size(dir / "f.png"), 0u);
  EXPECT_GT(fs::file_size(dir / "f.svg"), 0u);
}

TEST(Gnuplot, AFailingScriptLeavesNoOutput) {
  const fs::path dir = fresh_dir("fail");
  const std::string script = write_script(dir, "plot 'no-such-file.dat'\n");
  try {
    run_gnuplot(script, dir.string(), kOutputs);
    FAIL() << "gnuplot's error was not reported";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-file.dat"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"f.gp"}));
}

// The standalone script still draws under the final names when run by hand.
TEST(Gnuplot, TheScriptRunsByHandToo) {
  const fs::path dir = fresh_dir("hand");
  const std::string script = write_script(dir, "");
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && gnuplot f.gp 2>/dev/null").c_str()), 0);
  EXPECT_TRUE(fs::exists(dir / "f.png"));
  EXPECT_TRUE(fs::exists(dir / "f.svg"));
}

TEST(Gnuplot, AKilledCallerLeavesNoGnuplotAndNoHalfWrittenFigure) {
  const vitsim::testing::Subreaper subreaper;
  const fs::path dir = fresh_dir("killed");
  // gnuplot pauses with the PNG opened: the moment a killed `reproduce` used to leave it empty.
  const std::string script = write_script(dir, "pause 60\n");
  const pid_t caller = ::fork();
  if (caller == 0) {
    try {
      run_gnuplot(script, dir.string(), kOutputs);
    } catch (...) {
    }
    ::_exit(0);
  }
  const pid_t gnuplot = vitsim::testing::wait_for_child(caller, 30s);
  ASSERT_GT(gnuplot, 0) << "gnuplot did not start";
  std::this_thread::sleep_for(500ms);
  ASSERT_EQ(::kill(caller, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  EXPECT_TRUE(vitsim::testing::reaped_within(gnuplot, 2s)) << "gnuplot outlived its caller";
  if (::kill(gnuplot, 0) == 0) ::kill(gnuplot, SIGKILL);
  for (const auto& f : files_in(dir)) {
    EXPECT_TRUE(f == "f.gp" || f.find(".tmp.") != std::string::npos) << "left behind: " << f;
  }
}

}  // namespace
}  // namespace gnuplot_test
}  // namespace vitsim::present
