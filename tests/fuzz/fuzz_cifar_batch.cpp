// libFuzzer target: CIFAR binary batch files (trainer/cifar_format.h); the first byte picks
// CIFAR-10 or CIFAR-100, the rest is the file. Every image read has its 3072 pixel bytes and a
// label of the format's range.
#include <cstdlib>

#include "fuzz_support.h"
#include "trainer/cifar_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::trainer;
  if (size == 0) return 0;
  const CifarFormat format = (data[0] & 1) ? CifarFormat::kCifar100 : CifarFormat::kCifar10;
  vitsim::fuzz::refusals_are_input_errors([&] {
    CifarImages images;
    images.format = format;
    parse_cifar_bytes(vitsim::fuzz::as_text(data + 1, size - 1), "fuzz.bin", format, images);
    if (images.pixels.size() != static_cast<size_t>(images.size()) * kCifarImageBytes) std::abort();
    for (int32_t label : images.labels) {
      if (label < 0 || label >= images.classes()) std::abort();
    }
  });
  return 0;
}
