// One SimGrid engine in a forked child (SimGrid 3.32 allows one per process), configured as the
// golden collective tests need it: CM02 without cross-traffic, which reproduces the analytic ring
// of costmodel/collective_ring.h (docs/simulator.md), and only critical log lines.
#pragma once

#include <functional>
#include <simgrid/s4u.hpp>
#include <string>

#include "process/fork_runner.h"

namespace vitsim::sim::test {

// Runs `work` in a child with the engine made; `work` builds its platform and actors, runs the
// engine and returns its result as a string, which the parent gets back (process/fork_runner.h).
inline std::string in_analytic_engine(
    const std::function<std::string(simgrid::s4u::Engine&)>& work) {
  return process::run_in_child([&] {
    int argc = 4;
    std::string a0 = "test", a1 = "--log=root.thres:critical", a2 = "--cfg=network/model:CM02",
                a3 = "--cfg=network/crosstraffic:0";
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
    simgrid::s4u::Engine e(&argc, argv);
    return work(e);
  });
}

}  // namespace vitsim::sim::test
