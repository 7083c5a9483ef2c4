// The "context" block of the files vitsim-train writes: tool, version, git sha, argv, host, time,
// and what the measurement ran on (device, LibTorch and MPI versions, threads).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vitsim::trainer {

// "Intel(R) Xeon(R) ... (2 logical CPUs)" from /proc/cpuinfo, or "cpu" when unreadable.
std::string cpu_name();
// What the measurement ran on, as the system reports it: cpu_name() for "cpu", the driver's name
// for a CUDA device ("NVIDIA H200"; cudaDeviceProp::name), "cuda" where this build has no CUDA.
std::string device_name(const std::string& device);
// make_context("vitsim-train", argv, measurement extras + torch_version + `extra`).
nlohmann::json trainer_context(const std::vector<std::string>& argv, const nlohmann::json& extra);
// Sets Torch intra-op threads (and OpenBLAS threads when OPENBLAS_NUM_THREADS is unset) to
// `threads`, inter-op threads to 1: ranks sharing a machine must not oversubscribe it.
void configure_threads(int threads);

}  // namespace vitsim::trainer
