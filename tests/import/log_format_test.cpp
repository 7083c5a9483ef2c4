// The log-format interface (import/log_format.h): every name of the registry finds its format
// (DeepSpeed's first) and no other name does, and the DeepSpeed format gives, through the
// interface, what import_deepspeed gives for each log (the same profile; the study job's fields
// from the same summary), in the order given. Excerpts of the study's logs (data/, see
// deepspeed_import_test.cpp).
#include "import/log_format.h"

#include <gtest/gtest.h>

#include "catalogs.h"  // tests/support/
#include "import/deepspeed_import.h"
#include "import/deepspeed_log.h"

namespace vitsim::import {
namespace log_format_test {
namespace {

const std::string kData = VITSIM_TEST_DATA_DIR "/data/";

TEST(LogFormat, EveryRegisteredNameFindsItsFormatAndNoOtherNameDoes) {
  const std::vector<std::string> names = log_format_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "deepspeed");  // the first format, the reference study's
  for (const std::string& n : names) {
    ASSERT_NE(find_log_format(n), nullptr) << n;
    EXPECT_EQ(find_log_format(n)->name(), n);
    EXPECT_EQ(find_log_format(n)->extension().rfind('.', 0), 0u) << n;  // ".log", ".csv"...
  }
  EXPECT_EQ(find_log_format("deepspeed")->extension(), ".log");
  EXPECT_EQ(find_log_format("no-such-format"), nullptr);
}

TEST(LogFormat, DeepSpeedThroughTheInterfaceIsTheImportOfEachLog) {
  const costmodel::DeviceCatalog catalog =
      vitsim::test::catalog_of({vitsim::test::named_device("t4", "Tesla T4"),
                                vitsim::test::named_device("rtx3070", "GeForce RTX 3070")});
  LogImportOptions options;
  options.model = costmodel::vit_preset("vit_b_16");
  const std::vector<LogToImport> logs = {
      {kData + "vector_t4_2gpu_excerpt.log", "t4", "vector-t4-shm"},
      {kData + "tesla_rtx3070_1gpu_excerpt.log", "rtx3070", "tesla-10gbe"}};
  const std::vector<ImportedLog> got =
      find_log_format("deepspeed")->import_logs(logs, catalog, options);
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < logs.size(); ++i) {
    ImportOptions o;
    o.gpu = logs[i].device;
    o.link_class = logs[i].link_class;
    o.model = options.model;
    const ImportResult direct = import_deepspeed({parse_deepspeed_log(logs[i].path)}, catalog, o);
    const LogSummary& s = direct.logs.front();
    EXPECT_EQ(got[i].file, logs[i].path);
    EXPECT_EQ(got[i].profile.device, logs[i].device);
    EXPECT_EQ(got[i].summary, to_json(s));
    EXPECT_EQ(got[i].world_size, s.world_size);
    EXPECT_EQ(got[i].micro_batch, s.micro_batch);
    EXPECT_EQ(got[i].data_fraction, s.data_fraction);
    EXPECT_EQ(got[i].step_s, s.step_interval_mean_s);
    EXPECT_EQ(got[i].compute_s, s.forward_s + s.backward_inner_s);
    ASSERT_EQ(got[i].profile.compute.size(), direct.profile.compute.size());
    EXPECT_EQ(got[i].profile.compute[0].step_overhead_time_s,
              direct.profile.compute[0].step_overhead_time_s);
  }
  EXPECT_EQ(got[0].world_size, 2);  // the order given
  EXPECT_EQ(got[1].micro_batch, 16);
}

}  // namespace
}  // namespace log_format_test
}  // namespace vitsim::import
