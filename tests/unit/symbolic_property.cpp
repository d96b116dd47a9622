// Property: simplification never changes a value. 300+ random expressions with nested
// reductions (seeded RNG); at several parameter points, evaluate(simplify(e)) must equal
// evaluate(e) wherever e evaluates and the recorded assumptions hold.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "tests/unit/assumptions_at.h"

#include <random>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {

struct Gen {
  std::mt19937 rng;
  std::vector<symbol> params;
  std::vector<symbol> scope;  // indices in scope
  int next_index = 0;

  explicit Gen(unsigned seed) : rng(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

  ex leaf() {
    switch (pick(4)) {
      case 0: return numeric(pick(7) - 2);
      case 1: return numeric(pick(9) + 1, pick(4) + 1);
      case 2: return params[pick(static_cast<int>(params.size()))];
      default:
        if (!scope.empty()) return scope[pick(static_cast<int>(scope.size()))];
        return params[pick(static_cast<int>(params.size()))];
    }
  }
  ex bound() {
    switch (pick(5)) {
      case 0: return numeric(pick(4));
      case 1: return params[pick(static_cast<int>(params.size()))];
      case 2: return params[pick(static_cast<int>(params.size()))] - 1;
      default:
        if (!scope.empty()) return scope[pick(static_cast<int>(scope.size()))] + pick(2);
        return params[pick(static_cast<int>(params.size()))];
    }
  }
  ex reduction(int depth, ReduceKind k) {
    symbol i("i" + std::to_string(next_index++));
    ex lb = pick(3) ? ex(numeric(pick(2))) : bound();
    ex ub = bound();
    scope.push_back(i);
    ex body = scalar(depth - 1);
    if (pick(2)) body = body * i;  // make the index matter more often
    scope.pop_back();
    return make_reduction(k, i, lb, ub, body);
  }
  ex scalar(int depth) {
    if (depth <= 0) return leaf();
    switch (pick(12)) {
      case 0: case 1: return scalar(depth - 1) + scalar(depth - 1);
      case 2: case 3: return scalar(depth - 1) * scalar(depth - 1);
      case 4: case 5: return reduction(depth, ReduceKind::Sum);
      case 6: return reduction(depth, pick(2) ? ReduceKind::Max : ReduceKind::Min);
      case 7: return pick(2) ? make_max({scalar(depth - 1), scalar(depth - 1)})
                             : make_min({scalar(depth - 1), scalar(depth - 1), leaf()});
      case 8: return vector_max(vec(depth - 1));
      case 9: return pick(2) ? mod_of(scalar(depth - 1), pick(3) + 1) : idiv_of(scalar(depth - 1), pick(3) + 1);
      case 10: return compare(static_cast<Cmp>(pick(6)), scalar(depth - 1), leaf());
      default: return GiNaC::pow(scalar(depth - 1), pick(3) + 1);
    }
  }
  ex position() {
    switch (pick(3)) {
      case 0: return numeric(pick(4));
      case 1:
        if (!scope.empty()) return scope[pick(static_cast<int>(scope.size()))];
        return numeric(pick(4));
      default: return params[pick(static_cast<int>(params.size()))];
    }
  }
  ex vec(int depth) {
    if (depth <= 0 || pick(3) == 0) return scalar(0) * unitvec(position());
    switch (pick(3)) {
      case 0: return vec(depth - 1) + vec(depth - 1);
      case 1: {
        symbol i("i" + std::to_string(next_index++));
        ex lb = numeric(pick(2)), ub = bound();
        scope.push_back(i);
        ex body = scalar(depth - 1) * unitvec(pick(2) ? ex(i) : position());
        scope.pop_back();
        return make_reduction(ReduceKind::Sum, i, lb, ub, body);
      }
      default: return scalar(depth - 1) * vec(depth - 1);
    }
  }
};

}  // namespace

TEST_CASE("property: evaluate(simplify(e)) == evaluate(e) on 400 random expressions") {
  Gen g(20240521u);
  symbol N("N"), P("P"), M("M");
  g.params = {N, P, M};
  Facts facts;
  facts.declare(N, "N");
  facts.declare(P, "P");
  facts.declare(M, "M");
  facts.add_lower(P, 1, false);
  // Edge points too, within the facts (N, M >= 0, P >= 1; negative values are outside them,
  // so the pipeline-level tests sample those): fractional values, zeros and large values.
  const numeric half(1, 2), big(1000);  // large, as far as a dense workload vector allows
  const std::vector<GiNaC::exmap> points = {
      {{N, 0}, {P, 1}, {M, 0}}, {{N, 1}, {P, 1}, {M, 2}}, {{N, 4}, {P, 2}, {M, 3}},
      {{N, 7}, {P, 3}, {M, 1}}, {{N, 5}, {P, 6}, {M, 5}},
      {{N, 5 * half}, {P, 3 * half}, {M, half}}, {{N, half}, {P, 5 * half}, {M, 7 * half}},
      {{N, 0}, {P, 7 * half}, {M, 5 * half}}, {{N, big}, {P, 3}, {M, 2}}, {{N, 3}, {P, big}, {M, big}}};
  const long kSteps = 200000;  // a point whose reductions need more terms is skipped
  long compared = 0, closed = 0, total_reductions = 0, residual = 0;
  RuleStats stats;
  for (int n = 0; n < 400; ++n) {
    ex e = g.scalar(1 + g.pick(4));
    Assumptions a;
    RuleStats st;
    ex s;
    try {
      s = simplify(e, facts, a, st);
    } catch (const std::exception& x) {
      FAIL("simplify threw on " << to_pamela(e) << ": " << x.what());
      continue;
    }
    for (const auto& [k, v] : st.fired) stats.fired[k] += v;
    total_reductions += count_reductions(e);
    residual += count_reductions(s);
    if (count_reductions(s) < count_reductions(e)) ++closed;
    for (const auto& env : points) {
      Value want, got;
      try {
        WorkBudget b;
        b.steps_left = kSteps;
        want = evaluate(e, env, b);
      } catch (const EvalError&) {
        continue;  // e has no value here (e.g. max over an empty range), or too many terms
      }
      if (!assumptions_hold(a, env)) continue;
      try {
        WorkBudget b;
        b.steps_left = kSteps;
        got = evaluate(s, env, b);
      } catch (const EvalError& x) {
        if (x.diag.kind == pamc::DiagKind::WorkLimit) continue;
        FAIL("simplified form fails to evaluate: " << x.message << "\n  e = " << to_pamela(e)
                                                   << "\n  s = " << to_pamela(s));
        continue;
      }
      ++compared;
      if (!values_equal(want, got)) {
        FAIL_CHECK("value changed at N=" << env.at(N) << " P=" << env.at(P) << " M=" << env.at(M)
                                         << "\n  e = " << to_pamela(e) << "\n  s = " << to_pamela(s)
                                         << "\n  want " << to_string(want) << ", got " << to_string(got));
      }
    }
  }
  std::string fired;
  for (const auto& [k, v] : stats.fired) fired += " " + k + "=" + std::to_string(v);
  MESSAGE("compared " << compared << " values; " << closed << " of 400 expressions lost reductions ("
                      << total_reductions << " -> " << residual << "); rules:" << fired);
  CHECK(compared >= 1000);
  CHECK(closed >= 100);
}
