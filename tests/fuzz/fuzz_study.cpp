// libFuzzer target: study descriptions (schema/study.h, data/vit-deepspeed-study/study.json, read
// by `vitsim reproduce --study`). Read as if it were the reference study's file, so that its paths
// resolve against that folder and the seed is accepted. Property 1 of fuzz_support.h only.
#include "fuzz_support.h"
#include "schema/study.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  vitsim::fuzz::refusals_are_input_errors(
      [&] { read_study(Node::parse_text(vitsim::fuzz::as_text(data, size), VITSIM_STUDY_FILE)); });
  return 0;
}
