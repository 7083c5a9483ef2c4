// gnuplot draws in a private folder and hands back what it drew (present/gnuplot.h): issue 11 found
// figures/*.gp.run files and a 0-byte PNG after `vitsim reproduce` was killed, issue 68 figures
// without their page. A successful run returns both outputs and leaves nothing behind; a failing
// script leaves nothing; SIGTERM takes gnuplot and the folder with it; SIGKILL (which nothing can
// catch) takes gnuplot and leaves no output under a final name; a script run by hand in the
// figures folder draws the same files.
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

// A run that draws into both outputs; `middle` runs between the PNG and the SVG.
GnuplotRun run_of(const std::string& middle) {
  GnuplotRun run;
  run.script_name = "f.gp";
  run.outputs = kOutputs;
  run.data = {{"f.dat", "1 1\n2 4\n"}};
  run.script = gnuplot_output_defaults(kOutputs) +
               "set terminal pngcairo size 200,100\nset output vitsim_png\nplot 'f.dat'\n" +
               middle +
               "set terminal svg size 200,100\nset output vitsim_svg\nplot 'f.dat'\nunset output\n";
  return run;
}

TEST(Gnuplot, ReturnsTheOutputsAndLeavesNothingBehind) {
  ASSERT_TRUE(gnuplot_available()) << "gnuplot-nox is installed by scripts/install-deps";
  const fs::path dir = fresh_dir("ok");
  const std::vector<std::string> drawn = run_gnuplot(run_of(""), dir.string());
  ASSERT_EQ(drawn.size(), 2u);
  EXPECT_EQ(drawn[0].substr(1, 3), "PNG");
  EXPECT_NE(drawn[1].find("<svg"), std::string::npos);
  EXPECT_TRUE(files_in(dir).empty());
}

TEST(Gnuplot, AFailingScriptLeavesNothing) {
  const fs::path dir = fresh_dir("fail");
  try {
    run_gnuplot(run_of("plot 'no-such-file.dat'\n"), dir.string());
    FAIL() << "gnuplot's error was not reported";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-file.dat"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(files_in(dir).empty());
}

// The script as the report writes it, run by hand where its data is, draws under the final names.
TEST(Gnuplot, TheScriptRunsByHandToo) {
  const fs::path dir = fresh_dir("hand");
  const GnuplotRun run = run_of("");
  std::ofstream(dir / "f.gp") << run.script;
  std::ofstream(dir / "f.dat") << run.data[0].second;
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && gnuplot f.gp 2>/dev/null").c_str()), 0);
  EXPECT_TRUE(fs::exists(dir / "f.png"));
  EXPECT_TRUE(fs::exists(dir / "f.svg"));
}

// A caller running gnuplot (paused with the PNG open), signalled: `sig` caught takes gnuplot and
// the work folder with it; SIGKILL cannot be caught, but gnuplot dies with its caller
// (PR_SET_PDEATHSIG) and no output appears under its final name.
void signal_while_drawing(int sig, bool folder_removed) {
  const vitsim::testing::Subreaper subreaper;
  const fs::path dir = fresh_dir("signal" + std::to_string(sig));
  const pid_t caller = ::fork();
  if (caller == 0) {
    try {
      run_gnuplot(run_of("pause 60\n"), dir.string());
    } catch (...) {
    }
    ::_exit(0);
  }
  const pid_t gnuplot = vitsim::testing::wait_for_child(caller, 30s);
  ASSERT_GT(gnuplot, 0) << "gnuplot did not start";
  std::this_thread::sleep_for(500ms);
  ASSERT_EQ(::kill(caller, sig), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig;
  EXPECT_TRUE(vitsim::testing::reaped_within(gnuplot, 2s)) << "gnuplot outlived its caller";
  if (::kill(gnuplot, 0) == 0) ::kill(gnuplot, SIGKILL);
  if (folder_removed) EXPECT_TRUE(files_in(dir).empty()) << "signal " << sig;
  for (const auto& f : files_in(dir))
    EXPECT_EQ(f.rfind(".vitsim-gnuplot.", 0), 0u) << "left behind: " << f;
}

TEST(Gnuplot, ASignalTakesGnuplotAndItsFolderWithTheCaller) {
  signal_while_drawing(SIGTERM, true);
  signal_while_drawing(SIGHUP, true);
}

TEST(Gnuplot, AKilledCallerLeavesNoGnuplotAndNoFigure) {
  signal_while_drawing(SIGKILL, false);
}

}  // namespace
}  // namespace gnuplot_test
}  // namespace vitsim::present
