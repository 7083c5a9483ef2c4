// Nelder-Mead simplex minimisation of a smooth-enough function of a few variables (the
// kernel-class transfer's fit, transfer_fit.h: four parameters, an objective with kinks where a
// kernel turns from compute- to memory-bound, which rules out plain gradient steps). Standard
// coefficients: reflection 1, expansion 2, contraction 1/2, shrink 1/2 (Nelder & Mead 1965;
// Numerical Recipes, section 10.5). Deterministic: no random restarts.
#pragma once

#include <functional>
#include <vector>

namespace vitsim::calibrate {

struct SimplexResult {
  std::vector<double> x;
  double value = 0;
  int evaluations = 0;
};

// Minimises f from x0 with an initial simplex of x0 and x0 + step along each axis; stops when the
// simplex's values differ by less than tolerance or after max_evaluations.
SimplexResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                          std::vector<double> x0, double step, double tolerance = 1e-12,
                          int max_evaluations = 5000);

}  // namespace vitsim::calibrate
