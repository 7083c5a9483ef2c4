// libFuzzer target: vitsim-train's DeepSpeed-style --config (trainer/train_options.h), read, then
// applied and checked as `vitsim-train train` does (validate_options, resolve_batch).
#include "fuzz_support.h"
#include "trainer/train_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  fuzz::refusals_are_input_errors([&] {
    std::string ignored;
    const trainer::DeepSpeedConfig c = trainer::read_deepspeed_config(
        schema::Node::parse_text(fuzz::as_text(data, size), "fuzz.json"), &ignored);
    trainer::TrainOptions o;
    o.data_dir = "/data";
    o.threads = 1;
    if (c.micro_batch) o.micro_batch = *c.micro_batch;
    if (c.accumulation) o.accumulation = *c.accumulation;
    if (c.train_batch_size) o.train_batch_size = c.train_batch_size;
    if (c.learning_rate) o.learning_rate = *c.learning_rate;
    if (c.weight_decay) o.weight_decay = *c.weight_decay;
    if (c.momentum) o.momentum = *c.momentum;
    if (c.beta1) o.beta1 = *c.beta1;
    if (c.beta2) o.beta2 = *c.beta2;
    if (c.adam_eps) o.adam_eps = *c.adam_eps;
    if (c.gradient_clipping) o.gradient_clipping = *c.gradient_clipping;
    try {
      trainer::validate_options(o);  // std::invalid_argument: a refusal with the option's name
      trainer::resolve_batch(o, 4, "fuzz.json", c.micro_batch.has_value(),
                             c.accumulation.has_value());
    } catch (const std::invalid_argument&) {
    }
  });
  return 0;
}
