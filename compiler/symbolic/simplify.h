// The simplifier driver: applies the rules of rules.h bottom-up until none fires.
#pragma once
#include <set>
#include <string>

#include "compiler/symbolic/facts.h"
#include "compiler/symbolic/reduction.h"  // count_reductions

#include "compiler/symbolic/ginac_headers.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pamc::sym {

struct RuleStats {
  std::map<std::string, long> fired;
  long residual_reductions = 0;      // in the cost model's (top-level) equations
  long residual_reductions_all = 0;  // in every equation, phi_/delta_/omega_ included
  // Firings by rule (all_rules() index) that simplify() with a SimplifyCache counts and
  // flush() adds into `fired`: a map lookup by name per rule per call was a twentieth of
  // simplifying 10^4 generated equations.
  std::vector<long> by_rule;
  void flush();
};

// Simplify e under the facts. Never changes a value; closed forms that rely on conditions
// the facts cannot prove record them in `assumed`. Counts rule firings and the reductions
// left in the result in `stats`.
ex simplify(const ex& e, const Facts& facts, Assumptions& assumed, RuleStats& stats);

// Leaves these rules out of every later simplify() (by their names in all_rules(); empty: all
// rules), as PAMC_DISABLE_RULES does for a whole run. For tests that compare a rule's closed
// forms with what the other rules give without it.
void set_disabled_rules(const std::set<std::string>& names);

// Results of simplify() kept across calls, so the equations of one model share the work on
// common subexpressions (a T_ equation repeats its phi_ and omega_). Valid while the calls
// pass the same Facts and Assumptions objects and the facts do not change; a call with
// other objects starts it afresh. Output and stats are those of the uncached simplify().
class SimplifyCache {
public:
  SimplifyCache();
  ~SimplifyCache();
  SimplifyCache(const SimplifyCache&) = delete;
  SimplifyCache& operator=(const SimplifyCache&) = delete;
  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
  friend ex simplify(const ex&, const Facts&, Assumptions&, RuleStats&, SimplifyCache&);
};
// Counts firings in stats.by_rule: call stats.flush() before reading stats.fired.
ex simplify(const ex& e, const Facts& facts, Assumptions& assumed, RuleStats& stats, SimplifyCache& cache);

}  // namespace pamc::sym
