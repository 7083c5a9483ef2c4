// Suggestions of the command-line kit (clikit) for a name that matches nothing: a mistyped option
// ("--clustr": did you mean --cluster?), subcommand or catalog id. Shared by every subcommand of
// vitsim and vitsim-train through run_app and dispatch, so that each says the same thing the
// same way. Pure string work: no CLI11 here.
#pragma once

#include <string>
#include <vector>

namespace vitsim::clikit {

// Edits (insert, delete, substitute, swap two neighbours) that turn a into b (optimal string
// alignment distance).
size_t edit_distance(const std::string& a, const std::string& b);

// The candidates close to `typo`, nearest first (ties in the candidates' order), at most three:
// those it is a prefix of ("--micro" -> "--micro-batch") and those within a small edit distance
// (1 for names up to 4 characters, 2 up to 8, else 3; "--" does not count). Empty when none is
// close: a suggestion far from what was typed misleads more than none.
std::vector<std::string> close_matches(const std::string& typo,
                                       const std::vector<std::string>& candidates);

// " (did you mean --cluster?)", " (did you mean --gpus or --gpus-json?)", or "" when none.
std::string did_you_mean(const std::string& typo, const std::vector<std::string>& candidates);

// The candidates that contain `text` as a substring, ignoring case, in the candidates' order
// ("a100" -> "a100-pcie-40gb", "a100-sxm4-40gb", ...).
std::vector<std::string> containing(const std::string& text,
                                    const std::vector<std::string>& candidates);

// "a, b, c"; past `limit` items the rest is counted: "a, b, ... (14 in all)".
std::string join_names(const std::vector<std::string>& names, size_t limit = 12);

// Why `value` of --option names nothing `known` holds, and what it may have meant:
// "--devices: no device 'a100' in the catalog; the ids that match it: a100-pcie-40gb,
// a100-sxm4-40gb (give one)": the ids that contain it, or whose alias does; else the close ones;
// else every id. `what` is "device", `where` "the catalog". `aliases` (as long as `known`, or
// empty): another name of each (a device's model name, "Tesla T4"), searched too.
std::string unknown_name(const std::string& option, const std::string& what,
                         const std::string& where, const std::string& value,
                         const std::vector<std::string>& known,
                         const std::vector<std::string>& aliases = {});

}  // namespace vitsim::clikit
