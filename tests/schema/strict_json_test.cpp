// Strict parsing beneath every reader (schema/strict_json.h, Node::parse_file): a document nested
// 60,000 levels deep, a duplicate key, a parse error, an oversized number, a denormal or a device
// file is refused with file, JSON pointer and hint, by every reader, instead of crashing it,
// reading forever or silently keeping the last of two values.
#include "schema/strict_json.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "schema/cluster.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/prediction.h"
#include "schema/profile.h"
#include "schema/run_log.h"
#include "schema/scenario.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace strict_json_test {
namespace {

using testing::error_of;
using testing::example_with;

struct Reader {
  const char* format;
  std::function<void(const Node&)> read;
};

const std::vector<Reader>& readers() {
  static const std::vector<Reader> kReaders = {
      {"cluster", [](const Node& n) { read_cluster(n); }},
      {"scenario", [](const Node& n) { read_scenario(n); }},
      {"profile", [](const Node& n) { read_profile(n); }},
      {"run_log", [](const Node& n) { read_run_log(n); }},
      {"cost_model", [](const Node& n) { read_cost_model(n); }},
      {"gpus", [](const Node& n) { read_gpus(n); }},
      {"prediction", [](const Node& n) { read_prediction(n); }},
  };
  return kReaders;
}

std::string nested(const std::string& open, const std::string& close, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

// {"a":{"a":...{"a":1}...}}, `depth` objects deep.
std::string deep_object(int depth) {
  std::string s = nested("{\"a\":", "}", depth);
  return s.insert(static_cast<size_t>(depth) * 5, "1");
}

// Issue 11: every reader segfaulted on a "context" nested ~60,000 levels deep.
TEST(StrictJson, DeepContextIsRefusedByEveryReader) {
  for (const auto& r : readers()) {
    // In front of the example's own keys: the parser meets the depth before anything else.
    const std::string doc = "{\"context\":{\"deep\":" + deep_object(60000) + "}," +
                            testing::load_example(r.format).dump().substr(1);
    const std::string e = error_of([&] { r.read(Node::parse_text(doc, "deep.json")); });
    EXPECT_EQ(e.rfind("deep.json: /context/deep/a/a/a", 0), 0u)
        << r.format << ": " << e.substr(0, 200);
    EXPECT_NE(e.find("nested at most 64 levels deep"), std::string::npos) << r.format;
  }
}

TEST(StrictJson, DeepArraysAndTheLimitItself) {
  EXPECT_NE(error_of([] {
              parse_json_strict(nested("[", "]", 100000), "a.json");
            }).find("a.json: /0/0/0/0"),
            std::string::npos);
  // kMaxJsonDepth levels are fine, one more is not.
  EXPECT_NO_THROW(parse_json_strict(nested("[", "]", kMaxJsonDepth), "ok.json"));
  EXPECT_NE(error_of([] { parse_json_strict(nested("[", "]", kMaxJsonDepth + 1), "x.json"); }), "");
}

// Issue 11: "precision": "fp32", "precision": "bf16" calibrated as bf16.
TEST(StrictJson, DuplicateKeysAreRefusedWithTheirPath) {
  const std::string profile =
      example_with("profile", "\"precision\":\"fp32\"", R"("precision":"fp32","precision":"bf16")");
  const std::string e = error_of([&] { read_profile(Node::parse_text(profile, "p.json")); });
  EXPECT_EQ(e,
            "p.json: /precision: expected each key once per object, got key \"precision\" a second "
            "time (hint: JSON readers disagree on which value wins: keep one of them)");
  const std::string deep = R"({"a": [{"x": 1}, {"x": 2, "y/z": 3, "y/z": 4}]})";
  EXPECT_NE(
      error_of([&] { parse_json_strict(deep, "d.json"); }).find("d.json: /a/1/y~1z: expected"),
      std::string::npos);
  // The same key in two objects is fine.
  EXPECT_NO_THROW(
      parse_json_strict(R"({"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]})", "ok.json"));
}

TEST(StrictJson, ParseErrorsHaveNoLibraryPrefix) {
  const std::string e = error_of([] { parse_json_strict("{\"a\": 1,,}", "x.json"); });
  EXPECT_EQ(e.find("[json.exception"), std::string::npos) << e;
  EXPECT_NE(e.find("x.json: malformed JSON at byte 9: parse error at line 1, column 9"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("(hint: "), std::string::npos);
}

TEST(StrictJson, HugeNumbersNameTheirPath) {
  const std::string e =
      error_of([] { parse_json_strict(R"({"a": [1, {"t_s": 1e999}]})", "h.json"); });
  EXPECT_NE(e.find("h.json: /a/1/t_s: expected a finite number that fits a double"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find("[json.exception"), std::string::npos) << e;
  // Integers beyond int64: the unsigned range wraps to negative in a careless reader.
  const Node n =
      Node::parse_text(R"({"n": 18446744073709551615, "m": 99999999999999999999})", "i.json");
  EXPECT_NE(error_of([&] { n["n"].integer(); }).find("i.json: /n: expected integer below 2^63"),
            std::string::npos);
  EXPECT_NE(error_of([&] { n["m"].integer(); }).find("i.json: /m: expected integer"),
            std::string::npos);
}

// Issue 11: a profile time of 1e-310 calibrated to "per_unit_s": null.
TEST(StrictJson, DenormalsAreRefused) {
  const Node n = Node::parse_text(R"({"t_s": 1e-310, "u_s": 2.2250738585072014e-308})", "d.json");
  EXPECT_NE(error_of([&] { n["t_s"].number(); }).find("d.json: /t_s: expected a number of normal"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(n["u_s"].number(), 2.2250738585072014e-308);  // the smallest normal is fine
  const std::string profile =
      example_with("profile", "\"forward_time_s\":0.0002", "\"forward_time_s\":1e-310");
  EXPECT_NE(error_of([&] {
              read_profile(Node::parse_text(profile, "p.json"));
            }).find("p.json: /compute/0/layers/0/forward_time_s: expected a number of normal"),
            std::string::npos);
}

// Issue 11: a scenario whose cluster path is /dev/zero read forever.
TEST(StrictJson, DevicesAndFoldersAreNotRead) {
  EXPECT_NE(error_of([] { read_cluster("/dev/zero"); }).find("/dev/zero: not a file (a device)"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_scenario("/tmp"); }).find("/tmp: not a file (a folder)"),
            std::string::npos);
}

}  // namespace
}  // namespace strict_json_test
}  // namespace vitsim::schema
