// How one rank's step summary (schema::RankStepSummary: medians or means of each phase) travels
// to the other ranks as a row of doubles, for the gather that gives rank 0 every rank's row
// (Trainer::gather_rank_summaries). Packing and unpacking read one list of the fields, so a field
// cannot be packed at one position and read at another. No Torch, no MPI: the gather is the
// caller's.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "schema/run_log.h"

namespace vitsim::trainer {

// How many doubles one rank's row holds.
std::size_t packed_rank_summary_size();

// One rank's row (its rank and host stay out: the gather knows them).
std::vector<double> pack_rank_summary(const schema::RankStepSummary& summary);

// Every rank's summary from the rows of all ranks, rank-major (hosts.size() rows of
// packed_rank_summary_size() doubles); rank r gets hosts[r]. Throws std::logic_error when the
// size does not match.
std::vector<schema::RankStepSummary> unpack_rank_summaries(const std::vector<double>& rows,
                                                           const std::vector<std::string>& hosts);

}  // namespace vitsim::trainer
