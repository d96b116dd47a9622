// The simplifier driver: applies the rules of rules.h bottom-up until none fires.
#pragma once

#include "compiler/symbolic/facts.h"

#include <ginac/ginac.h>

#include <map>
#include <string>

namespace pamc::sym {

struct RuleStats {
  std::map<std::string, long> fired;
  long residual_reductions = 0;      // in the cost model's (top-level) equations
  long residual_reductions_all = 0;  // in every equation, phi_/delta_/omega_ included
};

// Simplify e under the facts. Never changes a value; closed forms that rely on conditions
// the facts cannot prove record them in `assumed`. Counts rule firings and the reductions
// left in the result in `stats`.
ex simplify(const ex& e, const Facts& facts, Assumptions& assumed, RuleStats& stats);
long count_reductions(const ex& e);

}  // namespace pamc::sym
