// Loops whose bounds round (N items in chunks of C: i = 0 .. ceil(N / C) - 1) and what the
// engine must know about them: the prover relaxes a rounding that an index bound brings in,
// compares two roundings of one kind by their arguments, a rounding of a rounding of the
// same kind folds, a min of a slope with a symbolic factor splits, and an argument that may
// fail is dropped from a max only for one that fails with it. Every closed form is compared
// with brute force at negative, zero, fractional and large points.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/rules.h"
#include "tests/unit/assumptions_at.h"

#include <string>
#include <vector>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {

struct Chunks {
  symbol N{"N"}, C{"C"}, P{"P"}, i{"i"}, x{"x"};
  Facts F;
  Assumptions a;
  RuleStats st;
  Chunks() {
    F.declare_parameter(N, "N");
    F.declare_parameter(C, "C");
    F.declare_parameter(P, "P");
    F.declare_unbounded(x, "x");
    F.add_lower(P, 1, false);
    F.declare_integer(P);
    F.add_lower(C, 0, false);
  }
};

// brute force and closed form give one answer (or both none) at every point where the
// closed form's recorded assumptions hold (elsewhere every evaluator falls back to brute force)
void check_same(const ex& closed, const ex& orig, const std::vector<GiNaC::exmap>& points,
                const Assumptions& assumed = Assumptions{}) {
  int compared = 0;
  for (const auto& env : points) {
    if (!assumptions_hold(assumed, env)) continue;
    bool want_ok = true, got_ok = true;
    Value want, got;
    try {
      WorkBudget b;
      want = evaluate(orig, env, b);
    } catch (const EvalError&) {
      want_ok = false;
    }
    try {
      WorkBudget b;
      got = evaluate(closed, env, b);
    } catch (const EvalError&) {
      got_ok = false;
    }
    if (!want_ok) continue;  // no value in the model: the closed form is not asked
    INFO("closed form " << to_pamela(closed));
    REQUIRE(got_ok);
    CHECK(values_equal(want, got));
    ++compared;
  }
  CHECK(compared > 0);
}

std::vector<numeric> edge_values() {
  return {numeric(-3), numeric(0), numeric(1, 2), numeric(1), numeric(2), numeric(3), numeric(7),
          numeric(10), numeric(13, 4), numeric(1000)};
}

}  // namespace

TEST_CASE_FIXTURE(Chunks, "prover: an index bound that rounds brings its rounding's linear bounds") {
  Facts g = F;
  g.declare_index(i, 0, ceil_of(N / C) - 1);
  CHECK(g.provably_nonneg(N - C * i));              // C ceil(N / C) < N + C
  CHECK(g.provably_positive(N / C - i));            // i <= ceil(N / C) - 1 < N / C
  CHECK(g.provably_nonneg(make_min({C, N - C * i})));
  CHECK(!g.provably_nonneg(N - C * i - C));         // false at the last chunk
}

TEST_CASE_FIXTURE(Chunks, "prover: two roundings of one kind compare as their arguments") {
  CHECK(F.provably_nonneg(ceil_of(N / C / P) - ceil_of(N / C / P - 1 / ex(P))));
  CHECK(F.provably_nonneg(floor_of(x + 1) - floor_of(x)));
  CHECK(!F.provably_nonneg(floor_of(x) - floor_of(x + 1)));
  CHECK(!F.provably_nonneg(floor_of(x) - ceil_of(x)));  // two kinds: not this rule's business
}

TEST_CASE_FIXTURE(Chunks, "floor_nested: a rounding of a rounding folds (a ceil of a floor through a floor)") {
  ex r = *rule_floor_nested(ceil_of(ceil_of(N / C) / P), F, a);
  CHECK(r.is_equal(ceil_of(N / (C * P))));
  CHECK(rule_floor_nested(floor_of((floor_of(x) + 1) / 2), F, a)->is_equal(floor_of((x + 1) / 2)));
  // a ceil of a floor turns to a floor first: ceil(floor(x) / 2) = floor((x + 1) / 2); a floor
  // of a ceil is left alone (inside a loop it is the form the sums over the index read)
  CHECK(rule_floor_nested(ceil_of(floor_of(x) / 2), F, a)->is_equal(floor_of((x + 1) / 2)));
  CHECK(!rule_floor_nested(floor_of(ceil_of(x) / 2), F, a));
  CHECK(!rule_floor_nested(floor_of(floor_of(x) / numeric(5, 2)), F, a));  // not an integer divisor
  CHECK(!rule_floor_nested(floor_of((floor_of(x) + numeric(1, 2)) / 2), F, a));  // not an integer shift
  std::vector<GiNaC::exmap> pts;
  for (const numeric& v : edge_values())
    for (int p = 1; p <= 4; ++p) pts.push_back({{x, v}, {P, p}});
  check_same(floor_of((x + 3) / P), floor_of((floor_of(x) + 3) / P), pts);
  check_same(*rule_floor_nested(ceil_of((ceil_of(x) - 2) / P), F, a), ceil_of((ceil_of(x) - 2) / P), pts);
  check_same(*rule_floor_nested(ceil_of((floor_of(x) - 2) / P), F, a), ceil_of((floor_of(x) - 2) / P), pts);
}

TEST_CASE_FIXTURE(Chunks, "sum_piecewise: a slope with a symbolic factor splits where the factor's sign is known") {
  // N items in chunks of C, every P-th chunk: the chunks of processor 0.
  ex M = ceil_of(ceil_of(N / C) / P) - 1;
  ex orig = make_reduction(ReduceKind::Sum, i, 0, M, make_min({C, N - C * P * i}));
  auto split = rule_sum_piecewise(orig, F, a);
  REQUIRE(split);
  ex closed = simplify(orig, F, a, st);
  CHECK(count_reductions(closed) == 0);
  std::vector<GiNaC::exmap> pts;
  for (const numeric& n : edge_values())
    for (const numeric& c : {numeric(1), numeric(2), numeric(3), numeric(1, 2), numeric(0)})
      for (int p : {1, 2, 3, 5}) pts.push_back({{N, n}, {C, c}, {P, p}});
  check_same(*split, orig, pts, a);
  check_same(closed, orig, pts, a);
  // A slope whose factor may be 0 where the sum has a value is not split: i = 0..N - 1.
  ex open = make_reduction(ReduceKind::Sum, i, 0, N - 1, make_min({C, N - C * P * i}));
  CHECK(!rule_sum_piecewise(open, F, a));
}

TEST_CASE_FIXTURE(Chunks, "max_dominated: an argument that may fail goes only for one that fails with it") {
  ex b = ceil_of(N / C / P - 1 / ex(P)), c = ceil_of(N / C / P);
  CHECK(rule_max_dominated(make_min({b, c}), F, a)->is_equal(b));  // both divide by C
  CHECK(rule_max_dominated(make_max({N / C, N / C - 1}), F, a)->is_equal(N / C));
  // 0 >= -1 - 1 / C ^ 2, but 0 has a value at C = 0 where the other has none: kept
  CHECK(!rule_max_dominated(make_max({ex(0), -1 - 1 / GiNaC::pow(C, 2)}), F, a));
}

TEST_CASE_FIXTURE(Chunks, "max_factor: a common factor found in either sign") {
  symbol k("k");
  Facts g = F;
  g.declare_index(k, 0, N - 2);
  // (N - k - 1) ceil(...) against -(k - N + 1) (k + 1 <= N - 1): factor() may leave either sign.
  ex arg1 = (N - k - 1) * ceil_of((N - k - 1) / P), arg2 = -(k - N + 1) * (k + 2);
  auto r = rule_max_factor(make_max({arg1, arg2}), g, a);
  REQUIRE(r);
  std::vector<GiNaC::exmap> pts;
  for (int n = 2; n <= 7; ++n)
    for (int kk = 0; kk <= n - 2; ++kk)
      for (int p : {1, 2, 3}) pts.push_back({{N, n}, {k, kk}, {P, p}});
  check_same(*r, make_max({arg1, arg2}), pts);
  CHECK(r->is_equal((N - k - 1) * make_max({ceil_of((N - k - 1) / P), k + 2})));
}

TEST_CASE_FIXTURE(Chunks, "chunks of C on P processors: the closed form of the busiest one") {
  // par (i = 0, ceil(N / C) - 1) use(cpu(i mod P), min(C, N - i C))
  ex v = make_reduction(ReduceKind::Sum, i, 0, ceil_of(N / C) - 1,
                        make_min({C, N - C * i}) * unitvec(mod_of(i, P)));
  ex closed = simplify(vector_max(v), F, a, st);
  CHECK(count_reductions(closed) == 0);
  CHECK(to_pamela(closed).find("ceil(ceil(") == std::string::npos);
  std::vector<GiNaC::exmap> pts;
  for (const numeric& n : {numeric(0), numeric(1), numeric(5), numeric(10), numeric(12), numeric(17, 2), numeric(-3)})
    for (const numeric& c : {numeric(1), numeric(2), numeric(3), numeric(5, 2)})
      for (int p : {1, 2, 3, 4}) pts.push_back({{N, n}, {C, c}, {P, p}});
  check_same(closed, vector_max(v), pts, a);
}

TEST_CASE("sum_power_rounding: the levels of a tree over P processors, P a power of two (assumed)") {
  symbol L("L"), P("P"), d("d");
  for (bool ceiling : {true, false}) {
    Facts F;
    F.declare_parameter(L, "L");
    F.declare_parameter(P, "P");
    F.declare_integer(L);
    F.declare_integer(P);
    F.add_lower(P, 1, false);
    Assumptions a;
    RuleStats st;
    ex level = GiNaC::pow(2, L - d) / P;
    ex orig = make_reduction(ReduceKind::Sum, d, 0, L - 1, (ceiling ? ceil_of(level) : floor_of(level)) * GiNaC::pow(2, d));
    ex closed = simplify(orig, F, a, st);
    CHECK(count_reductions(closed) == 0);
    bool assumed = false;
    for (const ex& x : a.integer) assumed = assumed || x.is_equal(log2_of(P));
    CHECK(assumed);  // "log2(P) is an integer": checked by every evaluator
    std::vector<GiNaC::exmap> pts;
    for (int l : {-3, 0, 1, 2, 3, 6, 11})
      for (int p : {1, 2, 4, 8, 64}) pts.push_back({{L, l}, {P, p}});
    check_same(closed, orig, pts, a);
  }
  // No power of two over P in the rounding: not this rule's business.
  Facts F;
  F.declare_parameter(L, "L");
  F.declare_parameter(P, "P");
  Assumptions a;
  CHECK(!rule_sum_power_rounding(make_reduction(ReduceKind::Sum, d, 0, L - 1, ceil_of((L - d) / P)), F, a));
  CHECK(a.integer.empty());
}

TEST_CASE("sum_geometric: powers of one base whose index cancels, and a sum of such terms") {
  symbol L("L"), N("N"), d("d");
  Facts F;
  F.declare_parameter(L, "L");
  F.declare_parameter(N, "N");
  F.declare_integer(L);
  Assumptions a;
  RuleStats st;
  ex orig = make_reduction(ReduceKind::Sum, d, 1, L, (N * GiNaC::pow(2, -d) + GiNaC::pow(2, -d) * GiNaC::pow(2, L)) * GiNaC::pow(2, d));
  ex closed = simplify(orig, F, a, st);
  CHECK(count_reductions(closed) == 0);
  std::vector<GiNaC::exmap> pts;
  for (int l : {-2, 0, 1, 5, 12})
    for (const numeric& n : {numeric(0), numeric(3), numeric(1, 2)}) pts.push_back({{L, l}, {N, n}});
  check_same(closed, orig, pts, a);
}
