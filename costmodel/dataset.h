// Training data sets by name: the one table of how many training images and classes each has
// (docs/cost-model.md, "Data sets"), so that `--dataset imagenet-1k` replaces a number copied by
// hand (1,281,167) and the classes of the model's head follow the data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::costmodel {

struct Dataset {
  std::string name;          // "imagenet-1k"
  int64_t train_images = 0;  // images of the training split
  int64_t classes = 0;       // classes of the head
  std::string source;        // where the figures come from
};

// Every data set of the table, in a fixed order.
const std::vector<Dataset>& datasets();

// The data set called `name`; std::invalid_argument listing the names otherwise.
const Dataset& find_dataset(const std::string& name);

}  // namespace vitsim::costmodel
