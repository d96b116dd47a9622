// "Did you mean": the name a user most likely meant, among the names that exist, for a
// message about a name that does not (an undefined name in a model, -D k for parameter K).
#pragma once
#include <string>
#include <vector>

namespace pamc {

// Levenshtein distance: insertions, deletions and substitutions of one character each.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `name`: one that differs only in letter case first, else the
// nearest by edit distance when it is near enough to be a typo (at most 1, 2 or 3 edits for
// names of up to 3, 6 or more characters, and fewer than half the characters); "" if none.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// "; did you mean 'K'?" for closest_name's answer, "" when there is none.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// The message for an option that names no parameter of a model:
// "-D k: the model has no parameter 'k'; did you mean 'K'?" (kind UnknownParameter).
std::string unknown_parameter_message(const std::string& option, const std::string& name,
                                      const std::vector<std::string>& parameters);

}  // namespace pamc
