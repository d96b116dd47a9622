// Property: the vector-max rules never change a value. Seeded random max(v) expressions of
// the shapes rule_vmax_* target (numeric positions, unitvec(p + d), unitvec(p mod P),
// unitvec(p div B), sums over p of such terms, several of them added), with entries that may
// be negative, zero at some points (c * (N mod 2 == 0), K - M) or index-dependent, under two
// sets of facts (the pipeline's: real parameters >= 0, P >= 1 and B >= 1 declared; the rule
// tests' Fixture: integer parameters >= 0). evaluate(simplify(e)) must equal evaluate(e)
// at integer points that satisfy the facts and the recorded assumptions; points where e has
// no value are skipped, points where only the simplified form fails are failures. A second
// case applies each vector-max rule alone to the same expressions.
//
// max(v) is the max over positions 0..h, h the highest position with a nonzero value, the
// zero vector's max 0 (evaluate.cpp): max([-3, 0]) = -3, max(-1 * unitvec(2)) = 0.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "tests/unit/assumptions_at.h"

#include <random>
#include <sstream>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {

struct Params {
  symbol N{"N"}, P{"P"}, M{"M"}, K{"K"}, Q{"Q"}, B{"B"};
  std::vector<symbol> all() const { return {N, P, M, K, Q, B}; }
};

// Facts like the pipeline's (lower.cpp: every parameter declared, real, >= 0; `numeric
// parameter P >= 1` adds a lower bound) or like the rule tests' Fixture (integers).
Facts make_facts(const Params& s, bool integers) {
  Facts f;
  for (const symbol& x : s.all()) f.declare(x, x.get_name());
  f.add_lower(s.P, 1, false);
  f.add_lower(s.B, 1, false);
  if (integers)
    for (const symbol& x : s.all()) f.declare_integer(x);
  return f;
}

struct Gen {
  std::mt19937 rng;
  const Params& s;
  int next_index = 0;
  // An outer loop whose range may be empty: sum_const moves an index-free body out of it, and
  // may_fail() does not count a fractional inner loop bound as a failure, so such expressions
  // are checked at integer points only (not a vector-max rule's issue).
  bool nested_used = false;
  Gen(unsigned seed, const Params& p) : rng(seed), s(p) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  symbol fresh() { return symbol("i" + std::to_string(next_index++)); }

  // A scalar coefficient free of any index: nonnegative, negative, or zero at some points.
  ex coeff() {
    switch (pick(14)) {
      case 0: return numeric(pick(4) + 1);
      case 1: return -numeric(pick(3) + 1);
      case 2: return s.N;
      case 3: return s.K - s.M;
      case 4: return (s.K - s.M) * s.Q;
      case 5: return numeric(pick(3) + 1) * compare(Cmp::Eq, mod_of(s.N, 2), 0);
      case 6: return -numeric(pick(3) + 1) * compare(Cmp::Eq, mod_of(s.N, 2), 0);
      case 7: return s.N - 3;
      case 8: return -s.M;
      case 9: return compare(Cmp::Eq, mod_of(s.P, 2), 1) - 1;
      case 10: return numeric(1, 2) * s.Q;
      case 11: return s.M * s.Q;
      case 12: return 0;
      default: return s.P - 2;
    }
  }
  // A coefficient provably >= 0 that is 0 at some points (the weights the map rules need).
  ex nncoeff() {
    switch (pick(6)) {
      case 0: return s.N;
      case 1: return s.M * s.Q;
      case 2: return numeric(pick(3) + 1) * compare(Cmp::Eq, mod_of(s.N, 2), 0);
      case 3: return numeric(1, 2) * s.Q;
      case 4: return numeric(pick(4) + 1);
      default: return s.K * (s.P - 1);
    }
  }
  ex any_coeff() { return pick(2) ? nncoeff() : coeff(); }
  // A coefficient that may depend on the index i.
  ex icoeff(const symbol& i) {
    switch (pick(9)) {
      case 0: return i;
      case 1: return i - s.N;
      case 2: return compare(Cmp::Eq, mod_of(i, 2), 0) - 1;
      case 3: return -i;
      case 4: return s.N - i;
      case 5: return 2 * i - s.P;
      case 6: return compare(Cmp::Lt, i, s.M) * coeff();
      default: return coeff();
    }
  }
  ex some_ub() {
    switch (pick(8)) {
      case 0: return s.N;
      case 1: return s.P;
      case 2: return s.N - 1;
      case 3: return s.P + 1;
      case 4: return numeric(pick(4));
      case 5: return s.M;
      case 6: return s.K - 1;
      default: return s.N + s.M;
    }
  }
  ex some_lb() {
    switch (pick(5)) {
      case 0: case 1: return numeric(0);
      case 2: return numeric(1);
      case 3: return numeric(2);
      default: return s.M;
    }
  }
  ex offset() {
    switch (pick(7)) {
      case 0: case 1: return numeric(0);
      case 2: return numeric(1);
      case 3: return numeric(2);
      case 4: return s.M;
      case 5: return s.P - 1;
      default: return numeric(-1);
    }
  }
  ex modulus() {
    switch (pick(5)) {
      case 0: return s.P;
      case 1: return s.B;
      case 2: return numeric(2);
      case 3: return numeric(3);
      default: return s.P + 1;
    }
  }

  // The vector shapes.
  ex literal() {
    ex v = 0;
    int n = 1 + pick(4);
    for (int k = 0; k < n; ++k)
      if (pick(4)) v += coeff() * unitvec(numeric(k));
    if (v.is_zero()) v = coeff() * unitvec(numeric(pick(3)));
    return v;
  }
  ex single() {
    ex pos;
    switch (pick(7)) {
      case 0: pos = s.P; break;
      case 1: pos = s.P + 1; break;
      case 2: pos = s.P - 1; break;
      case 3: pos = mod_of(s.N, s.P); break;
      case 4: pos = idiv_of(s.M, 2); break;
      case 5: pos = s.M + 1; break;
      default: pos = s.N; break;
    }
    return coeff() * unitvec(pos);
  }
  // sum (i = lb, ub) { c(i) * unitvec(i + d) }, also two such sums with weights.
  ex identity() {
    ex lb = some_lb(), ub = some_ub(), d = pick(3) ? ex(numeric(0)) : offset();
    if (pick(3) == 0) d = -lb;  // positions from 0
    symbol i = fresh();
    ex v = (pick(2) ? coeff() : ex(1)) * make_reduction(ReduceKind::Sum, i, lb, ub, icoeff(i) * unitvec(i + d));
    if (pick(3) == 0) {
      symbol j = fresh();
      v += coeff() * make_reduction(ReduceKind::Sum, j, lb, ub, icoeff(j) * unitvec(j + d));
    }
    return v;
  }
  // w * sum (i = lb, ub) { c * unitvec(pos(i)) }, pos cyclic, block or injective.
  ex mapped() {
    bool nested = pick(5) == 0;  // an outer loop repeats the work
    nested_used = nested_used || nested;
    symbol i = fresh();
    ex lb = some_lb(), ub = some_ub(), e0 = pick(2) ? ex(numeric(0)) : offset(), d = pick(2) ? ex(numeric(0)) : offset();
    ex pos;
    switch (pick(4)) {
      case 0: pos = mod_of(i + e0, modulus()) + d; break;
      case 1: pos = idiv_of(i + (pick(2) ? -lb : e0), modulus()) + d; break;
      case 2: pos = idiv_of(ub - i, modulus()) + d; break;  // numbered from the top
      default: pos = numeric(pick(2) + 1) * i + d; break;
    }
    ex c = pick(3) ? any_coeff() : icoeff(i);
    ex w = pick(2) ? ex(1) : any_coeff();
    ex v = w * make_reduction(ReduceKind::Sum, i, lb, ub, c * unitvec(pos));
    if (pick(4) == 0) {  // the same reduction with a second weight (collected)
      v += coeff() * make_reduction(ReduceKind::Sum, i, lb, ub, c * unitvec(pos));
    }
    if (nested) {
      symbol j = fresh();
      v = make_reduction(ReduceKind::Sum, j, 1, s.M, v);
    }
    return v;
  }
  // Parts on disjoint positions: [a, b] then a shifted map from position 2 on.
  ex split() {
    symbol i = fresh();
    ex head = any_coeff() * unitvec(0) + any_coeff() * unitvec(1);
    ex pos = pick(2) ? mod_of(i, s.P) + 2 : ex(i + 2);
    return head + (pick(2) ? any_coeff() : ex(1)) * make_reduction(ReduceKind::Sum, i, 1, some_ub(), any_coeff() * unitvec(pos));
  }
  ex vector() {
    switch (pick(7)) {
      case 0: return literal();
      case 1: return single();
      case 2: return identity();
      case 3: return mapped();
      case 4: return split();
      case 5: return single() + single();  // positions that may coincide (and cancel)
      default: return pick(2) ? literal() + single() : mapped() + literal();
    }
  }
};

bool has_vmax(const ex& e) {
  if (pamela_function(e) == Fn::VectorMax) return true;
  if (GiNaC::is_a<reduction>(e)) {
    const auto& r = GiNaC::ex_to<reduction>(e);
    return has_vmax(r.lb()) || has_vmax(r.ub()) || has_vmax(r.body());
  }
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_vmax(e.op(k))) return true;
  return false;
}

// Integer points satisfying the facts (P, B >= 1; the rest >= 0); with `reals`, also a few
// where P and B are not integers (the pipeline's facts allow them: brute force then has a
// value where no loop bound or position is a fraction, and the closed forms claim to be exact).
std::vector<GiNaC::exmap> make_points(const Params& s, unsigned seed, int n, bool reals) {
  std::mt19937 rng(seed);
  auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<GiNaC::exmap> pts;
  // corners first: everything small
  pts.push_back({{s.N, 0}, {s.P, 1}, {s.M, 0}, {s.K, 0}, {s.Q, 0}, {s.B, 1}});
  pts.push_back({{s.N, 1}, {s.P, 1}, {s.M, 1}, {s.K, 0}, {s.Q, 1}, {s.B, 1}});
  while (static_cast<int>(pts.size()) < n)
    pts.push_back({{s.N, in(0, 7)}, {s.P, in(1, 4)}, {s.M, in(0, 4)}, {s.K, in(0, 4)}, {s.Q, in(0, 3)}, {s.B, in(1, 3)}});
  // Edge points within the facts (every parameter >= 0, P and B >= 1): fractional values and
  // large ones (100: a dense workload vector of 1000 positions made the test 13 times slower).
  if (reals) {
    const numeric half(1, 2), big(100);
    pts.push_back({{s.N, 5 * half}, {s.P, 1}, {s.M, half}, {s.K, 3 * half}, {s.Q, half}, {s.B, 1}});
    pts.push_back({{s.N, big}, {s.P, 3}, {s.M, 2}, {s.K, 1}, {s.Q, 2}, {s.B, 2}});
    pts.push_back({{s.N, 4}, {s.P, big}, {s.M, big}, {s.K, big}, {s.Q, big}, {s.B, big}});
  }
  if (reals)
    for (int k = 0; k < 8; ++k)
      pts.push_back({{s.N, in(0, 7)}, {s.P, numeric(2 * in(1, 3) + 1, 2)}, {s.M, in(0, 4)}, {s.K, in(0, 4)},
                     {s.Q, in(0, 3)}, {s.B, numeric(2 * in(1, 2) + 1, 2)}});
  return pts;
}

std::string point_text(const Params& s, const GiNaC::exmap& env) {
  std::ostringstream os;
  for (const symbol& x : s.all()) os << x.get_name() << "=" << env.at(x) << " ";
  return os.str();
}

struct Tally {
  long expressions = 0, compared = 0, closed = 0, mismatches = 0;
};

// Compare closed (with its assumptions) against orig at the points; report mismatches.
void compare_at(const Params& s, const ex& orig, const ex& closed, const Assumptions& a,
                const std::vector<GiNaC::exmap>& pts, const std::string& what, Tally& t) {
  for (const auto& env : pts) {
    Value want, got;
    try {
      WorkBudget b;
      want = evaluate(orig, env, b);
    } catch (const EvalError&) {
      continue;  // no value here: nothing to preserve
    }
    if (!assumptions_hold(a, env)) continue;
    try {
      WorkBudget b;
      got = evaluate(closed, env, b);
    } catch (const EvalError& x) {
      ++t.mismatches;
      FAIL_CHECK(what << ": only the simplified form fails (" << x.message << ") at " << point_text(s, env)
                      << "\n  e = " << to_pamela(orig) << "\n  s = " << to_pamela(closed));
      return;
    }
    ++t.compared;
    if (!values_equal(want, got)) {
      ++t.mismatches;
      FAIL_CHECK(what << ": value changed at " << point_text(s, env) << "\n  e = " << to_pamela(orig)
                      << "\n  s = " << to_pamela(closed) << "\n  want " << to_string(want) << ", got "
                      << to_string(got));
      return;  // one report per expression
    }
  }
}

constexpr int kExpressions = 2000;  // per facts configuration
constexpr int kPoints = 48;

}  // namespace

TEST_CASE("vmax property: evaluate(simplify(max(v))) == evaluate(max(v)) on random vectors") {
  Params s;
  Tally t;
  RuleStats all;
  for (bool integers : {false, true}) {
    Facts facts = make_facts(s, integers);
    Gen g(integers ? 7301u : 5113u, s);
    auto pts = make_points(s, integers ? 11u : 29u, kPoints, !integers);
    auto ints = make_points(s, integers ? 11u : 29u, kPoints, false);
    for (int n = 0; n < kExpressions; ++n) {
      g.nested_used = false;
      ex e = vector_max(g.vector());
      const auto& here = g.nested_used ? ints : pts;
      Assumptions a;
      RuleStats st;
      ex r;
      try {
        r = simplify(e, facts, a, st);
      } catch (const std::exception& x) {
        FAIL_CHECK("simplify threw on " << to_pamela(e) << ": " << x.what());
        continue;
      }
      ++t.expressions;
      for (const auto& [k, v] : st.fired) all.fired[k] += v;
      if (!has_vmax(r)) ++t.closed;
      std::string fired;
      for (const auto& [k, v] : st.fired) fired += " " + k;
      compare_at(s, e, r, a, here, std::string(integers ? "[integer facts]" : "[pipeline facts]") + " rules:" + fired, t);
    }
  }
  std::string fired;
  for (const auto& [k, v] : all.fired)
    if (std::string(k).rfind("vmax_", 0) == 0) fired += " " + k + "=" + std::to_string(v);
  MESSAGE("vmax property: " << t.expressions << " expressions, " << t.compared << " values compared, "
                            << t.closed << " closed; vector-max rules fired:" << fired);
  CHECK(t.mismatches == 0);
  CHECK(t.compared >= 50000);
  for (const char* rule : {"vmax_numeric", "vmax_single", "vmax_identity", "vmax_cyclic", "vmax_block",
                           "vmax_distinct"})
    CHECK_MESSAGE(all.fired[rule] >= 10, rule << " fired only " << all.fired[rule] << " times");
}

TEST_CASE("vmax property: each vector-max rule alone preserves max(v)") {
  Params s;
  Tally t;
  std::map<std::string, long> fired;
  for (bool integers : {false, true}) {
    Facts facts = make_facts(s, integers);
    Gen g(integers ? 4099u : 6007u, s);
    auto pts = make_points(s, integers ? 13u : 31u, kPoints, !integers);
    auto ints = make_points(s, integers ? 13u : 31u, kPoints, false);
    for (int n = 0; n < kExpressions; ++n) {
      g.nested_used = false;
      ex e = vector_max(g.vector());
      const auto& here = g.nested_used ? ints : pts;
      ++t.expressions;
      for (const NamedRule& rule : all_rules()) {
        const std::string name = rule.name;
        if (name.rfind("vmax_", 0) != 0) continue;
        Assumptions a;
        auto r = rule.fn(e, facts, a);
        if (!r) continue;
        ++fired[name];
        compare_at(s, e, *r, a, here, (integers ? "[integer facts] " : "[pipeline facts] ") + name, t);
      }
    }
  }
  std::string text;
  for (const auto& [k, v] : fired) text += " " + k + "=" + std::to_string(v);
  MESSAGE("vmax rules alone: " << t.expressions << " expressions, " << t.compared << " values compared; fired:" << text);
  CHECK(t.mismatches == 0);
}
