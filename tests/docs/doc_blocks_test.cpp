// The rules of the doc-command test (doc_blocks.h) on small hand-made pages: which commands are
// found, which run, which are synopses, which are skipped and why, and how paths move.
#include "doc_blocks.h"

#include <gtest/gtest.h>

namespace vitsim::doc_test {
namespace doc_blocks_test {
namespace {

TEST(DocBlocks, FindsTheCommandsOfBlocksThatHoldAVitsimCommand) {
  const std::string page =
      "Text `vitsim model` inline is not a block.\n"
      "```\n"
      "# a comment line\n"
      "build/bin/vitsim predict --cluster platforms/tesla.json \\\n"
      "    --gpus 4   # four GPUs\n"
      "\n"
      "mpirun -np 2 build/bin/vitsim-train train --data /tmp/d\n"
      "```\n"
      "```json\n"
      "{\"vitsim\": 1}\n"
      "```\n"
      "```sh\n"
      "printf 'x\\n' > hosts\n"
      "scripts/install-deps\n"
      "```\n"
      "```\n"
      "vitsim-train profile / bench-allreduce \xe2\x94\x80\xe2\x94\x90\n"
      "```\n"
      "```\n"
      "vitsim calibrate P.json... -o C.json\n"
      "                 [--precisions fp32]\n"
      "```\n";
  const std::vector<DocCommand> c = extract_commands("page.md", page);
  // The block without a vitsim command and the diagram are left out; an indented synopsis line
  // goes on the command above it.
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].line, 4);
  EXPECT_EQ(c[0].text,
            "build/bin/vitsim predict --cluster platforms/tesla.json --gpus 4   # four GPUs");
  EXPECT_EQ(c[1].line, 7);
  EXPECT_EQ(program_of(c[1].text), "build/bin/vitsim-train");
  EXPECT_EQ(c[2].text, "vitsim calibrate P.json... -o C.json [--precisions fp32]");
}

TEST(DocBlocks, ProgramSkipsEnvironmentAndMpirunOptions) {
  EXPECT_EQ(program_of("A=1 B=2 vitsim model"), "vitsim");
  EXPECT_EQ(program_of("mpirun -np 2 -H h1,h2 --mca btl self,tcp vitsim-train train"),
            "vitsim-train");
  EXPECT_EQ(program_of("make run  # builds"), "make");
  EXPECT_TRUE(is_vitsim_command("build/bin/vitsim sweep --help"));
  EXPECT_FALSE(is_vitsim_command("scripts/emulate-cluster --check"));
}

TEST(DocBlocks, PlansSayWhatIsNotRunAndWhy) {
  EXPECT_EQ(plan_for("build/bin/vitsim model vit_b_16   # 86,567,656 parameters").action,
            Action::kRun);
  EXPECT_EQ(plan_for("mkdir -p profiles").action, Action::kRun);
  EXPECT_EQ(plan_for("vitsim import-deepspeed LOG... -o PROFILE.json --gpu ID").action,
            Action::kSynopsis);
  EXPECT_EQ(plan_for("vitsim reproduce [--out DIR]").action, Action::kSynopsis);
  EXPECT_EQ(
      plan_for("scripts/emulate-cluster --hosts 4 -- build/bin/vitsim-train train ...").action,
      Action::kSkip);
  const Plan gpu = plan_for("vitsim-train profile --device cuda --out p.json");
  EXPECT_EQ(gpu.action, Action::kSkip);
  EXPECT_NE(gpu.reason.find("GPU"), std::string::npos);
  const Plan hosts = plan_for("mpirun -np 2 -H h1,h2 vitsim-train bench-allreduce --out x.json");
  EXPECT_EQ(hosts.action, Action::kSkip);
  EXPECT_NE(hosts.reason.find("hosts"), std::string::npos);
  // --host of cluster init names simulated hosts: it runs.
  EXPECT_EQ(plan_for("vitsim cluster init --name l --host h1:t4:10gbe -o l.json").action,
            Action::kRun);
  EXPECT_EQ(plan_for("make test").action, Action::kMakeDry);
  EXPECT_NE(plan_for("make validate-local").reason.find("root"), std::string::npos);
  EXPECT_NE(plan_for("sbatch --parsable x.sbatch").reason.find("sweep_recipes_test"),
            std::string::npos);
}

TEST(DocBlocks, TmpPathsMoveIntoTheTestsFolder) {
  EXPECT_EQ(rewrite_paths("x --out /tmp/d --run-log=/tmp/r.json '/tmp/q'", "/w"),
            "x --out /w/tmp/d --run-log=/w/tmp/r.json '/w/tmp/q'");
  EXPECT_EQ(rewrite_paths("x data/tmp/a", "/w"), "x data/tmp/a");
}

TEST(DocBlocks, SynopsisOptionsAndSubcommand) {
  const std::string s =
      "vitsim validate --measured FILE... [--max-median-error-pct X] [-o TXT]  # --not-this";
  EXPECT_EQ(options_named(s), (std::vector<std::string>{"--measured", "--max-median-error-pct"}));
  EXPECT_EQ(subcommand_of(s), "vitsim validate");
  EXPECT_EQ(subcommand_of("vitsim cluster init --name x"), "vitsim cluster init");
  EXPECT_EQ(subcommand_of("vitsim model vit_b_16"), "vitsim model");
  EXPECT_EQ(subcommand_of("mpirun -np 2 vitsim-train train --data d"), "vitsim-train train");
}

}  // namespace
}  // namespace doc_blocks_test
}  // namespace vitsim::doc_test
