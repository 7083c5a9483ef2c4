// The bf16 sum of the custom MPI_Op (trainer/bf16_sum.h), by hand: exact conversions, rounding to
// nearest even at and around the halfway points, overflow to infinity, NaN and infinities passed
// through, and the registered MPI_User_function itself summing a vector.
#include "trainer/bf16_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace vitsim::trainer {
namespace bf16_sum_test {
namespace {

constexpr uint16_t kOne = 0x3f80;       // 1.0
constexpr uint16_t kOnePlus = 0x3f81;   // 1 + 2^-7, the next bf16 above 1
constexpr uint16_t kTwoPow8m = 0x3b80;  // 2^-8: half a bf16 step at 1
constexpr uint16_t kInf = 0x7f80, kNegInf = 0xff80, kQuietNan = 0x7fc0, kMax = 0x7f7f;

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint16_t sum(uint16_t a, uint16_t b) {
  uint16_t out = b;
  bf16_sum(&a, &out, 1);
  return out;
}

TEST(Bf16Sum, ConversionsAreExactWhereBf16CanHoldTheValue) {
  EXPECT_EQ(bf16_to_float(kOne), 1.0f);
  EXPECT_EQ(bf16_to_float(0xc040), -3.0f);
  EXPECT_EQ(bf16_to_float(kTwoPow8m), std::ldexp(1.0f, -8));
  EXPECT_EQ(float_to_bf16(1.0f), kOne);
  EXPECT_EQ(float_to_bf16(-3.0f), 0xc040);
  EXPECT_EQ(float_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
}

TEST(Bf16Sum, RoundsToNearestTiesToEven) {
  // 1 + 2^-8 lies exactly between 1 (even mantissa) and 1 + 2^-7 (odd): ties go to 1.
  EXPECT_EQ(sum(kOne, kTwoPow8m), kOne);
  // (1 + 2^-7) + 2^-8 = 1 + 3 x 2^-8 lies between 0x3f81 (odd) and 0x3f82 (even): up to 0x3f82.
  EXPECT_EQ(sum(kOnePlus, kTwoPow8m), 0x3f82);
  // 1 + 1.5 x 2^-8 is above the halfway point: rounds up to 1 + 2^-7.
  EXPECT_EQ(sum(kOne, 0x3bc0), kOnePlus);
  // 1 + 0.5 x 2^-8 is below it: rounds down to 1.
  EXPECT_EQ(sum(kOne, 0x3b00), kOne);
  // Ties to even in fp32 -> bf16 directly, at a negative value too.
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808000)), kOne);
  EXPECT_EQ(float_to_bf16(from_bits(0x3f818000)), 0x3f82);
  EXPECT_EQ(float_to_bf16(from_bits(0xbf808001)), 0xbf81);
  // Exact sums stay exact.
  EXPECT_EQ(sum(kOne, kOne), 0x4000);    // 2
  EXPECT_EQ(sum(kOne, 0xbf80), 0x0000);  // 1 + (-1) = +0
}

TEST(Bf16Sum, OverflowGoesToInfinityAndSpecialsPassThrough) {
  EXPECT_EQ(sum(kMax, kMax), kInf);
  EXPECT_EQ(sum(kInf, kOne), kInf);
  EXPECT_EQ(sum(kNegInf, kOne), kNegInf);
  EXPECT_TRUE(std::isnan(bf16_to_float(sum(kInf, kNegInf))));
  EXPECT_TRUE(std::isnan(bf16_to_float(sum(kQuietNan, kOne))));
  EXPECT_TRUE(std::isnan(bf16_to_float(sum(kOne, 0xffc1))));
  // An fp32 NaN whose payload sits only in the low 16 bits must not truncate to infinity.
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(from_bits(0x7f800001)))));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(from_bits(0xff800001)))));
}

TEST(Bf16Sum, MpiUserFunctionSumsEveryElementInPlace) {
  std::vector<uint16_t> in = {kOne, kOnePlus, kInf, 0x4040 /* 3 */};
  std::vector<uint16_t> inout = {kOne, kTwoPow8m, kOne, 0xc000 /* -2 */};
  int len = static_cast<int>(in.size());
  MPI_Datatype type = MPI_UINT16_T;
  vitsim_bf16_sum_user_fn(in.data(), inout.data(), &len, &type);
  EXPECT_EQ(inout, (std::vector<uint16_t>{0x4000, 0x3f82, kInf, kOne}));
  EXPECT_EQ(in[0], kOne);  // the input is left alone
}

}  // namespace
}  // namespace bf16_sum_test
}  // namespace vitsim::trainer
