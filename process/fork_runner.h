// SimGrid 3.32 cannot create an s4u::Engine twice in one process, yet predict, simulate and sweep
// run many simulations from one vitsim process. Each simulation therefore runs in a forked child:
// the child inherits the prepared input (copy-on-write), runs the engine, writes its result as
// text into a pipe and exits; the parent reads it. The child's stdout goes to stderr so that
// vitsim's stdout holds only its own output. Deterministic: nothing of the parent changes.
#pragma once

#include <functional>
#include <string>

namespace vitsim::process {

// Runs `work` in a child process; returns its string. An exception in the child becomes a
// std::runtime_error in the parent with the same message; a crashed child one naming the signal.
std::string run_in_child(const std::function<std::string()>& work);

}  // namespace vitsim::process
