// A cursor over one line of text, for the hand-written log parsers: each method consumes what it
// matched, or nothing, in time linear in the line's length and without recursion. It replaces
// std::regex, whose backtracking recursed per character and overflowed the stack on one 50 KB
// line of a DeepSpeed log.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace vitsim::import {

class Cursor {
 public:
  Cursor(std::string_view line, size_t pos) : s_(line), pos_(pos) {}
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= s_.size(); }
  size_t spaces() {
    return run([](char c) { return c == ' ' || c == '\t'; });
  }
  size_t repeated(char ch) {
    return run([ch](char c) { return c == ch; });
  }
  bool literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) != lit) return false;
    pos_ += lit.size();
    return true;
  }
  bool one_of(std::string_view chars) {
    if (at_end() || chars.find(s_[pos_]) == std::string_view::npos) return false;
    ++pos_;
    return true;
  }
  std::string_view digits() {
    const size_t from = pos_;
    run([](char c) { return c >= '0' && c <= '9'; });
    return s_.substr(from, pos_ - from);
  }
  // A fixed-point decimal, "12", "12.34", ".5" (what DeepSpeed's "{:.2f}" prints): no sign, no
  // exponent, no "nan" or "inf".
  std::string_view decimal() {
    const size_t from = pos_;
    const size_t whole = digits().size();
    size_t frac = 0;
    if (literal(".")) frac = digits().size();
    if (whole + frac == 0) pos_ = from;
    return s_.substr(from, pos_ - from);
  }
  std::string_view rest() const { return s_.substr(std::min(pos_, s_.size())); }

 private:
  template <typename Pred>
  size_t run(Pred pred) {
    const size_t from = pos_;
    while (pos_ < s_.size() && pred(s_[pos_])) ++pos_;
    return pos_ - from;
  }
  std::string_view s_;
  size_t pos_;
};

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

inline std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Every occurrence of `key` in `line`, each tried with `match` (a Cursor just after the key); the
// first that matches wins, as a regex search would.
template <typename Match>
bool search(const std::string& line, std::string_view key, Match match) {
  for (size_t at = line.find(key); at != std::string::npos; at = line.find(key, at + 1)) {
    Cursor c(line, at + key.size());
    if (match(c, at)) return true;
  }
  return false;
}

}  // namespace vitsim::import
