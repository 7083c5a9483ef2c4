// The report's figure of time against cost (report_figures.h): every configuration priced in one
// mode, the time-cost Pareto front the sweep prints (plan::pareto_front: none of the others is
// both faster and cheaper), those above the global-batch limit apart, and the deadline and budget
// the prediction file's selection records as dashed lines. Per image when the epochs differ
// (plan::compares_per_image), as the goal compares them. The front's points carry their rank (1 the
// fastest), their labels stand in a key beside the plot: close points' labels never overlap.
#pragma once

#include <optional>
#include <string>

#include "present/report_figures.h"
#include "schema/prediction.h"

namespace vitsim::present {

// The figure (data, script, PNG and SVG added to the sink, names prefixed by `stem`); nullopt
// when fewer than two configurations are priced, or in different modes, or none is on the front.
std::optional<Figure> draw_time_cost(const schema::PredictionFile& prediction,
                                     const FigureSink& sink, const std::string& stem);

}  // namespace vitsim::present
