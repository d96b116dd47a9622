// JSON text helpers shared by every JSON pamc writes (--emit json, eval --json,
// simulate --json).
#pragma once
#include <string>

namespace pamc {

// s as a JSON string literal: quotes, backslashes and control characters escaped.
std::string json_quote(const std::string& s);

}  // namespace pamc
