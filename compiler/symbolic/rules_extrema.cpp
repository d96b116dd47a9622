// Rewrite rules for max/min reductions over an index range: constants and factors out,
// monotone, convex and concave bodies, bounds attained at an end, indicator bodies,
// breakpoints of piecewise-linear bodies, block counts. See rules.h.
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

// The extremum r asks for (max or min) of its body at the range's two ends.
ex at_ends(const reduction& r) {
  exvector ends{r.body().subs(exmap{{r.index_ex(), r.lb()}}), r.body().subs(exmap{{r.index_ex(), r.ub()}})};
  return r.kind() == ReduceKind::Max ? make_max(ends) : make_min(ends);
}

}  // namespace

// max/min (i = lb, ub) { c } = c for c free of i.
// Side condition: the range is non-empty: ub - lb >= 0 with lb an integer (else assumed,
// e.g. "P >= 1" for p = 1..P; an empty range is an evaluation error, not a value).
std::optional<ex> rule_ext_const(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || r->body().has(r->index_ex())) return std::nullopt;
  if (require({{true, r->lb()}, {false, r->ub() - r->lb()}}, f, a)) return r->body();
  // A par's max over a range that may be empty, inside another loop (the condition
  // mentions its index, so it cannot be assumed): (lb <= ub) c, exact either way.
  if (r->empty_is_zero() && !may_fail(r->body(), f) && require({{true, r->lb()}, {true, r->ub()}}, f, a))
    return compare(Cmp::Le, r->lb(), r->ub()) * r->body();
  return std::nullopt;
}

// Whether a range's length holds a floor, ceil, mod or div (a class of a cyclic map, rho - 1
// = n - k floor(n / k) - 1; a piece of a strided map, P - ceil(2 P / 3) - 1): assuming such a
// range non-empty would hold at some residues only, so a par's extremum is guarded instead.
bool detail::span_has_rounding(const ex& span) {
  for (const_preorder_iterator it = span.preorder_begin(); it != span.preorder_end(); ++it) {
    Fn fn = pamela_function(*it);
    if (fn == Fn::Floor || fn == Fn::Ceil || fn == Fn::Mod || fn == Fn::Div) return true;
  }
  return false;
}

// max (i) { c + g(i) } = c + max (i) { g(i) } for c free of i (also min). Always for a
// user's max; for a par's max (0 when empty) only on a non-empty range, proved or assumed,
// or with c counted where it is not empty, (0 <= ub - lb) c, for a length with a rounding.
std::optional<ex> rule_ext_shift(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_class<add>(r->body())) return std::nullopt;
  ex c = 0, g = 0;
  for (size_t k = 0; k < r->body().nops(); ++k) {
    const ex& t = r->body().op(k);
    (t.has(r->index_ex()) ? g : c) += t;
  }
  if (c.is_zero() || g.is_zero()) return std::nullopt;
  // A par's max is 0 on an empty range, c + 0 is not: that needs a non-empty range, proved
  // or assumed; where the range's length holds a rounding (a class of a cyclic map, rho - 1
  // = n - k floor(n / k) - 1), whose assumption would hold only at some residues, c counts
  // where the range is not empty instead: (0 <= ub - lb) c.
  if (!r->empty_is_zero()) return c + rebuild(*r, r->kind(), g);
  const ex span = r->ub() - r->lb();
  if (!span_has_rounding(span) || f.provably_nonneg(span)) {
    if (!require({{true, r->lb()}, {false, span}}, f, a)) return std::nullopt;
    return c + rebuild(*r, r->kind(), g);
  }
  if (!require({{true, r->lb()}}, f, a)) return std::nullopt;
  return compare(Cmp::Le, 0, span) * c + rebuild(*r, r->kind(), g);
}

namespace {

ReduceKind flip(ReduceKind k) { return k == ReduceKind::Max ? ReduceKind::Min : ReduceKind::Max; }

}  // namespace

// max (i) { c * g(i) } = c * max (i) { g(i) } for c free of i and provably >= 0 (a product
// of sums in i expanded, c = 1 too);
// = (-c) * max (i) { -g(i) } when c is provably <= 0 and -g expands to a sum (else c * min
// (i) { g(i) }), and symmetrically for min. Scalars only.
std::optional<ex> rule_ext_scale(const ex& e, const Facts& f, Assumptions&) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_class<mul>(r->body()) || is_vector_valued(r->body())) return std::nullopt;
  ex c = 1, g = 1;
  for (size_t k = 0; k < r->body().nops(); ++k) {
    const ex& t = r->body().op(k);
    (t.has(r->index_ex()) ? g : c) *= t;
  }
  if (g.is_equal(1)) return std::nullopt;
  // A product of sums in i, (10 j + 11) (q - (s <= j) + 1), expanded, with or without a
  // factor to take out: whether an earlier step left it factored or expanded, and with a
  // factor -1 or the sign inside a sum, follows GiNaC's operand order, and which rules meet
  // the body next (ext_shift takes the terms free of i out of an expanded one) must not.
  bool expanded = false;
  if (is_class<mul>(g)) {
    int sums = 0;
    for (size_t k = 0; k < g.nops(); ++k) sums += is_class<add>(g.op(k)) && g.op(k).has(r->index_ex());
    if (sums >= 2) {
      ex x = g.expand();
      if (is_class<add>(x) && x.nops() <= 64) g = x, expanded = true;
    }
  }
  if (c.is_equal(1)) return expanded ? std::optional<ex>(rebuild(*r, r->kind(), g)) : std::nullopt;
  if (f.provably_nonneg(c)) return c * rebuild(*r, r->kind(), g);
  // c <= 0: (-c) * max (i) { -g(i) }, the same kind of extremum with a factor >= 0 taken out,
  // rather than c * min (i) { g(i) }: which sign GiNaC leaves on c and which on g follows its
  // operand order, and the form printed must not (the layout test).
  // Where -g is a sum the sign goes inside it; else (a product) c * min (i) { g(i) }.
  if (f.provably_nonpos(c)) {
    ex neg = (-g).expand();
    if (is_class<add>(neg)) return (-c) * rebuild(*r, r->kind(), neg);
    return c * rebuild(*r, flip(r->kind()), g);
  }
  return std::nullopt;
}

// max/min (i) { c_1 g(i) + ... + c_m g(i) } = max/min (i) { (c_1 + ... + c_m) g(i) } for
// c_j free of i and one common factor g(i) (then ext_scale takes c_1 + ... + c_m out).
// Always: the body's value is unchanged.
std::optional<ex> rule_ext_collect(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_class<add>(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex g, c = 0;
  for (const ex& t : operands_of(r->body(), true)) {
    ex ct = 1, gt = 1;
    for (const ex& x : operands_of(t, false)) (x.has(i) ? gt : ct) *= x;
    if (gt.is_equal(1)) return std::nullopt;
    if (g.is_zero())
      g = gt;
    else if (!gt.is_equal(g))
      return std::nullopt;
    c += ct;
  }
  return rebuild(*r, r->kind(), c * g);
}

namespace detail {

std::optional<int> structural_direction(const ex& g, const ex& i, const Facts& f, int depth);

namespace {

// The direction of a product of factors that depend on i: steps (a <= b), (a < b), each 0
// then 1 or 1 then 0, and other factors that are >= 0 wherever every step is 1 (proved,
// with the steps that bound i as facts): with one common direction, the product moves that
// way (nonneg factors that all rise give a rising product; a rising step switches it on
// from 0; a falling one switches it off to 0 from a value >= 0). The count of j in i..N,
// (i - 1 <= N) * (N - i + 1), falls with i. A factor <= 0 is read as its negation.
std::optional<int> product_direction(const ex& dep, const ex& i, const Facts& f, int depth) {
  std::optional<int> dir = 0;
  auto join = [&](std::optional<int> b) {
    if (!dir || !b) dir = std::nullopt;
    else if (*dir == 0) dir = b;
    else if (*b != 0 && *b != *dir) dir = std::nullopt;
  };
  Facts on = f;  // where every step is 1
  exvector others;
  for (size_t k = 0; k < dep.nops() && dir; ++k) {
    const ex& x = dep.op(k);
    Fn fn = pamela_function(x);
    if (fn != Fn::Le && fn != Fn::Lt) {
      others.push_back(x);
      continue;
    }
    ex d = (x.op(1) - x.op(0)).expand();
    join(structural_direction(d, i, f, depth + 1));
    if (!is_a<symbol>(i)) continue;
    if (auto lin = linear_in(d, i)) {
      ex bound = (-lin->second / lin->first).expand();
      bool strict = fn == Fn::Lt;
      if (lin->first.is_positive()) on.add_lower(ex_to<symbol>(i), bound, strict);
      else on.add_upper(ex_to<symbol>(i), bound, strict);
    }
  }
  // A factor <= 0 counts as its negation (>= 0, moving the other way), and the product's
  // direction flips with each: GiNaC may hold (N - i + 1) min(C, N - C i) as -(i - N - 1)
  // min(C, N - C i), whose factor i - N - 1 <= 0 rises.
  bool flipped = false;
  for (const ex& o : others) {
    if (!dir) break;
    if (on.provably_nonneg(o)) {
      join(structural_direction(o, i, f, depth + 1));
    } else if (on.provably_nonpos(o)) {
      auto d = structural_direction(o, i, f, depth + 1);
      join(d ? std::optional<int>(-*d) : std::nullopt);
      flipped = !flipped;
    } else {
      return std::nullopt;
    }
  }
  if (dir && flipped) dir = -*dir;
  return dir;
}

}  // namespace

// The direction in which g moves with i, by its structure: +1 nondecreasing, -1
// nonincreasing, 0 free of i, nullopt unknown. Linear terms by their coefficient's sign;
// floor, ceil, max, min and sums keep a common direction; a factor free of i of known sign
// keeps or flips it; x^k (k > 0 a number, x >= 0) keeps it. ceil((N - i) / P) falls with i.
std::optional<int> structural_direction(const ex& g, const ex& i, const Facts& f, int depth) {
  if (!g.has(i)) return 0;
  if (depth > 8) return std::nullopt;
  auto join = [](std::optional<int> a, std::optional<int> b) -> std::optional<int> {
    if (!a || !b) return std::nullopt;
    if (*a == 0) return b;
    if (*b == 0 || *a == *b) return a;
    return std::nullopt;
  };
  ex x = g.expand();
  if (x.is_polynomial(i) && x.degree(i) == 1) {
    ex c = x.coeff(i, 1);
    if (c.has(i)) return std::nullopt;
    if (f.provably_nonneg(c)) return 1;
    if (f.provably_nonpos(c)) return -1;
    return std::nullopt;
  }
  Fn fn = pamela_function(g);
  if (fn == Fn::Floor || fn == Fn::Ceil) return structural_direction(g.op(0), i, f, depth + 1);
  if (fn == Fn::Div && !g.op(1).has(i) && f.provably_positive(g.op(1)))  // floor(a / b), b > 0
    return structural_direction(g.op(0), i, f, depth + 1);
  if (is_class<extremum>(g) || is_class<add>(g)) {
    std::optional<int> d = 0;
    exvector args = is_class<extremum>(g) ? ex_to<extremum>(g).args() : operands_of(g, true);
    for (const ex& a : args) d = join(d, structural_direction(a, i, f, depth + 1));
    return d;
  }
  if (is_class<mul>(g)) {
    ex free = 1, dep = 1;
    for (size_t k = 0; k < g.nops(); ++k) (g.op(k).has(i) ? dep : free) *= g.op(k);
    auto d = is_class<mul>(dep) ? product_direction(dep, i, f, depth) : structural_direction(dep, i, f, depth + 1);
    if (!d) return std::nullopt;
    if (f.provably_nonneg(free)) return d;
    if (f.provably_nonpos(free)) return -*d;
    return std::nullopt;
  }
  if (is_class<power>(g) && is_class<numeric>(g.op(1)) && ex_to<numeric>(g.op(1)).is_positive() &&
      !g.op(1).has(i) && f.provably_nonneg(g.op(0)))
    return structural_direction(g.op(0), i, f, depth + 1);
  // A sum over j of terms >= 0 that do not move with i, over a range whose ends do: it
  // gains terms as ub rises or lb falls (the messages of row i to the rows after it).
  if (is_class<reduction>(g) && ex_to<reduction>(g).kind() == ReduceKind::Sum) {
    const auto& r = ex_to<reduction>(g);
    Facts in = f;
    in.declare_index(r.index(), r.lb(), r.ub());
    if (r.body().has(i) || !in.provably_nonneg(r.body())) return std::nullopt;
    auto lo = structural_direction(r.lb(), i, f, depth + 1), hi = structural_direction(r.ub(), i, f, depth + 1);
    if (!lo || !hi) return std::nullopt;
    return join(-*lo, *hi);
  }
  return std::nullopt;
}

}  // namespace detail

// max (i = lb, ub) { g(i) } = g(ub) when g(i+1) - g(i) >= 0 is provable for lb <= i < ub
// or g is nondecreasing by its structure (structural_direction: ceil((N - i) / P) falls), =
// g(lb) when g is nonincreasing; min the other way round. Side conditions: non-empty
// range and integer bounds (proved or assumed); a par's max over a maybe-empty range is
// guarded instead, (lb <= ub) g(end), where g(end) cannot fail.
std::optional<ex> rule_ext_monotone(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub() - 1);
  ex d = (r->body().subs(exmap{{i, i + 1}}) - r->body()).expand();
  bool up = fi.provably_nonneg(d);
  bool down = !up && fi.provably_nonpos(d);
  if (!up && !down) {
    Facts fr = f;
    fr.declare_index(r->index(), r->lb(), r->ub());
    if (auto dir = structural_direction(r->body(), i, fr)) {
      up = *dir > 0;
      down = *dir < 0;
    }
  }
  if (!up && !down) return std::nullopt;
  bool at_ub = up == (r->kind() == ReduceKind::Max);
  ex end = r->body().subs(exmap{{i, at_ub ? r->ub() : r->lb()}});
  // A par's max over a range that may be empty is 0 there: (lb <= ub) g(end), exact, rather
  // than an assumption (as ext_const).
  if (r->empty_is_zero() && !f.provably_nonneg(r->ub() - r->lb()) && !may_fail(end, f) &&
      require({{true, r->lb()}, {true, r->ub()}}, f, a))
    return compare(Cmp::Le, r->lb(), r->ub()) * end;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return end;
}

// max (i = lb, ub) { g(i) } = max(g(lb), g(ub)) when g is convex on the integers:
// g(i+2) - 2 g(i+1) + g(i) >= 0 provable for lb <= i <= ub - 2 (e.g. a polynomial of degree
// 2 with a leading coefficient of known sign); min of a concave g likewise. Side
// conditions: non-empty range and integer bounds (proved or assumed, as for ext_const).
std::optional<ex> rule_ext_convex(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  const ex& g = r->body();
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub() - 2);
  ex d2 = (g.subs(exmap{{i, i + 2}}) - 2 * g.subs(exmap{{i, i + 1}}) + g).expand();
  bool ok = r->kind() == ReduceKind::Max ? fi.provably_nonneg(d2) : fi.provably_nonpos(d2);
  if (!ok) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return at_ends(*r);
}

namespace detail {

// Convex (sign > 0) or concave (sign < 0) in i over the reals, by structure: linear in i;
// abs of something linear (convex); a max of convex or a min of concave terms; a sum of
// terms of that curvature; a quadratic in i whose leading coefficient has the sign; a
// factor free of i of proved sign times a term (the curvature flips with a factor <= 0).
// A convex g has every chord above it, so its max over a range is at an end; a concave
// one lies above its chords.
bool structurally_convex(const ex& g, const ex& i, const Facts& f, int sign, int depth) {
  if (!g.has(i)) return true;
  if (depth > 8) return false;
  if (linear_in(g, i)) return true;
  if (is_ex_the_function(g, abs)) return sign > 0 && static_cast<bool>(linear_in(g.op(0), i));
  if (is_class<extremum>(g)) {
    if (ex_to<extremum>(g).is_max() != (sign > 0)) return false;
    for (const ex& x : ex_to<extremum>(g).args())
      if (!structurally_convex(x, i, f, sign, depth + 1)) return false;
    return true;
  }
  if (is_class<add>(g)) {
    for (size_t k = 0; k < g.nops(); ++k)
      if (!structurally_convex(g.op(k), i, f, sign, depth + 1)) return false;
    return true;
  }
  if (is_class<mul>(g)) {
    ex free = 1, dep = 1;
    for (size_t k = 0; k < g.nops(); ++k) (g.op(k).has(i) ? dep : free) *= g.op(k);
    if (!is_class<mul>(dep)) {
      if (f.provably_nonneg(free)) return structurally_convex(dep, i, f, sign, depth + 1);
      if (f.provably_nonpos(free)) return structurally_convex(dep, i, f, -sign, depth + 1);
    }
  }
  ex x = g.expand();
  if (x.is_polynomial(i) && x.degree(i) == 2) {
    ex c = x.coeff(i, 2);
    return sign > 0 ? f.provably_nonneg(c) : f.provably_nonpos(c);
  }
  return false;
}

}  // namespace detail

// max (i = lb, ub) { g(i) } = max(g(lb), g(ub)) for g structurally convex in i (a sum or max
// of terms linear in i or abs of linear, with nonnegative index-free factors: distances
// abs(i - c)); min (i) of a structurally concave g (-g convex) = min(g(lb), g(ub)). The
// second-difference test of ext_convex does not see through abs and max. Side conditions:
// non-empty range and integer bounds (proved or assumed).
std::optional<ex> rule_ext_convex_shape(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  bool is_max = r->kind() == ReduceKind::Max;
  if (!structurally_convex(r->body(), i, f, is_max ? 1 : -1)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return at_ends(*r);
}

// min (i = lb, ub) { g(i) } for g convex with a known real minimizer m: g = c abs(a i + b)
// (c >= 0 free of i; m = -b / a) or g = a i^2 + b i + c0 with a > 0 (proved; a number or a
// symbolic curvature, the items of a class summed: m = -b / 2a). A convex function of the
// integers in [lb, ub] is smallest at an integer next to m, moved into the range:
// min(g(clamp(floor(m))), g(clamp(ceil(m)))), clamp(x) = max(lb, min(ub, x)); g(clamp(m))
// when m is a proved integer. max of a concave g (-g of that shape) likewise. A quadratic
// whose curvature a has no proved sign is read by cases: (0 < a) times the above, plus (a
// <= 0) times the ends, min(g(lb), g(ub)), where g is concave or linear (the vertex's
// division by a = 0 is in a term whose factor is 0 there, a branch not taken). Side
// conditions: integer bounds (proved or assumed); a non-empty range (proved, assumed, or
// for a par's max, 0 on an empty range, the guard (0 <= ub - lb)); a and b do not fail.
std::optional<ex> rule_ext_convex_min(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  bool is_max = r->kind() == ReduceKind::Max;
  ex g = is_max ? ex(-r->body()) : r->body();
  std::optional<ex> m;
  ex curvature = 1;  // a, where its sign is not proved; 1 where it is
  ex free = 1, dep = 1;
  for (const ex& x : operands_of(g, false)) (x.has(i) ? dep : free) *= x;
  if (is_ex_the_function(dep, abs) && f.provably_nonneg(free)) {
    if (auto lin = linear_in(dep.op(0), i)) m = (-lin->second / ex(lin->first)).expand();
  } else {
    ex x = g.expand();
    if (x.is_polynomial(i) && x.degree(i) == 2 && x.ldegree(i) >= 0 && !x.coeff(i, 2).has(i) &&
        !x.coeff(i, 1).has(i) && !may_fail(x.coeff(i, 2), f) && !may_fail(x.coeff(i, 1), f)) {
      const ex c2 = x.coeff(i, 2);
      if (is_class<numeric>(c2) ? !ex_to<numeric>(c2).is_positive() : f.provably_nonpos(c2)) return std::nullopt;
      if (!f.provably_positive(c2)) curvature = c2;
      m = (-x.coeff(i, 1) / (2 * c2)).normal();
    }
  }
  if (!m || (curvature.is_equal(1) && may_fail(*m, f))) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  auto nonempty = nonempty_factor(*r, f, a);  // a par's max: 0 where empty, as its closed form then
  if (!nonempty) return std::nullopt;
  auto clamp = [&](const ex& x) { return make_max({r->lb(), make_min({r->ub(), x})}); };
  auto at = [&](const ex& x) { return r->body().subs(exmap{{i, clamp(x)}}); };
  auto pick = [&](const exvector& xs) { return is_max ? make_max(xs) : make_min(xs); };
  ex near = f.provably_integer(*m) ? at(*m) : pick({at(floor_of(*m)), at(ceil_of(*m))});
  if (curvature.is_equal(1)) return *nonempty * near;
  return *nonempty * (compare(Cmp::Lt, 0, curvature) * near + compare(Cmp::Le, curvature, 0) * at_ends(*r));
}

// max (i = lb, ub) { g(i) } = h where h is an upper bound of g on the range (interval
// analysis with i in [lb, ub]) that g reaches at lb or at ub (g(lb) - h >= 0 proved); min
// with a lower bound likewise. E.g. max (q = 0, P - 1) { q mod 2 ^ l == 0 } = 1 (reached at
// q = 0). Side conditions: integer bounds (proved or assumed); a non-empty range (proved, or
// assumed, or for a par's max, 0 on an empty range, the guard (0 <= ub - lb): nonempty_factor).
std::optional<ex> rule_ext_attained(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  Facts in = f;
  in.declare_index(r->index(), r->lb(), r->ub());
  Interval iv = in.range(r->body());
  bool is_max = r->kind() == ReduceKind::Max;
  const End& bound = is_max ? iv.hi : iv.lo;
  // A bound reached at an end: a number from the intervals, or for a product of tests its
  // value at that end (below).
  const bool tests = has_comparison(r->body()) && is_class<mul>(r->body());
  if ((bound.inf || bound.open) && !tests) return std::nullopt;
  ex h;
  bool reached = false;
  exvector ends;  // the body at lb and at ub
  for (const ex& at : {r->lb(), r->ub()}) ends.push_back(decide_all(r->body().subs(exmap{{r->index_ex(), at}}), f));
  if (!bound.inf && !bound.open) {
    h = bound.v;
    for (const ex& g : ends)
      if (is_max ? f.provably_nonneg(g - h) : f.provably_nonpos(g - h)) reached = true;
  }
  // Else a symbolic bound reached at an end: g(lb) >= g(i) for every i in range (proved),
  // for bodies of tests, whose values the prover compares test by test. A butterfly's
  // max (p = 0, P - 1) { (p + 2 ^ s + 1 <= P) (p mod 2 ^ (s + 1) + 1 <= 2 ^ s) } is its
  // value at p = 0, (2 ^ s + 1 <= P).
  if (!reached && tests) {
    for (const ex& g : ends) {
      if (g.has(r->index_ex()) || may_fail(g, f)) continue;
      if (is_max ? in.provably_nonneg(g - r->body()) : in.provably_nonpos(g - r->body())) {
        h = g;
        reached = true;
        break;
      }
    }
  }
  if (!reached) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  auto some = nonempty_factor(*r, f, a);
  if (!some) return std::nullopt;
  return *some * h;
}

// max/min (i = lb, ub) { g * t(i) } for t a residue test ((i + e) mod k == r, or !=) or a
// comparison linear in i (p > 0, p != q), and g free of i: t is 1 on m of the
// n = ub - lb + 1 indices (m counted as sum_mod_count or sum_cmp_count do),
// so the max is g when some index matches (m >= 1) and 0 otherwise, for g >= 0; for
// g <= 0, g when all match (m == n); min the other way round. A phase run only by the
// even-numbered processes, if (i mod 2 == 0) delay(t). Side conditions: residue_test's;
// the sign of g (proved); non-empty range and integer bounds (proved or assumed); a
// linear test's offset does not fail (may_fail: it is evaluated on a non-empty range anyway).
std::optional<ex> rule_ext_indicator(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex g = 1, pred;
  for (const ex& x : operands_of(r->body(), false)) {
    if (pred.is_zero() && x.has(i)) pred = x;
    else if (x.has(i)) return std::nullopt;
    else g *= x;
  }
  if (pred.is_zero()) return std::nullopt;
  std::optional<ex> m = residue_match_count(pred, *r, f);
  if (!m) {
    if (auto lin = linear_match_count(pred, *r, f)) m = lin->count;
  }
  if (!m) return std::nullopt;
  bool up = f.provably_nonneg(g);
  if (!up && !f.provably_nonpos(g)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  ex n = r->ub() - r->lb() + 1;
  bool some = up == (r->kind() == ReduceKind::Max);  // else: all must match
  ex holds = some ? compare(Cmp::Le, 1, *m) : compare(Cmp::Eq, *m, n);
  return g * decide_all(holds, f);
}


// max (p = lo, hi) { sum (j = lb, ub) { (j + e) div k == p + d } }: the most items any block
// p + d of size k receives from the n = ub - lb + 1 consecutive j + e starting at 0
// (lb + e = 0). Every block [q k, (q + 1) k) holds at most ceil(k) integers and at most
// the n items, and block 0 holds min(n, ceil(k)) of them; it is among the p + d when
// lo + d <= 0 <= hi + d. So the max is min(n, ceil(k)) (k for a proved integer), 0 for an
// empty j range. Exact for a real k > 0. Side conditions: k > 0, lb + e = 0,
// lo + d <= 0 <= hi + d (all proved); lb, ub integers (proved or assumed); guarded for a
// possibly empty j range.
std::optional<ex> rule_ext_block_count(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* m = as_red(e, ReduceKind::Max);
  if (!m) return std::nullopt;
  const reduction* r = as_red(m->body(), ReduceKind::Sum);
  if (!r || pamela_function(r->body()) != Fn::Eq) return std::nullopt;
  const ex &p = m->index_ex(), &j = r->index_ex();
  ex dv = r->body().op(0), q = r->body().op(1);
  if (pamela_function(dv) != Fn::Div) std::swap(dv, q);
  if (pamela_function(dv) != Fn::Div || q.has(j)) return std::nullopt;
  const ex& k = dv.op(1);
  auto lj = linear_in(dv.op(0), j);
  auto lp = linear_in(q, p);
  if (!lj || !lp || lj->first != 1 || lp->first != 1 || k.has(j) || k.has(p)) return std::nullopt;
  ex e0 = lj->second, d = lp->second;
  if (r->lb().has(p) || r->ub().has(p) || e0.has(p)) return std::nullopt;
  if (!(r->lb() + e0).expand().is_zero() || !f.provably_positive(k)) return std::nullopt;
  if (!f.provably_nonpos(m->lb() + d) || !f.provably_nonneg(m->ub() + d)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex n = r->ub() - r->lb() + 1;
  ex K = f.provably_integer(k) ? k : ceil_of(k);
  return nonempty_guard(n, f) * make_min({n, K});
}

namespace {

// The residue nodes (a i + e) mod m in x with m an integer in 2..kMaxExtResidue and a a
// nonzero integer, outside inner reductions' bodies; false when i also occurs in a residue
// node of another kind whose modulus is a number (which the split would not remove).
constexpr long kMaxExtResidue = 8;
void residue_moduli(const ex& x, const ex& i, std::set<long>& moduli) {
  if (pamela_function(x) == Fn::Mod && x.op(0).has(i) && is_class<numeric>(x.op(1))) {
    const numeric& m = ex_to<numeric>(x.op(1));
    auto lin = linear_in(x.op(0), i);
    if (m.is_integer() && m >= 2 && m <= kMaxExtResidue && lin && lin->first.is_integer()) moduli.insert(m.to_long());
  }
  for (size_t k = 0; k < x.nops(); ++k) residue_moduli(x.op(k), i, moduli);
}

}  // namespace

// Max over residue classes: max (i = lb, ub) { B(i) } where B mentions residues of i,
// (a i + e) mod m with a number m (2..8; m the lcm of those met, <= 8): the max is the max
// over s = 0..m-1 of max (k = ceil((lb - s) / m), floor((ub - s) / m)) { B(m k + s) }, where
// every residue node is a function of s alone ((a s + e) mod m), so each class's body is
// the plain function of k the other rules read (a worker's speed by the parity of its
// number, t / (1 + w mod 2); a count with a parity test). Exact: the classes partition the
// range. A class may be empty: with B >= 0 over the range (proved) an empty class counts
// as 0, which changes no max of a non-empty range, and an empty range gives 0 on both sides
// for a par's max (0 on an empty range) and for a user's max over a range proved non-empty;
// otherwise every class must be non-empty, ub - lb >= m - 1 (proved or assumed). For a min,
// the same with B <= 0. Side conditions: lb, ub integers (proved or assumed); e integers
// (proved, else the node keeps i and the class body is left as written).
std::optional<ex> rule_ext_residue_split(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  std::set<long> moduli;
  residue_moduli(r->body(), i, moduli);
  if (moduli.empty()) return std::nullopt;
  long m = 1;
  for (long x : moduli) m = std::lcm(m, x);
  if (m > kMaxExtResidue) return std::nullopt;
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub());
  bool is_max = r->kind() == ReduceKind::Max;
  bool zero_classes = (is_max ? fi.provably_nonneg(r->body()) : fi.provably_nonpos(r->body())) &&
                      (r->empty_is_zero() || f.provably_nonneg(r->ub() - r->lb()));
  std::vector<Cond> conds = {{true, r->lb()}, {true, r->ub()}};
  if (!zero_classes) conds.push_back({false, r->ub() - r->lb() - (m - 1)});
  if (!require(conds, f, a)) return std::nullopt;
  symbol k(r->index().get_name());
  exvector classes;
  for (long s = 0; s < m; ++s) {
    ex body = r->body().subs(exmap{{i, m * k + s}}, subs_options::no_pattern);
    // (a (m k + s) + e) mod m = (a s + e) mod m: k drops out of every residue node.
    struct Residues : map_function {
      const symbol& k;
      long m;
      Residues(const symbol& k_, long m_) : k(k_), m(m_) {}
      ex operator()(const ex& x) override {
        ex y = x.map(*this);
        if (pamela_function(y) != Fn::Mod || !is_class<numeric>(y.op(1)) || !y.op(0).has(k)) return y;
        const numeric& mm = ex_to<numeric>(y.op(1));
        if (!mm.is_integer() || m % mm.to_long() != 0) return y;
        auto lin = linear_in(y.op(0), k);
        if (!lin || !lin->first.is_integer() || !irem(lin->first, mm).is_zero()) return y;
        return mod_of(lin->second, mm);
      }
    } residues(k, m);
    body = residues(body);
    ex lo = ceil_of((r->lb() - s) / m), hi = floor_of((r->ub() - s) / m);
    classes.push_back(make_reduction(r->kind(), k, lo, hi, body, zero_classes));
  }
  return is_max ? make_max(classes) : make_min(classes);
}

namespace {

// The first node (x) mod P in e whose x mentions i and whose modulus P does not; nullopt
// when there is none. Not inside an inner reduction's body, whose index may occur in the
// node (p mod 2 ^ l under a sum over l): the node would then name an index out of scope.
std::optional<ex> first_symbolic_mod(const ex& e, const ex& i) {
  if (pamela_function(e) == Fn::Mod && e.op(0).has(i) && !e.op(1).has(i) && !is_class<numeric>(e.op(1))) return e;
  size_t n = is_class<reduction>(e) ? 2 : e.nops();  // a reduction: its bounds only
  for (size_t k = 0; k < n; ++k)
    if (auto m = first_symbolic_mod(e.op(k), i)) return m;
  return std::nullopt;
}

}  // namespace

// An extremum over the residues a body sees: max (i = lb, ub) { B((i + e) mod P) } with
// lb + e = 0 and B depending on i only through that residue is max (r = 0, min(ub - lb,
// P - 1)) { B(r) } (also min): i = lb..ub gives the residues 0, 1, ... in order, each once,
// until they wrap at P - 1, so the values taken are those at r = 0..min(ub - lb, P - 1),
// and the range is empty exactly where the original is (ub < lb). Another start s = lb + e
// (an integer, proved or assumed) takes the residues from s mod P up and, past P - 1, from
// 0 up: two ranges of r (below); then a non-empty range is needed unless the extremum is a
// par's (0 when empty, as both parts are). A worker's time by the
// parity of its processor, t / (2 - (i mod P) mod 2), is then a body of r the residue-class
// split reads. Side conditions: P > 0 (proved, or P >= 1 assumed for a symbol P), P, lb, ub
// integers (proved or assumed); B free of i once the residue is replaced.
std::optional<ex> rule_ext_mod_range(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  auto node = first_symbolic_mod(r->body(), i);
  if (!node) return std::nullopt;
  const ex& P = node->op(1);
  auto lin = linear_in(node->op(0), i);
  if (!lin || lin->first != 1) return std::nullopt;
  const ex start = (r->lb() + lin->second).expand();
  symbol rr(r->index().get_name());
  ex body = r->body().subs(exmap{{*node, rr}}, subs_options::no_pattern);
  if (body.has(i)) return std::nullopt;
  std::vector<Cond> conds = {{true, P}, {true, r->lb()}, {true, r->ub()}};
  if (!f.provably_positive(P)) {
    if (!is_class<symbol>(P)) return std::nullopt;
    conds.push_back({false, P - 1});
  }
  if (!start.is_zero()) {
    conds.push_back({true, start});
    if (!r->empty_is_zero()) conds.push_back({false, r->ub() - r->lb()});
  }
  if (!require(conds, f, a)) return std::nullopt;
  if (start.is_zero()) {
    ex top = f.provably_nonneg(P - 1 - (r->ub() - r->lb())) ? r->ub() - r->lb() : make_min({r->ub() - r->lb(), P - 1});
    return make_reduction(r->kind(), rr, 0, top, body, r->empty_is_zero());
  }
  // Starting at s = lb + e: the residues run from s0 = s mod P up to P - 1 and wrap to 0, so
  // over n = ub - lb + 1 indices they are s0..min(P - 1, s0 + n - 1) and 0..min(s0 - 1,
  // s0 + n - 1 - P), the second part empty unless the run wraps. Each part's extremum is 0
  // on its empty range; the second counts only where it is not empty (for a body of either
  // sign: first + (it is not empty) (second - first) is the first where it is empty).
  const ex s0 = mod_of(start, P), n = r->ub() - r->lb() + 1;
  const ex top2 = make_min({s0 - 1, s0 + n - 1 - P});
  ex first = make_reduction(r->kind(), rr, s0, make_min({P - 1, s0 + n - 1}), body, true);
  symbol r2(r->index().get_name());
  ex second = make_reduction(r->kind(), r2, 0, top2, body.subs(exmap{{rr, r2}}, subs_options::no_pattern), true);
  bool is_max = r->kind() == ReduceKind::Max;
  Facts in = f;
  in.declare_index(rr, 0, P - 1);
  ex wrapped = is_max && in.provably_nonneg(body) ? second : first + compare(Cmp::Le, 0, top2) * (second - first);
  return is_max ? make_max({first, wrapped}) : make_min({first, wrapped});
}

// A max that skips one index: max (q = lb, ub) { (q != c) * B(q) } with c free of q and an
// integer (proved or assumed), B >= 0 over the range (proved): the values are B(q) for
// q != c and 0 at q = c, so the max is the max over the two pieces lb..c - 1 and
// c + 1..ub, each 0 when empty (the 0 at q = c changes no max of values >= 0). Every
// message to another rank, `if (p != q) use(link(...), q + 1)`. The pieces' ends are
// clipped to the range (min(ub, c - 1), max(lb, c + 1)) unless c is proved inside it.
// An empty range gives 0 on both sides for a par's max (0 on an empty range) or a range
// proved non-empty; B is evaluated only where it was (q != c in lb..ub).
std::optional<ex> rule_ext_skip_one(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || r->kind() != ReduceKind::Max) return std::nullopt;
  const ex& q = r->index_ex();
  if (!(r->empty_is_zero() || f.provably_nonneg(r->ub() - r->lb()))) return std::nullopt;
  ex test, body = 1;
  for (const ex& x : operands_of(r->body(), false)) {
    if (test.is_zero() && pamela_function(x) == Fn::Ne && (x.op(0).is_equal(q) || x.op(1).is_equal(q))) {
      test = x;
      continue;
    }
    body *= x;
  }
  if (test.is_zero()) return std::nullopt;
  ex c = test.op(0).is_equal(q) ? test.op(1) : test.op(0);
  if (c.has(q)) return std::nullopt;
  Facts fq = f;
  fq.declare_index(r->index(), r->lb(), r->ub());
  if (!fq.provably_nonneg(body)) return std::nullopt;
  if (!require({{true, c}, {true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  bool inside = f.provably_nonneg(c - r->lb()) && f.provably_nonneg(r->ub() - c);
  ex hi1 = inside ? c - 1 : make_min({r->ub(), c - 1});
  ex lo2 = inside ? c + 1 : make_max({r->lb(), c + 1});
  return make_max({make_reduction(ReduceKind::Max, r->index(), r->lb(), hi1, body, true),
                   make_reduction(ReduceKind::Max, r->index(), lo2, r->ub(), body, true)});
}

}  // namespace pamc::sym

namespace pamc::sym {

// A max over the indices a residue test selects: max (i = lb, ub) { ((i + e) mod k == r) *
// g(i) } with g(i) >= 0 over the range (proved) is max (i = L, U) { g(k i + r - e) }, L =
// ceil((lb - r + e) / k), U = floor((ub - r + e) / k), 0 when no index matches: the
// matching i are exactly k j + r - e for integer j in [L, U] (sum_mod_select's progression),
// and the other indices give 0, which changes no max of values >= 0 (and is the max when
// none matches). Owner computes, if (i mod W == w) use(cpu(i), max(1, i - W)). Side
// conditions: residue_test's (k a positive integer, e an integer, r an integer in
// 0..k - 1, proved; a number r outside them matches nothing: 0); lb, ub integers (proved
// or assumed); the range non-empty (proved) or the max a par's (0 on an empty range, as the
// new one). g is evaluated only at the indices that match, where the product was g.
std::optional<ex> rule_ext_residue_select(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || r->kind() != ReduceKind::Max || !is_class<mul>(r->body()) || is_vector_valued(r->body()))
    return std::nullopt;
  if (!(r->empty_is_zero() || f.provably_nonneg(r->ub() - r->lb()))) return std::nullopt;
  const ex& i = r->index_ex();
  auto sel = residue_selection(r->body(), i, f);
  if (!sel) return std::nullopt;
  const Residue* t = &sel->test;
  const ex& g = sel->rest;
  Facts in = f;
  in.declare_index(r->index(), r->lb(), r->ub());
  if (!in.provably_nonneg(g)) return std::nullopt;
  if (t->none) return ex(0);
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex lo = ceil_of((r->lb() - t->r + t->e) / t->k), hi = floor_of((r->ub() - t->r + t->e) / t->k);
  return t->valid * make_reduction(ReduceKind::Max, r->index(), lo, hi, g.subs(exmap{{i, t->k * i + t->r - t->e}}), true);
}

}  // namespace pamc::sym
