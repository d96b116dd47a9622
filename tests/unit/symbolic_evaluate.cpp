// Reference evaluator: exact arithmetic, Pamela's floor semantics, errors, the work budget.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {
numeric ev(const ex& e, const GiNaC::exmap& env = {}) {
  WorkBudget b;
  Value v = evaluate(e, env, b);
  REQUIRE(!v.is_vector);
  return v.scalar;
}
std::string err(const ex& e, const GiNaC::exmap& env = {}, long long budget = 1000000) {
  WorkBudget b{budget};
  try {
    evaluate(e, env, b);
  } catch (const EvalError& x) {
    return x.message;
  }
  return "";
}
}  // namespace

TEST_CASE("mod and div use floor semantics, also for negative operands") {
  symbol a("a"), b("b");
  auto m = [&](long x, long y) { return ev(mod_of(a, b), {{a, x}, {b, y}}); };
  auto d = [&](long x, long y) { return ev(idiv_of(a, b), {{a, x}, {b, y}}); };
  CHECK(m(7, 3) == 1);
  CHECK(m(-7, 3) == 2);
  CHECK(m(7, -3) == -2);
  CHECK(m(-7, -3) == -1);
  CHECK(d(7, 3) == 2);
  CHECK(d(-7, 3) == -3);
  CHECK(d(7, -3) == -3);
  CHECK(d(-7, -3) == 2);
  // folded at construction too
  CHECK(mod_of(-7, 3).is_equal(2));
  CHECK(idiv_of(-7, 3).is_equal(-3));
  CHECK(ev(floor_of(a), {{a, numeric(-5, 2)}}) == -3);
  CHECK(ev(ceil_of(a), {{a, numeric(-5, 2)}}) == -2);
  CHECK(ev(log2_of(a), {{a, 1024}}) == 10);
  CHECK(ev(compare(Cmp::Le, a, b), {{a, 3}, {b, 3}}) == 1);
  CHECK(ev(compare(Cmp::Gt, a, b), {{a, 3}, {b, 3}}) == 0);
  CHECK(ev(compare(Cmp::Ne, a, b), {{a, 3}, {b, 4}}) == 1);
}

TEST_CASE("exact rationals, floats only where sqrt/log/exp enter") {
  symbol N("N");
  CHECK(ev(N * numeric(101, 10), {{N, 1000000}}) == 10100000);
  CHECK(ev(GiNaC::sqrt(N), {{N, 16}}) == 4);
  numeric r = ev(GiNaC::sqrt(N), {{N, 2}});
  CHECK(!r.is_rational());
  CHECK(r.to_double() == doctest::Approx(1.41421356237));
  CHECK(ev(GiNaC::exp(N), {{N, 0}}) == 1);
}

TEST_CASE("reductions unroll, empty ranges: sum 0, max/min an error") {
  symbol i("i"), N("N");
  ex s = make_reduction(ReduceKind::Sum, i, 1, N, i * i);
  CHECK(ev(s, {{N, 10}}) == 385);
  CHECK(ev(s, {{N, 0}}) == 0);
  CHECK(ev(s, {{N, -5}}) == 0);
  ex m = make_reduction(ReduceKind::Max, i, 1, N, mod_of(i, 4));
  CHECK(ev(m, {{N, 10}}) == 3);
  CHECK(err(m, {{N, 0}}).find("empty range") != std::string::npos);
  CHECK(err(make_reduction(ReduceKind::Min, i, 1, N, i), {{N, 0}}).find("empty range") != std::string::npos);
}

TEST_CASE("vectors evaluate elementwise, max(v) counts the implicit zeros") {
  symbol p("p"), P("P");
  WorkBudget b;
  Value v = evaluate(vector_literal({1, 2, 3}) * 4, {}, b);
  CHECK(v.is_vector);
  CHECK(v.elems.at(2) == 12);
  ex s = make_reduction(ReduceKind::Sum, p, 1, P, p * unitvec(p));
  CHECK(ev(vector_max(s), {{P, 5}}) == 5);
  CHECK(ev(vector_max(-1 * unitvec(2)), {}) == 0);
  CHECK(ev(vector_max(-1 * unitvec(0) - 2 * unitvec(1)), {}) == -1);
  CHECK(ev(vector_max(make_reduction(ReduceKind::Sum, p, 1, P, unitvec(p))), {{P, 0}}) == 0);
}

TEST_CASE("errors are EvalError, never a crash") {
  symbol N("N"), i("i"), k("k");
  CHECK(err(N + 1).find("unbound symbol N") != std::string::npos);
  CHECK(err(1 / N, {{N, 0}}).find("division by zero") != std::string::npos);
  CHECK(err(mod_of(3, N), {{N, 0}}).find("division by zero") != std::string::npos);
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, N, i), {{N, numeric(5, 2)}}).find("non-integer loop bound") != std::string::npos);
  CHECK(err(unitvec(k), {{k, -1}}).find("unitvec position") != std::string::npos);
  CHECK(err(unitvec(k), {{k, numeric(1, 2)}}).find("unitvec position") != std::string::npos);
  CHECK(err(log2_of(N), {{N, 0}}).find("log2") != std::string::npos);
}

TEST_CASE("the work budget stops brute force") {
  symbol i("i"), j("j"), N("N");
  // Bodies that read their index: unrolled term by term, a step each.
  ex s = make_reduction(ReduceKind::Sum, i, 1, N, make_reduction(ReduceKind::Sum, j, 1, N, i * j));
  CHECK(err(s, {{N, 1000}}, 5000).find("work limit") != std::string::npos);
  WorkBudget b{2000};
  CHECK(evaluate(s, {{N, 40}}, b).scalar == 820 * 820);
  CHECK(b.steps_left == 2000 - 40 - 1600);
}

// A body that does not read its index has one value in the whole range: a sum is the
// count times it, a max or min that value, with no step per term. Each is checked here
// against the same loop made to read its index (a factor i >= lb, 1 in the range), which
// is unrolled term by term.
TEST_CASE("a loop whose body does not read its index: the unrolled value, in one step") {
  symbol i("i"), j("j"), N("N"), x("x");
  auto reading = [&](ReduceKind k, const ex& lb, const ex& ub, const ex& body) {
    return make_reduction(k, i, lb, ub, body * compare(Cmp::Ge, i, lb));
  };
  auto same = [&](ReduceKind k, const ex& lb, const ex& ub, const ex& body, const GiNaC::exmap& env) {
    WorkBudget b1, b2;
    Value once = evaluate(make_reduction(k, i, lb, ub, body), env, b1);
    Value unrolled = evaluate(reading(k, lb, ub, body), env, b2);
    return once.is_vector == unrolled.is_vector && values_equal(once, unrolled, 0) && to_string(once) == to_string(unrolled);
  };
  for (long n : {-3L, 0L, 1L, 2L, 7L, 100L})
    for (const ex& body : {ex(numeric(1, 3)), x / 7 - 2, ex(-x), ex(vector_literal({numeric(1, 3), 0, -2}) * x)}) {
      GiNaC::exmap env{{N, n}, {x, numeric(5, 3)}};
      CHECK(same(ReduceKind::Sum, 1, N, body, env));
      CHECK(same(ReduceKind::Sum, -N, N, body, env));
      if (n >= 1) {
        CHECK(same(ReduceKind::Max, 1, N, body, env));
        CHECK(same(ReduceKind::Min, 1, N, body, env));
      }
    }
  // Floats are added term by term as before (a product rounds differently).
  CHECK(same(ReduceKind::Sum, 1, 7, GiNaC::sqrt(ex(2)) / 10, {}));
  // Empty ranges keep their meaning.
  CHECK(err(make_reduction(ReduceKind::Max, i, 1, N, x), {{N, 0}, {x, 1}}).find("empty range") != std::string::npos);
  // One step per loop, whatever its count, and bounds past a machine word need no unrolling:
  // the chain d_k = sum (i = 1, d_{k-1}) { d_{k-1} + 1 / 3 } checks its bounds at once.
  WorkBudget b{10};
  ex nested = make_reduction(ReduceKind::Sum, i, 1, N, make_reduction(ReduceKind::Sum, j, 1, N, N + numeric(1, 3)));
  CHECK(evaluate(nested, {{N, numeric(1000000000)}}, b).scalar == numeric(1000000000) * numeric(1000000000) * (numeric(1000000000) + numeric(1, 3)));
  CHECK(b.steps_left == 8);
  numeric huge = numeric(2).power(100);
  CHECK(ev(make_reduction(ReduceKind::Sum, i, 1, N, numeric(1, 3)), {{N, huge}}) == huge / 3);
  CHECK(ev(make_reduction(ReduceKind::Max, i, 1, N, numeric(1, 3)), {{N, huge}}) == numeric(1, 3));
  // A sum whose terms would need more than the loop bounds' machine words still unrolls
  // (and says so) where its body reads the index and is not a polynomial in it.
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, N, mod_of(i, 3)), {{N, huge}}).find("loop bound out of range") != std::string::npos);
  CHECK(err(make_reduction(ReduceKind::Max, i, 1, N, i), {{N, huge}}).find("loop bound out of range") != std::string::npos);
  // Near the size limit the sum is added term by term, with the same check at each step.
  ex big = GiNaC::pow(numeric(3), 200000) / GiNaC::pow(numeric(2), 200000);
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, 2, big)).find("a sum") != std::string::npos);
}

// Past kClosedSumFrom terms a sum whose body is a polynomial in its index is its closed
// form, from the body's first d + 1 values. Each is checked here against the same sum made
// not a polynomial (a factor i >= lb, 1 in the range), which is added term by term.
TEST_CASE("a long sum of a polynomial in its index: the value term by term, from d + 1 terms") {
  symbol i("i"), x("x");
  auto both = [&](const ex& lb, long count, const ex& body, const GiNaC::exmap& env) {
    ex ub = lb + count - 1;
    WorkBudget b1, b2;
    Value closed = evaluate(make_reduction(ReduceKind::Sum, i, lb, ub, body), env, b1);
    Value unrolled = evaluate(make_reduction(ReduceKind::Sum, i, lb, ub, body * compare(Cmp::Ge, i, lb)), env, b2);
    CHECK(b1.steps_left - b2.steps_left == count - (body.degree(i) + 1));  // d + 1 terms read, not count
    return values_equal(closed, unrolled, 0) && to_string(closed) == to_string(unrolled);
  };
  GiNaC::exmap env{{x, numeric(-5, 3)}};
  CHECK(both(1, kClosedSumFrom + 4321, i * i, env));
  for (long count : {kClosedSumFrom + 1})
    for (const ex& lb : {ex(-70000), ex(12345)})
      for (const ex& body : {ex(i), i * i, GiNaC::pow(i, 3) - 5 * i / 7 + numeric(1, 3), GiNaC::pow(i - 3, 5) / 11,
                             x * i * i + x, GiNaC::pow(2 * i + 1, 4) - GiNaC::pow(2 * i, 4)})
        CHECK(both(lb, count, body, env));
  // Far past any unrolling: sum i^2 over 1 .. n is n (n + 1) (2 n + 1) / 6.
  numeric n = numeric(10).power(30);
  CHECK(ev(make_reduction(ReduceKind::Sum, i, 1, n, i * i)) == n * (n + 1) * (2 * n + 1) / 6);
  // A chain of such sums, each the bound of the next (d_k = sum (i = 1, d_{k-1}) { i + 1 }).
  ex d = 2;
  numeric want = 2;
  for (int k = 0; k < 12; ++k) {
    d = make_reduction(ReduceKind::Sum, i, 1, d, i + 1);
    want = want * (want + 1) / 2 + want;
  }
  WorkBudget b;
  CHECK(evaluate(d, {}, b).scalar == want);
  CHECK(b.steps_left > 200000000 - 1000000);
  // Floats and vectors are added term by term as before; errors in the first terms are the
  // same errors.
  symbol N("N");
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, 1000000, i * GiNaC::sqrt(ex(2))), {}, 100000).find("work limit") != std::string::npos);
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, 1000000, i * unitvec(2)), {}, 100000).find("work limit") != std::string::npos);
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, 1000000, i / (N - 4)), {{N, 4}}).find("division by zero") != std::string::npos);
  // The size limit holds on the way.
  CHECK(err(make_reduction(ReduceKind::Sum, i, 1, GiNaC::pow(numeric(10), 200000), GiNaC::pow(i, 20))).find("more than") !=
        std::string::npos);
}
