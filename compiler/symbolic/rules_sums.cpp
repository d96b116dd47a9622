// Rewrite rules for sums: linearity, Faulhaber and geometric closed forms, counts of index
// predicates (residue tests, comparisons linear in the index), splits at a min/max, a
// triangle's exchanged order, unrolling. Sums of periodic bodies: rules_periodic.cpp.
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

// sum (i = lb, ub) { 0 } = 0. Side conditions: lb, ub integers (proved, else assumed when
// they mention parameters only), as for any other count: a loop whose bound is not an
// integer has no value even when its body costs nothing (seq (i = 1, P / 2) delay(0) at
// P = 3), and a dead branch (if (k == 0) with k >= 1) leaves such a body.
std::optional<ex> rule_sum_zero(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !r->body().is_zero()) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return ex(0);
}

// Linearity: sum { a + b } = sum { a } + sum { b }, and sum { c * (v_1 + ... + v_m) } =
// sum { c * v_1 } + ... when the sum in the product is a vector (loads on several resource
// families under one guard, `if (p mod 2 == 0) { use(link(p), t) ; use(cpu(p), w) }`), so
// each family's loads form a sum of their own, with one index map, that the vector-max
// rules can read. A scalar product is left to the rules that read it whole. Always (finite
// sums are linear, both sides are 0 on an empty range, and a product with a zero factor is
// zero either way).
std::optional<ex> rule_sum_split(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& body = r->body();
  ex c = 1, parts = body;
  if (is_class<mul>(body)) {
    parts = 0;
    for (size_t k = 0; k < body.nops() && parts.is_zero(); ++k)
      if (is_class<add>(body.op(k)) && is_vector_valued(body.op(k))) parts = body.op(k);
    if (parts.is_zero()) return std::nullopt;
    c = body / parts;
  }
  if (!is_class<add>(parts)) return std::nullopt;
  ex out = 0;
  for (size_t k = 0; k < parts.nops(); ++k) out += rebuild(*r, ReduceKind::Sum, c * parts.op(k));
  return out;
}

// sum { c * b } = c * sum { b } for factors c free of the index (numbers, parameters,
// unitvec(k) with k index-free). Always, except that a factor whose evaluation may fail
// (may_fail) stays inside a sum whose range may be empty.
std::optional<ex> rule_sum_factor(const ex& e, const Facts& f, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_class<mul>(r->body())) return std::nullopt;
  ex out = 1, rest = 1;
  for (size_t i = 0; i < r->body().nops(); ++i) {
    const ex& f = r->body().op(i);
    (f.has(r->index_ex()) ? rest : out) *= f;
  }
  if (out.is_equal(1) || rest.is_equal(1)) return std::nullopt;  // index-free: rule_sum_const
  if (may_fail(out, f) && !f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  return out * rebuild(*r, ReduceKind::Sum, rest);
}

// sum (i = lb, ub) { c } = (ub - lb + 1) * c for c free of i.
// Side conditions: lb, ub integers (proved, else assumed when they mention parameters
// only: a non-integer bound has no brute-force value either); c does not fail (may_fail)
// unless the range is provably non-empty. An empty range gives 0:
// where ub - lb + 1 >= 0 cannot be proved, the result is guarded (see nonempty_guard).
std::optional<ex> rule_sum_const(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || r->body().has(r->index_ex())) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  // A block loop p N / P .. (p + 1) N / P - 1 counts N / P: expanded, the outer index cancels.
  if (f.mentions_index(count)) {
    ex x = count.expand();
    if (!f.mentions_index(x)) count = x;
  }
  if (!f.provably_nonneg(r->ub() - r->lb()) && !cannot_fail_or_assume(r->body(), f, a)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return nonempty_guard(count, f) * count * r->body();
}

// sum (i = lb, ub) { p(i) } for p a polynomial in i with i-free coefficients (Faulhaber):
// sum_k c_k (S_k(ub) - S_k(lb - 1)). Side conditions (may_fail too) and guard as for rule_sum_const
// (on an empty range S(ub) - S(lb - 1) is not 0, so the guard matters).
std::optional<ex> rule_sum_poly(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !r->body().has(r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  ex body = r->body().expand();
  if (!body.is_polynomial(i)) return std::nullopt;
  int deg = body.degree(i);
  if (deg < 0 || deg > 40 || body.ldegree(i) < 0) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  if (!f.provably_nonneg(r->ub() - r->lb()) && !cannot_fail_or_assume(body, f, a)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return nonempty_guard(count, f) * (antiderivative(body, i, r->ub()) - antiderivative(body, i, r->lb() - 1)).expand();
}

// True when base ^ exponent would hold an exact number of more than a million bits once
// GiNaC evaluates or expands it (the limit lowering puts on the model's own powers): the
// constant part of the exponent decides (2 ^ (l + 1e400) expands to 2 ^ l * 2 ^ 1e400).
static bool exact_power_too_large(const numeric& base, const ex& exponent) {
  ex k = exponent.expand();
  numeric c = 0;
  if (is_class<numeric>(k)) {
    c = ex_to<numeric>(k);
  } else if (is_class<add>(k)) {
    for (size_t j = 0; j < k.nops(); ++j)
      if (is_class<numeric>(k.op(j))) c = ex_to<numeric>(k.op(j));
  }
  if (c.is_zero() || !base.is_rational() || base.is_zero()) return false;
  double bits = std::fabs(c.to_double()) *
                std::fabs(std::log2(std::fabs(base.numer().to_double())) + std::log2(base.denom().to_double()));
  return !(bits <= 1e6);  // a NaN or infinite size is too large too
}

// Geometric sums: sum (i = lb, ub) { c * b ^ (a i + d) } for a number b > 0, b != 1, a a
// nonzero number and c, d free of i (work doubling at each level of a tree, a multigrid's
// halving grids) = c b ^ (a lb + d) (b ^ (a n) - 1) / (b ^ a - 1), n = ub - lb + 1: the
// sum of n terms of ratio b ^ a. Side conditions: lb, ub integers (proved or assumed); c
// does not fail where the range may be empty; guarded for an empty range (n < 0 would not
// give 0).
std::optional<ex> rule_sum_geometric(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !r->body().has(r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  // (2 ^ (-d) x + 2 ^ (-d) y) * 2 ^ d: expanded, each term's powers of 2 cancel (below) and
  // sum_split reads the terms apart. Only where two powers of one base depend on i.
  if (is_class<mul>(r->body())) {
    int dependent = 0;
    for (const_preorder_iterator it = r->body().preorder_begin(); it != r->body().preorder_end(); ++it)
      dependent += is_class<power>(*it) && is_class<numeric>(it->op(0)) && it->op(1).has(i);
    bool has_sum = false;
    for (const ex& x : operands_of(r->body(), false)) has_sum = has_sum || (is_class<add>(x) && x.has(i));
    if (dependent >= 2 && has_sum) {
      ex expanded = r->body().expand();
      if (is_class<add>(expanded)) return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(), expanded);
    }
  }
  ex c = 1, pw;
  int powers = 0;  // factors b ^ t(i) of the one numeric base b, merged into pw
  for (const ex& x0 : operands_of(r->body(), false)) {
    // (2 ^ l) ^ -1, as GiNaC keeps N / 2 ^ l, is 2 ^ (-l)
    ex x = x0;
    if (is_class<power>(x) && is_class<power>(x.op(0)) && is_class<numeric>(x.op(0).op(0)) &&
        is_class<numeric>(x.op(1)) && ex_to<numeric>(x.op(1)).is_integer())
      x = pow(x.op(0).op(0), x.op(0).op(1) * x.op(1));
    if (!x.has(i)) {
      c *= x;
    } else if (is_class<power>(x) && is_class<numeric>(x.op(0)) && (pw.is_zero() || pw.op(0).is_equal(x.op(0)))) {
      // b ^ s * b ^ t = b ^ (s + t): 2 ^ (-d) * 2 ^ d, as GiNaC keeps them apart, is 1
      pw = pw.is_zero() ? x : pow(x.op(0), (pw.op(1) + x.op(1)).expand());
      ++powers;
    } else {
      return std::nullopt;
    }
  }
  if (pw.is_zero()) return std::nullopt;
  if (powers > 1 && !pw.has(i))  // the index cancels: a body free of i, for sum_const
    return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(), c * pw);
  if (!is_class<power>(pw)) return std::nullopt;
  const numeric& b = ex_to<numeric>(pw.op(0));
  if (!b.is_real() || !b.is_positive() || b == 1) return std::nullopt;
  auto lin = linear_in(pw.op(1), i);
  if (!lin) return std::nullopt;
  if (!f.provably_nonneg(r->ub() - r->lb()) && may_fail(c, f)) return std::nullopt;
  ex n = r->ub() - r->lb() + 1;
  // sum (l = 1e400, L) { 2 ^ l } has no closed form pamc can hold exactly: left open.
  if (exact_power_too_large(b, lin->first * r->lb() + lin->second) ||
      exact_power_too_large(b, lin->first * r->ub() + lin->second) || exact_power_too_large(b, lin->first * n))
    return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex ratio = pow(pw.op(0), lin->first);
  ex first = pow(pw.op(0), lin->first * r->lb() + lin->second);
  return nonempty_guard(n, f) * c * first * (pow(ratio, n) - 1) / (ratio - 1);
}

namespace detail {

// What it reads and returns: struct Residue in rules_internal.h.
std::optional<Residue> residue_test(const ex& pred, const ex& i, const Facts& f) {
  if (pamela_function(pred) != Fn::Eq && pamela_function(pred) != Fn::Ne) return std::nullopt;
  ex m = pred.op(0), rr = pred.op(1);
  if (pamela_function(m) != Fn::Mod) std::swap(m, rr);
  if (pamela_function(m) != Fn::Mod || rr.has(i)) return std::nullopt;
  auto lin = linear_in(m.op(0), i);
  const ex& k = m.op(1);
  if (!lin || lin->first != 1 || k.has(i)) return std::nullopt;
  Residue out{lin->second, k, rr};
  if (!f.provably_positive(k) || !f.provably_integer(k) || !f.provably_integer(out.e)) return std::nullopt;
  if (is_class<numeric>(rr) && is_class<numeric>(k) &&
      (!ex_to<numeric>(rr).is_integer() || ex_to<numeric>(rr).is_negative() || ex_to<numeric>(rr) >= ex_to<numeric>(k))) {
    out.none = true;
    return out;
  }
  if (!f.provably_integer(rr)) return std::nullopt;
  if (!f.provably_nonneg(rr)) out.valid *= compare(Cmp::Le, 0, rr);
  if (!f.provably_nonneg(k - 1 - rr)) out.valid *= compare(Cmp::Le, rr, k - 1);
  return out;
}

// What it reads and returns: struct ResidueSelection in rules_internal.h.
std::optional<ResidueSelection> residue_selection(const ex& body, const ex& i, const Facts& f) {
  if (!is_class<mul>(body)) {
    if (pamela_function(body) != Fn::Eq || !body.has(i)) return std::nullopt;
    auto t = residue_test(body, i, f);
    if (!t) return std::nullopt;
    return ResidueSelection{*t, 1};
  }
  ex pred;
  std::optional<Residue> t;
  for (const ex& x : sorted_by_text(operands_of(body, false))) {
    if (pamela_function(x) != Fn::Eq || !x.has(i)) continue;
    auto rt = residue_test(x, i, f);
    if (!rt) continue;
    if (!t || (is_class<numeric>(rt->k) && !is_class<numeric>(t->k))) {
      pred = x;
      t = rt;
    }
  }
  if (!t) return std::nullopt;
  ex rest = 1;
  bool dropped = false;
  for (size_t k = 0; k < body.nops(); ++k) {
    const ex& x = body.op(k);
    if (!dropped && x.is_equal(pred)) dropped = true;
    else rest *= x;
  }
  return ResidueSelection{*t, rest};
}

}  // namespace detail

// sum (i = lb, ub) { (i + e) mod k == r } = floor((ub + e - r) / k) - floor((lb - 1 + e - r) / k),
// the number of j = i + e - r divisible by k (!= : the range's count minus that).
// Side conditions (residue_test): k > 0 and an integer, e an integer, r an integer (all
// proved: with a real k brute force has values and the count differs), 0 <= r <= k - 1
// proved or kept as the factor `valid` (no i matches outside it); r a number
// outside 0..k-1 gives 0 matches. lb, ub integers (proved or assumed); guarded where the
// range may be empty.
std::optional<ex> rule_sum_mod_count(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  auto t = residue_test(r->body(), r->index_ex(), f);
  if (!t) return std::nullopt;
  ex matches = t->none ? ex(0) : t->valid * (floor_of((r->ub() + t->e - t->r) / t->k) - floor_of((r->lb() - 1 + t->e - t->r) / t->k));
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  return nonempty_guard(count, f) * (pamela_function(r->body()) == Fn::Eq ? matches : count - matches);
}

// sum (i = lb, ub) { ((i + e) mod k == r) * g(i) } = sum (i = L, U) { g(k i + r - e) } with
// L = ceil((lb - r + e) / k), U = floor((ub - r + e) / k): the matching i are exactly
// k j + r - e for integer j in [L, U] (sum over the even i: sum (i = 1, floor(N / 2)) { 2 i }).
// Side conditions as sum_mod_count (residue_test; a number r outside 0..k-1 matches no i:
// 0); lb, ub integers (proved or assumed); g does not fail (may_fail) at the i skipped.
// Both sums are 0 on an empty range, so no guard is needed.
std::optional<ex> rule_sum_mod_select(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_class<mul>(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  auto sel = residue_selection(r->body(), i, f);
  if (!sel) return std::nullopt;
  const Residue* t = &sel->test;
  const ex& g = sel->rest;
  Facts fi = f;  // the skipped i lie in lb..ub (p div 2 >= 0 for p = 0..P - 1)
  fi.declare_index(r->index(), r->lb(), r->ub());
  if (may_fail(g, fi)) return std::nullopt;
  if (t->none) return ex(0);
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex lo = ceil_of((r->lb() - t->r + t->e) / t->k), hi = floor_of((r->ub() - t->r + t->e) / t->k);
  return t->valid * rebuild_reduction(*r, ReduceKind::Sum, lo, hi, g.subs(exmap{{i, t->k * i + t->r - t->e}}));
}

namespace detail {

namespace {

// The one index where a i + b = 0 (a a nonzero number, b free of i), if an integer: s =
// -b / a, and `hit`, 1 where s is an integer and 0 elsewhere: for a = +-1, 1 with s proved
// an integer; for another integer a, with b proved an integer, (b mod |a| == 0) (2 i == q
// matches only an even q). nullopt otherwise.
struct IntegerRoot {
  ex s, hit;
};
std::optional<IntegerRoot> integer_root(const numeric& a, const ex& b, const Facts& f) {
  if (!a.is_integer()) return std::nullopt;
  ex s = (-b / a).expand();
  if (a == 1 || a == -1) {
    if (!f.provably_integer(s)) return std::nullopt;
    return IntegerRoot{s, 1};
  }
  if (!f.provably_integer(b)) return std::nullopt;
  return IntegerRoot{s, compare(Cmp::Eq, mod_of(b, abs(a)), 0)};
}

}  // namespace

// What it reads and returns: struct MatchCount in rules_internal.h.
std::optional<MatchCount> linear_match_count(const ex& pred, const reduction& r, const Facts& f) {
  Fn fn = pamela_function(pred);
  if (!is_comparison(pred)) return std::nullopt;
  const ex& i = r.index_ex();
  const ex d = pred.op(1) - pred.op(0);
  auto lin = linear_in(d, i);
  // The root t of d = a i + b (a != 0) and the sign of a; a symbolic slope with a proved
  // sign, nonzero wherever the sum has a value (signed_slope), serves inequalities as a
  // number does (k / W < 1 / W + F: k < 1 + W F).
  ex t;
  bool up;
  if (lin) {
    const numeric& ca = lin->first;
    const ex& b = lin->second;
    if (fn == Fn::Eq || fn == Fn::Ne) {
      auto root = integer_root(ca, b, f);
      if (!root) return std::nullopt;
      ex one = root->hit * compare(Cmp::Le, r.lb(), root->s) * compare(Cmp::Le, root->s, r.ub());
      return MatchCount{fn == Fn::Eq ? one : r.ub() - r.lb() + 1 - one, fn == Fn::Eq};
    }
    t = (-b / ca).expand();
    up = ca.is_positive();
  } else {
    if (fn == Fn::Eq || fn == Fn::Ne) return std::nullopt;
    auto s = signed_slope(d, r, f);
    if (!s) return std::nullopt;
    t = (-s->offset / s->slope).expand();
    up = s->positive;
  }
  // a > 0: d >= 0 iff i >= t (d > 0 iff i > t); a < 0: d >= 0 iff i <= t (d > 0 iff i < t).
  bool strict = fn == Fn::Lt;
  if (up) {
    ex L = strict ? floor_of(t) + 1 : ceil_of(t);
    return MatchCount{make_max({ex(0), r.ub() - make_max({r.lb(), L}) + 1}), true};
  }
  ex U = strict ? ceil_of(t) - 1 : floor_of(t);
  return MatchCount{make_max({ex(0), make_min({r.ub(), U}) - r.lb() + 1}), true};
}

// The number of i in lb..ub matching a residue test (residue_test), right where
// lb <= ub + 1.
std::optional<ex> residue_match_count(const ex& pred, const reduction& r, const Facts& f) {
  auto t = residue_test(pred, r.index_ex(), f);
  if (!t) return std::nullopt;
  ex eq = t->none ? ex(0) : t->valid * (floor_of((r.ub() + t->e - t->r) / t->k) - floor_of((r.lb() - 1 + t->e - t->r) / t->k));
  return pamela_function(pred) == Fn::Eq ? eq : r.ub() - r.lb() + 1 - eq;
}

}  // namespace detail

// sum (i = lb, ub) { x < y } (also <=, ==, !=): linear_match_count. Side conditions: lb, ub
// integers (proved or assumed); b does not fail (may_fail) unless the range is provably
// non-empty; guarded for an empty range where the count is not exact there.
std::optional<ex> rule_sum_cmp_count(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& body = r->body();
  if (!is_comparison(body)) return std::nullopt;
  if (may_fail(body.op(1) - body.op(0), f) && !f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  auto m = linear_match_count(body, *r, f);
  if (!m || !require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return m->any_range ? m->count : nonempty_guard(r->ub() - r->lb() + 1, f) * m->count;
}

// sum (i = lb, ub) { (x < y) * g(i) } (also <=, ==) for y - x = a i + b linear in i: the
// matching i are a ray, so the sum runs over the part of the range on the ray: a > 0:
// sum (i = max(lb, L), ub) { g(i) }; a < 0: sum (i = lb, min(ub, U)) { g(i) }, with L, U as
// in linear_match_count (a boundary process, if (p > 0) use(link(p - 1), t)); ==, a = +-1
// and s = -b / a an integer (proved): g(s) (lb <= s) (s <= ub), for another integer a and b
// an integer (proved) that times (b mod |a| == 0); != the whole sum minus that
// (all but the sender, if (q != p)), where g(s) must not fail. Both sides are 0 on an empty
// range. Side conditions: lb, ub integers (proved or assumed); g does not fail (may_fail)
// at the i skipped; b does not fail unless the range is provably non-empty.
std::optional<ex> rule_sum_cmp_select(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_class<mul>(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  // The first comparison linear in i is the selection; others (a residue test p mod 2 == 0
  // beside p != q) stay in g.
  ex pred, g = 1;
  std::optional<std::pair<numeric, ex>> lin;
  for (size_t t = 0; t < r->body().nops(); ++t) {
    const ex& x = r->body().op(t);
    if (pred.is_zero() && is_comparison(x) && x.has(i) && (lin = linear_in(x.op(1) - x.op(0), i))) pred = x;
    else g *= x;
  }
  if (pred.is_zero() || !g.has(i)) return std::nullopt;
  Facts fi = f;  // the skipped i lie in lb..ub
  fi.declare_index(r->index(), r->lb(), r->ub());
  if (may_fail(g, fi)) return std::nullopt;
  if (may_fail(lin->second, f) && !f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  const numeric& ca = lin->first;
  const ex& b = lin->second;
  Fn fn = pamela_function(pred);
  if (fn == Fn::Eq || fn == Fn::Ne) {
    auto root = integer_root(ca, b, f);
    if (!root) return std::nullopt;
    ex at = g.subs(exmap{{i, root->s}});
    if (may_fail(at, f) || !require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
    ex one = root->hit * at * compare(Cmp::Le, r->lb(), root->s) * compare(Cmp::Le, root->s, r->ub());
    return fn == Fn::Eq ? one : rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(), g) - one;
  }
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  bool strict = fn == Fn::Lt;
  if (ca.is_positive()) {
    ex t = (-b / ca).expand();
    ex L = strict ? floor_of(t) + 1 : ceil_of(t);
    return rebuild_reduction(*r, ReduceKind::Sum, make_max({r->lb(), L}), r->ub(), g);
  }
  ex t = (b / -ca).expand();
  ex U = strict ? ceil_of(t) - 1 : floor_of(t);
  return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), make_min({r->ub(), U}), g);
}

namespace {
// Does a position of vector v take its index i through a mod (positions that repeat)?
bool cyclic_positions(const ex& v, const ex& i) {
  for (const_preorder_iterator it = v.preorder_begin(); it != v.preorder_end(); ++it) {
    if (pamela_function(*it) != Fn::Unitvec) continue;
    for (const_preorder_iterator p = it->op(0).preorder_begin(); p != it->op(0).preorder_end(); ++p)
      if (pamela_function(*p) == Fn::Mod && p->op(0).has(i)) return true;
  }
  return false;
}

// A two-way max or min whose sides differ by d = alpha R + beta, R = ceil(L) or floor(L) with
// L linear in i (a number or a proved-sign slope) and alpha a nonzero number, beta free of
// i: d >= 0 is a linear condition on L, since for c = -beta / alpha an integer test on R is
// one on L: ceil(L) >= c iff L > ceil(c) - 1, floor(L) >= c iff L >= ceil(c), ceil(L) <= c
// iff L <= floor(c), floor(L) <= c iff L < floor(c) + 1. Read as a choice that takes its
// first candidate where that condition holds (for a min, the sides swapped: min(g1, g2) is
// g2 where g1 >= g2). The splitting point of max(0.5 ceil((N - k + 1) / P), 1.5).
void rounded_choices(const ex& x, const ex& i, const Facts& f, std::vector<LinearChoice>& out) {
  if (!x.has(i) || is_class<reduction>(x)) return;
  if (is_class<extremum>(x) && ex_to<extremum>(x).args().size() == 2) {
    const auto& m = ex_to<extremum>(x);
    ex g1 = m.args()[0], g2 = m.args()[1];
    if (to_pamela(g2) < to_pamela(g1)) std::swap(g1, g2);
    ex d = (g1 - g2).expand(), R, beta = 0;
    numeric alpha = 0;
    bool ok = true;
    for (const ex& t : operands_of(d, true)) {
      if (!t.has(i)) {
        beta += t;
        continue;
      }
      auto sf = split_factor(t, [](const ex& y) { return pamela_function(y) == Fn::Ceil || pamela_function(y) == Fn::Floor; });
      if (!sf || !is_class<numeric>(sf->second) || (!R.is_zero() && !R.is_equal(sf->first))) {
        ok = false;
        break;
      }
      R = sf->first;
      alpha += ex_to<numeric>(sf->second);
    }
    if (ok && !R.is_zero() && !alpha.is_zero() && !beta.has(i)) {
      std::vector<LinearChoice> lin;  // L's slope, as find_linear_choices reads a comparison
      find_linear_choices(compare(Cmp::Le, 0, R.op(0)), i, lin, &f);
      if (lin.size() == 1) {
        bool ceil = pamela_function(R) == Fn::Ceil;
        ex c = -beta / alpha;
        // cond: s (L - edge) >= 0, or > 0 when strict; L = (a i + b) up to a positive factor.
        ex edge;
        bool strict, upward = alpha.is_positive();  // d >= 0 iff R >= c (alpha > 0), R <= c
        if (upward) {
          edge = ceil ? ceil_of(c) - 1 : ceil_of(c);
          strict = ceil;
        } else {
          edge = ceil ? floor_of(c) : floor_of(c) + 1;
          strict = !ceil;
        }
        if (is_class<numeric>(c) && ex_to<numeric>(c).is_integer()) edge = upward ? (ceil ? c - 1 : c) : (ceil ? c : c + 1);
        const numeric& a = lin[0].a;  // L = |scale| (a i + b)
        ex scale = (R.op(0).expand().coeff(i, 1) / a).expand();  // > 0 (proved by the slope read)
        ex b = lin[0].b - edge / scale;
        numeric s = upward ? 1 : -1;
        bool first_is_g1 = m.is_max();
        // d jumps at the edge, so g1 and g2 need not be equal there: no tie to give away.
        LinearChoice choice{x, first_is_g1 ? g1 : g2, first_is_g1 ? g2 : g1, true, s * a, (s * b).expand(), strict};
        choice.tie_at_edge = false;
        out.push_back(choice);
      }
    }
  }
  for (size_t k = 0; k < x.nops(); ++k) rounded_choices(x.op(k), i, f, out);
}

}  // namespace

// Piecewise split: sum (i = lb, ub) { B(i) } where B holds m = max(g1, g2) or min(g1, g2)
// (abs(g) = max(g, -g)) with d(i) = g1 - g2 = a i + b linear in i (a a nonzero number, b
// free of i). m = g1 exactly where d >= 0 (max) or d <= 0 (min), and that is a ray of i:
// i >= L = ceil(-b / a) or i <= U = floor(-b / a) by the signs of a. So the sum is the sum of
// B with m := g1 over the ray, clamped to [lb, ub], plus B with m := g2 over the rest:
//   ray i <= U: sum (i = lb, min(ub, U)) { B[g1] } + sum (i = max(lb, U + 1), ub) { B[g2] },
//   ray i >= L: sum (i = max(lb, L), ub) { B[g1] } + sum (i = lb, min(ub, L - 1)) { B[g2] }.
// Each i lies in exactly one part (a part is empty where the ray misses the range; at
// d = 0 both candidates are equal), so the value is unchanged for any B: min/max anywhere
// in the body (inside ceil, a product, an inner loop's bound), both sides depending on i
// (wavefront diagonals min(d, 2 N - d), distances abs(i - c)), a slope with a symbolic
// factor of proved sign (chunks of C on P processors: min(C, N - C P i), whose slope is 0
// only where the range ceil(N / C) has no value; signed_slope). Side conditions: lb, ub
// integers (proved or assumed; the split bounds are then integers); b does not fail
// (may_fail) unless the range is provably non-empty (the new bounds evaluate it, brute
// force would not).
// Not for a load vector whose positions repeat over the range (a mod in the position): the
// two parts would load the same positions, where the unsplit weight is one monotone (or
// concave) function the load rules read whole (max(1, i - W) under cpu(i mod P)).
std::optional<ex> rule_sum_piecewise(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  if (is_vector_valued(r->body()) && cyclic_positions(r->body(), r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  std::vector<LinearChoice> found;
  find_linear_choices(r->body(), i, found, &f, r);
  if (found.empty()) rounded_choices(r->body(), i, f, found);
  if (found.empty()) return std::nullopt;
  const LinearChoice* c = &found[0];
  if (found.size() > 1) {  // not GiNaC's operand order: the first in printed-text order
    for (const LinearChoice& x : found)
      if (to_pamela(x.node) < to_pamela(c->node)) c = &x;
  }
  bool nonempty = f.provably_nonneg(r->ub() - r->lb());
  // The split point is b over the slope's scale, which is nonzero wherever the range has a
  // value: it fails where the range does, or where d's own offset or scale fails.
  if ((may_fail((c->b * c->scale).expand(), f) || may_fail(c->scale, f)) && !nonempty) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex t = (-c->b / ex(c->a)).expand();
  auto fl = [&](const ex& x) { return f.provably_integer(x) ? x : floor_of(x); };
  auto cl = [&](const ex& x) { return f.provably_integer(x) ? x : ceil_of(x); };
  ex b1 = r->body().subs(exmap{{c->node, c->g1}}, subs_options::no_pattern);
  ex b2 = r->body().subs(exmap{{c->node, c->g2}}, subs_options::no_pattern);
  // A part whose body is a polynomial in i (i-free coefficients) is closed here, so that the
  // two parts expand into one polynomial of the split point; any other part stays a sum
  // for the other rules. Its bounds are integers with lb and ub: nothing more to require.
  auto part = [&](const ex& lo, const ex& hi, const ex& body) -> ex {
    ex x = body.expand();
    bool poly = x.is_polynomial(i) && x.ldegree(i) >= 0 && x.degree(i) <= 40;
    for (int k = 0; poly && k <= x.degree(i); ++k) poly = !x.coeff(i, k).has(i);
    if (!poly || is_vector_valued(x) || (may_fail(x, f) && !nonempty))
      return rebuild_reduction(*r, ReduceKind::Sum, lo, hi, body);
    ex out = (antiderivative(x, i, hi) - antiderivative(x, i, lo - 1)).expand();
    return out.is_zero() ? out : nonempty_guard(hi - lo + 1, f) * out;
  };
  // g1 on the ray where d >= 0 (max) or d <= 0 (min): i >= L when that ray grows with i.
  // The split is i < L against i >= L. A comparison (a <= b) is 1 at d = 0, so its tie
  // belongs to g1: L = ceil(t) when g1 lies above, L = floor(t) + 1 below; (a < b) is 0
  // there. A max, min or abs has equal sides at d = 0, so the tie may go either way: L =
  // ceil(t) for both, one form for a min and a max. Not for a rounded difference (d =
  // alpha ceil(L) + beta), which need not be 0 where its linear condition is at its edge.
  const bool tie_free = (is_class<extremum>(c->node) || is_ex_the_function(c->node, abs)) && c->tie_at_edge;
  const bool g1_above = c->strict ? c->a.is_positive() : c->a.is_positive() == c->is_max;
  ex L;
  if (c->strict) L = g1_above ? fl(t) + 1 : cl(t);
  else L = g1_above || tie_free ? cl(t) : fl(t) + 1;
  if (g1_above)
    return part(make_max({r->lb(), L}), r->ub(), b1) + part(r->lb(), make_min({r->ub(), L - 1}), b2);
  return part(r->lb(), make_min({r->ub(), L - 1}), b1) + part(make_max({r->lb(), L}), r->ub(), b2);
}

namespace {
// A symbol z >= 0 (proved) that may be 0, a factor of the symbolic slope a of a two-way
// choice in B that is linear in i (max, min or abs of two sides, or a comparison, whose
// difference is a i + b with a free of i and of proved sign): the first in printed-text
// order. nullopt when there is none.
std::optional<symbol> zero_slope_factor(const ex& x, const ex& i, const Facts& f) {
  if (!x.has(i) || is_class<reduction>(x)) return std::nullopt;
  std::optional<ex> d;
  if (is_class<extremum>(x) && ex_to<extremum>(x).args().size() == 2) d = ex_to<extremum>(x).args()[0] - ex_to<extremum>(x).args()[1];
  else if (is_ex_the_function(x, abs)) d = x.op(0);
  else if (pamela_function(x) == Fn::Le || pamela_function(x) == Fn::Lt) d = x.op(1) - x.op(0);
  std::optional<symbol> best;
  auto consider = [&](const symbol& z) {
    if (!best || to_pamela(z) < to_pamela(*best)) best = z;
  };
  if (d) {
    ex dx = d->expand();
    if (dx.is_polynomial(i) && dx.degree(i) == 1 && dx.ldegree(i) >= 0) {
      ex a = dx.coeff(i, 1);
      if (!a.has(i) && !is_class<numeric>(a) && !may_fail(a, f) && (f.provably_nonneg(a) || f.provably_nonneg(-a)))
        for (const ex& factor : operands_of(a, false)) {
          ex base = power_base(factor);
          if (is_class<symbol>(base) && !f.mentions_index(base) && f.provably_nonneg(base) && !f.provably_positive(base))
            consider(ex_to<symbol>(base));
        }
    }
  }
  for (size_t k = 0; k < x.nops(); ++k)
    if (auto z = zero_slope_factor(x.op(k), i, f)) consider(*z);
  return best;
}
}  // namespace

// sum (i = lb, ub) { B } where B holds a two-way choice linear in i whose symbolic slope has
// a factor z >= 0 that may be 0 (chunks of C on P processors: min(C, N - C P i), whose slope
// -C P is 0 at C = 0, where sum_piecewise has no crossing to split at), split by z:
//   (z == 0) * sum (i = lb, ub) { B[z := 0] } + (0 < z) * sum (i = lb, ub) { B }.
// With z >= 0 proved, exactly one guard is 1 at every point, and the sum it multiplies is
// the original there (B[z := 0] is B at z = 0; the bounds are kept); the other is 0 even
// where its sum has no value (a zero factor). Under 0 < z the slope is nonzero and
// sum_piecewise splits at the crossing. Exact; no side condition beyond z >= 0 (proved).
std::optional<ex> rule_sum_slope_zero_split(const ex& e, const Facts& f, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  auto z = zero_slope_factor(r->body(), r->index_ex(), f);
  if (!z) return std::nullopt;
  // Only where the split gives sum_piecewise a crossing: under z > 0 the choice is read.
  Facts positive = f;
  positive.add_lower(*z, 0, true);
  std::vector<LinearChoice> found;
  find_linear_choices(r->body(), r->index_ex(), found, &positive, r);
  if (found.empty()) return std::nullopt;
  ex at_zero = r->body().subs(exmap{{*z, 0}}, subs_options::no_pattern);
  return compare(Cmp::Eq, *z, 0) * rebuild(*r, ReduceKind::Sum, at_zero) + compare(Cmp::Lt, 0, *z) * e;
}

// sum (i = a, b) { sum (j = i + c, d) { g(j) } } with g free of i and vector-valued (loads
// on resources that no rule closes one row at a time) = sum (j = a + c, d) { m(j) g(j) }
// with m(j) = min(b, j - c) - a + 1 rows i that reach j (>= 1 for j >= a + c), the min
// dropped when b + c >= d is provable; likewise sum (j = c, i + d) with m(j) = b - max(a,
// j - d) + 1 over j = c..b + d. Exchanging a triangle's order turns i <= j into a weight
// on j, so `if (i <= j) use(cpu(j mod P))` becomes a cyclic map with a monotone weight.
// Exact (finite sums; each (i, j) is counted once either way; guarded where b < a - 1 is
// possible, which would make m(j) negative). Side conditions: a, b, c, d integers (proved
// or assumed); the inner range's other end free of i.
std::optional<ex> rule_sum_swap_triangle(const ex& e, const Facts& f, Assumptions& asm_) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const reduction* in = as_red(r->body(), ReduceKind::Sum);
  if (!in || !is_vector_valued(in->body()) || in->body().has(r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  const ex &a = r->lb(), &b = r->ub();
  auto lo = linear_in(in->lb(), i), hi = linear_in(in->ub(), i);
  if (!require({{true, a}, {true, b}}, f, asm_)) return std::nullopt;
  GiNaC::symbol j(in->index().get_name());
  ex g = in->body().subs(exmap{{in->index_ex(), j}});
  // An outer range more than one short of non-empty would give negative counts m(j).
  ex guard = nonempty_guard(b - a + 1, f);
  if (lo && lo->first == 1 && !in->ub().has(i)) {
    const ex& c = lo->second;
    const ex& d = in->ub();
    if (!require({{true, c}, {true, d}}, f, asm_)) return std::nullopt;
    ex top = f.provably_nonneg(b + c - d) ? ex(j - c) : make_min({b, j - c});
    return guard * make_reduction(ReduceKind::Sum, j, a + c, d, (top - a + 1) * g);
  }
  if (hi && hi->first == 1 && !in->lb().has(i)) {
    const ex& c = in->lb();
    const ex& d = hi->second;
    if (!require({{true, c}, {true, d}}, f, asm_)) return std::nullopt;
    ex bottom = f.provably_nonneg(c - d - a) ? ex(j - d) : make_max({a, j - d});
    return guard * make_reduction(ReduceKind::Sum, j, c, b + d, (b - bottom + 1) * g);
  }
  return std::nullopt;
}

constexpr long kShortRange = 8;

// sum (i = lb, ub) { g(i) } over a range proved at most c + 1 long (ub - lb <= c, c a number
// below kShortRange, the least one proved; tried where ub - lb holds a max or min):
// (0 <= ub - lb) g(lb) + ... + (c <= ub - lb) g(lb + c), each term taken only where its
// index is in range. The last steps of a
// shrinking loop, sum (k = max(1, N - 2), N - 2), are one step or none. Exact. Side
// conditions: lb, ub integers (proved or assumed); g does not fail (may_fail), as a term
// beyond the range is evaluated before its 0 factor.
std::optional<ex> rule_sum_short_range(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || (is_class<numeric>(r->lb()) && is_class<numeric>(r->ub()))) return std::nullopt;
  const ex span = (r->ub() - r->lb()).expand();
  // Only a span with a max or min in it (max(1, N - 2)) is tried: a proof per sum costs.
  auto has_extremum = [](const ex& x) {
    for (auto it = x.preorder_begin(); it != x.preorder_end(); ++it)
      if (is_class<extremum>(*it)) return true;
    return false;
  };
  if (!has_extremum(span) || !f.provably_nonneg(kShortRange - 1 - span)) return std::nullopt;
  long c = kShortRange - 1;
  while (c > 0 && f.provably_nonneg(c - 1 - span)) --c;
  if (may_fail(r->body(), f) || !require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  const ex& i = r->index_ex();
  ex total = 0;
  for (long t = 0; t <= c; ++t)
    total += compare(Cmp::Le, t, span) * r->body().subs(exmap{{i, r->lb() + t}});
  return total;
}

constexpr long kUnrollLimit = 64;

namespace {

bool all_positions_numeric(const ex& e) {
  if (pamela_function(e) == Fn::Unitvec) return is_class<numeric>(e.op(0));
  for (size_t k = 0; k < e.nops(); ++k)
    if (!all_positions_numeric(e.op(k))) return false;
  return true;
}

}  // namespace

// Would substituting m into e make GiNaC evaluate 0 ^ 0? GiNaC refuses it by throwing from
// the middle of building the power (which also leaks it): sum (i = 0, 0) { 0 ^ i } is left
// to the evaluators, which define 0 ^ 0 = 1. Children first, so no inner power throws.
static bool makes_zero_pow_zero(const ex& e, const exmap& m) {
  for (auto it = e.postorder_begin(); it != e.postorder_end(); ++it)
    if (is_class<power>(*it) && it->op(0).subs(m).is_zero() && it->op(1).subs(m).is_zero()) return true;
  return false;
}

// sum/max/min (i = lb, ub) { g(i) } with integer numeric bounds and at most 64 iterations:
// unrolled into g(lb) + ... + g(ub) (max(...), min(...)). An empty sum is 0; an empty
// max/min is left alone (it has no value). A vector body is unrolled only when its
// positions become numbers (otherwise the vector-max rules see the reduction). Always.
std::optional<ex> rule_unroll(const ex& e, const Facts&, Assumptions&) {
  if (!is_class<reduction>(e)) return std::nullopt;
  const auto& r = ex_to<reduction>(e);
  if (!is_class<numeric>(r.lb()) || !is_class<numeric>(r.ub())) return std::nullopt;
  const numeric &lb = ex_to<numeric>(r.lb()), &ub = ex_to<numeric>(r.ub());
  if (!lb.is_integer() || !ub.is_integer()) return std::nullopt;
  numeric n = ub - lb + 1;
  if (n > kUnrollLimit) return std::nullopt;
  if (!n.is_positive())
    return r.kind() == ReduceKind::Sum || r.empty_is_zero() ? std::optional<ex>(ex(0)) : std::nullopt;
  if (is_vector_valued(r.body()) && !all_positions_numeric(r.body().subs(exmap{{r.index_ex(), lb}})))
    return std::nullopt;
  exvector terms;
  for (numeric k = lb; k <= ub; k += 1) {
    exmap at{{r.index_ex(), k}};
    if (makes_zero_pow_zero(r.body(), at)) return std::nullopt;
    terms.push_back(r.body().subs(at));
  }
  if (r.kind() == ReduceKind::Sum) return ex(add(terms));
  return r.kind() == ReduceKind::Max ? make_max(terms) : make_min(terms);
}

}  // namespace pamc::sym
