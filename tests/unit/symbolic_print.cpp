// Printer and classes: Pamela syntax, vectors, determinism.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

TEST_CASE("numbers print as exact decimals or fractions") {
  CHECK(to_pamela(numeric(101, 10)) == "10.1");
  CHECK(to_pamela(numeric(100000000)) == "100000000");
  CHECK(to_pamela(numeric(1, 3)) == "1/3");
  CHECK(to_pamela(numeric(-1, 8)) == "-0.125");
  CHECK(to_pamela(numeric(1, 100000)) == "1e-5");  // four or more leading zeros: scientific
  CHECK(to_pamela(numeric(1, 1000)) == "0.001");
  CHECK(to_pamela(numeric(125, 1000000000)) == "1.25e-7");
}

TEST_CASE("vectors: [1,2,3]*4 is [4, 8, 12] and 10*unitvec(3) is [0, 0, 0, 10]") {
  ex v = vector_literal({1, 2, 3}) * 4;
  CHECK(to_pamela(v) == "[4, 8, 12]");
  CHECK(to_pamela(10 * unitvec(3)) == "[0, 0, 0, 10]");
  CHECK(to_pamela(numeric(1, 10) * unitvec(0)) == "[0.1]");
  symbol p("p");
  CHECK(to_pamela(10 * unitvec(p)) == "10 * unitvec(p)");
  // vector_max of those
  Facts f;
  Assumptions a;
  RuleStats st;
  CHECK(to_pamela(simplify(vector_max(v), f, a, st)) == "12");
  CHECK(to_pamela(simplify(vector_max(10 * unitvec(3)), f, a, st)) == "10");
  CHECK(to_pamela(simplify(vector_max(-10 * unitvec(3)), f, a, st)) == "0");
  CHECK(to_pamela(simplify(vector_max(-10 * unitvec(0)), f, a, st)) == "-10");
}

TEST_CASE("operators, precedence and functions print as Pamela") {
  symbol a("a"), b("b"), N("N"), P("P");
  CHECK(to_pamela(a + b) == "a + b");
  CHECK(to_pamela(a - b) == "a - b");
  CHECK(to_pamela((a + b) * N) == "N * (a + b)");
  CHECK(to_pamela(N / P) == "N / P");
  CHECK(to_pamela(N / (P * a)) == "N / P / a");
  CHECK(to_pamela(2 * N / 3) == "2 * N / 3");
  CHECK(to_pamela(GiNaC::pow(N, 2)) == "N ^ 2");
  CHECK(to_pamela(GiNaC::pow(a + b, 2)) == "(a + b) ^ 2");
  CHECK(to_pamela(GiNaC::sqrt(N)) == "sqrt(N)");
  CHECK(to_pamela(mod_of(a, b + 1)) == "a mod (b + 1)");
  CHECK(to_pamela(idiv_of(a * b, P)) == "a * b div P");
  CHECK(to_pamela(N * mod_of(a, b)) == "N * (a mod b)");
  CHECK(to_pamela(compare(Cmp::Gt, a, b)) == "(b < a)");
  CHECK(to_pamela(compare(Cmp::Eq, mod_of(a, 2), 0)) == "(a mod 2 == 0)");
  CHECK(to_pamela(floor_of(N / P) + ceil_of(a)) == "ceil(a) + floor(N / P)");
  CHECK(to_pamela(make_max({N * numeric(101, 10), P * N / 10})) == "max(0.1 * N * P, 10.1 * N)");
  symbol i("i");
  CHECK(to_pamela(make_reduction(ReduceKind::Sum, i, 1, N, i * i)) == "sum (i = 1, N) { i ^ 2 }");
  CHECK(to_pamela(make_reduction(ReduceKind::Max, i, 1, P - 1, i)) == "max (i = 1, P - 1) { i }");
  CHECK(to_pamela(-a) == "-a");
  CHECK(to_pamela(1 - a) == "1 - a");
  CHECK(to_pamela(-a - 1) == "-a - 1");
  // (-1) div P is not -(1 div P): a negative left operand of div or mod keeps its parentheses,
  // also as a term of a sum, where a leading '-' would be read as the term's sign.
  CHECK(to_pamela(idiv_of(-1, P)) == "(-1) div P");
  CHECK(to_pamela(2 * (P + idiv_of(-1, N))) == "2 * ((-1) div N) + 2 * P");
  CHECK(to_pamela(P - idiv_of(-1, N)) == "P - (-1) div N");
  CHECK(to_pamela(mod_of(-a, P)) == "(-a) mod P");
}

TEST_CASE("max/min eval: flatten, dedupe, fold numbers, single argument") {
  symbol a("a"), b("b");
  CHECK(make_max({a, make_max({b, 3}), 5, a}).is_equal(make_max({a, b, 5})));
  CHECK(make_max({a}).is_equal(a));
  CHECK(make_min({2, 7, numeric(1, 2)}).is_equal(numeric(1, 2)));
  CHECK(is_max(make_max({a, b})));
  CHECK(!is_min(make_max({a, b})));
}

TEST_CASE("reductions: substitution spares the bound index, equality up to renaming") {
  symbol i("i"), j("j"), N("N"), k("k");
  ex s = make_reduction(ReduceKind::Sum, i, 1, N, i * k);
  ex t = s.subs(GiNaC::exmap{{N, 10}, {i, 99}, {k, 2}});
  CHECK(to_pamela(t) == "sum (i = 1, 10) { 2 * i }");
  CHECK(make_reduction(ReduceKind::Sum, i, 1, N, i).is_equal(make_reduction(ReduceKind::Sum, j, 1, N, j)));
  CHECK(!make_reduction(ReduceKind::Sum, i, 1, N, i).is_equal(make_reduction(ReduceKind::Max, j, 1, N, j)));
  // capture avoidance: substituting k -> i inside a reduction over i renames the index
  ex u = s.subs(GiNaC::exmap{{k, i}});
  WorkBudget wb;
  Value v = evaluate(u, {{N, 3}, {i, 10}}, wb);  // sum_{m=1..3} m * 10
  CHECK(v.scalar == 60);
  CHECK(is_reduction(s));
  CHECK(count_reductions(s + make_reduction(ReduceKind::Max, j, 1, N, s)) == 3);
}

TEST_CASE("reduction hash: alike for renamed indices, apart for different bodies") {
  symbol i("i"), j("j"), a("a"), b("b"), N("N"), P("P");
  auto sum = [](const symbol& x, const ex& ub, const ex& body) { return make_reduction(ReduceKind::Sum, x, 1, ub, body); };
  // Alpha-equivalent (also nested, also inside a sum) hash alike: equal keys, equal hashes.
  ex n1 = sum(i, N, sum(j, i, i * j + 3));
  ex n2 = sum(a, N, sum(b, a, a * b + 3));
  REQUIRE(n1.is_equal(n2));
  CHECK(n1.gethash() == n2.gethash());
  CHECK((P * n1 + 1).gethash() == (P * n2 + 1).gethash());
  // Bodies that differ only deep inside, or in which index they use, hash apart: the
  // simplifier's memo would otherwise chain all of them in one bucket.
  CHECK(sum(i, N, 6.75 * unitvec(i + 1)).gethash() != sum(i, N, 7.25 * unitvec(i + 1)).gethash());
  ex inner_uses_outer = sum(i, N, sum(j, i, i));
  ex inner_uses_inner = sum(i, N, sum(j, i, j));
  CHECK(!inner_uses_outer.is_equal(inner_uses_inner));
  CHECK(inner_uses_outer.gethash() != inner_uses_inner.gethash());
  // A free symbol is not renamed: sum over i of N differs from sum over i of P.
  CHECK(sum(i, N, N).gethash() != sum(i, N, P).gethash());
}

TEST_CASE("printing does not depend on symbol creation order") {
  auto build = [](bool reversed) {
    symbol *x, *y, *z;
    static std::vector<std::unique_ptr<symbol>> keep;
    if (reversed) {
      keep.emplace_back(new symbol("z")); z = keep.back().get();
      keep.emplace_back(new symbol("y")); y = keep.back().get();
      keep.emplace_back(new symbol("x")); x = keep.back().get();
    } else {
      keep.emplace_back(new symbol("x")); x = keep.back().get();
      keep.emplace_back(new symbol("y")); y = keep.back().get();
      keep.emplace_back(new symbol("z")); z = keep.back().get();
    }
    symbol i("i");
    ex e = make_max({*x * *y + *z - 3, *z * 2 * *x, GiNaC::pow(*y, 2) / *x}) +
           make_reduction(ReduceKind::Sum, i, 1, *x, i * *y + *z) + (*x + *z) * unitvec(*y) +
           vector_literal({*x, *z, *y});
    return to_pamela(e);
  };
  std::string a = build(false), b = build(true);
  CHECK(a == b);
  MESSAGE(a);
}

TEST_CASE("a sum factor prints with its sign moved out, whichever way GiNaC holds it") {
  symbol a("a"), b("b"), c("c"), k("k"), N("N"), x("x");
  // x (a - b) and -x (b - a) are one expression; GiNaC's own form follows its term order.
  ex p = x * (a - b), q = -x * (b - a);
  CHECK(to_pamela(p) == to_pamela(q));
  // the form with fewer negative terms inside is the one printed: (k - N + 1), not
  // -(N - k - 1); so (N - k - 1) x, the same expression negated, prints as -(k - N + 1) x
  CHECK(to_pamela(x * (k - N + 1)) == "(k - N + 1) * x");
  CHECK(to_pamela(x * (N - k - 1)) == "-(k - N + 1) * x");
  // more negative terms: the sign moves out, and a sum writes it as a subtraction
  CHECK(to_pamela(c + x * (1 - a - b)) == to_pamela(c - x * (a + b - 1)));
  // sum { -x } and -sum { x } print alike: -sum (...) { x }, also as a factor
  symbol i("i");
  ex s1 = make_reduction(ReduceKind::Sum, i, 1, N, (a - b - c) * unitvec(i));
  ex s2 = make_reduction(ReduceKind::Sum, i, 1, N, (b + c - a) * unitvec(i));
  CHECK(to_pamela(x * s1) == to_pamela(-x * s2));
  CHECK(to_pamela(s1).rfind("-sum (i = 1, N) { ", 0) == 0);
  // a vector term c [a - b] held as -c [b - a] prints one way
  CHECK(to_pamela(c + (a - b) * unitvec(0)) == to_pamela(c - (b - a) * unitvec(0)));
  // a power of a sum too: even powers drop the sign, odd ones move it out, also in a
  // denominator (GiNaC would turn a flipped base (-s)^3 back into -(s^3): no such loop)
  CHECK(to_pamela(x * GiNaC::pow(a - b, 2)) == to_pamela(x * GiNaC::pow(b - a, 2)));
  CHECK(to_pamela(x * GiNaC::pow(k - a - b, 3) / 3) == to_pamela(-x * GiNaC::pow(a + b - k, 3) / 3));
  CHECK(to_pamela(x / GiNaC::pow(a - b, 3)) == to_pamela(-x / GiNaC::pow(b - a, 3)));
  CHECK(to_pamela(x * GiNaC::pow(a - b - c, 3)) == "-(b - a + c) ^ 3 * x");
}

TEST_CASE("floor and ceil of a quotient over a whole number print as one fraction, as a reader writes blocks") {
  symbol P("P"), N("N");
  CHECK(to_pamela(floor_of(P / 2 - numeric(1, 2))) == "floor((P - 1) / 2)");
  CHECK(to_pamela(floor_of(P / 2)) == "floor(P / 2)");
  CHECK(to_pamela(ceil_of(N / 3 - numeric(2, 3))) == "ceil((N - 2) / 3)");
  CHECK(to_pamela(floor_of(N / P)) == "floor(N / P)");  // a symbolic denominator: as written
  CHECK(to_pamela(floor_of(N + P)) == "floor(N + P)");
  // never longer than the plain form
  CHECK(to_pamela(floor_of(N / 7 + P / 5)) == "floor(0.2 * P + N / 7)");  // not (5 * N + 7 * P) / 35
}

TEST_CASE("a monomial's numerator and denominator, computed directly, are the ones normal() gives") {
  symbol N("N"), P("P"), M("M");
  const numeric coefficients[] = {numeric(1), numeric(-1), numeric(1, 2), numeric(-3, 4), numeric(7),
                                  numeric(-7, 3), numeric(5, 6), numeric(1, 10), numeric(-12, 35)};
  int compared = 0;
  for (const numeric& c : coefficients)
    for (int a = -3; a <= 3; ++a)
      for (int b = -2; b <= 2; ++b)
        for (int d = -1; d <= 1; ++d) {
          ex x = c * GiNaC::pow(N, a) * GiNaC::pow(P, b) * GiNaC::pow(M, d);
          auto q = monomial_numer_denom(x);
          ex nd = x.normal().numer_denom();
          if (GiNaC::is_a<numeric>(x)) {  // no symbol left: not a monomial of symbols
            CHECK(!q);
            continue;
          }
          REQUIRE(q);
          CHECK(q->first.is_equal(nd.op(0)));
          CHECK(q->second.is_equal(nd.op(1)));
          ++compared;
        }
  CHECK(compared == 9 * (7 * 5 * 3 - 1));
  // Not monomials: sums, floats, fractional powers, powers of sums, functions.
  CHECK(!monomial_numer_denom(N + P));
  CHECK(!monomial_numer_denom(0.5 * N));
  CHECK(!monomial_numer_denom(GiNaC::sqrt(N) * P));
  CHECK(!monomial_numer_denom(GiNaC::pow(N + 1, -1) * P));
  CHECK(!monomial_numer_denom(floor_of(N / P) / 2));
  // as_quotient takes the same pair either way.
  CHECK(as_quotient(N / 2)->second.is_equal(2));
  CHECK(!as_quotient(N * P));
}

TEST_CASE("a remembered text is given only to an expression that prints alike") {
  // The printer remembers the text of what it printed (print.cpp). Equal expressions that
  // print differently each keep their own text, whichever is printed first.
  symbol i("i"), j("j"), N("N"), x("x");
  ex by_i = make_reduction(ReduceKind::Sum, i, 1, N, i * x);
  ex by_j = make_reduction(ReduceKind::Sum, j, 1, N, j * x);
  REQUIRE(by_i.is_equal(by_j));  // alpha-equivalent reductions are equal
  CHECK(to_pamela(by_i + N) == "N + sum (i = 1, N) { i * x }");
  CHECK(to_pamela(by_j + N) == "N + sum (j = 1, N) { j * x }");
  CHECK(to_pamela(2 * by_j) == "2 * sum (j = 1, N) { j * x }");
  CHECK(to_pamela(2 * by_i) == "2 * sum (i = 1, N) { i * x }");
  // An exact 10^20 and a floating 1e20 are equal numbers, printed as they are.
  ex exact = x + numeric("100000000000000000000");
  ex floating = x + numeric(1e20);
  REQUIRE(exact.is_equal(floating));
  CHECK(to_pamela(exact) == "x + 100000000000000000000");
  CHECK(to_pamela(floating) == "x + 1e20");
  CHECK(to_pamela(make_max({floating, N})) == "max(N, x + 1e20)");
  CHECK(to_pamela(make_max({exact, N})) == "max(N, x + 100000000000000000000)");
  CHECK(to_pamela(x + numeric(1e20)) == "x + 1e20");  // again, from the memo
  // Printing compares nothing with GiNaC's is_equal, which makes the equal arguments of two
  // max share one tree: after all of the above, each still prints as it was built.
  CHECK(to_pamela(make_max({exact, N})) == "max(N, x + 100000000000000000000)");
  CHECK(to_pamela(make_max({by_j, N})) == "max(N, sum (j = 1, N) { j * x })");
  CHECK(to_pamela(make_max({by_i, N})) == "max(N, sum (i = 1, N) { i * x })");
}

