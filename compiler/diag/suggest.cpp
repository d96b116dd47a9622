#include "compiler/diag/suggest.h"

#include <algorithm>
#include <cctype>

namespace pamc {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

bool same_but_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates)
    if (c != name && same_but_case(c, name)) return c;
  std::string best;
  std::size_t best_d = name.size() <= 3 ? 1 : name.size() <= 6 ? 2 : 3;
  for (const std::string& c : candidates) {
    std::size_t dist = edit_distance(name, c);
    if (dist <= best_d && dist > 0 && 2 * dist < std::max(name.size(), c.size()) && (best.empty() || dist < best_d)) {
      best = c;
      best_d = dist;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best = closest_name(name, candidates);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::string unknown_parameter_message(const std::string& option, const std::string& name,
                                      const std::vector<std::string>& parameters) {
  return option + " " + name + ": the model has no parameter '" + name + "'" + did_you_mean(name, parameters);
}

}  // namespace pamc
