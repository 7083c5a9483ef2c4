// The synthetic cost fixture (fixtures/costs.json) is what synthetic_costs.h generates, and it
// reads back through the cost-model reader (so it stays in the current format).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "schema/cost_model_io.h"
#include "synthetic_costs.h"

namespace vitsim::sim {
namespace fixture_test {
namespace {

const std::string kFixture = std::string(VITSIM_TEST_DATA_DIR) + "/fixtures/costs.json";

schema::CostModelFile generated() {
  schema::CostModelFile f;
  f.context = {{"tool", "tests/sim/synthetic_costs.h"},
               {"note", "SYNTHETIC costs for tests and benchmarks; not measurements"}};
  f.costs = test::synthetic_costs();
  return f;
}

TEST(Fixture, CostsFileIsTheGeneratedSyntheticModel) {
  if (const char* regen = std::getenv("VITSIM_REGEN_FIXTURES");
      regen != nullptr && std::string(regen) == "1") {
    schema::write_cost_model(kFixture, generated());
  }
  const schema::CostModelFile read = schema::read_cost_model(kFixture);
  EXPECT_EQ(schema::write_cost_model_json(read), schema::write_cost_model_json(generated()))
      << "regenerate: VITSIM_REGEN_FIXTURES=1 sim_tests --gtest_filter=Fixture.*";
  EXPECT_EQ(read.costs.devices.size(), test::synthetic_devices().size());
}

}  // namespace
}  // namespace fixture_test
}  // namespace vitsim::sim
