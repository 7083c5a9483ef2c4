// Suggestions for names that match nothing (see suggest.h).
#include "clikit/suggest.h"

#include <algorithm>
#include <cctype>

namespace vitsim::clikit {

size_t edit_distance(const std::string& a, const std::string& b) {
  // d[i][j]: edits from a[0..i) to b[0..j); the swap of two neighbours counts as one edit.
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

namespace {

std::string without_dashes(const std::string& s) {
  const size_t start = s.find_first_not_of('-');
  return start == std::string::npos ? "" : s.substr(start);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<std::string> close_matches(const std::string& typo,
                                       const std::vector<std::string>& candidates) {
  const std::string t = without_dashes(typo);
  if (t.empty()) return {};
  const size_t allowed = t.size() <= 4 ? 1 : t.size() <= 8 ? 2 : 3;
  // (rank, order): a prefix ranks 0, an edit at distance k ranks k.
  std::vector<std::pair<size_t, size_t>> ranked;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string c = without_dashes(candidates[i]);
    if (c == t) continue;  // the same name is no suggestion
    if (t.size() >= 2 && c.compare(0, t.size(), t) == 0) {
      ranked.push_back({0, i});
      continue;
    }
    const size_t d = edit_distance(t, c);
    if (d <= allowed) ranked.push_back({d, i});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [rank, i] : ranked) {
    if (out.size() == 3) break;
    if (std::find(out.begin(), out.end(), candidates[i]) == out.end()) out.push_back(candidates[i]);
  }
  return out;
}

std::string did_you_mean(const std::string& typo, const std::vector<std::string>& candidates) {
  const std::vector<std::string> m = close_matches(typo, candidates);
  if (m.empty()) return "";
  std::string text = " (did you mean " + m.front();
  for (size_t i = 1; i < m.size(); ++i) text += (i + 1 == m.size() ? " or " : ", ") + m[i];
  return text + "?)";
}

std::vector<std::string> containing(const std::string& text,
                                    const std::vector<std::string>& candidates) {
  std::vector<std::string> out;
  const std::string t = lower(text);
  for (const auto& c : candidates) {
    if (!t.empty() && lower(c).find(t) != std::string::npos) out.push_back(c);
  }
  return out;
}

std::string join_names(const std::vector<std::string>& names, size_t limit) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string unknown_name(const std::string& option, const std::string& what,
                         const std::string& where, const std::string& value,
                         const std::vector<std::string>& known,
                         const std::vector<std::string>& aliases) {
  const std::string head = "--" + option + ": no " + what + " '" + value + "' in " + where;
  std::vector<std::string> inside;
  for (size_t i = 0; i < known.size(); ++i) {
    const bool alias = i < aliases.size() && !containing(value, {aliases[i]}).empty();
    if (alias || !containing(value, {known[i]}).empty()) inside.push_back(known[i]);
  }
  if (!inside.empty()) {
    return head + "; the ids that match it: " + join_names(inside, known.size()) + " (give one)";
  }
  const std::vector<std::string> close = close_matches(value, known);
  if (!close.empty()) return head + "; did you mean " + join_names(close) + "?";
  return head + " (ids: " + join_names(known, known.size()) + ")";
}

}  // namespace vitsim::clikit
