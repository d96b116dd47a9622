// The compiled program (compiler/evaluate) against the exact evaluator: seeded random cost
// expressions with the open loops lowering leaves (sums and maxima over an index, resource
// vectors under every index map, floor/ceil of quotients, mod, div, comparisons), at integer
// points. Where the exact evaluator has a value, the program must give the same number
// (bit for bit when it says the result is exact); where the evaluator has none (a loop
// bound that is not an integer, a position below 0, an empty max), the program gives no
// finite number.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "compiler/evaluate/compile.h"
#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {

struct OpenExpressions {
  std::mt19937 rng;
  symbol N{"N"}, P{"P"}, M{"M"};
  int next = 0;
  explicit OpenExpressions(unsigned seed) : rng(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  symbol fresh() { return symbol("i" + std::to_string(next++)); }

  ex scalar(const std::vector<symbol>& idx, int depth) {
    ex i = idx.empty() ? ex(N) : ex(idx[pick(static_cast<int>(idx.size()))]);
    switch (pick(depth > 1 ? 10 : 14)) {
      case 0: return numeric(pick(5) + 1);
      case 1: return N - i;
      case 2: return i;
      case 3: return compare(Cmp::Eq, mod_of(i, 2), 0);
      case 4: return ceil_of((N - i) / P);
      case 5: return floor_of(N / P) + 1;
      case 6: return idiv_of(i, P) + 1;
      case 7: return numeric(1, 2) * i;
      case 8: return compare(Cmp::Lt, i, M) * 3;
      case 9: return make_max({i, M}) - make_min({N, P});
      case 12: {  // an empty max inside a max: no value, even though max(x, -inf) = x
        symbol j = fresh();
        return make_max({i, make_reduction(ReduceKind::Max, j, M, N - 2, j)});
      }
      case 10: {
        symbol j = fresh();
        auto inner = idx;
        inner.push_back(j);
        return make_reduction(ReduceKind::Sum, j, pick(2), i, scalar(inner, depth + 1));
      }
      case 11: {
        symbol j = fresh();
        auto inner = idx;
        inner.push_back(j);
        return make_reduction(ReduceKind::Max, j, 0, pick(2) ? ex(M) : ex(N - 1), scalar(inner, depth + 1),
                              pick(2) == 0);
      }
      case 13:
      default: return vector_max(vector(idx, depth + 1));
    }
  }
  ex position(const ex& i) {
    switch (pick(7)) {
      case 0: return i;
      case 1: return i + 1;
      case 2: return mod_of(i, P);
      case 3: return idiv_of(i, 2);
      case 4: return mod_of(idiv_of(i, 2), P);
      case 5: return N - i;
      default: return numeric(pick(3));
    }
  }
  ex vector(const std::vector<symbol>& idx, int depth) {
    ex v = 0;
    for (int t = 0, n = 1 + pick(2); t < n; ++t) {
      symbol i = fresh();
      auto inner = idx;
      inner.push_back(i);
      ex lb = pick(2), ub = pick(3) == 0 ? ex(M) : ex(N - 1);
      ex body = scalar(inner, depth + 1) * unitvec(position(i));
      if (pick(4) == 0) {
        symbol j = fresh();
        inner.push_back(j);
        body = make_reduction(ReduceKind::Sum, j, 0, i, scalar(inner, depth + 2) * unitvec(position(j)));
      }
      v += make_reduction(ReduceKind::Sum, i, lb, ub, body);
    }
    if (pick(3) == 0) v += numeric(pick(3) + 1) * unitvec(pick(4));
    return v;
  }
};

// A top-level expression: a vector max, a scalar with loops, or both added.
ex pick_top(OpenExpressions& g) {
  switch (g.pick(3)) {
    case 0: return vector_max(g.vector({}, 0));
    case 1: return g.scalar({}, 0);
    default: return vector_max(g.vector({}, 0)) + g.scalar({}, 1);
  }
}

}  // namespace

TEST_CASE("property: the compiled program gives the exact evaluator's value (400 random open expressions)") {
  OpenExpressions g(20261125);
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{g.N, 0}, {g.P, 1}, {g.M, 2}};
  int compared = 0, exact = 0, no_value = 0;
  for (int model = 0; model < 400; ++model) {
    ex e = pick_top(g);
    pamc::eval::Program program = pamc::eval::compile_expression(e, params);
    for (int n : {0, 1, 2, 5, 9})
      for (int p : {1, 2, 3})
        for (int m : {0, 1, 4}) {
          GiNaC::exmap env{{g.N, n}, {g.P, p}, {g.M, m}};
          double args[] = {double(n), double(p), double(m)};
          bool is_exact = false;
          double got = program.run_tracked(args, is_exact);
          Value want;
          try {
            WorkBudget b;
            want = evaluate(e, env, b);
          } catch (const EvalError&) {
            ++no_value;
            CHECK_MESSAGE(!std::isfinite(got), to_pamela(e) << " at N=" << n << " P=" << p << " M=" << m
                                                            << " has no value, the program gives " << got);
            continue;
          }
          ++compared;
          double w = want.scalar.to_double();
          if (is_exact) {
            ++exact;
            CHECK_MESSAGE(got == w, to_pamela(e) << " at N=" << n << " P=" << p << " M=" << m << ": " << got
                                                 << " vs " << w);
          } else {
            CHECK_MESSAGE(std::fabs(got - w) <= 1e-9 * std::max(1.0, std::fabs(w)),
                          to_pamela(e) << " at N=" << n << " P=" << p << " M=" << m << ": " << got << " vs " << w);
          }
        }
  }
  MESSAGE("compiled program: " << compared << " values compared (" << exact << " exact), " << no_value
                               << " points without a value");
  CHECK(compared > 10000);
  CHECK(exact > compared / 2);
}

TEST_CASE("compiled program: non-integer loop bounds and negative positions have no value, exactness is reported") {
  symbol N("N"), i("i");
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{N, 0}};
  auto prog = [&](const ex& e) { return pamc::eval::compile_expression(e, params); };
  bool exact = false;
  double half[] = {2.5};
  CHECK(std::isnan(prog(make_reduction(ReduceKind::Sum, i, 1, N, i)).run_tracked(half, exact)));
  double two[] = {2};
  CHECK(std::isnan(prog(vector_max(make_reduction(ReduceKind::Sum, i, 0, 3, unitvec(N - i)))).run_tracked(two, exact)));
  // 1 + 2 + ... + N at N = 10^6: exact in doubles, and said to be
  double big[] = {1e6};
  CHECK(prog(make_reduction(ReduceKind::Sum, i, 1, N, i)).run_tracked(big, exact) == 500000500000.0);
  CHECK(exact);
  // a sum of halves is not an integer: the program says the value is a double
  prog(make_reduction(ReduceKind::Sum, i, 1, N, i / 2)).run_tracked(two, exact);
  CHECK(!exact);
  // floor(i / 3) and i mod 3 stay exact (integer division, not a rounded quotient)
  ex f = make_reduction(ReduceKind::Sum, i, 0, N, floor_of(i / 3) + mod_of(i, 3) + ceil_of(i / 3));
  double hundred[] = {100};
  double v = prog(f).run_tracked(hundred, exact);
  CHECK(exact);
  WorkBudget b;
  CHECK(v == evaluate(f, {{N, 100}}, b).scalar.to_double());
}

TEST_CASE("compiled program: a step limit refuses a loop of same-cost iterations after its first, values unchanged") {
  symbol N("N"), i("i"), j("j");
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{N, 0}};
  long long refused = -1;
  pamc::eval::StepLimit limit{1000000, [&](long long need) {
                                refused = need;
                                throw std::runtime_error("over");
                              }};
  // sum (i = 1, N) { sum (j = 1, N) { j } }: the inner loop does not read i, so the outer
  // loop's iterations take at least what the inner loop takes; at N = 10^4 the inner loop's
  // first step shows 10^4 steps for it and 10^8 for the outer one (10^8 + 10^4 in all).
  auto nested = pamc::eval::compile_expression(
      make_reduction(ReduceKind::Sum, i, 1, N, make_reduction(ReduceKind::Sum, j, 1, N, j)), params);
  double big[] = {1e4};
  CHECK_THROWS(nested.run_checked(big, nullptr, &limit));
  CHECK(refused == 100000000);
  // A loop whose body holds no loop: its own trip count, at once.
  auto flat = pamc::eval::compile_expression(make_reduction(ReduceKind::Sum, i, 1, N, i), params);
  double huge[] = {1e17};
  CHECK_THROWS(flat.run_checked(huge, nullptr, &limit));
  CHECK(refused == 100000000000000000LL);
  // Under the limit: the same value as without it.
  double small[] = {30};
  refused = -1;
  CHECK(nested.run_checked(small, nullptr, &limit) == nested.run(small));
  CHECK(nested.run(small) == 30 * 465);
  CHECK(refused == -1);
  // A body that reads its index and holds a loop is not projected from its first
  // iteration: sum (i = 1, N) { sum (j = i, N) { j } } at N = 40 takes 860 steps, though
  // its first iteration (41 steps) times 40 would pass a limit of 1000.
  pamc::eval::StepLimit thousand{1000, limit.over};
  auto triangle = pamc::eval::compile_expression(
      make_reduction(ReduceKind::Sum, i, 1, N, make_reduction(ReduceKind::Sum, j, i, N, j)), params);
  double forty[] = {40};
  CHECK(triangle.run_checked(forty, nullptr, &thousand) == triangle.run(forty));
  CHECK(refused == -1);
}

// Nested sums and maxima whose bounds are constants, parameters or enclosing indices, with
// bodies that read their index or not; `count` is the same shape counting loop steps (one
// per iteration, bounds included), which the program evaluates exactly.
struct StepNest {
  std::mt19937 rng;
  symbol N{"N"};
  explicit StepNest(unsigned seed) : rng(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  ex bound(const std::vector<symbol>& idx) {
    switch (pick(4)) {
      case 0: return numeric(pick(4));
      case 1: return N;
      default: return idx.empty() ? ex(N) : ex(idx[pick(static_cast<int>(idx.size()))]);
    }
  }
  // (expression, its step count)
  std::pair<ex, ex> make(std::vector<symbol> idx, int depth) {
    if (depth > 4 || pick(3) == 0) {
      ex leaf = idx.empty() || pick(2) ? ex(numeric(1 + pick(3))) : ex(idx.back());
      return {leaf, 0};
    }
    if (pick(4) == 0) {  // two loops side by side
      auto a = make(idx, depth + 1), b = make(idx, depth + 1);
      return {a.first + b.first, a.second + b.second};
    }
    symbol i("i" + std::to_string(depth) + std::to_string(pick(1000)));
    ex lb = numeric(pick(2)), ub = bound(idx);
    idx.push_back(i);
    auto body = make(idx, depth + 1);
    ReduceKind kind = pick(3) == 0 ? ReduceKind::Max : ReduceKind::Sum;
    return {make_reduction(kind, i, lb, ub, body.first, true),
            make_reduction(ReduceKind::Sum, i, lb, ub, 1 + body.second)};
  }
};

TEST_CASE("compiled program: a step limit's projection never passes the steps the evaluation takes") {
  StepNest gen(2718);
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{gen.N, 0}};
  int refused = 0;
  for (int t = 0; t < 400; ++t) {
    auto [e, count] = gen.make({}, 0);
    auto prog = pamc::eval::compile_expression(e, params);
    auto steps = pamc::eval::compile_expression(count, params);
    double n[] = {static_cast<double>(gen.pick(12))};
    const auto actual = static_cast<long long>(steps.run(n));
    for (long long max : {actual, actual - 1, actual / 2, actual / 5, 1LL}) {
      if (max <= 0) continue;
      long long need = -1;
      pamc::eval::StepLimit limit{max, [&](long long k) {
                                    need = k;
                                    throw std::runtime_error("over");
                                  }};
      double got = 0;
      try {
        got = prog.run_checked(n, nullptr, &limit);
      } catch (const std::runtime_error&) {
      }
      if (need < 0) {
        CHECK((got == prog.run(n) || (std::isnan(got) && std::isnan(prog.run(n)))));
      } else {
        ++refused;
        INFO(pamc::sym::to_pamela(e), " at N = ", n[0]);
        CHECK(need > max);
        CHECK(need <= actual);  // a lower bound: never refuses what fits
      }
    }
  }
  CHECK(refused > 200);
}

TEST_CASE("compiled program and exact evaluator: a zero factor makes a product zero where the other factor has no value") {
  // if (i > 0) use(r(i - 1), 5) over i = 0..N, and if (i < N) delay(6 / (N - i)): the branch
  // not taken at i = 0 (resp. i = N) has no resource -1 (no 6 / 0), and costs nothing.
  symbol N("N"), i("i");
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{N, 0}};
  ex guarded_use = vector_max(make_reduction(ReduceKind::Sum, i, 0, N, 5 * compare(Cmp::Lt, 0, i) * unitvec(i - 1)));
  ex guarded_div = make_reduction(ReduceKind::Sum, i, 1, N, compare(Cmp::Lt, i, N) * 6 / (N - i));
  ex unguarded = vector_max(make_reduction(ReduceKind::Sum, i, 0, N, 5 * unitvec(i - 1)));
  double four[] = {4};
  WorkBudget b;
  for (const auto& [e, want] : {std::pair{guarded_use, 5.0}, std::pair{guarded_div, 6.0 / 3 + 6.0 / 2 + 6.0}}) {
    CHECK(pamc::eval::compile_expression(e, params).run(four) == want);
    CHECK(evaluate(e, {{N, 4}}, b).scalar.to_double() == doctest::Approx(want).epsilon(1e-15));
  }
  // with a nonzero weight, position -1 still has no value in either
  CHECK(std::isnan(pamc::eval::compile_expression(unguarded, params).run(four)));
  CHECK_THROWS_AS(evaluate(unguarded, {{N, 4}}, b), EvalError);
  // a loop bound that is not an integer is not excused by a zero factor
  symbol M("M");
  ex zero_times_loop = (N - 4) * make_reduction(ReduceKind::Sum, i, 1, M, i);
  CHECK_THROWS_AS(evaluate(zero_times_loop, {{N, 4}, {M, numeric(5, 2)}}, b), EvalError);
}

// sweep and fit run closed forms a batch of points at a time (a column per stack slot):
// the same values as run(), bit for bit, NaN and infinities included, for straight programs
// and for programs with loops (which run_batch runs point by point).
TEST_CASE("property: run_batch gives run()'s value at every point (400 random expressions, 64-point batches)") {
  OpenExpressions g(1125);
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{g.N, 0}, {g.P, 1}, {g.M, 2}};
  std::vector<double> ns, ps, ms;
  for (int n = -2; n < 14; ++n)
    for (int p : {-1, 0, 2, 3}) {
      ns.push_back(n + (n % 5 == 0 ? 0.5 : 0.0));
      ps.push_back(p);
      ms.push_back((n * 7 + p) % 4);
    }
  const double* cols[] = {ns.data(), ps.data(), ms.data()};
  std::vector<double> out(ns.size());
  int straight = 0, looped = 0;
  auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  for (int model = 0; model < 400; ++model) {
    ex e = model % 2 ? pick_top(g) : g.scalar({}, 2);  // depth 2: no loops, the straight path
    pamc::eval::Program program = pamc::eval::compile_expression(e, params);
    (program.straight() ? straight : looped)++;
    program.run_batch(cols, ns.size(), out.data());
    for (std::size_t j = 0; j < ns.size(); ++j) {
      double args[] = {ns[j], ps[j], ms[j]};
      double want = program.run(args);
      CHECK_MESSAGE(same(out[j], want), to_pamela(e) << " at N=" << ns[j] << " P=" << ps[j] << " M=" << ms[j]
                                                     << ": batch " << out[j] << ", point " << want);
    }
  }
  CHECK(straight > 100);
  CHECK(looped > 100);
}

// x mod d for a constant d runs by two multiplications (program.h, Divisor) where x is an
// integer in [0, 2^32): the same value as integer arithmetic, at the edges of that range,
// for divisors from 1 to 2^31 - 1, and floor semantics for negative and fractional x.
TEST_CASE("compiled program: a remainder by a constant is exact by multiplication and elsewhere") {
  symbol N("N");
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{N, 0}};
  const long long divisors[] = {1, 2, 3, 7, 10, 64, 1000, 65535, 65536, 1000003, 2147483647};
  const double xs[] = {0, 1, 2, 6, 7, 8, 63, 64, 65, 999, 123456789, 4294967294.0, 4294967295.0,
                       4294967296.0, 4294967297.0, 9007199254740991.0, -1, -7, -8, -4294967297.0, 2.5, -2.5};
  for (long long d : divisors) {
    pamc::eval::Program p = pamc::eval::compile_expression(mod_of(N, numeric(d)), params);
    CHECK(p.divisors.size() == 1);  // the reciprocal is there, so the fast path is what runs
    for (double x : xs) {
      double args[] = {x};
      double want = x - double(d) * std::floor(x / double(d));
      if (x == std::floor(x) && std::fabs(x) < 9.1e15) {
        long long r = static_cast<long long>(x) % d;
        want = double(r < 0 ? r + d : r);
      }
      CHECK_MESSAGE(p.run(args) == want, x << " mod " << d << ": " << p.run(args) << " vs " << want);
    }
  }
}

// A resource array's cyclic owner, cpu((i + j) mod 7) (one fused instruction, VecAddMod):
// the exact evaluator's value where positions are nonnegative integers (the fast path),
// where i + j runs negative (floor semantics: -1 mod 7 = 6), and no value where a bound
// is not an integer.
TEST_CASE("compiled program: cyclic owners of a resource array agree with the exact evaluator") {
  symbol N("N"), M("M"), i("i"), j("j");
  std::map<ex, unsigned, GiNaC::ex_is_less> params{{N, 0}, {M, 1}};
  for (int w : {1, 3}) {
    ex e = vector_max(make_reduction(ReduceKind::Sum, i, M, N,
                                     make_reduction(ReduceKind::Sum, j, 0, N, w * unitvec(mod_of(i + j, 7)))));
    pamc::eval::Program p = pamc::eval::compile_expression(e, params);
    bool fused = false;
    for (const auto& in : p.code) fused = fused || in.op == pamc::eval::Op::VecAddMod;
    CHECK(fused);
    for (int n : {0, 1, 6, 7, 20, 101})
      for (int m : {-30, -1, 0, 3}) {
        double args[] = {double(n), double(m)};
        WorkBudget b;
        double want = evaluate(e, {{N, n}, {M, m}}, b).scalar.to_double();
        CHECK_MESSAGE(p.run(args) == want, "w=" << w << " N=" << n << " M=" << m);
        bool exact = false;
        CHECK(p.run_tracked(args, exact) == want);
        CHECK(exact);
      }
    double half[] = {5.5, 0};
    bool exact = false;
    CHECK(std::isnan(p.run_tracked(half, exact)));
  }
}
