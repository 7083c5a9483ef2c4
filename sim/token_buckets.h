// The token buckets of a platform's ports (docs/simulator.md, "Token buckets"): a NIC whose
// cluster file gives burst_bytes (schema::LinkSpec) sends, after idling, up to that many bytes at
// line speed before its rate holds (a Linux `tc tbf` shaper, as scripts/emulate-cluster puts on
// every emulated port, or a cloud NIC's network credit). Each direction of such a link keeps its
// tokens in simulated time: refilled at the link's bandwidth while the port is idle, at most
// burst_bytes; a transfer first spends the tokens that every port of its route has (the least
// along the route: the bytes all of them let through at once) and sends the rest at the link's
// rate, the port busy meanwhile. So a collective after idle gets the credit; transfers back to
// back do not. The one home of this rule; the step level's ring sends call spend() (through
// Collectives::credit); the other levels do not grant it (token_bucket_line). No
// SimGrid here: the state is a function of the simulated times it is given.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "costmodel/collective.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {

class TokenBuckets {
 public:
  // The buckets of `plan`'s links with burst_bytes > 0, full at time 0; `plan` must outlive this.
  explicit TokenBuckets(const PlatformPlan& plan);
  // Whether any port has a bucket (else spend() is always 0).
  bool any() const { return !ports_.empty(); }
  // A transfer of `bytes` from rank `src` to rank `dst` starting at `now_s`: the credit in bytes
  // (what leaves at once: the least of the route's bucketed ports' tokens, at most `bytes`; 0 where
  // none of its ports has a bucket), taken from every bucketed port of the route, each
  // then busy sending the other `bytes - credit` at its bandwidth after what it still sends.
  // Times must not go back for a port (the simulation's clock does not).
  double spend(int64_t src, int64_t dst, double bytes, double now_s);
  // The tokens of one direction of link `link` (up: the route's source half) at `now_s`, without
  // spending: for tests and traces.
  double tokens(int link, bool up, double now_s) const;

 private:
  struct Port {
    double tokens = 0;        // at busy_until_s (no refill while busy)
    double busy_until_s = 0;  // the end of what it sends at its rate
  };
  const PlatformPlan& plan_;
  std::unordered_map<int64_t, Port> ports_;  // key: 2 x link + (0 up, 1 down)
  double tokens_at(int link, const Port& p, double now_s) const;
};

// Whether any link of `plan` has a bucket.
bool has_token_buckets(const PlatformPlan& plan);

// Where `plan` has buckets but the run did not model them (only the rank-by-rank engine's step
// level does, in its rings: `engine` "ranks", a ring or hierarchical collective), the line the
// prediction's provenance says it with: its collectives after idle run at the link's rate from
// the first byte, an upper bound. "" otherwise.
std::string token_bucket_line(const PlatformPlan& plan, const std::string& engine,
                              costmodel::CollectiveLevel level, costmodel::Collective collective);

}  // namespace vitsim::sim
