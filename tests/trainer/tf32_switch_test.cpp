// The tf32 regime's switch (trainer/tf32_switch.h): refused with a message that says why on a CPU
// and on GPUs before Ampere (no TF32 tensor cores), accepted from compute capability 8.0; the
// train options refuse tf32 without --device cuda before anything starts.
#include "trainer/tf32_switch.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "error_of.h"  // tests/support/
#include "trainer/train_options.h"

namespace vitsim::trainer {
namespace tf32_switch_test {
namespace {

using vitsim::test::error_of;  // tests/support/error_of.h

TEST(Tf32Switch, RefusedOnACpuAndBeforeAmpere) {
  EXPECT_NE(tf32_refusal("cpu", 0, 0).find("needs --device cuda"), std::string::npos);
  // A T4 (7.5) and a V100 (7.0): no TF32.
  const std::string t4 = tf32_refusal("cuda", 7, 5);
  EXPECT_NE(t4.find("compute capability 7.5"), std::string::npos) << t4;
  EXPECT_NE(t4.find("no TF32"), std::string::npos) << t4;
  EXPECT_FALSE(tf32_refusal("cuda", 7, 0).empty());
  // An A100 (8.0), an RTX 3070 (8.6), an H100 (9.0).
  EXPECT_EQ(tf32_refusal("cuda", 8, 0), "");
  EXPECT_EQ(tf32_refusal("cuda", 8, 6), "");
  EXPECT_EQ(tf32_refusal("cuda", 9, 0), "");
  // Here (no GPU): enabling it on the CPU throws, leaving LibTorch's switches alone.
  EXPECT_THROW(enable_tf32("cpu"), std::invalid_argument);
}

TEST(Tf32Switch, TrainOptionsRefuseTf32WithoutCuda) {
  TrainOptions o;
  o.data_dir = "/tmp";
  o.precision = costmodel::Regime::kTf32;
  EXPECT_NE(error_of([&] { validate_options(o); }).find("--precision tf32 needs --device cuda"),
            std::string::npos);
}

}  // namespace
}  // namespace tf32_switch_test
}  // namespace vitsim::trainer
