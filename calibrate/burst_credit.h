// A link benchmark's token-bucket credit, taken out of its times before a fit (docs/calibration.md,
// "Token buckets"). A port with a bucket (cluster file burst_bytes) that idled before a timed
// collective sends its first min(burst, idle x rate) bytes at once (docs/simulator.md, "Token
// buckets"), so the collective ran that many bytes' time faster than the link's rate. The
// simulator now grants that credit itself wherever a port idles; a fit that kept it (as a lower
// latency or a higher rate) would count it twice. So each point gets back the time of the credit
// its ports had: min(burst, idle x rate, the bytes each port sent) / rate, the rate the cluster
// file's (the bucket refills at the shaper's rate, in its own bytes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/cost_fit.h"
#include "costmodel/collective_op.h"
#include "schema/cluster.h"
#include "schema/profile.h"

namespace vitsim::calibrate {

// The bucket of a link class: the first NIC of `clusters` that names the class with burst_bytes.
struct LinkBucket {
  double burst_bytes = 0;
  double rate_bytes_per_s = 0;
};
std::optional<LinkBucket> link_bucket(const std::vector<schema::ClusterSpec>& clusters,
                                      const std::string& link_class);

// Seconds each rank idled before each timed collective of `a`: its idle_before_s; for files
// written before that field, the --compute-before-s of the vitsim-train bench-allreduce command
// in the profile's context (its default, 0, if not given); else (imports: nccl-tests runs back
// to back) 0.
double benchmark_idle_s(const schema::Profile& profile, const schema::AllreduceProfile& a);

// The seconds of credit in one point of `a` (`op`, `channels` rings sharing the message): 0
// without a bucket or idle.
double credit_s(const std::optional<LinkBucket>& bucket, double idle_s, costmodel::CollectiveOp op,
                int64_t ranks, double message_bytes_per_channel);

// The points of benchmark `a` of `profile` (operation `op`) as fit samples: each message per
// channel (`channels` rings sharing it), its time with the credit of the class's bucket in
// `clusters` put back (link_bucket, benchmark_idle_s, credit_s); `most_credit_s` is raised to the
// largest credit put back. The one loop the all-reduce's and the other operations' fits share.
std::vector<AllreduceSample> credited_samples(const schema::Profile& profile,
                                              const schema::AllreduceProfile& a,
                                              costmodel::CollectiveOp op, int64_t channels,
                                              const std::vector<schema::ClusterSpec>& clusters,
                                              double& most_credit_s);

// The clause a fit's derived_from adds for it ("" where nothing was put back).
std::string credit_text(double most_credit_s, const std::optional<LinkBucket>& bucket);

}  // namespace vitsim::calibrate
