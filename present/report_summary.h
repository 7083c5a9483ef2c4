// The report's first screen (report.h): a summary table a reader takes in within a minute (per
// scenario: study or what-if, what it asks or changes, its best configuration for the goal its
// file records, chosen by the one function every command calls (plan::pick_best: the answer
// `vitsim sweep` gave, "fastest" per image under weak scaling, the global-batch limit applied),
// what bounds that configuration's step, its error against measured runs), one line on what is
// measured and what is modelled, and the order of the page: the study's experiments (scenarios with
// measured runs) first, what-ifs after. Undefined values are "-", never 0.00.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "present/measured_runs.h"
#include "present/validation.h"

namespace vitsim::present {

// True when validate matched a measured run to a configuration of this scenario (a study
// experiment). What-ifs repeat the study's 1-GPU baseline, but validate matches each measured
// configuration to the first prediction of it only (its table's "scenario" column).
bool is_study_experiment(const schema::PredictionFile& prediction,
                         const ValidationResult& validation);

// Indices of `predictions`: study experiments first, then what-ifs, each in the given order.
std::vector<size_t> report_order(const std::vector<NamedPrediction>& predictions,
                                 const ValidationResult& validation);

// What bounds one configuration's step, in one phrase: the slowest rank's compute, the exposed
// communication, or a rank waiting for slower ones, whichever is largest (figures in seconds).
std::string bottleneck(const schema::ConfigPrediction& config);

// value formatted with fmt_spec ("{:.2f}"), or "-" when it is not defined (<= 0 or not finite).
std::string or_dash(double value, const char* fmt_spec);

// The (device, precision) pairs the predictions use, as "device/precision".
std::vector<std::string> devices_used(const std::vector<NamedPrediction>& predictions);

// HTML: the summary table and the measured/modelled line. `anchors[i]` is the id of prediction
// i's section; `costs` may be absent.
std::string summary_section(const std::vector<NamedPrediction>& predictions,
                            const std::vector<size_t>& order,
                            const std::vector<std::string>& anchors,
                            const ValidationResult& validation,
                            const std::optional<costmodel::CostModel>& costs);

}  // namespace vitsim::present
