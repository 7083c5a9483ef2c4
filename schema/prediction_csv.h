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

}  // namespace vitsim::schema
