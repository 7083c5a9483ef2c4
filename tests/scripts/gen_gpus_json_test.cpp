// scripts/gen-gpus-json: the committed platforms/gpus.json is exactly what the script makes of
// data/gpu_specs.csv (a datasheet figure changed in one and not the other fails here), and a row
// without an id in the script is refused naming the row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.h"  // tests/support/

namespace gen_gpus_json_test {
namespace {

using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kRoot = VITSIM_SOURCE_DIR;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(GenGpusJson, TheCommittedCatalogIsTheScriptsOutput) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "gen_gpus_json";
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "gpus.json").string();
  const auto r = run_command("/usr/bin/python3 " + quoted(kRoot + "/scripts/gen-gpus-json") +
                             " --out " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(out), read_json(kRoot + "/platforms/gpus.json"));
  // A CSV row the script has no id for.
  std::ifstream in(kRoot + "/data/gpu_specs.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  const std::string csv = (dir / "specs.csv").string();
  std::ofstream(csv) << header << "\n"
                     << "Mystery GPU" << first.substr(first.find(',')) << "\n";
  const auto bad = run_command("/usr/bin/python3 " + quoted(kRoot + "/scripts/gen-gpus-json") +
                               " --csv " + quoted(csv) + " --out " + quoted(out + ".bad"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("no id for row ('Mystery GPU'"), std::string::npos) << bad.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gen_gpus_json_test
