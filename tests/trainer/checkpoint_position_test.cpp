// Issue 68, class 8: the position a checkpoint records is checked against the resuming run
// (trainer/checkpoint_position.h) on its own, since its checksum is public. Every field outside
// what the run reaches is refused naming the file and /position/<field>; the positions a run
// writes (its start, a step boundary, an epoch's last micro-step) pass. The executable's side
// (an edited checkpoint file resumed under mpirun): MpiTrain.AnEditedCheckpointPositionIsRefused.
#include "trainer/checkpoint_position.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "error_of.h"  // tests/support/
#include "schema/input_error.h"

namespace vitsim::trainer {
namespace checkpoint_position_test {
namespace {

using vitsim::test::error_of;

// A run of 2 epochs of 10 micro-steps, accumulation 4, micro-batch 8 on 2 ranks.
ResumeBounds bounds() {
  ResumeBounds b;
  b.epochs = 2;
  b.micro_steps_per_epoch = 10;
  b.accumulation = 4;
  b.samples_per_micro_step = 16;
  return b;
}

// A position a run of bounds() writes: epoch 1, after 2 optimizer steps of it (8 micro-steps).
TrainPosition written() {
  TrainPosition p;
  p.epoch = 1;
  p.micro_step = 8;
  p.global_step = 3 + 2;  // epoch 0's 3 steps (10 micro-steps: 4, 4, 2) and 2 of epoch 1
  p.epoch_samples = 8 * 16;
  p.epoch_correct = 40;
  p.epoch_loss_sum = 300;
  p.epoch_elapsed_s = 12.5;
  return p;
}

std::string refusal(const TrainPosition& p) {
  return error_of([&] { check_position("ck/checkpoint-step5.pt", p, bounds()); });
}

TEST(CheckpointPosition, ThePositionsARunWritesPass) {
  EXPECT_EQ(refusal(TrainPosition{}), "");  // the start
  EXPECT_EQ(refusal(written()), "");
  TrainPosition last = written();  // the epoch's last micro-step, not a multiple of 4
  last.micro_step = 10;
  last.global_step = 6;
  last.epoch_samples = 10 * 16;
  EXPECT_EQ(refusal(last), "");
}

TEST(CheckpointPosition, EachFieldOutsideTheRunIsRefusedByName) {
  struct Case {
    const char* field;
    void (*edit)(TrainPosition&);
  };
  const Case cases[] = {
      {"/position/epoch", [](TrainPosition& p) { p.epoch = -1; }},
      {"/position/epoch", [](TrainPosition& p) { p.epoch = 2; }},
      {"/position/micro_step", [](TrainPosition& p) { p.micro_step = -4; }},
      {"/position/micro_step", [](TrainPosition& p) { p.micro_step = 1000000000000; }},
      {"/position/micro_step", [](TrainPosition& p) { p.micro_step = 6; }},  // mid-step
      {"/position/global_step", [](TrainPosition& p) { p.global_step = -1; }},
      {"/position/global_step", [](TrainPosition& p) { p.global_step = 1; }},  // < this epoch's 2
      {"/position/epoch_samples", [](TrainPosition& p) { p.epoch_samples = 8 * 16 + 1; }},
      {"/position/epoch_samples",
       [](TrainPosition& p) { p.epoch_samples = std::numeric_limits<double>::quiet_NaN(); }},
      {"/position/epoch_correct", [](TrainPosition& p) { p.epoch_correct = 8 * 16 + 1; }},
      {"/position/epoch_correct", [](TrainPosition& p) { p.epoch_correct = -1; }},
      {"/position/epoch_loss_sum", [](TrainPosition& p) { p.epoch_loss_sum = -0.5; }},
      {"/position/epoch_loss_sum", [](TrainPosition& p) { p.epoch_loss_sum = INFINITY; }},
      {"/position/epoch_elapsed_s", [](TrainPosition& p) { p.epoch_elapsed_s = 1e300; }},
  };
  for (const Case& c : cases) {
    TrainPosition p = written();
    c.edit(p);
    const std::string e = refusal(p);
    EXPECT_EQ(e.rfind(std::string("ck/checkpoint-step5.pt: ") + c.field + ": expected", 0), 0u)
        << c.field << ": " << e;
  }
}

TEST(CheckpointPosition, AnEpochPastTheRunSaysHowToResumeIt) {
  TrainPosition p = written();
  p.epoch = 4;
  EXPECT_NE(refusal(p).find("resume with --epochs 5 or more"), std::string::npos) << refusal(p);
}

}  // namespace
}  // namespace checkpoint_position_test
}  // namespace vitsim::trainer
