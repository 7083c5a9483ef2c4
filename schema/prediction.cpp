// Prediction reader and writer (schema "vitsim.prediction", version 2); see prediction.h and
// docs/formats/prediction.md. Numbers are written as nlohmann prints doubles (shortest round-trip
// form), so the same prediction always gives the same bytes.
#include "schema/prediction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "costmodel/cost_of_run.h"
#include "costmodel/physical_bounds.h"
#include "schema/common_io.h"
#include "schema/json_file.h"
#include "schema/rank_groups.h"

namespace vitsim::schema {
namespace {

Json write_rank(const RankPrediction& r) {
  return {{"rank", r.rank},
          {"host", r.host},
          {"device", r.device},
          {"micro_batch", r.micro_batch},
          {"compute_time_s", r.compute_time_s},
          {"exposed_comm_time_s", r.exposed_comm_time_s},
          {"idle_time_s", r.idle_time_s},
          {"memory_bytes", r.memory_bytes},
          {"device_memory_bytes", r.device_memory_bytes}};
}

RankPrediction read_rank(const Node& n) {
  n.expect_keys({"rank", "host", "device", "micro_batch", "compute_time_s", "exposed_comm_time_s",
                 "idle_time_s", "memory_bytes", "device_memory_bytes"});
  RankPrediction r;
  r.rank = n["rank"].integer_at_least(0);
  r.host = n["host"].string();
  r.device = n["device"].string();
  r.micro_batch = n["micro_batch"].integer_at_least(1);
  r.compute_time_s = n["compute_time_s"].nonnegative();
  r.exposed_comm_time_s = n["exposed_comm_time_s"].nonnegative();
  r.idle_time_s = n["idle_time_s"].nonnegative();
  r.memory_bytes = n["memory_bytes"].nonnegative();
  r.device_memory_bytes = n["device_memory_bytes"].nonnegative();
  return r;
}

Json write_provenance(const Provenance& p) {
  Json compute = Json::array(), links = Json::array();
  for (const auto& c : p.compute) {
    Json entry = {{"device", c.device},
                  {"regime", costmodel::to_string(c.precision)},
                  {"source", costmodel::to_string(c.source)},
                  {"derived_from", c.derived_from},
                  {"uncertainty_rel", c.uncertainty_rel},
                  {"node_spread_rel", c.node_spread_rel},
                  {"ranks", c.ranks}};
    if (!c.transfer_summary.empty()) entry["transfer_summary"] = c.transfer_summary;
    compute.push_back(entry);
  }
  for (const auto& u : p.links) {
    const costmodel::LinkProvenance& l = u.link;
    links.push_back({{"link_class", l.link_class},
                     {"source", costmodel::to_string(l.source)},
                     {"transport", costmodel::to_string(l.transport)},
                     {"model", l.model},
                     {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s},
                     {"latency_s", l.latency_s},
                     {"derived_from", l.derived_from},
                     {"uncertainty_rel", l.uncertainty_rel},
                     {"ranks", u.ranks}});
  }
  return {{"compute", compute}, {"links", links}, {"unmeasured", p.unmeasured}};
}

costmodel::LinkSource read_link_source(const Node& n) {
  return read_named(n, costmodel::kLinkSourceNames);
}

Provenance read_provenance(const Node& n) {
  n.expect_keys({"compute", "links", "unmeasured"});
  Provenance p;
  for (const Node& c : n["compute"].items()) {
    c.expect_keys({"device", "regime", "source", "derived_from", "uncertainty_rel",
                   "node_spread_rel", "ranks", "transfer_summary"});
    ComputeProvenance x;
    x.device = c["device"].string();
    x.precision = read_regime(c["regime"]);
    x.source = read_cost_source(c["source"]);
    x.derived_from = c["derived_from"].string();
    x.uncertainty_rel = c["uncertainty_rel"].in_range(0, 10);
    x.node_spread_rel = c["node_spread_rel"].in_range(0, 10);
    x.ranks = c["ranks"].integer_at_least(1);
    if (const auto t = c.get("transfer_summary")) x.transfer_summary = t->string();
    p.compute.push_back(x);
  }
  for (const Node& l : n["links"].items()) {
    l.expect_keys({"link_class", "source", "transport", "model", "bandwidth_bytes_per_s",
                   "latency_s", "derived_from", "uncertainty_rel", "ranks"});
    LinkUse u;
    u.link.link_class = l["link_class"].string();
    u.link.source = read_link_source(l["source"]);
    try {
      const std::string t = l["transport"].string();
      // "none": the cluster file named no transport (its figures are taken as given).
      u.link.transport = t == costmodel::to_string(costmodel::Transport::kNone)
                             ? costmodel::Transport::kNone
                             : costmodel::parse_transport(t);
    } catch (const std::invalid_argument&) {
      l["transport"].fail("a transport (none, socket, tcp, shm, p2p, net-ib, nvlink)",
                          l["transport"].describe());
    }
    u.link.model = l["model"].string();
    u.link.bandwidth_bytes_per_s = l["bandwidth_bytes_per_s"].positive();
    u.link.latency_s = l["latency_s"].nonnegative();
    u.link.derived_from = l["derived_from"].string();
    u.link.uncertainty_rel = l["uncertainty_rel"].in_range(0, 10);
    u.ranks = l["ranks"].integer_at_least(1);
    p.links.push_back(u);
  }
  for (const Node& w : n["unmeasured"].items()) p.unmeasured.push_back(w.string());
  return p;
}

Json write_quantiles(const costmodel::Quantiles& q) {
  return {{"p10", q.p10}, {"p50", q.p50}, {"p90", q.p90}};
}

costmodel::Quantiles read_quantiles(const Node& n) {
  n.expect_keys({"p10", "p50", "p90"});
  costmodel::Quantiles q{n["p10"].nonnegative(), n["p50"].nonnegative(), n["p90"].nonnegative()};
  if (!(q.p10 <= q.p50 && q.p50 <= q.p90)) {
    n.fail("p10 <= p50 <= p90", n.describe(), "a range lists its quantiles in order");
  }
  return q;
}

Json write_range(const costmodel::PredictionRange& r) {
  return {{"coverage", r.coverage},
          {"step_time_s", write_quantiles(r.step_time_s)},
          {"epoch_time_s", write_quantiles(r.epoch_time_s)},
          {"method", "docs/uncertainty.md"}};
}

costmodel::PredictionRange read_range(const Node& n) {
  n.expect_keys({"coverage", "step_time_s", "epoch_time_s", "method"});
  costmodel::PredictionRange r;
  r.coverage = n["coverage"].in_range(0, 1);
  r.step_time_s = read_quantiles(n["step_time_s"]);
  r.epoch_time_s = read_quantiles(n["epoch_time_s"]);
  n["method"].string();
  return r;
}

Json write_rank_class(const RankClassSummary& c) {
  return {{"count", c.count},
          {"ranks", c.ranks},
          {"hosts", c.hosts},
          {"device", c.device},
          {"micro_batch", c.micro_batch},
          {"compute_time_s", c.compute_time_s},
          {"exposed_comm_time_s", c.exposed_comm_time_s},
          {"idle_time_s", c.idle_time_s},
          {"memory_bytes", c.memory_bytes},
          {"device_memory_bytes", c.device_memory_bytes}};
}

RankClassSummary read_rank_class(const Node& n) {
  n.expect_keys({"count", "ranks", "hosts", "device", "micro_batch", "compute_time_s",
                 "exposed_comm_time_s", "idle_time_s", "memory_bytes", "device_memory_bytes"});
  RankClassSummary c;
  c.count = n["count"].integer_at_least(1);
  c.ranks = n["ranks"].string();
  c.hosts = n["hosts"].string();
  c.device = n["device"].string();
  c.micro_batch = n["micro_batch"].integer_at_least(1);
  c.compute_time_s = n["compute_time_s"].nonnegative();
  c.exposed_comm_time_s = n["exposed_comm_time_s"].nonnegative();
  c.idle_time_s = n["idle_time_s"].nonnegative();
  c.memory_bytes = n["memory_bytes"].nonnegative();
  c.device_memory_bytes = n["device_memory_bytes"].nonnegative();
  return c;
}

// Every key of a configuration but `rank_classes`; `ranks` only when `list_ranks` (above the cap
// a million ranks' objects would be built only to be dropped).
Json config_object(const ConfigPrediction& p, bool list_ranks) {
  Json ranks = Json::array();
  if (list_ranks) {
    for (const auto& r : p.ranks) ranks.push_back(write_rank(r));
  }
  Json out = {{"cluster", p.cluster},
              {"config", write_training_config(p.config)},
              {"global_batch", global_batch(p.config)},
              {"out_of_memory", p.out_of_memory},
              {"max_micro_batch_that_fits", p.max_micro_batch_that_fits},
              {"steps_per_epoch", p.steps_per_epoch},
              {"step_time_s", p.step_time_s},
              {"epoch_time_s", p.epoch_time_s},
              {"first_epoch_time_s", p.first_epoch_time_s},
              {"later_epoch_time_s", p.later_epoch_time_s},
              {"compute_time_s", p.compute_time_s},
              {"exposed_comm_time_s", p.exposed_comm_time_s},
              {"throughput_images_per_s", p.throughput_images_per_s},
              {"speedup", p.speedup},
              {"parallel_efficiency", p.parallel_efficiency},
              {"provenance", write_provenance(p.provenance)}};
  if (list_ranks) out["ranks"] = std::move(ranks);
  if (p.range) out["range"] = write_range(*p.range);
  if (p.breakdown) out["breakdown"] = write_breakdown(*p.breakdown);
  if (!p.advice.empty()) out["advice"] = write_advice(p.advice);
  if (!p.fit_options.empty()) out["fit_options"] = write_fit_options(p.fit_options);
  if (p.cost) out["cost"] = write_run_cost(*p.cost);
  if (!p.cost_missing.empty()) out["cost_missing"] = p.cost_missing;
  if (p.added_baseline) out["added_baseline"] = true;
  if (!p.engine.empty()) out["engine"] = p.engine;
  return out;
}

Json write_bound(const PerEpochOrRun& b, const char* unit) {
  return {{unit, b.value}, {"per", b.per_run ? "run" : "epoch"}};
}

PerEpochOrRun read_bound(const Node& n, const char* unit) {
  n.expect_keys({unit, "per"});
  PerEpochOrRun b;
  b.value =
      n[unit].within(std::string(unit) == "usd" ? costmodel::kBudgetUsd : costmodel::kDeadlineS);
  const std::string per = n["per"].string();
  if (per != "epoch" && per != "run") n["per"].fail("\"epoch\" or \"run\"", n["per"].describe());
  b.per_run = per == "run";
  return b;
}

Json write_selection(const Selection& s) {
  Json j = {{"goal", s.goal},
            {"max_global_batch", s.max_global_batch},
            {"min_speedup", s.min_speedup},
            {"epochs", s.epochs}};
  if (s.deadline_s) j["deadline"] = write_bound(*s.deadline_s, "seconds");
  if (s.budget_usd) j["budget"] = write_bound(*s.budget_usd, "usd");
  return j;
}

Selection read_selection(const Node& n) {
  n.expect_keys({"goal", "max_global_batch", "min_speedup", "epochs", "deadline", "budget"});
  Selection s;
  s.goal = n["goal"].string();
  s.max_global_batch = n["max_global_batch"].integer_at_least(1);
  s.min_speedup = n["min_speedup"].nonnegative();
  s.epochs = n["epochs"].integer_at_least(1);
  if (auto d = n.get("deadline")) s.deadline_s = read_bound(*d, "seconds");
  if (auto b = n.get("budget")) s.budget_usd = read_bound(*b, "usd");
  return s;
}

}  // namespace

Json write_config_prediction(const ConfigPrediction& p, size_t max_listed_ranks) {
  // Above the cap, or read from a file above it: the classes say who is who.
  const bool list_ranks =
      p.ranks.size() <= max_listed_ranks && !(p.ranks.empty() && !p.rank_classes.empty());
  Json j = config_object(p, list_ranks);
  Json classes = Json::array();
  for (const auto& c : p.ranks.empty() ? p.rank_classes : summarize_rank_classes(p.ranks))
    classes.push_back(write_rank_class(c));
  j["rank_classes"] = classes;
  return j;
}

ConfigPrediction read_config_prediction(const Node& n) {
  n.expect_keys({"cluster",
                 "config",
                 "out_of_memory",
                 "max_micro_batch_that_fits",
                 "steps_per_epoch",
                 "step_time_s",
                 "epoch_time_s",
                 "first_epoch_time_s",
                 "later_epoch_time_s",
                 "compute_time_s",
                 "exposed_comm_time_s",
                 "throughput_images_per_s",
                 "speedup",
                 "parallel_efficiency",
                 "ranks",
                 "provenance",
                 "range",
                 "breakdown",
                 "advice",
                 "fit_options",
                 "cost",
                 "rank_classes",
                 "global_batch",
                 "cost_missing",
                 "added_baseline",
                 "engine"});
  ConfigPrediction p;
  p.cluster = n["cluster"].string();
  p.config = read_training_config(n["config"], TrainingConfig{});
  // Derived from the configuration; written for the reader's convenience, checked when read.
  if (auto g = n.get("global_batch"); g && g->integer() != global_batch(p.config)) {
    g->fail(std::to_string(global_batch(p.config)) +
                " (micro-batches of the ranks x accumulation, from \"config\")",
            g->describe());
  }
  p.out_of_memory = n["out_of_memory"].boolean();
  p.max_micro_batch_that_fits = n["max_micro_batch_that_fits"].integer_at_least(0);
  p.steps_per_epoch = n["steps_per_epoch"].integer_at_least(0);
  p.step_time_s = n["step_time_s"].nonnegative();
  p.epoch_time_s = n["epoch_time_s"].nonnegative();
  // Both epochs, or (a file of before 2026-11-29) neither: then both are the one predicted.
  p.first_epoch_time_s = p.later_epoch_time_s = p.epoch_time_s;
  if (n.has("first_epoch_time_s") || n.has("later_epoch_time_s")) {
    p.first_epoch_time_s = n["first_epoch_time_s"].nonnegative();
    p.later_epoch_time_s = n["later_epoch_time_s"].nonnegative();
    const char* asked = p.config.first_epoch ? "first_epoch_time_s" : "later_epoch_time_s";
    const double v = p.config.first_epoch ? p.first_epoch_time_s : p.later_epoch_time_s;
    if (std::abs(v - p.epoch_time_s) > 1e-9 * std::max(1.0, p.epoch_time_s)) {
      n[asked].fail(fmt::format("{:.10g} (epoch_time_s: the configuration's {} epoch)",
                                p.epoch_time_s, p.config.first_epoch ? "first" : "later"),
                    n[asked].describe());
    }
  }
  p.compute_time_s = n["compute_time_s"].nonnegative();
  p.exposed_comm_time_s = n["exposed_comm_time_s"].nonnegative();
  p.throughput_images_per_s = n["throughput_images_per_s"].nonnegative();
  p.speedup = n["speedup"].nonnegative();
  p.parallel_efficiency = n["parallel_efficiency"].nonnegative();
  if (n.has("ranks"))  // absent above kMaxListedRanks
    for (const Node& r : n["ranks"].items()) p.ranks.push_back(read_rank(r));
  if (n.has("rank_classes"))
    for (const Node& c : n["rank_classes"].items()) p.rank_classes.push_back(read_rank_class(c));
  p.provenance = read_provenance(n["provenance"]);
  if (const auto r = n.get("range")) p.range = read_range(*r);
  if (auto b = n.get("breakdown")) p.breakdown = read_breakdown(*b);
  if (auto a = n.get("advice")) p.advice = read_advice(*a);
  if (auto f = n.get("fit_options")) p.fit_options = read_fit_options(*f);
  if (auto c = n.get("cost")) p.cost = read_run_cost(*c);
  if (auto c = n.get("cost_missing")) p.cost_missing = c->string();
  if (auto b = n.get("added_baseline")) p.added_baseline = b->boolean();
  if (auto e = n.get("engine"))
    p.engine = e->one_of({"ranks", "classes", "closed-form", "one-class"});
  return p;
}

double run_time_s(const ConfigPrediction& p, int64_t epochs) {
  return costmodel::run_time_s(p.first_epoch_time_s, p.later_epoch_time_s, epochs);
}

std::string provenance_summary(const Provenance& p) {
  std::string out;
  for (const auto& c : p.compute) {
    out += (out.empty() ? "" : "; ") + c.device + "/" + costmodel::to_string(c.precision) + "=" +
           costmodel::to_string(c.source);
  }
  for (const auto& u : p.links) {
    out +=
        (out.empty() ? "" : "; ") + u.link.link_class + "=" + costmodel::to_string(u.link.source);
  }
  return out;
}

Json write_prediction_json(const PredictionFile& file, size_t max_listed_ranks) {
  Json doc = document_head(kPredictionSchema, kPredictionVersion, file.context);
  doc["scenario"] = file.scenario;
  if (!file.description.empty()) doc["description"] = file.description;
  if (file.selection) doc["selection"] = write_selection(*file.selection);
  Json configs = Json::array();
  for (const auto& c : file.configurations)
    configs.push_back(write_config_prediction(c, max_listed_ranks));
  doc["configurations"] = configs;
  return doc;
}

void write_prediction(const std::string& path, const PredictionFile& file) {
  write_json_output(path, write_prediction_json(file));
}

PredictionFile read_prediction(const Node& root) {
  if (root.has("schema_version") && root["schema_version"].json().is_number_integer() &&
      root["schema_version"].integer() == 1 && root.has("schema") &&
      root["schema"].json() == kPredictionSchema) {
    root["schema_version"].fail("schema_version 2", "1",
                                "version 1 predictions have no provenance or range: re-run "
                                "vitsim simulate (or vitsim reproduce) to write version 2");
  }
  root.expect_schema(kPredictionSchema, kPredictionVersion);
  root.expect_keys({"schema", "schema_version", "context", "scenario", "description", "selection",
                    "configurations"});
  PredictionFile f;
  f.context = read_context(root);
  f.scenario = root["scenario"].string();
  if (auto d = root.get("description")) f.description = d->string();
  if (auto s = root.get("selection")) f.selection = read_selection(*s);
  for (const Node& c : root["configurations"].items())
    f.configurations.push_back(read_config_prediction(c));
  return f;
}

int64_t max_global_batch_of(const PredictionFile& file) {
  return file.selection ? file.selection->max_global_batch : costmodel::kDefaultMaxGlobalBatch;
}

PredictionFile read_prediction(const std::string& path) {
  return read_prediction(Node::parse_file(path));
}

}  // namespace vitsim::schema
