// The command-line kit's value parsers and model options (clikit/list_options.h,
// clikit/model_options.h): values are parsed once, and a bad one names the option and the item.
#include "clikit/list_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

#include "clikit/model_options.h"
#include "costmodel/regime.h"
#include "error_of.h"  // tests/support/

namespace vitsim::clikit {
namespace list_options_test {
namespace {

// tests/support/error_of.h
constexpr auto error_of = &vitsim::test::error_of<std::invalid_argument>;

TEST(ListOptions, WholeStringNumbersOnly) {
  EXPECT_EQ(parse_integer("16"), 16);
  EXPECT_THROW(parse_integer("16x"), std::invalid_argument);
  EXPECT_THROW(parse_integer("1.5"), std::invalid_argument);
  EXPECT_THROW(parse_positive_integer("0"), std::invalid_argument);
  EXPECT_DOUBLE_EQ(parse_number("2.5"), 2.5);
  EXPECT_THROW(parse_number("2.5MB"), std::invalid_argument);
  EXPECT_TRUE(parse_on_off("on"));
  EXPECT_FALSE(parse_on_off("off"));
  EXPECT_THROW(parse_on_off("yes"), std::invalid_argument);
}

// Issue 27: "1,,2" dropped its empty item and "2,2" simulated one configuration twice; both are
// refused now, naming the option. A per-rank list may repeat a value.
TEST(ListOptions, ListsRefuseEmptyItemsAndRepeatsAndNameTheBadOne) {
  EXPECT_EQ(split_list("a,b", "x"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split_list("", "x").empty());
  for (const char* bad : {"a,,b", "a,", ",a", ","}) {
    EXPECT_NE(error_of([&] {
                split_list(bad, "gpus");
              }).find("--gpus: an empty item in '" + std::string(bad) + "'"),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(parse_list<int64_t>("1,2,4", "gpus", parse_integer), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(error_of([] { parse_list<int64_t>("2,4x", "gpus", parse_integer); }),
            "--gpus: cannot read '4x': expected an integer");
  EXPECT_EQ(error_of([] { parse_list<int64_t>("2,4,02", "gpus", parse_integer); }),
            "--gpus: '02' names a value given before (hint: give each value once)");
  EXPECT_EQ(parse_list<int64_t>("16,16,8", "per-rank-micro-batch", parse_integer, true,
                                Repeats::kAllowed),
            (std::vector<int64_t>{16, 16, 8}));
  EXPECT_EQ(error_of([] { parse_list<int64_t>("", "gpus", parse_integer); }),
            "--gpus needs at least one value");
  EXPECT_TRUE(parse_list<int64_t>("", "hosts", parse_integer, true).empty());
}

TEST(ListOptions, OneValueThroughAnEnumParser) {
  EXPECT_EQ(parse_option("amp-bf16", "precision", costmodel::parse_regime),
            costmodel::Regime::kAmpBf16);
  // A bare bf16 names two regimes: refused with both readings (docs/cost-model.md section 12).
  EXPECT_NE(error_of([] {
              parse_option("bf16", "precision", costmodel::parse_regime);
            }).find("--precision: cannot read 'bf16': ambiguous precision 'bf16': say amp-bf16"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_option("fp8", "precision", costmodel::parse_regime);
            }).find("--precision: cannot read 'fp8': unknown precision"),
            std::string::npos);
}

TEST(ModelOptions, OverridesRenameThePreset) {
  ModelOptions m;
  m.preset = "vit_ti_16";
  EXPECT_EQ(m.resolve().name, "vit_ti_16");
  m.depth = 2;
  m.image_size = 32;
  m.patch_size = 4;
  const auto c = m.resolve();
  EXPECT_EQ(c.name, "vit_ti_16+overrides");
  EXPECT_EQ(c.depth, 2);
  m.heads = 5;  // does not divide 192
  EXPECT_THROW(m.resolve(), std::invalid_argument);
}

}  // namespace
}  // namespace list_options_test
}  // namespace vitsim::clikit
