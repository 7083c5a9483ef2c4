// The transport model against public nccl-tests measurements (docs/transport-model.md,
// "Validation"): each dataset of data/public-benchmarks/nccl_tests_allreduce_measurements.csv and
// each point of nccl_busbw_summary_points.csv is described as the model sees it (transport, line
// rate, links in parallel, with the source of each figure) and marked "fit" (a constant of
// platforms/transports.json was taken from it), "held-out" (never used: the check) or "excluded"
// (what it measures is outside the model, said why). Held out by dataset, never by row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/transport_model.h"
#include "schema/csv_table.h"

namespace vitsim::present {

struct PublicTransportCase {
  std::string dataset;  // "dataset" of the measurements CSV, or the start of a summary "setup"
  bool summary_point = false;
  std::string role;  // "fit" | "held-out" | "excluded"
  std::string what;  // the hardware and where its figures come from, or why it is excluded
  costmodel::TransportSpec transport;
  double line_rate_bytes_per_s = 0;  // 0 for shm/p2p: the PCIe rate of pcie_gen x pcie_lanes
  int64_t pcie_gen = 0, pcie_lanes = 0;
  double parallel_links = 1;  // NICs per node that the rings spread over
};

std::vector<PublicTransportCase> public_transport_cases();

struct TransportCheckRow {
  std::string dataset, role, transport, what;
  int64_t ranks = 0;
  int points = 0;            // rows compared (>= kCheckMinBytes), 1 for a summary point
  double largest_bytes = 0;  // the largest message compared (0 for a summary point)
  double measured_busbw_bytes_per_s = 0;  // at the largest message, or the summary figure
  double predicted_busbw_bytes_per_s = 0;
  double median_abs_error = 0;  // over the rows compared, |predicted - measured| / measured
  double worst_abs_error = 0;
  double error_at_largest = 0;  // signed
};

// Rows compared: messages of at least 16 MiB, the regime of gradient buckets (tens to hundreds of
// MB), where the Simple protocol runs and bandwidth dominates.
inline constexpr double kCheckMinBytes = 16.0 * 1024 * 1024;

// One row per case (excluded cases too, with zero errors and their reason).
std::vector<TransportCheckRow> check_transports(const schema::CsvTable& measurements,
                                                const schema::CsvTable& summary_points,
                                                const costmodel::TransportParameters& params);

// The same for a measured all-reduce of the study (one point: ranks, message, median time).
TransportCheckRow check_measured_point(const std::string& name,
                                       const costmodel::LinkModelInput& link,
                                       const costmodel::TransportParameters& params, int64_t ranks,
                                       double message_bytes, double measured_time_s);

std::string format_transport_check(const std::vector<TransportCheckRow>& rows);

}  // namespace vitsim::present
