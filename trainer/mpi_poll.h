// How the MPI communicator waits for non-blocking MPI requests under MpiWait::kPoll (mpi_wait.h):
// MPI_Testall in a short spin (peers already there: done in microseconds), then sleeps that double
// from 20 us to 200 us, so a rank waiting on the network leaves its CPU to the compute
// (docs/trainer.md, "Data parallelism"). Used for the barrier before each collective, the
// non-blocking collectives and the rings' steps (mpi_ring.h). No Torch.
#pragma once

#include <mpi.h>

namespace vitsim::trainer {

// Returns once every one of `requests[0..count)` is complete (each set to MPI_REQUEST_NULL).
void poll_until_done(MPI_Request* requests, int count);

}  // namespace vitsim::trainer
