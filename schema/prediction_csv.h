// The two CSV views of predictions, written through one record writer (csv_record, RFC 4180
// quoting); columns, units and examples in docs/formats/predictions-csv.md:
//   configurations_csv  predictions.csv of `vitsim reproduce`: one row per configuration of every
//                       prediction file, with its scenario and cost sources;
//   ranks_csv           PREFIX.csv of `vitsim simulate --out` and `vitsim sweep --out`: one row per
//                       (configuration, rank), the configuration's figures repeated on each row.
#pragma once

#include <string>
#include <vector>

#include "schema/prediction.h"

namespace vitsim::schema {

std::string configurations_csv(const std::vector<PredictionFile>& files);
std::string ranks_csv(const std::vector<ConfigPrediction>& predictions);

// The files of `vitsim simulate --out PREFIX` and `vitsim sweep --out PREFIX [--json FILE]`:
// PREFIX.json (the prediction), PREFIX.csv (ranks_csv) and `json_path` (the prediction again)
// where given, as one group (schema/output_file.h): they land together or not at all. An empty
// prefix writes no PREFIX files.
void write_prediction_outputs(const std::string& prefix, const std::string& json_path,
                              const PredictionFile& predictions);

}  // namespace vitsim::schema
