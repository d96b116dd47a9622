// A sum split where a two-way min in its body changes sides: rule_sum_min_split, and the
// slope reader it shares (signed_slope). See rules.h.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace detail {

namespace {
// Does the range bound x divide by s (s ^ -k in it, k > 0)? Then x has no value at s = 0.
bool divides_by(const ex& x, const ex& s) {
  for (const_preorder_iterator it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_class<power>(*it) && it->op(0).is_equal(s) && is_class<numeric>(it->op(1)) &&
        ex_to<numeric>(it->op(1)).is_negative())
      return true;
  return false;
}
}  // namespace

std::optional<SignedSlope> signed_slope(const ex& g, const reduction& r, const Facts& f) {
  const ex& i = r.index_ex();
  ex x = g.expand();
  if (!x.has(i) || !x.is_polynomial(i) || x.degree(i) != 1 || x.ldegree(i) < 0) return std::nullopt;
  ex a = x.coeff(i, 1), b = x.coeff(i, 0);
  if (a.has(i) || b.has(i) || is_class<numeric>(a) || may_fail(a, f)) return std::nullopt;
  bool up = f.provably_nonneg(a);
  if (!up && !f.provably_nonneg(-a)) return std::nullopt;
  // Nonzero: every factor proved nonzero, or a symbol (to a positive power) that a bound of
  // the range divides by, so that where it is 0 the sum has no value either.
  for (const ex& factor : operands_of(a, false)) {
    if (f.provably_positive(factor) || f.provably_positive(-factor)) continue;
    ex base = is_class<power>(factor) && is_class<numeric>(factor.op(1)) && ex_to<numeric>(factor.op(1)).is_pos_integer()
                  ? factor.op(0) : factor;
    if (is_class<symbol>(base) && (divides_by(r.lb(), base) || divides_by(r.ub(), base))) continue;
    return std::nullopt;
  }
  return SignedSlope{a, b, up};
}

}  // namespace detail

// sum (i = lb, ub) { f(i) * min(g(i), C) } with g(i) = a i + b linear (a a nonzero number,
// b free of i) and C free of i: g(i) <= C exactly for i <= U = floor((C - b) / a) (a > 0),
// resp. i >= L = ceil((C - b) / a) (a < 0), so the range splits there into a part where
// the min is g and one where it is C, each clamped to the original range:
//   a > 0: sum (i = lb, min(ub, U)) { f g } + sum (i = max(lb, U + 1), ub) { f C },
//   a < 0: sum (i = lb, min(ub, L - 1)) { f C } + sum (i = max(lb, L), ub) { f g }.
// Each part covers a subset of the range (empty where the split lies outside it), together
// every i exactly once, so the value is unchanged for any f; the parts are closed by the
// other rules (sum_poly guards a part that may be empty). Side conditions: lb, ub integers
// (proved or assumed; the split bounds are then integers); C and b do not fail (may_fail)
// unless the range is provably non-empty (the bounds evaluate them, brute force would not).
// A symbolic slope a (chunks of C on P processors: N - C P i) splits the same way where its
// sign is proved and it is nonzero wherever the sum has a value (signed_slope).
std::optional<ex> rule_sum_min_split(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  ex mn, rest = 1;
  for (const ex& t : operands_of(r->body(), false)) {
    if (mn.is_zero() && is_class<extremum>(t) && !ex_to<extremum>(t).is_max() &&
        ex_to<extremum>(t).args().size() == 2 && t.has(i))
      mn = t;
    else
      rest *= t;
  }
  if (mn.is_zero()) return std::nullopt;
  ex g = ex_to<extremum>(mn).args()[0], C = ex_to<extremum>(mn).args()[1];
  if (g.has(i) == C.has(i)) return std::nullopt;
  if (C.has(i)) std::swap(g, C);
  auto lin = linear_in(g, i);
  std::optional<SignedSlope> sym_slope;
  // Not under a load vector with a symbolic slope: the busiest-position rules read such a
  // weight whole (a monotone weight), where two split families would not close.
  if (!lin && (is_vector_valued(rest) || !(sym_slope = signed_slope(g, *r, f)))) return std::nullopt;
  const ex b = lin ? lin->second : sym_slope->offset;
  bool nonempty = f.provably_nonneg(r->ub() - r->lb());
  if ((may_fail(C, f) || may_fail(b, f)) && !nonempty) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  const ex slope = lin ? ex(lin->first) : sym_slope->slope;
  const bool rising = lin ? lin->first.is_positive() : sym_slope->positive;
  ex t = ((C - b) / slope).expand();
  // With a = +-1 and b - ub an integer (proved), t = (C - b) / a is an integer (ub is) plus
  // C / a: take the integer part out of floor/ceil so the bounds stay readable.
  ex int_part = 0, frac = t;
  if (lin && (lin->first == 1 || lin->first == -1) && f.provably_integer((b - r->ub()).expand())) {
    int_part = (-b / slope).expand();
    frac = (C / slope).expand();
  }
  auto fl = [&](const ex& x) { return f.provably_integer(x) ? x : floor_of(x); };
  auto cl = [&](const ex& x) { return f.provably_integer(x) ? x : ceil_of(x); };
  // A part: closed here when its body is a polynomial in i with i-free coefficients (its
  // bounds are integers with lb and ub, so nothing more is required or assumed), else a sum.
  auto part = [&](const ex& lo, const ex& hi, const ex& body) -> ex {
    ex b = body.expand();
    bool poly = b.is_polynomial(i) && b.ldegree(i) >= 0 && b.degree(i) <= 40;
    for (int k = 0; poly && k <= b.degree(i); ++k) poly = !b.coeff(i, k).has(i);
    if (!poly || (may_fail(b, f) && !nonempty)) return rebuild_reduction(*r, ReduceKind::Sum, lo, hi, body);
    ex out = 0;
    for (int k = 0; k <= b.degree(i); ++k) {
      ex c = b.coeff(i, k);
      if (!c.is_zero()) out += c * (faulhaber(static_cast<unsigned>(k), hi) - faulhaber(static_cast<unsigned>(k), lo - 1));
    }
    return nonempty_guard(hi - lo + 1, f) * out.expand();
  };
  ex fg = rest * g, fC = rest * C;
  if (rising) {
    ex U = int_part + fl(frac);
    return part(r->lb(), make_min({r->ub(), U}), fg) + part(make_max({r->lb(), U + 1}), r->ub(), fC);
  }
  ex L = int_part + cl(frac);
  return part(r->lb(), make_min({r->ub(), L - 1}), fC) + part(make_max({r->lb(), L}), r->ub(), fg);
}

}  // namespace pamc::sym
