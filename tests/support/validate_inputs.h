// The inputs of the tests of `vitsim validate` (tests/cli/validate_*_test.cpp): the format pages'
// minimal examples (tests/schema/examples/), and the run log and model that make the example run
// log the measurement of the example prediction's configuration, field for field. Each test edits
// a copy to say what it checks.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace vitsim::test {

// tests/schema/examples/NAME.json of this source tree.
inline nlohmann::json format_example(const std::string& name) {
  return nlohmann::json::parse(
      std::ifstream(std::string(VITSIM_SOURCE_DIR) + "/tests/schema/examples/" + name + ".json"));
}

// The example run log as a run of the example prediction's configuration: cluster "example", 2
// ranks on two hosts, micro-batch 16, all images, fp32, and the rest of what a step's time depends
// on as the prediction has it (present/run_match.h): accumulation 1, no overlap, 500 MB buckets,
// 1563 steps an epoch.
inline nlohmann::json run_log_of_example_prediction() {
  nlohmann::json run = format_example("run_log");
  run["config"]["cluster"] = "example";
  run["config"]["data_fraction"] = 1.0;
  run["config"]["accumulation"] = 1;
  run["config"]["global_batch"] = 32;
  run["config"]["overlap"] = false;
  run["config"]["bucket_bytes"] = 5e8;
  run["epochs"][0]["steps"] = 1563;
  return run;
}

// The model that run log trained, as a prediction's context names it (the example prediction
// names none, and validate compares a run log only with a prediction that says its model).
inline nlohmann::json example_run_model() {
  return {{"preset", "vit_ti_16"},
          {"name", "vit_ti_16+overrides"},
          {"image_size", 32},
          {"patch_size", 4},
          {"channels", 3},
          {"width", 192},
          {"depth", 1},
          {"heads", 3},
          {"mlp_ratio", 4.0},
          {"classes", 10}};
}

}  // namespace vitsim::test
