// Study reader (schema "vitsim.study", version 1); see study.h and docs/formats/study.md.
#include "schema/study.h"

#include <filesystem>
#include <set>
#include <system_error>

#include "schema/common_io.h"
#include "schema/model_io.h"

namespace vitsim::schema {
namespace {

namespace fs = std::filesystem;

enum class PathKind { kFile, kFolder, kFileOrFolder };

// The path of `n` (a non-empty string) resolved against the study file's folder; it must exist
// as what `kind` says (a missing file-or-folder is reported as a missing file).
std::string resolved(const Node& n, PathKind kind) {
  const bool folder = kind == PathKind::kFolder;
  const std::string text = n.string();
  if (text.empty()) n.fail(folder ? "path of a folder" : "path of a file", "empty string");
  fs::path p(text);
  if (p.is_relative() && !n.file().empty()) p = fs::path(n.file()).parent_path() / p;
  p = p.lexically_normal();
  // The non-throwing overloads: a path the system refuses to look at (too long, a loop of links)
  // is not an existing file either, and must not end the process.
  std::error_code ec;
  const bool ok = (kind != PathKind::kFile && fs::is_directory(p, ec)) ||
                  (kind != PathKind::kFolder && fs::is_regular_file(p, ec));
  if (!ok) {
    n.fail(std::string("an existing ") + (folder ? "folder" : "file"),
           "\"" + text + "\" (" + p.string() + ")",
           "paths are relative to the folder of the study file");
  }
  return p.string();
}

std::string non_empty(const Node& n, const char* what) {
  const std::string s = n.string();
  if (s.empty()) n.fail(what, "empty string");
  return s;
}

StudyLogRule read_rule(const Node& n) {
  n.expect_keys({"prefix", "cluster", "device", "link_class"});
  StudyLogRule r;
  r.prefix = non_empty(n["prefix"], "the start of log file names");
  r.cluster = non_empty(n["cluster"], "a cluster name");
  r.device = non_empty(n["device"], "a device id");
  r.link_class = non_empty(n["link_class"], "a link class");
  return r;
}

void read_paths(const Node& root, Study& s) {
  s.log_folder = resolved(root["log_folder"], PathKind::kFolder);
  for (const Node& f : root["compute_summaries"].items())
    s.compute_summaries.push_back(resolved(f, PathKind::kFile));
  s.development_set = resolved(root["development_set"], PathKind::kFile);
  s.gpus = resolved(root["gpus"], PathKind::kFile);
  if (auto t = root.get("transports")) s.transports = resolved(*t, PathKind::kFile);
  s.cluster_folder = resolved(root["cluster_folder"], PathKind::kFolder);
  s.scenario_folder = resolved(root["scenario_folder"], PathKind::kFolder);
  // One file, or a list of them (older study files name one).
  if (auto t = root.get("tensor_evidence")) {
    if (t->json().is_array()) {
      for (const Node& f : t->items()) s.tensor_evidence.push_back(resolved(f, PathKind::kFile));
    } else {
      s.tensor_evidence.push_back(resolved(*t, PathKind::kFile));
    }
  }
  if (auto g = root.get("gpu_profiles")) {
    for (const Node& f : g->items()) s.gpu_profiles.push_back(resolved(f, PathKind::kFileOrFolder));
  }
  if (auto g = root.get("evidence_profiles")) {
    for (const Node& f : g->items())
      s.evidence_profiles.push_back(resolved(f, PathKind::kFileOrFolder));
  }
  if (auto e = root.get("emulated_runs")) s.emulated_runs = resolved(*e, PathKind::kFolder);
}

}  // namespace

Study read_study(const Node& root) {
  root.expect_schema(kStudySchema, kStudyVersion, kPreRegimeVersion);
  root.expect_keys({"schema",
                    "schema_version",
                    "context",
                    "title",
                    "model",
                    "train_images",
                    "log_format",
                    "log_folder",
                    "logs",
                    "compute_summaries",
                    "development_set",
                    "gpus",
                    "transports",
                    "cluster_folder",
                    "scenario_folder",
                    "precisions",
                    "precision_names",
                    "tensor_evidence",
                    "gpu_profiles",
                    "evidence_profiles",
                    "emulated_runs",
                    "report_notes"});
  if (root.has("context")) read_context(root);
  Study s;
  s.file = root.file();
  s.title = non_empty(root["title"], "the report's title");
  s.model = read_model(root["model"]);
  s.train_images = root["train_images"].integer_at_least(1);
  std::set<std::string> prefixes;
  for (const Node& r : root["logs"].items_nonempty()) {
    s.logs.push_back(read_rule(r));
    if (!prefixes.insert(s.logs.back().prefix).second) {
      r["prefix"].fail("a prefix no other rule has", "\"" + s.logs.back().prefix + "\" again",
                       "a log must match one rule");
    }
  }
  if (auto f = root.get("log_format")) s.log_format = non_empty(*f, "a log format name");
  read_paths(root, s);
  std::set<costmodel::Regime> seen;
  for (const Node& p : root["precisions"].items_nonempty()) {
    s.precisions.push_back(read_regime(p));
    if (!seen.insert(s.precisions.back()).second) p.fail("each precision once", p.describe());
  }
  if (auto names = root.get("precision_names")) {
    if (!names->json().is_object()) {
      names->fail("object {\"name in the study's tables\": \"regime\"}", names->describe());
    }
    for (const auto& item : names->json().items()) {
      s.precision_names[item.key()] = read_regime((*names)[item.key()]);
    }
  }
  if (auto notes = root.get("report_notes")) {
    for (const Node& n : notes->items()) s.report_notes.push_back(n.string());
  }
  return s;
}

Study read_study(const std::string& path) {
  return read_study(Node::parse_file(path));
}

}  // namespace vitsim::schema
