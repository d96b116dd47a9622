#include "compiler/support/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pamc {

namespace {

void write(std::string& out, const Json& j) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += Json(it.key()).dump();
      out += ": ";
      write(out, it.value());
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      write(out, j[i]);
    }
    out += ']';
  } else if (j.is_number_float()) {
    // The shortest text that reads back as the double (C++17's to_chars; nlohmann's Grisu2
    // is not always the shortest: 3.6160412665421102 for 3.61604126654211).
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, j.get<double>());
    out.append(buf, r.ptr);
  } else {
    out += j.dump();  // a string, integer, true, false or null: nlohmann's own text
  }
}

}  // namespace

std::string json_text(const Json& j) {
  std::string out;
  write(out, j);
  return out;
}

Json json_number(double v, int digits) {
  if (!std::isfinite(v)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  double r = std::strtod(buf, nullptr);
  if (r == std::floor(r) && std::fabs(r) < 1e15) return static_cast<long long>(r);
  return r;
}

Json json_number(const std::optional<double>& v, int digits) {
  return v ? json_number(*v, digits) : Json(nullptr);
}

}  // namespace pamc
