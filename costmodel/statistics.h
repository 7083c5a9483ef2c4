// Small order statistics used by the import, the fits and validation: median, quantiles, RMS and
// Spearman's rank correlation. Pure functions over vectors; no I/O.
#pragma once

#include <vector>

namespace vitsim::costmodel {

// Median of `values` (mean of the two middle values for an even count). Throws
// std::invalid_argument for an empty vector.
double median(std::vector<double> values);

// Linear-interpolated quantile q in [0, 1] (q = 0.5 is the median).
double quantile(std::vector<double> values, double q);

// Interquartile range p75 - p25.
double interquartile_range(const std::vector<double>& values);

double mean(const std::vector<double>& values);

// Sample standard deviation (n - 1 in the denominator) relative to the mean: the dispersion of
// repeated measurements of one quantity (a profile's independent blocks, docs/uncertainty.md).
// 0 for fewer than two values or a mean of 0.
double relative_sample_sd(const std::vector<double>& values);

// Relative sample variance x (n - 1), sum((x - mean)^2) / mean^2: a pooled relative spread's
// numerator (pooled over groups: sqrt(sum of these / sum of (n - 1))). 0 for fewer than two values
// or a mean of 0.
double relative_sum_of_squares(const std::vector<double>& values);

// Fractional ranks (1-based), ties get the mean of the ranks they span.
std::vector<double> fractional_ranks(const std::vector<double>& values);

// Spearman's rho = Pearson correlation of the fractional ranks. Returns 0 when fewer than two
// values or when either side has no spread (rho undefined).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace vitsim::costmodel
