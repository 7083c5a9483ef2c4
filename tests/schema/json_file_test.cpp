// The context block of measurement files (schema/json_file.h): the host, when the measuring
// process started and when the file is written, both UTC in one sortable form; the start is the
// process's, the same on every call.
#include "schema/json_file.h"

#include <gtest/gtest.h>

#include <regex>

namespace vitsim::schema {
namespace json_file_test {
namespace {

TEST(JsonFile, AMeasurementSaysWhenItsProcessStartedAndWhenItWrote) {
  const nlohmann::json a = measurement_context_extra();
  ASSERT_TRUE(a.contains("host") && a.contains("started_utc") && a.contains("created_utc")) << a;
  const std::regex utc("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z");
  const std::string started = a["started_utc"], created = a["created_utc"];
  EXPECT_TRUE(std::regex_match(started, utc)) << started;
  EXPECT_TRUE(std::regex_match(created, utc)) << created;
  EXPECT_LE(started, created);  // the form sorts as time does
  EXPECT_EQ(measurement_context_extra()["started_utc"], a["started_utc"]);
}

}  // namespace
}  // namespace json_file_test
}  // namespace vitsim::schema
