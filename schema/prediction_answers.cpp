// Readers and writers of a prediction's "breakdown", "advice" and "cost"; see
// prediction_answers.h and docs/formats/prediction.md.
#include "schema/prediction_answers.h"

namespace vitsim::schema {

Json write_breakdown(const StepBreakdown& b) {
  Json links = Json::array();
  for (const auto& l : b.exposed_comm_by_link)
    links.push_back({{"link", l.link}, {"link_class", l.link_class}, {"seconds", l.seconds}});
  Json j = {{"step_time_s", b.step_time_s},
            {"compute_s", b.compute_s},
            {"straggler_wait_s", b.straggler_wait_s},
            {"exposed_comm_s", b.exposed_comm_s},
            {"exposed_comm_by_link", links},
            {"exposed_comm_unsaturated_s", b.exposed_comm_unsaturated_s},
            {"exposed_comm_attributed", b.exposed_comm_attributed},
            {"bottleneck", b.bottleneck}};
  if (!b.exposed_comm_unattributed_why.empty())
    j["exposed_comm_unattributed_why"] = b.exposed_comm_unattributed_why;
  return j;
}

StepBreakdown read_breakdown(const Node& n) {
  n.expect_keys({"step_time_s", "compute_s", "straggler_wait_s", "exposed_comm_s",
                 "exposed_comm_by_link", "exposed_comm_unsaturated_s", "exposed_comm_attributed",
                 "exposed_comm_unattributed_why", "bottleneck"});
  StepBreakdown b;
  b.step_time_s = n["step_time_s"].nonnegative();
  b.compute_s = n["compute_s"].nonnegative();
  b.straggler_wait_s = n["straggler_wait_s"].nonnegative();
  b.exposed_comm_s = n["exposed_comm_s"].nonnegative();
  for (const Node& l : n["exposed_comm_by_link"].items()) {
    l.expect_keys({"link", "link_class", "seconds"});
    b.exposed_comm_by_link.push_back(
        {l["link"].string(), l["link_class"].string(), l["seconds"].nonnegative()});
  }
  b.exposed_comm_unsaturated_s = n["exposed_comm_unsaturated_s"].nonnegative();
  b.exposed_comm_attributed = n["exposed_comm_attributed"].boolean();
  b.bottleneck = n["bottleneck"].string();
  if (auto why = n.get("exposed_comm_unattributed_why"))
    b.exposed_comm_unattributed_why = why->string();
  return b;
}

Json write_advice(const std::vector<WhatIf>& advice) {
  Json out = Json::array();
  for (const auto& w : advice) {
    out.push_back({{"what_if", w.what_if},
                   {"change", w.change},
                   {"step_time_s", w.step_time_s},
                   {"epoch_time_s", w.epoch_time_s},
                   {"epoch_change_rel", w.epoch_change_rel}});
  }
  return out;
}

std::vector<WhatIf> read_advice(const Node& n) {
  std::vector<WhatIf> out;
  for (const Node& w : n.items()) {
    w.expect_keys({"what_if", "change", "step_time_s", "epoch_time_s", "epoch_change_rel"});
    WhatIf x;
    x.what_if = w["what_if"].string();
    if (!w["change"].json().is_object())
      w["change"].fail("object of the inputs the what-if changed", w["change"].describe());
    x.change = w["change"].json();
    x.step_time_s = w["step_time_s"].nonnegative();
    x.epoch_time_s = w["epoch_time_s"].nonnegative();
    x.epoch_change_rel = w["epoch_change_rel"].in_range(-1.0, 1e6);
    out.push_back(x);
  }
  return out;
}

Json write_fit_options(const std::vector<FitOption>& options) {
  Json out = Json::array();
  for (const auto& f : options) {
    Json j = {{"what_if", f.what_if},
              {"change", f.change},
              {"gpus", f.gpus},
              {"step_time_s", f.step_time_s},
              {"epoch_time_s", f.epoch_time_s},
              {"memory_bytes", f.memory_bytes},
              {"device_memory_bytes", f.device_memory_bytes}};
    if (f.epoch_usd) j["epoch_usd"] = *f.epoch_usd;
    if (f.run_usd) j["run_usd"] = *f.run_usd;
    out.push_back(j);
  }
  return out;
}

std::vector<FitOption> read_fit_options(const Node& n) {
  std::vector<FitOption> out;
  for (const Node& f : n.items()) {
    f.expect_keys({"what_if", "change", "gpus", "step_time_s", "epoch_time_s", "memory_bytes",
                   "device_memory_bytes", "epoch_usd", "run_usd"});
    FitOption x;
    x.what_if = f["what_if"].string();
    if (!f["change"].json().is_object())
      f["change"].fail("object of the inputs the option changed", f["change"].describe());
    x.change = f["change"].json();
    x.gpus = f["gpus"].integer_at_least(1);
    x.step_time_s = f["step_time_s"].nonnegative();
    x.epoch_time_s = f["epoch_time_s"].nonnegative();
    x.memory_bytes = f["memory_bytes"].nonnegative();
    x.device_memory_bytes = f["device_memory_bytes"].nonnegative();
    if (auto v = f.get("epoch_usd")) x.epoch_usd = v->nonnegative();
    if (auto v = f.get("run_usd")) x.run_usd = v->nonnegative();
    out.push_back(x);
  }
  return out;
}

Json write_run_cost(const RunCost& c) {
  return {{"mode", c.mode},
          {"price_usd_per_gpu_hour", c.price_usd_per_gpu_hour},
          {"price_source", c.price_source},
          {"price_status", c.price_status},
          {"epoch_usd", c.epoch_usd},
          {"run_usd", c.run_usd},
          {"epochs", c.epochs},
          {"epoch_kwh", c.epoch_kwh},
          {"run_kwh", c.run_kwh},
          {"energy_is_upper_bound", c.energy_is_upper_bound},
          {"power_source", c.power_source}};
}

RunCost read_run_cost(const Node& n) {
  n.expect_keys({"mode", "price_usd_per_gpu_hour", "price_source", "price_status", "epoch_usd",
                 "run_usd", "epochs", "epoch_kwh", "run_kwh", "energy_is_upper_bound",
                 "power_source"});
  RunCost c;
  c.mode = n["mode"].one_of({"cloud", "owned"});
  const Node prices = n["price_usd_per_gpu_hour"];
  if (!prices.json().is_object()) prices.fail("object {\"device\": usd}", prices.describe());
  for (auto it = prices.json().begin(); it != prices.json().end(); ++it)
    c.price_usd_per_gpu_hour[it.key()] = prices[it.key()].nonnegative();
  c.price_source = n["price_source"].string();
  // Optional: files written before the label existed read as unverified.
  if (auto st = n.get("price_status"))
    c.price_status = st->one_of({"checked", "unverified", "--price"});
  c.epoch_usd = n["epoch_usd"].nonnegative();
  c.run_usd = n["run_usd"].nonnegative();
  c.epochs = n["epochs"].integer_at_least(1);
  c.epoch_kwh = n["epoch_kwh"].nonnegative();
  c.run_kwh = n["run_kwh"].nonnegative();
  c.energy_is_upper_bound = n["energy_is_upper_bound"].boolean();
  c.power_source = n["power_source"].string();
  return c;
}

}  // namespace vitsim::schema
