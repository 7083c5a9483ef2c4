// Node: every kind of bad input is refused with file, JSON pointer, expected and got.
#include "schema/json_node.h"

#include <gtest/gtest.h>

#include <functional>

#include "error_of.h"  // tests/support/
#include "schema/model_io.h"

namespace vitsim::schema {
namespace json_node_test {
namespace {

// tests/support/error_of.h
constexpr auto error_of = &vitsim::test::error_of<InputError>;

TEST(JsonNode, MalformedJsonNamesFileAndByte) {
  const std::string e = error_of([] { Node::parse_text("{\"a\": 1,,}", "x.json"); });
  EXPECT_NE(e.find("x.json: malformed JSON at byte"), std::string::npos) << e;
}

TEST(JsonNode, MissingFileNamesIt) {
  const std::string e = error_of([] { Node::parse_file("/nonexistent/p.json"); });
  EXPECT_NE(e.find("/nonexistent/p.json: cannot open"), std::string::npos) << e;
}

TEST(JsonNode, MissingKeyWrongTypeNegativeUnknownKey) {
  const Node n = Node::parse_text(R"({"a": {"t_s": -1, "s": "x", "n": "10 Gbps"}})", "f.json");
  EXPECT_EQ(error_of([&] { n["b"]; }),
            "f.json: /b: expected key \"b\", got nothing (missing) (hint: see the format's page in "
            "docs/)");
  EXPECT_NE(error_of([&] {
              n["a"]["t_s"].nonnegative();
            }).find("f.json: /a/t_s: expected number >= 0, got number -1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { n["a"]["s"].number(); }).find("/a/s: expected number, got string \"x\""),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              n["a"].expect_keys({"t_s", "s"});
            }).find("/a/n: expected one of the keys t_s, s, got unknown key \"n\""),
            std::string::npos);
}

TEST(JsonNode, UnknownSchemaVersionRefused) {
  const Node n = Node::parse_text(R"({"schema": "vitsim.profile", "schema_version": 7})", "p.json");
  const std::string e = error_of([&] { n.expect_schema("vitsim.profile", 1); });
  EXPECT_NE(e.find("p.json: /schema_version: expected schema_version 1, got number 7"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of([&] {
              n.expect_schema("vitsim.cluster", 1);
            }).find("/schema: expected \"vitsim.cluster\""),
            std::string::npos);
}

TEST(JsonNode, IntegersMustBeWhole) {
  const Node n = Node::parse_text(R"({"a": 2.5, "b": 3.0, "c": 4})", "i.json");
  EXPECT_NE(error_of([&] { n["a"].integer(); }).find("expected integer"), std::string::npos);
  EXPECT_EQ(n["b"].integer(), 3);
  EXPECT_EQ(n["c"].integer_at_least(1), 4);
}

TEST(ModelIo, RoundTripsOverrides) {
  costmodel::ViTConfig c = costmodel::vit_preset("vit_ti_16");
  c.image_size = 32;
  c.patch_size = 4;
  c.name = "vit_ti_16+overrides";
  const Json j = write_model(c);
  const costmodel::ViTConfig back = read_model(Node(j, "m.json", ""));
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.name, c.name);
}

TEST(ModelIo, RefusesUnknownPresetAndImpossibleModel) {
  const Json bad = {{"preset", "vit_x_99"}};
  EXPECT_NE(
      error_of([&] { read_model(Node(bad, "m.json", "/model")); }).find("m.json: /model/preset"),
      std::string::npos);
  const Json odd = {{"preset", "vit_b_16"}, {"image_size", 225}};
  EXPECT_NE(
      error_of([&] { read_model(Node(odd, "m.json", "/model")); }).find("multiple of patch_size"),
      std::string::npos);
}

}  // namespace
}  // namespace json_node_test
}  // namespace vitsim::schema
