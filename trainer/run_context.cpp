// Context block and thread configuration (run_context.h).
#include "trainer/run_context.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <torch/version.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#ifdef VITSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "schema/json_file.h"

namespace vitsim::trainer {

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (model.empty()) model = "cpu";
  return model + " (" + std::to_string(cpus) + " logical CPUs)";
}

std::string device_name(const std::string& device) {
  if (device == "cpu") return cpu_name();
#ifdef VITSIM_HAVE_CUDA
  int index = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&index) == cudaSuccess &&
      cudaGetDeviceProperties(&props, index) == cudaSuccess && props.name[0] != '\0') {
    return props.name;
  }
#endif
  return device;
}

namespace {

// What else ran on the machine when the measurement started: /proc/loadavg's 1-minute average
// (null where unreadable). validate --like compares a profile's with its run's (a profile taken
// under other load is not the device's speed: docs/formats/README.md, "context").
nlohmann::json load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (in >> load) return load;
  return nullptr;
}

// The CPU quota of the process's cgroup (v2 cpu.max "QUOTA PERIOD") in CPUs; null for "max" or
// where there is none.
nlohmann::json cpu_quota_cpus() {
  std::ifstream in("/sys/fs/cgroup/cpu.max");
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return nullptr;
  try {
    return std::stod(quota) / period;
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

nlohmann::json trainer_context(const std::vector<std::string>& argv, const nlohmann::json& extra) {
  nlohmann::json e = schema::measurement_context_extra();
  e["load_avg_1m"] = load_average_1m();
  e["cpu_quota_cpus"] = cpu_quota_cpus();
  e["torch_version"] = TORCH_VERSION;
  e["intra_op_threads"] = at::get_num_threads();
  for (auto it = extra.begin(); it != extra.end(); ++it) e[it.key()] = it.value();
  return schema::make_context("vitsim-train", argv, e);
}

void configure_threads(int threads) {
  at::set_num_threads(threads);
  try {
    at::set_num_interop_threads(1);
  } catch (...) {
    // Already started (a second call in one process): keep what it has.
  }
  // OpenBLAS reads OPENBLAS_NUM_THREADS when it is loaded, before main; set it at run time.
  if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr) {
    using SetThreads = void (*)(int);
    if (auto* f = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
      f(threads);
    }
  }
}

}  // namespace vitsim::trainer
