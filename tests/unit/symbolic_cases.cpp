// Case reasoning in the simplifier: a comparison factor is a fact for the other factors of its
// product (guard contexts), cases on k mod a split a closed form by gcd(a, k), and a max or
// a rounding of such cases is taken case by case. Each result is compared with the
// unsimplified expression at integer, zero, negative and large points.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/rules_internal.h"
#include "tests/unit/assumptions_at.h"

#include <cmath>
#include <optional>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {

struct Cases {
  symbol N{"N"}, P{"P"}, W{"W"}, k{"k"}, i{"i"};
  Facts F;
  Assumptions a;
  RuleStats st;
  Cases() {
    F.declare_parameter(N, "N");
    F.declare_parameter(P, "P");
    F.declare_parameter(W, "W");
    F.declare_integer(N);
    F.declare_integer(P);
    F.declare_integer(W);
    F.add_lower(P, 1, false);  // the model's fact for i mod P
    F.add_lower(W, 1, false);
  }
  ex simp(const ex& e) { return simplify(e, F, a, st); }
  // value of e at a point, or nullopt where it has none
  static std::optional<numeric> at(const ex& e, const GiNaC::exmap& env) {
    try {
      WorkBudget b;
      return evaluate(e, env, b).scalar;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  // closed equals e wherever e has a value and the recorded assumptions hold (where one
  // fails, every evaluator answers from e); the points outside them are counted
  int outside = 0;
  bool agrees(const ex& closed, const ex& e, const std::vector<GiNaC::exmap>& pts) {
    for (const auto& p : pts) {
      if (!assumptions_hold(a, p)) {
        ++outside;
        continue;
      }
      auto want = at(e, p);
      if (!want) continue;
      auto got = at(closed, p);
      if (!got || *got != *want) {
        MESSAGE("at " << p << ": " << to_pamela(closed) << " gives " << (got ? got->to_double() : NAN) << ", want "
                      << want->to_double());
        return false;
      }
    }
    return true;
  }
};

ex Sum(const symbol& i, const ex& lb, const ex& ub, const ex& body) { return make_reduction(ReduceKind::Sum, i, lb, ub, body); }

}  // namespace

TEST_CASE_FIXTURE(Cases, "a comparison factor is a fact for the rest of its product") {
  // floor(-2 / W) is -1 where W >= 2, and the product is 0 elsewhere
  ex e = compare(Cmp::Le, 2, W) * floor_of(-2 / W);
  ex s = simp(e);
  CHECK(to_pamela(s) == "-(2 <= W)");
  // a residue guard makes the quotient an integer: floor(P / 2) is P / 2 where P is even
  ex e2 = compare(Cmp::Eq, mod_of(P, 2), 0) * floor_of(P / 2);
  CHECK(to_pamela(simp(e2)) == "0.5 * (P mod 2 == 0) * P");
  std::vector<GiNaC::exmap> pts;
  for (int w = 1; w <= 7; ++w)
    for (int p = 1; p <= 9; ++p) pts.push_back({{W, w}, {P, p}});
  CHECK(agrees(s, e, pts));
  CHECK(agrees(simp(e2), e2, pts));
}

TEST_CASE_FIXTURE(Cases, "i mod W == 1 counts the matching i, and none where W <= 1") {
  ex e = Sum(i, 0, N, compare(Cmp::Eq, mod_of(i, W), 1));
  ex s = simp(e);
  CHECK(count_reductions(s) == 0);
  std::vector<GiNaC::exmap> pts;
  for (int n = -3; n <= 12; ++n)
    for (int w = 1; w <= 5; ++w) pts.push_back({{N, n}, {W, w}});
  CHECK(agrees(s, e, pts));
}

TEST_CASE_FIXTURE(Cases, "cases on P mod a cover every integer P once, so a max or rounding is taken per case") {
  ex two = compare(Cmp::Eq, mod_of(P, 2), 0) * ceil_of(2 * N / P) + compare(Cmp::Eq, mod_of(P, 2), 1) * ceil_of(N / P);
  REQUIRE(detail::residue_cases(two, F));
  auto lifted = rule_case_lift(make_max({two, 1}), F, a);
  REQUIRE(lifted);
  // not a cover: P mod 4 == 1 and P mod 2 == 0 leave P mod 4 == 3
  ex gap = compare(Cmp::Eq, mod_of(P, 4), 1) * N + compare(Cmp::Eq, mod_of(P, 2), 0) * N;
  CHECK(!detail::residue_cases(gap, F));
  // not disjoint: P mod 2 == 0 and P mod 4 == 0 overlap
  ex twice = compare(Cmp::Eq, mod_of(P, 2), 0) * N + compare(Cmp::Eq, mod_of(P, 4), 0) * N +
             compare(Cmp::Eq, mod_of(P, 2), 1) * N;
  CHECK(!detail::residue_cases(twice, F));
  // a k that may be fractional: no case holds at k = 1/2, so the cases do not cover it
  symbol x("x");
  Facts g = F;
  g.declare_unbounded(x, "x");
  CHECK(!detail::residue_cases(compare(Cmp::Eq, mod_of(x, 2), 0) * N + compare(Cmp::Eq, mod_of(x, 2), 1) * N, g));
  std::vector<GiNaC::exmap> pts;
  for (int n = -4; n <= 13; ++n)
    for (int p = 1; p <= 8; ++p) pts.push_back({{N, n}, {P, p}});
  CHECK(agrees(*lifted, make_max({two, 1}), pts));
  CHECK(agrees(simp(make_max({two, 1})), make_max({two, 1}), pts));
}

TEST_CASE_FIXTURE(Cases, "a strided cyclic map with a weight rising in the index closes by cases on gcd(a, P)") {
  for (int stride : {2, 3, 4, -2}) {
    CAPTURE(stride);
    ex v = Sum(i, 1, N, i * unitvec(mod_of(stride * i + 1, P)));
    ex s = simp(vector_max(v));
    CHECK(count_reductions(s) == 0);
    std::vector<GiNaC::exmap> pts;
    for (int n = -2; n <= 14; ++n)
      for (int p = 1; p <= 9; ++p) pts.push_back({{N, n}, {P, p}});
    pts.push_back({{N, 1000}, {P, 12}});
    CHECK(agrees(s, vector_max(v), pts));
  }
}

TEST_CASE_FIXTURE(Cases, "a vector of one entry at position 0 has that entry as its max, whatever its sign") {
  ex v = (N - 3) * unitvec(0);
  auto r = rule_vmax_numeric(vector_max(v), F, a);
  REQUIRE(r);
  std::vector<GiNaC::exmap> pts;
  for (int n = -3; n <= 6; ++n) pts.push_back({{N, n}});
  CHECK(agrees(*r, vector_max(v), pts));
}

TEST_CASE_FIXTURE(Cases, "an extremum of a body periodic in the index is taken over one period") {
  symbol j("j");
  // a worker's time by its parity, over the progression a guard i mod W == 0 selects
  ex body = mod_of(W * j, 2) + 1;
  ex e = make_reduction(ReduceKind::Max, j, 0, N, body, true);
  auto r = rule_ext_periodic(e, F, a);
  REQUIRE(r);
  CHECK(count_reductions(*r) == 0);
  // a min whose body may be negative: out-of-range terms repeat the first
  ex e2 = make_reduction(ReduceKind::Min, j, 1, N, mod_of(j + 1, 3) - 1);
  auto r2 = rule_ext_periodic(e2, F, a);
  REQUIRE(r2);
  std::vector<GiNaC::exmap> pts;
  for (int n = -2; n <= 9; ++n)
    for (int w = 1; w <= 4; ++w) pts.push_back({{N, n}, {W, w}});
  CHECK(agrees(*r, e, pts));
  CHECK(agrees(*r2, e2, pts));
  // the par's max over a range that may be empty (0 there: guarded or assumed non-empty)
  ex e3 = make_reduction(ReduceKind::Max, j, 0, N - 2, body, true);
  ex s3 = simp(e3);
  CHECK(count_reductions(s3) == 0);
  CHECK(agrees(s3, e3, pts));
  CHECK(at(s3, {{N, 2}, {W, 3}}) == std::optional<numeric>(1));
  CHECK(at(s3, {{N, 3}, {W, 3}}) == std::optional<numeric>(2));
  // a range that may be empty, with no default bound to lean on: the par's max is 0 there
  symbol U("U");
  Facts g = F;
  g.declare_unbounded(U, "U");
  g.declare_integer(U);
  ex e4 = make_reduction(ReduceKind::Max, j, 0, U, body, true);
  auto r4 = rule_ext_periodic(e4, g, a);
  REQUIRE(r4);
  for (int u = -3; u <= 6; ++u)
    for (int w = 1; w <= 4; ++w) CHECK(at(*r4, {{U, u}, {W, w}}) == at(e4, {{U, u}, {W, w}}));
  // not periodic with a number: a symbolic modulus, a bare index
  CHECK(!rule_ext_periodic(make_reduction(ReduceKind::Max, j, 0, N, mod_of(j, P), true), F, a));
  CHECK(!rule_ext_periodic(make_reduction(ReduceKind::Max, j, 0, N, mod_of(j, 2) + j, true), F, a));
}

TEST_CASE_FIXTURE(Cases, "a product of factors all largest at one end of the range has its max there") {
  symbol j("j");
  // a count falling in j times a weight of the residue largest at j = 0 (period P, symbolic)
  ex w = 1 / (1 + mod_of(mod_of(j, P), 2));
  ex e = make_reduction(ReduceKind::Max, j, 0, 2 * N - 1, compare(Cmp::Le, j - 1, N) * (N - j + 1) * w, true);
  auto r = rule_ext_product_at_end(e, F, a);
  REQUIRE(r);
  CHECK(count_reductions(*r) == 0);
  // the same as a min of the negated product (how the simplifier meets it)
  ex e2 = make_reduction(ReduceKind::Min, j, 0, 2 * N - 1, -compare(Cmp::Le, j - 1, N) * (N - j + 1) * w, true);
  auto r2 = rule_ext_product_at_end(e2, F, a);
  REQUIRE(r2);
  std::vector<GiNaC::exmap> pts;
  for (int n = -3; n <= 7; ++n)
    for (int p = 1; p <= 5; ++p) pts.push_back({{N, n}, {P, p}});
  CHECK(agrees(*r, e, pts));
  CHECK(agrees(*r2, e2, pts));
  // the same product written out term by term, as the sum over the inner loop leaves it
  ex guard = compare(Cmp::Le, j - 1, N);
  ex e3 = make_reduction(ReduceKind::Max, j, 0, 2 * N - 1, guard * N * w - guard * j * w + guard * w, true);
  auto r3 = rule_ext_product_at_end(e3, F, a);
  REQUIRE(r3);
  CHECK(agrees(*r3, e3, pts));
  // terms that share no factor are not a product
  CHECK(!rule_ext_product_at_end(make_reduction(ReduceKind::Max, j, 0, N, (N - j) * w + guard, true), F, a));
  // not at an end: the weight 1 / (2 - (j mod P) mod 2) is largest at odd residues
  ex odd = make_reduction(ReduceKind::Max, j, 0, N, (N - j + 1) / (2 - mod_of(mod_of(j, P), 2)), true);
  CHECK(!rule_ext_product_at_end(odd, F, a));
  // a factor that may be negative
  CHECK(!rule_ext_product_at_end(make_reduction(ReduceKind::Max, j, 0, N, (W - j) * w, true), F, a));
}

TEST_CASE_FIXTURE(Cases, "a residue a guard fixes is that number in the rest of the product") {
  ex e = compare(Cmp::Eq, mod_of(i, 2), 0) * (mod_of(i, 2) + 1) * i;
  Facts g = F;
  g.declare_index(i, 0, N);
  Assumptions a2;
  RuleStats st2;
  CHECK(to_pamela(simplify(e, g, a2, st2)) == "(i mod 2 == 0) * i");
}

TEST_CASE_FIXTURE(Cases, "a rounding whose argument lies in a window of width one is that integer") {
  Facts g = F;
  g.add_lower(W, 2, false);
  CHECK(rule_floor_window(ceil_of(-1 / W), g, a)->is_zero());  // -1 < -1 / W < 0
  auto r = rule_floor_window(ceil_of(-1 / W), F, a);  // W >= 1: -1 at W = 1, else 0
  REQUIRE(r);
  std::vector<GiNaC::exmap> pts;
  for (int w = 1; w <= 6; ++w) pts.push_back({{W, w}});
  pts.push_back({{W, numeric(3, 2)}});
  CHECK(agrees(*r, ceil_of(-1 / W), pts));
}

TEST_CASE_FIXTURE(Cases, "one-to-one positions over a box of loops hold one weight each (vmax_injective)") {
  symbol Px("Px"), Py("Py"), j("j");
  Facts g = F;
  g.declare_parameter(Px, "Px");
  g.declare_parameter(Py, "Py");
  g.declare_integer(Px);
  g.declare_integer(Py);
  g.add_lower(Px, 1, false);
  g.add_lower(Py, 1, false);
  // a rotation of a process grid, with a weight that grows along the row
  ex grid = Sum(i, 0, Px - 1, Sum(j, 0, Py - 1, (j + 1) * unitvec(mod_of(i * Py + j + 1, Px * Py))));
  auto r = rule_vmax_injective(vector_max(grid), g, a);
  REQUIRE(r);
  std::vector<GiNaC::exmap> pts;
  for (int x = 1; x <= 4; ++x)
    for (int y = 1; y <= 4; ++y) pts.push_back({{Px, x}, {Py, y}});
  CHECK(agrees(*r, vector_max(grid), pts));
  // not one-to-one: i + j over a square, and the mod of a spread past the modulus
  CHECK(!rule_vmax_injective(vector_max(Sum(i, 0, Px - 1, Sum(j, 0, Py - 1, j * unitvec(i + j)))), g, a));
  CHECK(!rule_vmax_injective(vector_max(Sum(i, 0, Px - 1, Sum(j, 0, Py - 1, (j + 1) * unitvec(mod_of(i * Py + j, Px * Py - 1))))), g, a));
}

TEST_CASE_FIXTURE(Cases, "an extremum over the residues of a run that starts anywhere takes the residues it reaches") {
  // a worker's time by the parity of its processor, from process 1 on: max (i = 1, N - 1) {
  // 6 / (1 + (i mod P) mod 2) }, and a min of a body of either sign
  ex e = make_reduction(ReduceKind::Max, i, 1, N - 1, 6 / (1 + mod_of(mod_of(i, P), 2)), true);
  ex e2 = make_reduction(ReduceKind::Min, i, 2, N, mod_of(mod_of(i + 1, P), 3) - 1, true);
  ex s = simp(e), s2 = simp(e2);
  CHECK(count_reductions(s) == 0);
  CHECK(count_reductions(s2) == 0);
  std::vector<GiNaC::exmap> pts;
  for (int n = -2; n <= 11; ++n)
    for (int p = 1; p <= 7; ++p) pts.push_back({{N, n}, {P, p}});
  CHECK(agrees(s, e, pts));
  CHECK(agrees(s2, e2, pts));
  CHECK(outside < static_cast<int>(pts.size()));  // most points are compared
}

TEST_CASE_FIXTURE(Cases, "a max over workers of fiber sums reads a weight in the worker at the fiber's position") {
  symbol w("w"), j("j");
  // par (w = 0, W - 1) seq (j = 0, N - 1) if (j mod W == w and j mod 2 == 0) use(cpu(w), w + 1)
  ex e = make_reduction(ReduceKind::Max, w, 0, W - 1,
                        Sum(j, 0, N - 1, compare(Cmp::Eq, mod_of(j, W), w) * compare(Cmp::Eq, mod_of(j, 2), 0) * (w + 1) +
                                             compare(Cmp::Eq, mod_of(j, W), w) * compare(Cmp::Eq, mod_of(j, 2), 0)),
                        true);
  auto r = rule_ext_fiber_vector(e, F, a);
  REQUIRE(r);
  std::vector<GiNaC::exmap> pts;
  for (int n = 0; n <= 11; ++n)
    for (int ww = 1; ww <= 5; ++ww) pts.push_back({{N, n}, {W, ww}});
  CHECK(agrees(*r, e, pts));
  CHECK(agrees(simp(e), e, pts));
}

TEST_CASE_FIXTURE(Cases, "a power of a loop index is bounded by its value at the index's ends") {
  symbol d("d");
  Facts g = F;
  g.declare_integer_atom(log2_of(P));
  g.declare_index(d, 0, log2_of(P) - 1);  // the levels of a tree over P = 2 ^ L processes
  CHECK(g.provably_nonneg(P - pow(2, d) - 1));      // 2 ^ d + 1 <= P: 2 ^ d <= P / 2, P >= 2
  CHECK(g.provably_nonneg(P - 2 * pow(2, d)));      // 2 ^ (d + 1) <= P
  CHECK(!g.provably_nonneg(P - 2 * pow(2, d) - 1));  // false at the top level
  CHECK(g.provably_nonneg(pow(2, d) - 1));          // from the lower end
  // the level loop's sum closes where the test is decided
  ex e = Sum(d, 0, log2_of(P) - 1, compare(Cmp::Le, pow(2, d) + 1, P));
  Facts h = F;
  h.declare_integer_atom(log2_of(P));
  Assumptions a2;
  RuleStats st2;
  ex s = simplify(e, h, a2, st2);
  CHECK(count_reductions(s) == 0);
}

TEST_CASE_FIXTURE(Cases, "p != q beside a residue test: the whole sum minus the diagonal term, counted where 2 p == q") {
  symbol q("q");
  Facts g = F;
  g.declare_index(q, 0, P - 1);
  Assumptions none;
  RuleStats st2;
  // all but the sender, among the even senders: sum (p) { (p != q) (p mod 2 == 0) (p + 1) }
  ex e = Sum(i, 0, P - 1, compare(Cmp::Ne, i, q) * compare(Cmp::Eq, mod_of(i, 2), 0) * (i + 1));
  ex s = simplify(e, g, none, st2);
  CHECK(count_reductions(s) == 0);
  // a stride on the index: 2 i == q matches once where q is even and q / 2 is in range
  ex c = Sum(i, 0, N, compare(Cmp::Eq, 2 * i, q));
  ex sc = simplify(c, g, none, st2);
  CHECK(count_reductions(sc) == 0);
  ex c3 = Sum(i, -2, N, compare(Cmp::Ne, 3 * i + 1, q) * i);
  ex sc3 = simplify(c3, g, none, st2);
  CHECK(count_reductions(sc3) == 0);
  std::vector<GiNaC::exmap> pts;
  for (int p = 1; p <= 9; ++p)
    for (int qq = 0; qq < p; ++qq)
      for (int n : {-3, -1, 0, 1, 4, 7}) pts.push_back({{P, p}, {q, qq}, {N, n}});
  CHECK(agrees(s, e, pts));
  CHECK(agrees(sc, c, pts));
  CHECK(agrees(sc3, c3, pts));
}

TEST_CASE_FIXTURE(Cases, "a block map with a stride, 2 i div W, deals blocks of W / 2 indices") {
  symbol B("B");
  Facts g = F;
  g.declare_parameter(B, "B");
  g.declare_integer(B);
  g.add_lower(B, 1, false);  // the model's fact for i div B
  Assumptions as;
  RuleStats st2;
  // an index-free weight: the first block holds min(n, ceil(B / 2)) items
  ex v = Sum(i, 0, N - 1, 2 * unitvec(idiv_of(2 * i, B)));
  ex s = simplify(vector_max(v), g, as, st2);
  CHECK(count_reductions(s) == 0);
  // a weight falling with the index: the first block is the busiest
  ex w = Sum(i, 0, N - 1, (N - i) * unitvec(idiv_of(3 * i, B)));
  ex sw = simplify(vector_max(w), g, as, st2);
  CHECK(count_reductions(sw) == 0);
  std::vector<GiNaC::exmap> pts;
  for (int n = -2; n <= 13; ++n)
    for (int b = 1; b <= 7; ++b) pts.push_back({{N, n}, {B, b}});
  a = as;
  CHECK(agrees(s, vector_max(v), pts));
  CHECK(agrees(sw, vector_max(w), pts));
}

TEST_CASE_FIXTURE(Cases, "an exchange that skips the sender: every link gets all messages but its diagonal one") {
  symbol p("p"), q("q");
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    // c(q) = q + 1, 1, or a weight read through p (symmetric: read as one of q)
    ex c = variant == 0 ? ex(q + 1) : variant == 1 ? ex(1) : compare(Cmp::Eq, mod_of(p, 2), 0) * (p + 2);
    ex v = Sum(p, 0, P - 1, Sum(q, 0, P - 1, compare(Cmp::Ne, p, q) * c * unitvec(mod_of(p + q + 1, P))));
    auto r = rule_vmax_all_but_diagonal(vector_max(v), F, a);
    REQUIRE(r);
    ex s = simp(*r);
    CHECK(count_reductions(s) == 0);
    std::vector<GiNaC::exmap> pts;
    for (int pp = 1; pp <= 11; ++pp) pts.push_back({{P, pp}});
    CHECK(agrees(s, vector_max(v), pts));
  }
  // not the same range for p and q: no full period for every q
  ex w = Sum(p, 0, P - 1, Sum(q, 0, P - 2, compare(Cmp::Ne, p, q) * unitvec(mod_of(p + q, P))));
  CHECK(!rule_vmax_all_but_diagonal(vector_max(w), F, a));
}
