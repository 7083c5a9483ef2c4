// The two CSV views of predictions, written through one record writer (csv_record, RFC 4180
// quoting); columns, units and examples in docs/formats/predictions-csv.md:
//   configurations_csv  one row per configuration of every prediction file, with its scenario,
//                       global batch (flagged against the file's limit), p10/p90 and costs:
//                       predictions.csv of `vitsim reproduce`, PREFIX.csv of `vitsim simulate
//                       --out` and `vitsim sweep --out`;
//   ranks_csv           PREFIX.ranks.csv of simulate and sweep: one row per (configuration,
//                       rank), the configuration's figures repeated on each row.
#pragma once

#include <string>
#include <vector>

#include "schema/output_file.h"
#include "schema/prediction.h"

namespace vitsim::schema {

std::string configurations_csv(const std::vector<PredictionFile>& files);
std::string ranks_csv(const PredictionFile& file);

// The paths of `--out PREFIX`: PREFIX.json, PREFIX.csv, PREFIX.ranks.csv (none for "").
std::vector<std::string> prediction_output_paths(const std::string& prefix);

// The files of `vitsim simulate --out PREFIX` and `vitsim sweep --out PREFIX [--json FILE]`:
// PREFIX.json (the prediction), PREFIX.csv (configurations_csv), PREFIX.ranks.csv (ranks_csv) and
// `json_path` (the prediction again) where given, added to `group` (schema/output_file.h): they
// land together or not at all, with whatever else the command adds. An empty prefix adds no
// PREFIX files.
void add_prediction_outputs(OutputGroup& group, const std::string& prefix,
                            const std::string& json_path, const PredictionFile& predictions);
// The same as a group of their own, committed.
void write_prediction_outputs(const std::string& prefix, const std::string& json_path,
                              const PredictionFile& predictions);

}  // namespace vitsim::schema
