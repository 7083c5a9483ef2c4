// vitsim-train probe-dispatch: the host-side cost per launch (dispatch_probe.h).
#include <cstdio>
#include <iostream>

#include "clikit/run_app.h"
#include "schema/json_file.h"
#include "trainer/commands.h"
#include "trainer/dispatch_probe.h"
#include "trainer/run_context.h"
#include "trainer/torch_errors.h"

namespace vitsim::trainer {

int cmd_probe_dispatch(int argc, char** argv) {
  CLI::App app(
      "Times the host-side cost of launching one operation on a tiny input, per call: the "
      "dispatch floor under a launch-bound step.",
      argv[0]);
  DispatchProbeOptions o;
  std::string out;
  app.add_option("--device", o.device, "cpu | cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--device-id", o.device_id, "device id recorded (default: the device)");
  app.add_option("--dtype", o.dtype, "fp32 | bf16")
      ->check(CLI::IsMember({"fp32", "bf16"}))
      ->capture_default_str();
  app.add_option("--width", o.width, "features of the 1 x width input")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}))
      ->capture_default_str();
  app.add_option("--calls", o.calls, "timed calls per operation")
      ->check(CLI::Range(int64_t{10}, int64_t{10000000}))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed calls first")
      ->check(CLI::Range(int64_t{0}, int64_t{10000000}))
      ->capture_default_str();
  app.add_option("--out", out, "JSON file to write (docs/formats/dispatch-probe.md)");
  std::vector<std::string> args(argv, argv + argc);
  args[0] = "vitsim-train";
  args.insert(args.begin() + 1, "probe-dispatch");
  return clikit::run_app(app, argc, argv, [&] {
    return without_torch_backtrace([&] {
      configure_threads(1);
      const auto timings = probe_dispatch(o);
      std::printf("%-42s %8s %10s %14s %14s\n", "operation", "kernels", "calls", "host us/call",
                  "wall us/call");
      for (const auto& t : timings) {
        const std::string k = t.kernels_per_call > 0 ? std::to_string(t.kernels_per_call) : "-";
        std::printf("%-42s %8s %10lld %14.2f %14.2f\n", t.op.c_str(), k.c_str(),
                    static_cast<long long>(t.calls), t.host_us_per_call, t.wall_us_per_call);
      }
      if (!out.empty()) {
        schema::write_json_output(out, dispatch_probe_json(o, timings, args));
        std::cout << "vitsim-train probe-dispatch: written to " << out << "\n";
      }
      return 0;
    });
  });
}

}  // namespace vitsim::trainer
