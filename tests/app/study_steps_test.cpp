// The study job's import step (app/study_steps.h) asks the study's log format of the registry
// (import/log_format.h): a format the registry lacks is refused before anything is read, naming
// the study file, the field and the formats it knows.
#include "app/study_steps.h"

#include <gtest/gtest.h>

#include "app/reproduce.h"
#include "error_of.h"  // tests/support/
#include "schema/gpus_io.h"
#include "schema/input_error.h"
#include "schema/study.h"

namespace vitsim::app {
namespace study_steps_test {
namespace {

TEST(StudySteps, ALogFormatTheRegistryLacksIsRefusedNamingTheField) {
  schema::Study study = schema::read_study(kReferenceStudy);
  study.log_format = "no-such-format";
  const std::string error = vitsim::test::error_of<schema::InputError>(
      [&] { import_study(study, schema::read_gpus(study.gpus), "", {}); });
  EXPECT_NE(error.find(kReferenceStudy + ": /log_format: expected a log format of the registry, "
                                         "got \"no-such-format\""),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("known: deepspeed"), std::string::npos) << error;
}

}  // namespace
}  // namespace study_steps_test
}  // namespace vitsim::app
