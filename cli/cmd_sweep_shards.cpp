// `vitsim sweep` on several machines (docs/sweeps.md): --shard I/N simulates one slice of the
// sweep's configurations and writes a shard file; --merge checks the shard files of one sweep and
// turns them into the single-machine result (picked, printed and written as a sweep's). The
// options and the single-machine sweep are cmd_sweep.cpp's.
#include <cstdlib>
#include <iostream>

#include "cli/cmd_sweep.h"
#include "clikit/progress.h"
#include "plan/sweep_shards.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/sweep_shard_io.h"
#include "sim/rank_plan.h"

namespace vitsim::cli {

std::string shard_path(const SweepArgs& a) {
  if (a.json_path.empty() && a.out_prefix.empty())
    throw std::invalid_argument("--shard needs --json FILE (the shard file to merge)");
  if (!a.json_path.empty() && !a.out_prefix.empty())
    throw std::invalid_argument(
        "--shard writes one file, the shard: give --json FILE or --out PREFIX (PREFIX.json), "
        "not both");
  return !a.json_path.empty() ? a.json_path : a.out_prefix + ".json";
}

int merge(const SweepArgs& a, const clikit::ModelOptions& model_options,
          const std::vector<std::string>& args, schema::OutputGroup& written) {
  std::vector<schema::ShardFile> shards;
  for (const std::string& path : a.merge) {
    shards.push_back(schema::read_shard(path));
    // Another build's rows are another model's (class 10): refused, not merged in silence. (A
    // configuration whose epoch holds no global batch the reader refuses: schema/scenario.h.)
    schema::check_shard_writer(shards.back(), path);
  }
  // The shards simulate, the merge picks: the limits on the pick are the merge's options (the
  // run's epochs: the shards').
  plan::MergedSweep m = plan::merge_sweep(shards, a.merge, parse_goal_limits(a.goal, 1));
  m.result.predictions.context = schema::make_context("vitsim", args);
  // The model the shards simulated: validate checks it.
  if (!m.model.is_null()) m.result.predictions.context["model"] = m.model;
  plan::SweepSpec spec;  // the goal and limits only: the shards hold what the sweep simulated
  spec.goal = m.goal;
  spec.limits = m.limits;
  print_and_write(a, m.result, spec, model_options.resolve(), written);
  return m.result.pick.best < 0 ? nothing_found(m.result) : 0;
}

int shard(const SweepArgs& a, const plan::SweepSpec& spec, const ShardInputs& in,
          const CostArgs& cost, const std::vector<plan::SweepItem>& items,
          const std::vector<std::string>& args, schema::OutputGroup& written) {
  const std::string path = shard_path(a);
  const plan::ShardSlice slice =
      plan::parse_shard(a.shard, [](const char* n) { return std::getenv(n); });
  const std::string digest = plan::sweep_digest(
      items, spec.goal, in.model, in.options, cost_row_options(cost),
      {a.input.cluster, a.input.costs, a.input.gpus_json, a.input.transports, cost.prices});
  plan::ShardRun run;
  int signal = 0;
  {
    clikit::ProgressLine line(
        "vitsim sweep", "configurations",
        clikit::parse_option(a.progress, "progress", clikit::parse_progress_mode));
    clikit::StopOnSignal stop;
    plan::SweepContext context(in.cluster, in.catalog, in.model, in.costs, in.options);
    context.progress = [&](size_t done, size_t total) { line.update(done, total); };
    context.stop_requested = [&] { return stop.requested(); };
    run = plan::run_shard(items, slice, spec.goal, digest, context, spec.jobs);
    signal = run.interrupted ? stop.signal() : 0;
  }
  schema::ShardFile& shard = run.file;
  if (run.interrupted) {
    std::cerr << "vitsim sweep: interrupted (signal " << signal << ") after "
              << shard.entries.size() << " of " << run.configurations << " configurations of shard "
              << slice.index << "/" << slice.count << "; " << path
              << " not written (a shard merges only whole: run it again)\n";
    return 128 + signal;  // as a shell reports a process ended by that signal
  }
  // Costs travel in the shard, so that the merged result is the single run's, cost goals included.
  for (schema::SweepEntry& e : shard.entries) {
    if (!e.prediction) continue;
    std::vector<schema::ConfigPrediction> one = {*e.prediction};
    attach_costs(one, cost, sim::merged_catalog(in.catalog, in.cluster),
                 priced_devices(in.searched, in.cluster), "vitsim sweep");
    e.prediction = one.front();
  }
  shard.context = schema::make_context("vitsim", args, {{"model", schema::write_model(in.model)}});
  schema::add_json(written, path, schema::write_shard_json(shard));
  written.commit();
  std::cout << "shard " << slice.index << "/" << slice.count << ": " << shard.entries.size()
            << " of " << items.size() << " configurations, written to " << path << "\n";
  return 0;
}

}  // namespace vitsim::cli
