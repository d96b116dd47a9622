// Rewrite rules for comparisons: decided by the facts, split over a max/min side, written in
// a normal form (numbers left, positive terms right). See rules.h.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <cmath>
#include <numeric>
#include <set>
#include <algorithm>
#include <map>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace {

bool has_function_or_reduction(const ex& e) {
  // log2 of a symbol is an atom the prover bounds cheaply ((0 <= log2(P)) for P >= 1)
  if (pamela_function(e) == Fn::Log2 && is_class<symbol>(e.op(0))) return false;
  if (is_class<function>(e) || is_class<reduction>(e) || is_class<extremum>(e)) return true;
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_function_or_reduction(e.op(k))) return true;
  return false;
}

// The truth value of a comparison when the facts decide it, else nullopt.
std::optional<bool> decide_comparison(const ex& e, const Facts& f) {
  Fn fn = pamela_function(e);
  if (!is_comparison(e)) return std::nullopt;
  ex d = (e.op(1) - e.op(0)).expand();  // b - a
  std::optional<bool> lt, le;           // a < b, a <= b
  if (f.provably_positive(d)) lt = le = true;
  else if (f.provably_nonneg(-d)) lt = false;
  if (!le && f.provably_nonneg(d)) le = true;
  else if (!le && f.provably_positive(-d)) le = false;
  switch (fn) {
    case Fn::Lt: return lt;
    case Fn::Le: return le;
    case Fn::Eq:
    case Fn::Ne: {
      std::optional<bool> eq;
      if (d.is_zero()) eq = true;
      else if (f.provably_positive(d) || f.provably_positive(-d)) eq = false;
      if (!eq) return std::nullopt;
      return fn == Fn::Eq ? *eq : !*eq;
    }
    default: return std::nullopt;
  }
}

}  // namespace

namespace detail {

// e with the comparisons the facts decide replaced by 1 or 0, and 0 mod k, 0 div k by 0
// for k provably positive.
ex decide_all(const ex& e, const Facts& f) {
  struct Decide : map_function {
    const Facts& f;
    explicit Decide(const Facts& f_) : f(f_) {}
    ex operator()(const ex& x) override {
      if (x.nops() == 0 || is_class<reduction>(x)) return x;
      ex y = x.map(*this);
      Fn fn = pamela_function(y);
      if ((fn == Fn::Mod || fn == Fn::Div) && y.op(0).is_zero() && f.provably_positive(y.op(1))) return 0;
      if (auto t = decide_comparison(y, f)) return *t ? 1 : 0;
      return y;
    }
  } d(f);
  return d(e);
}

}  // namespace detail

// A comparison (a == b, a != b, a < b, a <= b) whose truth the facts prove is 1 or 0:
// (p != q) with p < q in the context, (0 <= N / P) with N, P >= 0. Always (the value is
// the proved one).
std::optional<ex> rule_cmp_decide(const ex& e, const Facts& f, Assumptions&) {
  // Only differences built from symbols and numbers: an owner test such as
  // (i - 1) div B != i div B is the sum rules' business, and proving it costs.
  if (!is_comparison(e)) return std::nullopt;
  if (has_function_or_reduction(e.op(0)) || has_function_or_reduction(e.op(1))) {
    // A remainder's or rounding's own range may decide it: (N - 1) mod P <= -1 is 0 for P
    // >= 1. Intervals only (no case splits), and only a < or <= (an equality of roundings
    // is the residue rules').
    Fn fn = pamela_function(e);
    // Not where a side may have no value (a remainder of N / (P - 1), a scalar added to a
    // vector): the range would decide a comparison that brute force cannot evaluate.
    if ((fn != Fn::Lt && fn != Fn::Le) || count_reductions(e) > 0 || may_fail(e, f)) return std::nullopt;
    for (const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it)
      if (pamela_function(*it) == Fn::VectorMax || pamela_function(*it) == Fn::Unitvec) return std::nullopt;
    Interval d = f.range(e.op(1) - e.op(0));  // b - a
    if (fn == Fn::Lt ? d.positive() : d.nonneg()) return ex(1);
    if (fn == Fn::Lt ? d.nonpos() : d.negative()) return ex(0);
    return std::nullopt;
  }
  if (auto t = decide_comparison(e, f)) return ex(*t ? 1 : 0);
  return std::nullopt;
}

// A comparison with a max or min as one side is the max or min of the comparisons with
// each argument in its place (monotonicity of <= and < in each side):
//   (a <= max(x, y)) = max((a <= x), (a <= y)),  (a <= min(x, y)) = min((a <= x), (a <= y)),
//   (max(x, y) <= a) = min((x <= a), (y <= a)),  (min(x, y) <= a) = max((x <= a), (y <= a)),
// and the same for <. Exact for any values (each side 0 or 1); the parts then fold or are
// decided by the facts ((0 < max(0, P - 2)) = (0 < P - 2)). Always.
std::optional<ex> rule_cmp_extremum(const ex& e, const Facts&, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Lt && fn != Fn::Le) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    // The side is a max/min, or c + a max/min (c + max(x, y) = max(c + x, c + y)).
    ex x = e.op(side), c = 0;
    if (is_class<add>(x)) {
      for (size_t j = 0; j < x.nops(); ++j)
        if (is_class<extremum>(x.op(j))) {
          c = x - x.op(j);
          x = x.op(j);
          break;
        }
    }
    if (!is_class<extremum>(x)) continue;
    const auto& m = ex_to<extremum>(x);
    exvector parts;
    for (const ex& arg : m.args())
      parts.push_back(side == 0 ? compare(fn == Fn::Lt ? Cmp::Lt : Cmp::Le, c + arg, e.op(1))
                                : compare(fn == Fn::Lt ? Cmp::Lt : Cmp::Le, e.op(0), c + arg));
    // a max on the right, or a min on the left, makes the comparison easier to satisfy.
    bool take_max = (side == 1) == m.is_max();
    return take_max ? make_max(parts) : make_min(parts);
  }
  return std::nullopt;
}

// A comparison one of whose sides is a guard times the rest, g y with g a comparison (0 or
// 1): (x <= g y) = g (x <= y) + (1 - g) (x <= 0), as at g = 1 the side is y and at g = 0
// it is 0 (and likewise with the product on the left, and for <). The guard then stands
// outside, where the sum rules read it as a fact, and the comparison inside is of the
// index itself: (1 <= (2 <= W) (F - floor((k - 1) / W))) becomes (2 <= W) (1 <= F -
// floor((k - 1) / W)), which the rounding and counting rules close. Exact at every point:
// y is still evaluated under g in both forms, so where it fails, both fail (or both are
// covered by g = 0). No vectors.
std::optional<ex> rule_cmp_guard_factor(const ex& e, const Facts&, Assumptions&) {
  Fn fn = pamela_function(e);
  if ((fn != Fn::Lt && fn != Fn::Le) || is_vector_valued(e)) return std::nullopt;
  const Cmp op = fn == Fn::Lt ? Cmp::Lt : Cmp::Le;
  for (int side = 0; side < 2; ++side) {
    const ex& x = e.op(side);
    if (!is_class<mul>(x)) continue;
    for (size_t k = 0; k < x.nops(); ++k) {
      const ex& g = x.op(k);
      if (!is_comparison(g) || e.op(1 - side).has(g)) continue;
      ex y = x / g;
      ex held = side == 0 ? compare(op, y, e.op(1)) : compare(op, e.op(0), y);
      ex zero = side == 0 ? compare(op, 0, e.op(1)) : compare(op, e.op(0), 0);
      return g * held + (1 - g) * zero;
    }
  }
  return std::nullopt;
}

// A comparison of sums written as a person would: the difference d = y - x of (x <= y)
// (also <) split into its number k and its terms, the terms with a positive coefficient on
// the right and the others, negated, on the left with -k: (P <= 2 P - 2) is (2 <= P),
// (0 < P - 1) is (1 < P), (N - P - 1 >= 0) is (P + 1 <= N); with no positive term,
// (2 - P >= 0) is (P <= 2). Exact (the same quantity is added to both sides). Only for
// sides without vectors; fires only when the layout changes.
std::optional<ex> rule_cmp_normal(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Lt && fn != Fn::Le) return std::nullopt;
  if (is_vector_valued(e)) return std::nullopt;
  ex d = (e.op(1) - e.op(0)).expand();
  // Over a common denominator that is positive (proved) only the numerator's sign counts:
  // (0 < p / P) is (0 < p) for P > 0.
  if (!has_function_or_reduction(d) && has_negative_power(d)) {
    ex nd = d.normal().numer_denom();
    if (!nd.op(1).is_equal(1) && f.provably_positive(nd.op(1))) d = nd.op(0).expand();
  }
  // Between integers x < y is x + 1 <= y: one spelling per condition, so equal conditions
  // meet ((1 < P) and (2 <= P)).
  if (fn == Fn::Lt && !is_class<numeric>(d) && f.provably_integer(d)) {
    fn = Fn::Le;
    d = d - 1;
  }
  if (is_class<numeric>(d)) return std::nullopt;  // folds by itself
  ex k = 0, pos = 0, neg = 0;
  for (const ex& t : operands_of(d, true)) {
    if (is_class<numeric>(t)) {
      k += t;
      continue;
    }
    ex c = 1;
    if (is_class<mul>(t) && is_class<numeric>(t.op(t.nops() - 1))) c = t.op(t.nops() - 1);
    for (size_t j = 0; j < (is_class<mul>(t) ? t.nops() : 0); ++j)
      if (is_class<numeric>(t.op(j))) c = t.op(j);
    if (ex_to<numeric>(c).is_negative()) neg -= t;
    else pos += t;
  }
  ex lhs, rhs;
  if (pos.is_zero()) {
    lhs = neg;
    rhs = k;
  } else {
    lhs = neg - k;
    rhs = pos;
  }
  bool same_kind = fn == pamela_function(e);
  if (same_kind && lhs.is_equal(e.op(0)) && rhs.is_equal(e.op(1))) return std::nullopt;
  if (same_kind && to_pamela(lhs).size() + to_pamela(rhs).size() > to_pamela(e.op(0)).size() + to_pamela(e.op(1)).size())
    return std::nullopt;  // only when it reads shorter (or as short)
  ex out = compare(fn == Fn::Lt ? Cmp::Lt : Cmp::Le, lhs, rhs);
  if (out.is_equal(e)) return std::nullopt;
  return out;
}

// A test of equality whose sides differ by a product: (x == y) is (g == 0) where y - x =
// c g for a factor c proved nonzero (positive or negative), and likewise !=: (P i == 0) is
// (i == 0) for P >= 1, which the counting rules read (one index in a range). The factors
// shared by every term of y - x are the candidates (shared_factors). Exact where c != 0.
std::optional<ex> rule_cmp_eq_factor(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if ((fn != Fn::Eq && fn != Fn::Ne) || is_vector_valued(e)) return std::nullopt;
  ex d = (e.op(0) - e.op(1)).expand();
  ex product = is_class<mul>(d) ? d : shared_factors(d).value_or(ex(0));
  if (!is_class<mul>(product)) return std::nullopt;
  ex c = 1, g = 1;
  for (const ex& x : product) {
    if (!is_class<numeric>(x) && (f.provably_positive(x) || f.provably_positive(-x))) c *= x;
    else g *= x;
  }
  if (c.is_equal(1)) return std::nullopt;
  g = g.expand();
  if (to_pamela(g)[0] == '-') g = (-g).expand();  // g == 0 iff -g == 0: the form without a sign
  return compare(fn == Fn::Eq ? Cmp::Eq : Cmp::Ne, g, 0);
}

// A comparison read through its rounding, for a rounding of a loop index: with m an integer,
//   floor(u) <= m  iff  u < m + 1,      m <= floor(u)  iff  m <= u,
//   ceil(u) <= m   iff  u <= m,         m <= ceil(u)   iff  m - 1 < u,
// for any real u (floor(u) is the greatest integer <= u, ceil(u) the least >= u). The
// comparison x <= y (or x < y, as x + 1 <= y when y - x is an integer) is read as d = y - x
// >= 0 with d = m + c R(u), R the rounding, c = 1 or -1; the new difference is then scaled
// by the positive lcm of its coefficients' denominators, and a strict one between integers
// becomes >= 1. So floor((k - 1) / 2) + 1 <= floor(N / 2) is k <= 2 floor(N / 2) (k an
// integer), which the sum rules count. Side conditions: m (d less the rounding) an integer,
// proved; u mentions a loop index (a rounding of parameters alone stays as written); no
// vectors. Exact wherever the comparison has a value (u has one where R(u) does).
std::optional<ex> rule_cmp_rounding(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Lt && fn != Fn::Le) return std::nullopt;
  if (is_vector_valued(e)) return std::nullopt;
  ex d = (e.op(1) - e.op(0)).expand();
  bool strict = fn == Fn::Lt;
  // The rounding: a term c R(u), c = 1 or -1, u reading a loop index.
  ex rounding, u;
  int c = 0;
  for (const ex& t : operands_of(d, true)) {
    ex r = t;
    int sign = 1;
    if (is_class<mul>(t) && t.nops() == 2 && (t.op(0).is_equal(-1) || t.op(1).is_equal(-1))) {
      r = -t;
      sign = -1;
    }
    Fn rf = pamela_function(r);
    if ((rf != Fn::Floor && rf != Fn::Ceil) || !f.mentions_index(r.op(0))) continue;
    rounding = r;
    u = r.op(0);
    c = sign;
    break;
  }
  if (c == 0) return std::nullopt;
  ex m = (d - c * rounding).expand();
  if (!f.provably_integer(m)) return std::nullopt;
  if (strict) {  // m + c R(u) > 0 between integers: m - 1 + c R(u) >= 0
    m = m - 1;
    strict = false;
  }
  bool is_floor = pamela_function(rounding) == Fn::Floor;
  ex D;  // the new difference: D >= 0, or D > 0 when strict
  if (c < 0 && is_floor) D = m + 1 - u, strict = true;        // floor(u) <= m
  else if (c > 0 && is_floor) D = u + m;                      // -m <= floor(u)
  else if (c < 0) D = m - u;                                  // ceil(u) <= m
  else D = u + m + 1, strict = true;                          // -m - 1 < u
  D = D.expand();
  numeric scale = 1;
  for (const ex& t : operands_of(D, true)) {
    ex k = 1;
    if (is_class<numeric>(t)) k = t;
    else if (is_class<mul>(t))
      for (size_t j = 0; j < t.nops(); ++j)
        if (is_class<numeric>(t.op(j))) k = t.op(j);
    if (!ex_to<numeric>(k).is_rational()) return std::nullopt;
    scale = lcm(scale, ex_to<numeric>(k).denom());
  }
  D = (scale * D).expand();
  if (strict && f.provably_integer(D)) {
    D = D - 1;
    strict = false;
  }
  return compare(strict ? Cmp::Lt : Cmp::Le, 0, D);
}

// A power of two of a loop index compared with a positive b, through log2:
//   k 2 ^ a < b  iff  a + log2(k) < log2(b),    b < k 2 ^ a  iff  log2(b) < a + log2(k)
// (and the same for <=), since 2 ^ x is increasing and log2 its inverse on b > 0. So a
// reduction tree's test 2 ^ (l - 1) < P, for l up to ceil(log2(P)), is l - 1 < log2(P),
// which the facts decide. Side conditions: k a positive power of two (a number); a mentions
// a loop index and b none (a test 2 ^ d <= p is linear in p, which the sum over p counts);
// b proved positive (log2(b) has a value), or else only k 2 ^ a < b (<=), as (0 < b) *
// (a + log2(k) < log2(b)). Exact where the comparison has a value.
std::optional<ex> rule_cmp_power_log(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Lt && fn != Fn::Le) return std::nullopt;
  if (is_vector_valued(e)) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    ex x = e.op(side), k = 1, b = e.op(1 - side);
    // 2 ^ s + c <= P is 2 ^ s <= P - c: the terms beside the power move across.
    if (is_class<add>(x)) {
      auto power_of_two = [&](const ex& t) {  // k 2 ^ a, a mentioning an index
        ex y = is_class<mul>(t) && t.nops() == 2 && is_class<numeric>(t.op(1)) ? t.op(0) : t;
        return is_class<power>(y) && y.op(0).is_equal(2) && f.mentions_index(y.op(1));
      };
      ex pw;
      for (const ex& t : x)
        if (power_of_two(t) && pw.is_zero()) pw = t;
      if (pw.is_zero() || f.mentions_index(x - pw)) continue;
      b = b - (x - pw);
      x = pw;
    }
    if (is_class<mul>(x) && x.nops() == 2 && is_class<numeric>(x.op(1))) k = x.op(1), x = x.op(0);
    else if (is_class<mul>(x) && x.nops() == 2 && is_class<numeric>(x.op(0))) k = x.op(0), x = x.op(1);
    if (!is_class<power>(x) || !x.op(0).is_equal(2) || !f.mentions_index(x.op(1))) continue;
    const numeric& kn = ex_to<numeric>(k);
    if (!kn.is_rational() || !kn.is_positive()) continue;
    // k = 2 ^ j for an integer j
    numeric j = 0, r = kn;
    while (r.is_integer() && r > 1 && (r / 2).is_integer()) r = r / 2, j = j + 1;
    while (!r.is_integer() && (r * 2) <= 1) r = r * 2, j = j - 1;
    if (r != 1) continue;
    if (f.mentions_index(b)) continue;  // 2 ^ d <= p stays linear in p for the sum over p
    ex a = x.op(1) + j, lb = log2_of(b);
    Cmp c = fn == Fn::Lt ? Cmp::Lt : Cmp::Le;
    if (f.provably_positive(b)) return side == 0 ? compare(c, a, lb) : compare(c, lb, a);
    // k 2 ^ a < b is false where b <= 0: (0 < b) * (a + log2(k) < log2(b)), whose second
    // factor has no value there, which the zero factor covers (docs/semantics.md).
    if (side == 0) return compare(Cmp::Lt, 0, b) * compare(c, a, lb);
  }
  return std::nullopt;
}

}  // namespace pamc::sym

namespace pamc::sym {

// A comparison is 0 or 1, so a power of it with a positive integer exponent is itself:
// (2 <= Px) ^ 2 -> (2 <= Px), the product of one guard met twice (the boxes of a grid
// stencil that share an end). No side condition.
std::optional<ex> rule_cmp_power(const ex& e, const Facts&, Assumptions&) {
  if (!is_class<power>(e) || !is_comparison(e.op(0)) || !is_class<numeric>(e.op(1))) return std::nullopt;
  if (!ex_to<numeric>(e.op(1)).is_pos_integer()) return std::nullopt;
  return e.op(0);
}

}  // namespace pamc::sym
