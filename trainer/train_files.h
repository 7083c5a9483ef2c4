// The files a training run reads and writes, each named by its option, for the rule of outputs
// (schema/output_rule.h, docs/formats/README.md "How files are written"): `vitsim-train train`
// checks them before any work (an output is never an input: `--resume ck.pt --run-log ck.pt`,
// `--run-log` onto a data file or `--config` are refused with exit 2, nothing written; nor is an
// output another output), and each group it writes later (a checkpoint and its `latest`, the run
// log and the parameter dumps) is declared with the same inputs. No Torch.
#pragma once

#include <vector>

#include "schema/output_rule.h"
#include "trainer/train_options.h"

namespace vitsim::trainer {

struct TrainFiles {
  // --data's files (both splits' files of the folder's format), --config, and --resume as the
  // checkpoint it resolves to (a folder's "latest"; sharded: this rank's file).
  std::vector<schema::NamedPath> inputs;
  // --run-log, --dump-params (this rank's: "{rank}" replaced), --dump-init-params and its
  // ".names", --checkpoint-dir's "latest" (the step files are checked when each is written).
  std::vector<schema::NamedPath> outputs;
};

// Reads nothing but folder listings and --resume's "latest" (InputError for a folder without
// one, or one that names no checkpoint of the folder).
TrainFiles train_files(const TrainOptions& options, int rank, int ranks);

// --dump-params for `rank`: "{rank}" in the path replaced by the rank.
std::string dump_params_path(const TrainOptions& options, int rank);

}  // namespace vitsim::trainer
