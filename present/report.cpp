// HTML report (see report.h).
#include "present/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "costmodel/global_batch.h"
#include "present/report_figures.h"
#include "present/report_summary.h"
#include "schema/build_info.h"
#include "schema/json_file.h"

namespace vitsim::present {

namespace fs = std::filesystem;

namespace {
// Errors beyond +-10 % are shown in red: the accuracy a class of runs is held to (median signed
// error within +-10 %), so a row past it is one to look at.
constexpr double kErrorMarkPct = 10;
}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64_encode(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

namespace {

// Fits a 1280 px window (tests/calibrate/report_test.cpp renders it there): the page takes the
// window's width up to 1240 px, cells are tight, and the long "inputs" cells wrap anywhere.
const char* kStyle =
    "body{font-family:sans-serif;max-width:1240px;margin:1em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:0.85em}"
    "td,th{border:1px solid #ccc;padding:2px 5px;text-align:right}"
    "td.l,th.l{text-align:left}th{background:#f0f0f0}"
    "td.src{text-align:left;font-size:0.9em;overflow-wrap:anywhere;min-width:12em}"
    "img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}"
    ".bad{color:#b00}.note{background:#fff8e0;padding:0.6em 1em;border-left:4px solid #e0b000}"
    ".toc{line-height:1.6}td.k{text-align:left;white-space:nowrap}";

std::string validation_section(const ValidationResult& v) {
  std::string h = "<h2 id=measured>Predicted against measured</h2>\n";
  h += fmt::format(
      "<p>{} matched configurations: median absolute error <b>{:.2f} %</b>, worst <b>{:.2f} %</b> "
      "({}), Spearman rank correlation {}.</p>\n",
      v.rows.size(), v.median_abs_error_pct, v.worst_abs_error_pct, html_escape(v.worst_label),
      v.rows.size() < 2 ? "- (needs two configurations)" : fmt::format("{:.3f}", v.spearman));
  h += "<table><tr><th class=l>cluster</th><th class=l>placement</th><th>GPUs</th><th>b</th>"
       "<th>fraction</th><th class=l>precision</th><th>measured (s/epoch)</th>"
       "<th>predicted (s/epoch)</th><th>error (%)</th><th class=l>scenario</th></tr>\n";
  for (const auto& r : v.rows) {
    h += fmt::format(
        "<tr><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td>{:g}</td>"
        "<td class=l>{}</td><td>{:.1f}</td><td>{:.1f}</td><td{}>{:+.2f}</td><td "
        "class=l>{}</td></tr>\n",
        html_escape(r.key.cluster), html_escape(r.key.placement), r.key.gpus, r.key.micro_batch,
        r.key.data_fraction(), costmodel::to_string(r.key.precision), r.measured_s, r.predicted_s,
        std::abs(r.error_pct) > kErrorMarkPct ? " class=bad" : "", r.error_pct,
        html_escape(r.scenario));
  }
  h += "</table>\n";
  for (size_t i = 0; i < v.unmatched_measured.size(); ++i) {
    h += fmt::format(
        "<p>Not matched: {} ({}): {}</p>\n", html_escape(v.unmatched_measured[i].key.label()),
        html_escape(v.unmatched_measured[i].source), html_escape(v.unmatched_notes[i]));
  }
  return h;
}

// Cost cells: "-" without a cost (why: under the table); "*" marks an unverified price; the mode
// in the cell only when the rows mix modes (files priced apart).
std::string epoch_usd_cell(const schema::ConfigPrediction& c, bool mixed) {
  if (!c.cost) return "-";
  return fmt::format(c.cost->epoch_usd >= 1 ? "{}{:.2f}{}" : "{}{:.3g}{}",
                     mixed ? c.cost->mode + " " : "", c.cost->epoch_usd,
                     c.cost->price_status == "unverified" ? "*" : "");
}

std::string epoch_kwh_cell(const schema::ConfigPrediction& c) {
  return c.cost ? fmt::format("{:.3g}", c.cost->epoch_kwh) : "-";
}

// The one price mode of the file's costs; "mixed" when they differ, "" when none has a cost.
std::string cost_mode(const schema::PredictionFile& p) {
  std::string mode;
  for (const auto& c : p.configurations) {
    if (!c.cost) continue;
    if (!mode.empty() && mode != c.cost->mode) return "mixed";
    mode = c.cost->mode;
  }
  return mode;
}

// The global batch, in red and marked when above the file's limit (costmodel/global_batch.h).
std::string global_batch_cell(const schema::ConfigPrediction& c, int64_t limit) {
  const int64_t batch = schema::global_batch(c.config);
  if (!costmodel::above_global_batch_limit(batch, limit)) return fmt::format("<td>{}</td>", batch);
  return fmt::format("<td class=bad title=\"{}\">{} &#9873;</td>",
                     html_escape(costmodel::global_batch_warning(batch, limit)), batch);
}

// Under the table: the price mode, why a cost is missing, what is flagged.
std::string table_notes(const schema::PredictionFile& p, const std::string& mode, int64_t limit) {
  std::string h;
  if (mode == "cloud") h += "<p>Cost: cloud list prices per GPU-hour.</p>\n";
  if (mode == "owned") h += "<p>Cost: owned GPUs, purchase price amortised plus electricity.</p>\n";
  if (mode == "mixed")
    h += "<p class=bad>Cost: these rows were priced apart in different modes (each cell names "
         "its mode): compare within one mode only.</p>\n";
  std::set<std::string> reasons;
  bool flagged = false, unverified = false;
  for (const auto& c : p.configurations) {
    if (!c.cost && !c.out_of_memory && !c.cost_missing.empty() &&
        reasons.insert(c.cost_missing).second)
      h += "<p>Cost -: " + html_escape(c.cost_missing) + "</p>\n";
    flagged = flagged || costmodel::above_global_batch_limit(schema::global_batch(c.config), limit);
    unverified = unverified || (c.cost && c.cost->price_status == "unverified");
  }
  if (flagged)
    h += fmt::format(
        "<p class=bad>&#9873; global batch above {} (ViT-B/16 was trained with 4096): past the "
        "model's usual range a larger batch changes what training converges to; flagged, never "
        "recommended.</p>\n",
        limit);
  if (unverified)
    h += "<p>* cost from a price not checked against a dated copy of its page "
         "(platforms/prices.json <code>verified</code>): check it, or give your own with "
         "<code>--price</code>. Energy is the GPUs' at TDP, an upper bound.</p>\n";
  return h;
}

std::string prediction_table(const schema::PredictionFile& p) {
  const std::string mode = cost_mode(p);
  const int64_t limit = schema::max_global_batch_of(p);
  std::string h = fmt::format(
      "<table><tr><th class=l>configuration</th><th>GPUs</th><th>micro-batch</th>"
      "<th>global batch</th><th>data fraction</th><th class=l>precision</th><th>step (s)</th>"
      "<th>epoch (s)</th><th>epoch p10-p90 (s)</th><th>images/s</th><th>speedup</th>"
      "<th>efficiency</th><th>$/epoch{}</th><th>kWh/epoch</th><th class=l>inputs</th></tr>\n",
      mode.empty() || mode == "mixed" ? "" : " (" + mode + ")");
  for (const auto& c : p.configurations) {
    const std::string sources = schema::provenance_summary(c.provenance);
    const std::string head = fmt::format(
        "<tr><td class=l>{}</td><td>{}</td><td>{}</td>{}<td>{:g}</td><td class=l>{}</td>",
        html_escape(c.config.label), c.config.gpus, c.config.micro_batch,
        global_batch_cell(c, limit), c.config.data_fraction,
        costmodel::to_string(c.config.precision));
    if (c.out_of_memory) {
      h += head + fmt::format(
                      "<td colspan=8 class=bad>out of memory (largest micro-batch that fits: {})"
                      "</td><td class=src>{}</td></tr>\n",
                      c.max_micro_batch_that_fits, html_escape(sources));
      continue;
    }
    h += head + fmt::format(
                    "<td>{:.3f}</td><td>{:.1f}</td><td>{}</td><td>{:.1f}</td><td>{}</td><td>{}</td>"
                    "<td>{}</td><td>{}</td><td class=src>{}</td></tr>\n",
                    c.step_time_s, c.epoch_time_s,
                    c.range ? fmt::format("{:.1f}-{:.1f}", c.range->epoch_time_s.p10,
                                          c.range->epoch_time_s.p90)
                            : std::string("-"),
                    c.throughput_images_per_s, or_dash(c.speedup, "{:.2f}"),
                    or_dash(c.parallel_efficiency, "{:.2f}"), epoch_usd_cell(c, mode == "mixed"),
                    epoch_kwh_cell(c), html_escape(sources));
  }
  h += "</table>\n" + table_notes(p, mode, limit);
  // Why each step takes what it takes (docs/simulator.md, "Breakdown"), in one sentence each.
  std::string why;
  for (const auto& c : p.configurations) {
    if (c.breakdown)
      why += fmt::format("<li>{}: {}</li>\n", html_escape(c.config.label),
                         html_escape(c.breakdown->bottleneck));
  }
  return why.empty() ? h : h + "<p>Bottlenecks:</p>\n<ul>\n" + why + "</ul>\n";
}

// Only the device costs the predictions use (a cost model covers every device of every cluster).
std::string costs_section(const costmodel::CostModel& c, const std::vector<std::string>& used) {
  std::string h =
      "<h2 id=costs>Where the costs come from</h2>\n<table><tr><th class=l>device</th>"
      "<th class=l>precision</th><th class=l>source</th><th class=l>micro-batches</th>"
      "<th class=l>derived from</th></tr>\n";
  for (const auto& d : c.devices) {
    const std::string key = d.device + "/" + costmodel::to_string(d.precision);
    if (!used.empty() && std::find(used.begin(), used.end(), key) == used.end()) continue;
    std::string mbs;
    for (int b : d.micro_batches) mbs += (mbs.empty() ? "" : ", ") + std::to_string(b);
    h += fmt::format(
        "<tr><td class=l>{}</td><td class=l>{}</td><td class=l><b>{}</b></td>"
        "<td class=l>{}</td><td class=l>{}</td></tr>\n",
        html_escape(d.device), costmodel::to_string(d.precision), costmodel::to_string(d.source),
        mbs, html_escape(d.derived_from));
  }
  h +=
      "</table>\n<table><tr><th class=l>link class</th><th class=l>source</th><th>latency (us)</th>"
      "<th>bandwidth (GB/s)</th><th class=l>derived from</th></tr>\n";
  for (const auto& l : c.links) {
    h += fmt::format(
        "<tr><td class=l>{}</td><td class=l><b>{}</b></td><td>{:.1f}</td><td>{:.3f}</td>"
        "<td class=l>{}</td></tr>\n",
        html_escape(l.link_class), costmodel::to_string(l.source), l.latency_s * 1e6,
        l.bandwidth_bytes_per_s / 1e9, html_escape(l.derived_from));
  }
  h += "</table>\n<table><tr><th class=l>transfer</th><th>eta_c</th><th>eta_m</th>"
       "<th>launch (us)</th><th class=l>fitted on</th></tr>\n";
  for (const auto& r : c.roofline) {
    std::string on;
    for (const auto& f : r.fitted_on) on += (on.empty() ? "" : "; ") + f;
    h += fmt::format(
        "<tr><td class=l>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.2f}</td>"
        "<td class=l>{}</td></tr>\n",
        costmodel::to_string(r.precision), r.compute_efficiency, r.memory_efficiency,
        r.launch_overhead_s * 1e6, html_escape(on));
  }
  return h + "</table>\n";
}

std::string slug(const std::string& s, size_t index) {
  std::string out = fmt::format("s{}-", index);
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

}  // namespace

ReportResult add_report(const ReportInputs& in, const std::string& out_dir,
                        schema::OutputGroup& group) {
  ReportResult r;
  const std::string fig_dir = out_dir + "/figures";
  fs::create_directories(fig_dir);
  const FigureSink sink{&group, fig_dir, out_dir};
  if (!in.measured.empty()) r.validation = validate(in.measured, in.predictions);
  const std::vector<size_t> order = report_order(in.predictions, r.validation);
  std::vector<std::string> anchors;
  for (size_t i = 0; i < in.predictions.size(); ++i)
    anchors.push_back(slug(in.predictions[i].prediction.scenario, i));
  // Summary first, then what a reader looks up: the contents say where.
  std::string toc = "<a href=\"#summary\">Summary</a>";
  if (!in.measured.empty()) toc += " · <a href=\"#measured\">Predicted against measured</a>";
  std::string sections;
  bool whatif_started = false;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    const auto& p = in.predictions[i].prediction;
    const bool study = is_study_experiment(p, r.validation);
    if (k == 0 && study) {
      sections += "<h2 id=study>Study experiments</h2>\n";
      toc += " · <a href=\"#study\">Study experiments</a>";
    }
    if (!study && !whatif_started) {  // without measured runs every scenario is a prediction
      whatif_started = true;
      const char* name = r.validation.rows.empty() ? "Scenarios" : "What-ifs";
      sections += fmt::format("<h2 id=whatif>{}</h2>\n", name);
      toc += fmt::format(" · <a href=\"#whatif\">{}</a>", name);
    }
    toc += fmt::format(" (<a href=\"#{}\">{}</a>)", anchors[i], html_escape(p.scenario));
    sections += fmt::format("<h3 id=\"{}\">{}</h3>\n<p><small>{}</small></p>\n", anchors[i],
                            html_escape(p.scenario), html_escape(in.predictions[i].file));
    sections += prediction_table(p);
    for (const Figure& f : draw_scenario_figures(p, in.measured, sink, anchors[i])) {
      const std::string& png = f.png_bytes;
      sections += fmt::format(
          "<figure><img alt=\"{0}\" src=\"data:image/png;base64,{1}\"><figcaption>{0} "
          "(<a href=\"figures/{2}\">SVG</a>, <a href=\"figures/{3}\">PNG</a>)</figcaption>"
          "</figure>\n",
          html_escape(f.title), base64_encode(png), f.svg, f.png);
      r.figure_files.push_back(fig_dir + "/" + f.png);
      r.figure_files.push_back(fig_dir + "/" + f.svg);
    }
  }
  if (in.costs) toc += " · <a href=\"#costs\">Where the costs come from</a>";
  if (!in.notes.empty()) toc += " · <a href=\"#notes\">Notes</a>";
  std::string body =
      fmt::format("<h1>{}</h1>\n<p class=toc>Contents: {}</p>\n", html_escape(in.title), toc);
  body += summary_section(in.predictions, order, anchors, r.validation, in.costs);
  if (!in.measured.empty()) body += validation_section(r.validation);
  body += sections;
  if (in.costs) body += costs_section(*in.costs, devices_used(in.predictions));
  if (!in.notes.empty()) {
    body += "<h2 id=notes>Notes</h2>\n";
    for (const auto& n : in.notes) body += "<p class=note>" + html_escape(n) + "</p>\n";
  }
  const std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>{}</title><style>{}</style>"
      "</head><body>\n{}<p><small>vitsim {} ({})</small></p></body></html>\n",
      html_escape(in.title), kStyle, body, build_info::version(), build_info::git_sha());
  r.html_path = out_dir + "/report.html";
  group.add(r.html_path, html);
  return r;
}

ReportResult write_report(const ReportInputs& in, const std::string& out_dir) {
  schema::OutputGroup group;
  ReportResult r = add_report(in, out_dir, group);
  group.commit();
  return r;
}

}  // namespace vitsim::present
