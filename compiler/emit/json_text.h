// JSON text helpers shared by every JSON pamc writes (--emit json, eval --json,
// simulate --json).
#pragma once
#include <string>
#include <vector>

namespace pamc {

// s as a JSON string literal: quotes, backslashes and control characters escaped.
std::string json_quote(const std::string& s);

// The items of v as JSON strings separated by ", " (the inside of a JSON array).
std::string json_string_list(const std::vector<std::string>& v);

}  // namespace pamc
