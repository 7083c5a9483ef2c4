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

TEST(ListOptions, ListsSkipEmptyItemsAndNameTheBadOne) {
  EXPECT_EQ(split_list("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parse_list<int64_t>("1,2,4", "gpus", parse_integer), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(error_of([] { parse_list<int64_t>("2,4x", "gpus", parse_integer); }),
            "--gpus: cannot read '4x': expected an integer");
  EXPECT_EQ(error_of([] { parse_list<int64_t>(",", "gpus", parse_integer); }),
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
}  // namespace vitsim::clikit
