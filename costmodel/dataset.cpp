// The table of data sets; see dataset.h.
#include "costmodel/dataset.h"

#include <stdexcept>

namespace vitsim::costmodel {

const std::vector<Dataset>& datasets() {
  static const std::vector<Dataset> kDatasets = {
      {"imagenet-1k", 1281167, 1000,
       "ILSVRC-2012 training split (Russakovsky et al., \"ImageNet Large Scale Visual Recognition "
       "Challenge\", IJCV 2015: 1,281,167 images in 1000 classes)"},
      {"cifar10", 50000, 10,
       "CIFAR-10 training batches (Krizhevsky, \"Learning Multiple Layers of Features from Tiny "
       "Images\", 2009: 5 x 10,000 images, 10 classes)"},
      {"cifar100", 50000, 100,
       "CIFAR-100 training split (Krizhevsky 2009: 50,000 images, 100 fine classes)"},
  };
  return kDatasets;
}

const Dataset& find_dataset(const std::string& name) {
  std::string names;
  for (const Dataset& d : datasets()) {
    if (d.name == name) return d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  throw std::invalid_argument("unknown data set '" + name + "' (expected " + names + ")");
}

}  // namespace vitsim::costmodel
