// Study files (schema/study.h): the reference study reads, its page shows it, paths resolve
// against the file's folder, and bad files are refused naming the place.
#include "schema/study.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace study_test {
namespace {

const std::string kStudy = std::string(VITSIM_SOURCE_DIR) + "/data/vit-deepspeed-study/study.json";

// The reference study with `from` replaced by `to`, read as if it were at kStudy.
std::string error_with(const std::string& from, const std::string& to) {
  std::string s = testing::read_text(kStudy);
  const auto at = s.find(from);
  if (at == std::string::npos) return "error_with: '" + from + "' not in the study";
  s.replace(at, from.size(), to);
  return testing::text_error(s, kStudy, [](const Node& n) { read_study(n); });
}

TEST(Study, ReferenceStudyReads) {
  const Study s = read_study(kStudy);
  EXPECT_EQ(s.model.name, "vit_b_16");
  EXPECT_EQ(s.train_images, 50000);
  ASSERT_EQ(s.logs.size(), 2u);
  EXPECT_EQ(s.logs[0].prefix, "tesla_");
  EXPECT_EQ(s.logs[0].device, "rtx3070");
  EXPECT_EQ(s.logs[1].link_class, "vector-t4-shm");
  EXPECT_EQ(s.precisions.size(), 6u);  // the five of the study, and tf32
  // The study ran DeepSpeed: its tables' "fp16" is DeepSpeed's fp16 mode.
  EXPECT_EQ(s.precision_names.at("fp16"), costmodel::Regime::kDsFp16);
  // Paths are resolved against the study's folder.
  EXPECT_EQ(s.gpus, std::string(VITSIM_SOURCE_DIR) + "/platforms/gpus.json");
  EXPECT_EQ(s.log_folder, std::string(VITSIM_SOURCE_DIR) + "/data/vit-deepspeed-study/logs");
  EXPECT_EQ(s.log_format, "deepspeed");  // the default: the file names no format
  // The GPU evidence of the kernel-class transfer: timm's two tables, AITemplate's A100 rows,
  // the torch.mm throughput table (sustained matrix rates), the H100 and H200 profiles (measured
  // costs too); no evidence-only profiles since the H200's were re-measured (2026-11-28,
  // platforms/profiles/README.md).
  ASSERT_EQ(s.tensor_evidence.size(), 4u);
  EXPECT_EQ(s.tensor_evidence[1],
            std::string(VITSIM_SOURCE_DIR) + "/data/public-benchmarks/timm_infer_benchmarks.csv");
  EXPECT_EQ(s.gpu_profiles,
            std::vector<std::string>{std::string(VITSIM_SOURCE_DIR) + "/platforms/profiles"});
  EXPECT_TRUE(s.evidence_profiles.empty());
}

TEST(Study, PageExampleIsTheReferenceStudy) {
  const Json page = testing::doc_example("study.md");
  EXPECT_EQ(page, Json::parse(testing::read_text(kStudy)));
}

TEST(Study, TheLogFormatIsReadAsNamed) {
  const std::string with = "\"log_format\": \"megatron\", \"log_folder\": \"logs\"";
  std::string s = testing::read_text(kStudy);
  s.replace(s.find("\"log_folder\": \"logs\""), std::string("\"log_folder\": \"logs\"").size(),
            with);
  // The reader keeps the name; the study job looks it up in the registry (tests/app).
  EXPECT_EQ(read_study(Node::parse_text(s, kStudy)).log_format, "megatron");
  EXPECT_NE(error_with("\"log_folder\": \"logs\"", "\"log_format\": \"\", \"log_folder\": \"logs\"")
                .find("/log_format: expected a log format name, got"),
            std::string::npos);
}

TEST(Study, BadFilesNameThePlace) {
  EXPECT_NE(error_with("\"log_folder\": \"logs\"", "\"log_folder\": \"nope\"")
                .find("/log_folder: expected an existing folder, got \"nope\""),
            std::string::npos);
  EXPECT_NE(error_with("\"prefix\": \"vector_\"", "\"prefix\": \"tesla_\"")
                .find("/logs/1/prefix: expected a prefix no other rule has"),
            std::string::npos);
  EXPECT_NE(
      error_with("\"tf32\"]", "\"fp32\"]").find("/precisions/5: expected each precision once"),
      std::string::npos);
  EXPECT_NE(error_with("\"train_images\"", "\"train_image\"").find("train_image"),
            std::string::npos);
  EXPECT_NE(
      error_with("\"amp-fp16\",", "\"fp16\",").find("/precisions/1: expected a precision regime"),
      std::string::npos);
  EXPECT_NE(error_with("\"../../platforms/profiles\"", "\"../../platforms/nope\"")
                .find("/gpu_profiles/0: expected an existing file"),
            std::string::npos);
  // Evidence-only profiles (none in the reference study since the H200 was re-measured): read
  // like gpu_profiles, and a missing one named.
  const std::string gpu = "\"gpu_profiles\": [\"../../platforms/profiles\"],";
  EXPECT_EQ(error_with(gpu, gpu + " \"evidence_profiles\": [\"../../platforms/profiles/"
                                  "h200-sxm-vit_b_16-fp32.json\"],"),
            "");
  EXPECT_NE(error_with(gpu, gpu + " \"evidence_profiles\": [\"../../platforms/nope.json\"],")
                .find("/evidence_profiles/0: expected an existing file"),
            std::string::npos);
  // A path the system will not even look at (longer than a file name may be) is refused like a
  // missing one; Fuzz.study found it ending the process (std::filesystem::filesystem_error).
  const std::string too_long(5000, 'x');
  EXPECT_NE(error_with("\"development_set\": \"", "\"development_set\": \"" + too_long)
                .find("/development_set: expected an existing file"),
            std::string::npos);
  EXPECT_NE(error_with("\"../../platforms/profiles\"", "\"" + too_long + "\"")
                .find("/gpu_profiles/0: expected an existing file"),
            std::string::npos);
}

}  // namespace
}  // namespace study_test
}  // namespace vitsim::schema
