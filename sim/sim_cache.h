// What the configurations of one run (a sweep's, in one process) share between them, so that
// each is worked out once: the all-reduce times of the closed form where SimGrid simulates them
// (closed_form.h), by the classes' description and the bucket's bytes. Only results that depend
// on nothing but their key are kept, so a configuration gives the same prediction with or without
// the cache (tested).
#pragma once

#include <map>
#include <string>
#include <utility>

namespace vitsim::sim {

struct SimCache {
  // (allreduce_cache_key, bucket bytes) -> seconds of one all-reduce alone.
  std::map<std::pair<std::string, double>, double> allreduce_s;
};

}  // namespace vitsim::sim
