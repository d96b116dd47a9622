#include "compiler/support/json.h"

#include <algorithm>
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
    // The fewest digits that read back as the double (C++17's to_chars; nlohmann's Grisu2
    // is not always the fewest: 3.6160412665421102 for 3.61604126654211), laid out as
    // printf's %g lays out that many digits (0.0001, 1e-05), as pamc's JSON always was.
    const double v = j.get<double>();
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    int digits = 0;
    for (char* q = buf; q < r.ptr && *q != 'e'; ++q) digits += (*q >= '0' && *q <= '9');
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, std::max(digits, 1));
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
