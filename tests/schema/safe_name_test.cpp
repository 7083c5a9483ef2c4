// Issue 68, class 12: a name that becomes part of a path is a name (schema/safe_name.h), and the
// readers that hold such names refuse a path: a run log's cluster, a scenario's name.
#include "schema/safe_name.h"

#include "schema/run_log.h"
#include "schema/scenario.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace safe_name_test {
namespace {

using testing::load_example;
using testing::read_error;

TEST(SafeName, LettersDigitsDotsUnderscoresAndDashes) {
  for (const std::string ok : {"tesla", "emulated-400mbit", "h200_cluster.v2", "A100x8"})
    EXPECT_TRUE(is_safe_name(ok)) << ok;
  EXPECT_EQ(unsafe_name_reason(""), "an empty name");
  EXPECT_EQ(unsafe_name_reason(".."), "a name starting with '.'");
  EXPECT_EQ(unsafe_name_reason(".hidden"), "a name starting with '.'");
  EXPECT_EQ(unsafe_name_reason("-rf"), "a name starting with '-'");
  EXPECT_EQ(unsafe_name_reason("a/b"), "'/', which a name may not hold");
  EXPECT_EQ(unsafe_name_reason("my lab"), "byte 0x20, which a name may not hold");
  EXPECT_EQ(unsafe_name_reason(std::string("a\0b", 3)), "byte 0x00, which a name may not hold");
  EXPECT_EQ(unsafe_name_reason(std::string(129, 'a')), "129 characters, over 128");
  EXPECT_TRUE(is_safe_name(std::string(128, 'a')));
}

TEST(SafeName, TheErrorNamesFileAndFieldAndShowsNoControlByte) {
  const std::string e =
      testing::error_of([] { check_safe_name("../x\n\"y", "run.json", "/config/cluster"); });
  EXPECT_NE(e.find("run.json: /config/cluster: expected a name (letters, digits"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("got \"../x??y\": a name starting with '.'"), std::string::npos) << e;
}

TEST(SafeName, ReadersRefuseAPathWhereANameIsLookedUp) {
  Json run = load_example("run_log");
  run["config"]["cluster"] = "../../../../tmp/x/evil";
  EXPECT_NE(read_error(run, [](const Node& n) { read_run_log(n); })
                .find("bad.json: /config/cluster: expected a name"),
            std::string::npos);
  run["config"]["cluster"] = "";  // no cluster named: allowed
  EXPECT_EQ(read_error(run, [](const Node& n) { read_run_log(n); }), "");
  Json scenario = load_example("scenario");
  scenario["name"] = "../../predictions-elsewhere";
  EXPECT_NE(read_error(scenario, [](const Node& n) { read_scenario(n); })
                .find("bad.json: /name: expected a name"),
            std::string::npos);
}

}  // namespace
}  // namespace safe_name_test
}  // namespace vitsim::schema
