// One name list per enum (costmodel/enum_names.h): every table's names are distinct and parse
// back to their value, to_string writes them, and an unknown name is refused listing the table.
#include "costmodel/enum_names.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "costmodel/collective.h"
#include "costmodel/cost_model.h"
#include "costmodel/layer_graph.h"
#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/sweep_goal_names.h"
#include "costmodel/transport_model.h"

namespace vitsim::costmodel {
namespace enum_names_test {
namespace {

// Each row's name parses to its value with `parse` and is what to_string writes; names distinct.
template <typename E, size_t N, typename Parse>
void expect_round_trip(const EnumName<E> (&names)[N], Parse parse) {
  std::set<std::string> seen;
  for (const auto& n : names) {
    EXPECT_TRUE(seen.insert(n.name).second) << "twice: " << n.name;
    EXPECT_EQ(parse(n.name), n.value) << n.name;
    EXPECT_STREQ(to_string(n.value), n.name);
  }
}

TEST(EnumNames, EveryTableRoundTrips) {
  expect_round_trip(kCollectiveNames, parse_collective);
  expect_round_trip(kCollectiveLevelNames, parse_collective_level);
  expect_round_trip(kOptimizerNames, parse_optimizer);
  expect_round_trip(kRegimeNames, parse_regime);
  expect_round_trip(kLayerKindNames, parse_layer_kind);
  expect_round_trip(kCostSourceNames, parse_cost_source);
  expect_round_trip(kRooflineFormNames, parse_roofline_form);
  expect_round_trip(kTransportNames, parse_transport);
  expect_round_trip(kSweepGoalNames, parse_sweep_goal);
  // Read only from files (schema::read_named), never from a parse_* of their own.
  const auto link_source = [](const std::string& t) {
    return parse_named(kLinkSourceNames, t, "link source");
  };
  expect_round_trip(kLinkSourceNames, link_source);
  const auto link_layer = [](const std::string& t) {
    return parse_named(kLinkLayerNames, t, "link layer");
  };
  expect_round_trip(kLinkLayerNames, link_layer);
}

TEST(EnumNames, UnknownNamesAreRefusedListingTheTable) {
  try {
    parse_named(kCollectiveLevelNames, "butterfly", "collective level");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown collective level 'butterfly' (expected step, flow or auto)");
  }
  EXPECT_STREQ(name_of(kCollectiveNames, static_cast<Collective>(99)), "?");
  EXPECT_EQ(joined(names_of(kOptimizerNames), " | "), "adamw | sgd");
  EXPECT_EQ(spoken_list({"a"}), "a");
  EXPECT_EQ(spoken_list({"a", "b", "c"}), "a, b or c");
  EXPECT_EQ(regime_names(),
            "fp32, amp-fp16, amp-bf16, ds-fp16, ds-bf16, ds-fp16-allreduce-fp32, "
            "ds-bf16-allreduce-fp32, tf32");
  // Some of the values, in the table's order: the regimes a cost model is keyed by.
  EXPECT_EQ(joined(names_of(kRegimeNames, is_compute_regime), ","),
            "fp32,amp-fp16,amp-bf16,ds-fp16,ds-bf16,tf32");
  // kNone is no name a user writes.
  EXPECT_STREQ(to_string(Transport::kNone), "none");
  EXPECT_THROW(parse_transport("none"), std::invalid_argument);
}

}  // namespace
}  // namespace enum_names_test
}  // namespace vitsim::costmodel
