// Simplifier rules: each fires when its side condition holds and leaves the expression
// alone when it does not; results are compared by meaning, not text.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {
bool same(const ex& a, const ex& b) { return (a - b).expand().is_zero(); }
ex Sum(const symbol& i, const ex& lb, const ex& ub, const ex& body) {
  return make_reduction(ReduceKind::Sum, i, lb, ub, body);
}
ex Max(const symbol& i, const ex& lb, const ex& ub, const ex& body) {
  return make_reduction(ReduceKind::Max, i, lb, ub, body);
}
ex Min(const symbol& i, const ex& lb, const ex& ub, const ex& body) {
  return make_reduction(ReduceKind::Min, i, lb, ub, body);
}
struct Fixture {
  symbol N{"N"}, P{"P"}, M{"M"}, x{"x"}, i{"i"}, j{"j"}, p{"p"};
  Facts F;
  Assumptions a;
  RuleStats st;
  Fixture() {
    F.declare(N, "N");
    F.declare(P, "P");
    F.declare(M, "M");
    F.declare_unbounded(x, "x");
    F.declare_integer(N);
    F.declare_integer(P);
    F.declare_integer(M);
  }
  ex simp(const ex& e) { return simplify(e, F, a, st); }
};
numeric ev(const ex& e, const GiNaC::exmap& env) {
  WorkBudget b;
  return evaluate(e, env, b).scalar;
}
}  // namespace

TEST_CASE("the seed's MRM simplifies to max(10.1 N, 0.1 P N) and evaluates to 100000000") {
  symbol P("P"), N("N"), p("p"), i("i"), p2("p"), i2("i");
  Facts F;
  F.declare(P, "P");
  F.declare(N, "N");
  ex tmain = make_max({Max(p, 1, P, Sum(i, 1, N, numeric(101, 10))),
                       vector_max(Sum(p2, 1, P, Sum(i2, 1, N, numeric(1, 10) * unitvec(0))))});
  Assumptions a;
  RuleStats st;
  ex s = simplify(tmain, F, a, st);
  MESSAGE("T_main = " << to_pamela(s));
  CHECK(count_reductions(s) == 0);
  CHECK(st.residual_reductions == 0);
  CHECK(a.items.count("P >= 1") == 1);
  WorkBudget b;
  Value v = evaluate(s, {{P, 1000}, {N, 1000000}}, b);
  CHECK(v.scalar == 100000000);
  // equal to max(10.1 N, 0.1 P N) at several points
  ex want = make_max({numeric(101, 10) * N, numeric(1, 10) * P * N});
  for (int pp : {1, 3, 101, 1000})
    for (int nn : {0, 1, 7, 1000000}) {
      GiNaC::exmap env{{P, pp}, {N, nn}};
      CHECK(ev(s, env) == ev(want, env));
    }
  // with P >= 1 declared nothing about P needs assuming
  Facts g = F;
  g.add_lower(P, 1, false);
  Assumptions a2;
  simplify(tmain, g, a2, st);
  CHECK(a2.items.count("P >= 1") == 0);
}

TEST_CASE_FIXTURE(Fixture, "sum of an index-free body: count * body, when count >= 0") {
  CHECK(same(*rule_sum_const(Sum(i, 1, N, x), F, a), N * x));
  CHECK(a.items.empty());
  // count N - 1 >= 0 is not provable (N = 0 gives an empty range, sum 0): the closed form
  // is guarded by the predicate (N - 1 >= 0) and nothing is assumed
  ex guarded = *rule_sum_const(Sum(i, 2, N, x), F, a);
  CHECK(same(guarded, compare(Cmp::Ge, N - 1, 0) * (N - 1) * x));
  CHECK(a.items.empty());
  CHECK(same(guarded.subs(GiNaC::exmap{{N, 0}}), 0));
  // the same for a count that mentions an enclosing index
  Facts g = F;
  g.declare_index(j, 1, N);
  CHECK(same(*rule_sum_const(Sum(i, j + 2, N, x), g, a), compare(Cmp::Ge, N - j - 1, 0) * (N - j - 1) * x));
  CHECK(same(*rule_sum_const(Sum(i, j + 1, N, x), g, a), (N - j) * x));  // N - j >= 0 is provable: no guard
  // body depends on the index: not this rule
  CHECK(!rule_sum_const(Sum(i, 1, N, i), F, a));
  // non-integer bound recorded
  Assumptions b;
  symbol Q("Q");
  CHECK(rule_sum_const(Sum(i, 1, Q, x), F, b));
  CHECK(b.items.count("Q is an integer") == 1);
}

TEST_CASE_FIXTURE(Fixture, "sum split and index-free factors") {
  auto r = rule_sum_split(Sum(i, 1, N, i + x), F, a);
  REQUIRE(r);
  CHECK(count_reductions(*r) == 2);
  CHECK(!rule_sum_split(Sum(i, 1, N, i * x), F, a));
  auto q = rule_sum_factor(Sum(i, 1, N, i * x * unitvec(3)), F, a);
  REQUIRE(q);
  CHECK(same(*q, x * unitvec(3) * Sum(i, 1, N, i)));
  CHECK(!rule_sum_factor(Sum(i, 1, N, i * unitvec(i)), F, a));
}

TEST_CASE_FIXTURE(Fixture, "Faulhaber: polynomial bodies of any degree") {
  CHECK(same(*rule_sum_poly(Sum(i, 1, N, i), F, a), N * (N + 1) / 2));
  CHECK(same(*rule_sum_poly(Sum(i, 1, N, i * i), F, a), N * (N + 1) * (2 * N + 1) / 6));
  CHECK(same(faulhaber(3, N), GiNaC::pow(N * (N + 1) / 2, 2)));
  ex e = Sum(i, 3, N + 2, GiNaC::pow(i, 7) - 4 * i * x + 1);
  ex s = simp(e);
  CHECK(count_reductions(s) == 0);
  for (int n : {1, 2, 9, 30})
    CHECK(ev(s, {{N, n}, {x, numeric(3, 7)}}) == ev(e, {{N, n}, {x, numeric(3, 7)}}));
  CHECK(!rule_sum_poly(Sum(i, 1, N, mod_of(i, 2)), F, a));
  // triangular loop: sum_i sum_{j=i+1..N} 1 = N(N-1)/2 with nothing assumed
  Assumptions b;
  ex t = simplify(Sum(i, 1, N, Sum(j, i + 1, N, 1)), F, b, st);
  CHECK(same(t, N * (N - 1) / 2));
  CHECK(b.items.empty());
}

TEST_CASE_FIXTURE(Fixture, "max/min over an index of an index-free body") {
  CHECK(rule_ext_const(Max(p, 1, P, x), F, a)->is_equal(x));
  CHECK(a.items.count("P >= 1") == 1);
  Assumptions b;
  Facts g = F;
  g.add_lower(P, 1, false);
  CHECK(rule_ext_const(Min(p, 1, P, x), g, b)->is_equal(x));
  CHECK(b.items.empty());
  CHECK(!rule_ext_const(Max(p, 1, P, p), F, a));
  // provably empty: not assumable
  CHECK(!rule_ext_const(Max(p, 1, 0, x), F, a));
}

TEST_CASE_FIXTURE(Fixture, "max over an index: shift, scale, monotone bodies") {
  CHECK(same(*rule_ext_shift(Max(p, 1, P, x + p), F, a), x + Max(p, 1, P, p)));
  CHECK(same(*rule_ext_scale(Max(p, 1, P, N * p), F, a), N * Max(p, 1, P, p)));
  CHECK(same(*rule_ext_scale(Max(p, 1, P, -3 * p), F, a), -3 * Min(p, 1, P, p)));
  CHECK(!rule_ext_scale(Max(p, 1, P, x * p), F, a));  // sign of x unknown
  CHECK(same(*rule_ext_monotone(Max(p, 1, P, p * p), F, a), P * P));
  CHECK(same(*rule_ext_monotone(Min(p, 1, P, p * p), F, a), 1));
  CHECK(same(*rule_ext_monotone(Max(p, 1, P, N - p), F, a), N - 1));
  CHECK(!rule_ext_monotone(Max(p, 1, P, mod_of(p, 3)), F, a));
  CHECK(!rule_ext_monotone(Max(p, 1, P, x * p), F, a));
}

TEST_CASE_FIXTURE(Fixture, "vector max rules") {
  ex v = vector_max(vector_literal({N, P, x}));
  CHECK(rule_vmax_numeric(v, F, a)->is_equal(make_max({N, P, x})));
  CHECK(rule_vmax_numeric(vector_max(N * unitvec(2)), F, a)->is_equal(make_max({N, 0})));
  CHECK(!rule_vmax_numeric(vector_max(N * unitvec(p)), F, a));
  // one symbolic position
  CHECK(rule_vmax_single(vector_max(N * unitvec(P)), F, a)->is_equal(N));
  CHECK(!rule_vmax_single(vector_max(x * unitvec(P)), F, a));
  CHECK(rule_vmax_single(vector_max(x * unitvec(P + 1)), F, a)->is_equal(make_max({x, 0})));
  // identity mapping: one resource per process; needs a provably non-empty range (P = 0
  // gives the zero vector, whose max is 0, not an error), so with P >= 0 it stays...
  Assumptions b;
  ex id = vector_max(Sum(p, 1, P, N * p * unitvec(p)));
  CHECK(count_reductions(simplify(id, F, b, st)) == 1);
  // ...and with P >= 1 declared it closes
  Facts g = F;
  g.add_lower(P, 1, false);
  ex s = simplify(id, g, b, st);
  CHECK(count_reductions(s) == 0);
  CHECK(same(s, N * P));
  CHECK(b.items.empty());
}

TEST_CASE_FIXTURE(Fixture, "max/min algebra: dominated arguments, common factors and terms") {
  CHECK(rule_max_dominated(make_max({N + 1, N, x}), F, a)->is_equal(make_max({N + 1, x})));
  CHECK(rule_max_dominated(make_min({N + 1, N, x}), F, a)->is_equal(make_min({N, x})));
  CHECK(rule_max_dominated(make_max({N * P, 0}), F, a)->is_equal(N * P));
  CHECK(!rule_max_dominated(make_max({N, P}), F, a));
  ex m = make_max({numeric(101, 10) * N, numeric(1, 10) * P * N});
  ex r = *rule_max_factor(m, F, a);
  CHECK(r.is_equal(N * make_max({numeric(101, 10), numeric(1, 10) * P})));
  CHECK(to_pamela(r) == "N * max(0.1 * P, 10.1)");
  CHECK(!rule_max_factor(make_max({x * N, x * P}), F, a));  // x may be negative
  CHECK(rule_max_factor(make_max({N * N * P, N * M}), F, a)->is_equal(N * make_max({N * P, M})));
  CHECK(same(*rule_max_common_term(make_max({x + N, x + P}), F, a), x + make_max({N, P})));
  CHECK(!rule_max_common_term(make_max({x + N, P}), F, a));
  // declared symbolic bound N >= P
  Facts g = F;
  g.add_lower(N, P, false);
  CHECK(rule_max_dominated(make_max({N, P}), g, a)->is_equal(N));
}

TEST_CASE_FIXTURE(Fixture, "facts: interval and sign analysis") {
  CHECK(F.provably_nonneg(N * P + M));
  CHECK(!F.provably_positive(N));
  CHECK(!F.provably_nonneg(x));
  CHECK(F.provably_nonneg(x * x));
  CHECK(!F.provably_nonneg(N - 1));
  Facts g = F;
  g.add_lower(P, 1, false);
  g.add_lower(N, P, false);
  CHECK(g.provably_positive(P));
  CHECK(g.provably_nonneg(N - 1));
  CHECK(g.provably_nonneg(N - P));
  CHECK(g.provably_positive(N / P));
  CHECK(g.provably_nonneg(mod_of(x, P)));
  CHECK(F.provably_integer(N * P + 1));
  CHECK(!F.provably_integer(N / P));
}
