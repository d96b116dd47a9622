// Rewrite rules for the busiest position of a load vector, max(v), where the positions are
// numbers, one-to-one in the index (identity, distinct, rescaled, a 2-D process grid), or
// fall into uniform parts. Cyclic and block maps: rules_index_maps.cpp; intervals, blocks
// and residues overlapping anywhere: load_fibers.cpp.
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

// For max over the entries c_0..c_{n-1} of a vector: may entries that evaluate to 0 at the
// end (they are then not elements: a vector ends at its highest nonzero entry h) be counted
// as zeros without changing the max? Only a max below 0 changes, so it suffices that an
// entry c_j >= 0 lies at or below h: take j the lowest provably nonnegative entry; h >= j
// holds when j = 0 (h < 0 is the zero vector, whose max is 0 either way), or when some entry
// at or above j is provably nonzero. Also fine: c_{n-1} provably nonzero (h = n - 1).
bool trailing_zeros_harmless(const exvector& c, const Facts& f) {
  long n = static_cast<long>(c.size()), top = -1;  // top: highest provably nonzero entry
  if (n == 1) return true;  // [c_0] at c_0 = 0 is the zero vector, whose max is 0 = c_0
  for (long k = n - 1; k >= 0 && top < 0; --k)
    if (f.provably_positive(c[k]) || f.provably_positive(-c[k])) top = k;
  if (top == n - 1) return true;
  for (long j = 0; j < n; ++j)
    if (f.provably_nonneg(c[j])) return j == 0 || top >= j;
  return false;
}

}  // namespace

// max(v) for v = sum_k c_k unitvec(k) with numeric positions: max(c_0, ..., c_{n-1}) with 0
// for the positions not present. A vector's elements end at its highest nonzero one (see
// evaluate.cpp), so when the last entries evaluate to 0 they are not elements; the closed
// form still counts them as zeros. Side condition: trailing_zeros_harmless. Else left alone
// (max([-3, 2 * (N mod 2 == 0)]) is -3 for odd N, where max(-3, 0) would be 0).
std::optional<ex> rule_vmax_numeric(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto vt = split_vector(e.op(0));
  if (!vt || !vt->scalar.is_zero() || vt->terms.empty()) return std::nullopt;
  long n = 0;
  for (const auto& [pos, c] : vt->terms) {
    if (!is_class<numeric>(pos) || !ex_to<numeric>(pos).is_nonneg_integer() || ex_to<numeric>(pos) > 4096)
      return std::nullopt;
    n = std::max(n, ex_to<numeric>(pos).to_long() + 1);
  }
  exvector elems(n, ex(0));
  for (const auto& [pos, c] : vt->terms) elems[ex_to<numeric>(pos).to_long()] += c;
  if (!trailing_zeros_harmless(elems, f)) return std::nullopt;
  return make_max(elems);
}

// max(c * unitvec(k)) for one term with a symbolic position k: = c when c >= 0 is provable
// (the other elements are 0 <= c); = max(c, 0) when k >= 1 is provable (position 0 is a
// zero). Otherwise left alone (k = 0 would give c, k > 0 max(c, 0)).
std::optional<ex> rule_vmax_single(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto vt = split_vector(e.op(0));
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  const auto& [k, c] = vt->terms[0];
  if (is_class<numeric>(k)) return std::nullopt;
  if (f.provably_nonneg(c)) return c;
  if (f.provably_nonneg(k - 1)) return make_max({c, 0});
  return std::nullopt;
}

// Identity mapping: max(s * sum (p = lb, ub) { c(p) * unitvec(p + d) }) with s and d free of p
// and c, s scalars (also a sum of such terms over the same range and d: their weights are
// collected, s c = s_1 c_1 + ... + s_m c_m): the positions are distinct, so the result is
// max (p = lb, ub) { s * c(p) } when s * c(p) >= 0 is provable. Otherwise signs matter: a
// vector ends at its highest nonzero element, so entries s * c(p) = 0 at the top are not
// elements while max (p) counts them (max(sum (p = 0, N) { (p - N) * unitvec(p) }) is -1 at
// N = 1, not 0), and the rule needs one of:
//  - lb + d = 0 and one of s * c(lb) >= 0, s * c(ub) != 0, or s * c(p) = g h(p) with g free
//    of p and h(p) != 0 for all p (as written or factored: the entries are 0 all together
//    or none is; e.g. an index-free body of unknown sign), provable: the result is max (p);
//  - lb + d >= 1 provable (position 0 is a zero below the elements): max(max (p), 0);
//  - s * c(lb) >= 0 and lb + d >= 0 provable (max (p) >= 0): max(max (p), 0), the same
//    value. (lb + d >= 0 because a zero weight at a position below 0 is no element: the
//    term of a guard that is false, `if (p > 0) use(r(p - 1), t)` at p = 0.)
// Else left alone (lb + d = M may be 0, where joining 0 is wrong for negative entries).
// Side conditions always: non-empty range, proved (else the vector is 0 and the max
// reduction an error); integer lb, proved or assumed.
std::optional<ex> rule_vmax_identity(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  // v = s_1 * sum_1 + ... + s_m * sum_m, the sums over one range (lb, ub) with one position
  // p + d each (same d): one sum over p of the collected weights (several operations
  // charged to processor p, e.g. an ownership test and the owned work).
  ex v = e.op(0);
  exvector terms = operands_of(v, true);
  if (terms.size() > 1) terms = sorted_by_text(operands_of(v.expand(), true));  // the first names the index
  const reduction* r = nullptr;
  ex body = 0, d;
  for (const ex& term : terms) {
    auto ds = split_factor(term, [](const ex& t) { return as_red(t, ReduceKind::Sum) != nullptr; });
    if (!ds) return std::nullopt;
    const reduction* rt = as_red(ds->first, ReduceKind::Sum);  // held by `terms`
    const ex& s = ds->second;
    if (r && (!(rt->lb() - r->lb()).expand().is_zero() || !(rt->ub() - r->ub()).expand().is_zero()))
      return std::nullopt;
    auto vt = split_vector(rt->body());
    if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
    const ex& pt = rt->index_ex();
    ex dt = (vt->terms[0].first - pt).expand();
    if (dt.has(pt) || s.has(pt)) return std::nullopt;
    if (r && !(dt - d).expand().is_zero()) return std::nullopt;
    ex c = vt->terms[0].second;
    if (r) c = c.subs(exmap{{pt, r->index_ex()}});
    if (!r) {
      r = rt;
      d = dt;
    }
    body += s * c;
  }
  if (!r) return std::nullopt;
  const ex& p = r->index_ex();
  if (d.has(p)) return std::nullopt;
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub());
  // The positions p + d must exist where a weight may be nonzero: d an integer and the
  // lowest position >= 0, or position lb + d at -1 with a zero weight there (a guard that
  // is false: `if (p > 0) use(link(p - 1), t)`). link(p - 1) unguarded at p = 0 has no value.
  {
    ex start = (r->lb() + d).expand();
    ex w0 = body.subs(exmap{{p, r->lb()}});
    bool zero_at_lb = f.provably_nonneg(w0) && f.provably_nonneg(-w0);
    if (!f.provably_nonneg(start) && !(zero_at_lb && f.provably_nonneg(start + 1)) &&
        !require({{false, start}}, f, a))
      return std::nullopt;
    if (!require({{true, d}}, f, a)) return std::nullopt;
  }
  bool need_zero = false;
  std::vector<Cond> conds{{true, r->lb()}};
  // Failing the cases below, a weight >= 0 at the ends of its concave factors is >= 0
  // throughout (assumed there, and checked).
  auto assume_sign = [&]() {
    auto sign = nonneg_weight_conds(body, r->index(), r->lb(), r->ub(), f, fi);
    if (sign) conds.insert(conds.end(), sign->conds.begin(), sign->conds.end());
    return sign.has_value();
  };
  if (!fi.provably_nonneg(body)) {
    ex start = (r->lb() + d).expand();
    // The entry at lb counts only where it is an element: at a position below 0 a zero
    // weight (a guard that is false) adds nothing, it is not a 0 among the elements.
    bool first_nonneg = f.provably_nonneg(start) && f.provably_nonneg(body.subs(exmap{{p, r->lb()}}));
    ex last = body.subs(exmap{{p, r->ub()}});
    // Entries 0 all together or none: the factors of the body that depend on p are nonzero.
    auto zero_together = [&](const ex& b) {
      ex h = 1;
      for (const ex& x : operands_of(b, false))
        if (x.has(p)) h *= x;
      return fi.provably_positive(h) || fi.provably_positive(-h);
    };
    if (start.is_zero()) {
      if (!first_nonneg && !zero_together(body) && !zero_together(factor_polynomial(body)) &&
          !f.provably_positive(last) && !f.provably_positive(-last) && !assume_sign())
        return std::nullopt;
    } else if (f.provably_nonneg(start - 1) || first_nonneg) {
      need_zero = true;
    } else if (!assume_sign()) {
      return std::nullopt;
    }
  }
  // On an empty range the vector is 0 and has a max (0), where a user's max reduction
  // would have none: unless the range is provably non-empty, the result is a max that is 0
  // on an empty range (as a par's), exact either way.
  bool nonempty = f.provably_nonneg(r->ub() - r->lb());
  if (!require(conds, f, a)) return std::nullopt;
  ex m = make_reduction(ReduceKind::Max, r->index(), r->lb(), r->ub(), body, !nonempty);
  return need_zero ? make_max({m, 0}) : m;
}

// max(sum_t w_t * sum (i = lb_t, ub_t) { c_t * unitvec(pos_t) }) = (lo <= hi) * sum_t w_t c_t
// when every term is uniform on one common span [lo, hi]: it puts w_t c_t on every position
// of the span and nothing elsewhere. Uniform terms: unitvec(i + b) (the span [lb + b, ub +
// b]) and unitvec((i + e) mod k + d) over exactly k consecutive i (ub - lb + 1 = k: each
// residue once; span [d, d + k - 1]), with c_t, w_t free of i. A halo exchange's send to
// the right neighbour (p + 1) mod P and its own link p. Side conditions: w_t c_t >= 0
// (proved); the spans equal (proved: their difference expands to 0); k a positive integer.
std::optional<ex> rule_vmax_uniform(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  std::optional<std::pair<ex, ex>> common;
  ex total = 0;
  int n = 0;
  for (const ex& t : operands_of(v, true)) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) return std::nullopt;
    const reduction& r = ex_to<reduction>(rs->first);
    const ex& i = r.index_ex();
    if (rs->second.has(i)) return std::nullopt;
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero()) return std::nullopt;
    for (const auto& [pos, c] : vt->terms) {
      if (c.has(i)) return std::nullopt;
      std::optional<std::pair<ex, ex>> span;
      if (auto lin = linear_in(pos, i); lin && lin->first == 1) {
        span = std::make_pair(r.lb() + lin->second, r.ub() + lin->second);
      } else if (auto p = mod_div_position(pos, i, Fn::Mod)) {
        if (!f.provably_integer(p->k) || !f.provably_positive(p->k) || !f.provably_integer(p->e0)) return std::nullopt;
        if (!(r.ub() - r.lb() + 1 - p->k).expand().is_zero()) return std::nullopt;
        span = std::make_pair(p->d, p->d + p->k - 1);
      } else {
        return std::nullopt;
      }
      if (!common) common = span;
      else if (!(common->first - span->first).expand().is_zero() || !(common->second - span->second).expand().is_zero())
        return std::nullopt;
      ex wc = rs->second * c;
      if (!f.provably_nonneg(wc) || may_fail(wc, f)) return std::nullopt;
      total += wc;
      ++n;
    }
  }
  if (n < 2 || !common) return std::nullopt;
  // An empty span is the zero vector: the guard is 1 exactly where lo <= hi.
  return decide_all(compare(Cmp::Le, common->first, common->second), f) * total;
}

// Scaled positions: max(w * sum (i = lb, ub) { c(i) * unitvec(m * q(i) + d) }) with m, d free
// of i, m a proved integer >= 1, q(i) a proved integer >= 0 = max(w * sum (i) { c(i) *
// unitvec(q(i)) }): q -> m q + d is one-to-one, so the positions receive the same loads,
// only placed elsewhere, and the rest are zeros. A 2-D grid's column owner Px * (j mod Py) +
// a. Also m = -1 when d - q(i) >= 0 on the range (proved): the reflected owner P - 1 - i mod P.
// Side condition: w c(i) >= 0 on the range (proved), so zeros never decide the max.
std::optional<ex> rule_vmax_rescale(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  ex scaled = 0, d = 0;
  for (const ex& t : operands_of(m->pos.expand(), true)) (t.has(i) ? scaled : d) += t;
  if (!is_class<mul>(scaled)) return std::nullopt;
  ex mult = 1, q = 1;
  for (const ex& x : operands_of(scaled, false)) (x.has(i) ? q : mult) *= x;
  if (mult.is_equal(1) && d.is_zero()) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  // Reflected: d - q(i) with d - q >= 0 on the range (owner P - 1 - i mod P) is one-to-one too.
  bool reflected = mult.is_equal(-1) && in.provably_nonneg(d - q);
  if (!reflected && (!f.provably_integer(mult) || !f.provably_nonneg(mult - 1))) return std::nullopt;
  if (!in.provably_integer(q) || !in.provably_nonneg(q) || !in.provably_nonneg(m->w * m->c)) return std::nullopt;
  return vector_max(m->w * rebuild_reduction(r, ReduceKind::Sum, r.lb(), r.ub(), m->c * unitvec(q)));
}

namespace {

// max(w * sum (i = li, ui) { sum (j = lj, uj) { c * unitvec(u + s * q) } }) read as a 2-D
// process grid: one of u, q depends on i only and the other on j only, s is free of both,
// 0 <= u <= s - 1 (proved) and q >= 0 an integer (proved), the j bounds free of i: the
// position u + s q determines the pair (u, q). c, the product of all the other factors,
// may depend on i and j; each rule says what it needs of it.
struct GridMap {
  ex outer, inner;  // the two sums (held here: the rules read them after grid_map returns)
  ex c, u, q;
  bool u_outer;  // u depends on i (else on j)
  std::vector<Cond> conds;  // to require: the row length s an integer, where not proved
  const reduction& ri() const { return ex_to<reduction>(outer); }
  const reduction& rj() const { return ex_to<reduction>(inner); }
};
std::optional<GridMap> grid_map(const ex& e, const Facts& f) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  auto outer = split_factor(v, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
  if (!outer) return std::nullopt;
  const reduction& ri = ex_to<reduction>(outer->first);
  const ex& i = ri.index_ex();
  if (outer->second.has(i)) return std::nullopt;
  auto inner = split_factor(ri.body().expand(), [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
  if (!inner) return std::nullopt;
  const reduction& rj = ex_to<reduction>(inner->first);
  const ex& j = rj.index_ex();
  if (rj.lb().has(i) || rj.ub().has(i)) return std::nullopt;
  auto vt = split_vector(rj.body());
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  const auto& [pos, c0] = vt->terms[0];
  ex c = outer->second * inner->second * c0;
  // pos = u + s q: the term with a multiplier s and the other.
  exvector terms = operands_of(pos.expand(), true);
  if (terms.size() != 2) return std::nullopt;
  Facts fij = f;
  fij.declare_index(ri.index(), ri.lb(), ri.ub());
  fij.declare_index(rj.index(), rj.lb(), rj.ub());
  for (int k = 0; k < 2; ++k) {
    const ex& u = terms[k];
    const ex& sq = terms[1 - k];
    if (u.has(i) == u.has(j) || sq.has(i) == sq.has(j) || u.has(i) == sq.has(i)) continue;
    ex s = 1, q = 1;
    for (const ex& x : operands_of(sq, false)) (x.has(i) || x.has(j) ? q : s) *= x;
    if (s.is_equal(1)) continue;
    // A row length the model leaves unbounded (a Q x Q grid's Q) is assumed an integer: the
    // positions u + s q are integers wherever they are used only if it is one.
    std::vector<Cond> conds;
    Facts fs = fij;
    if (!f.provably_integer(s)) {
      if (!is_class<symbol>(s) || f.mentions_index(s)) continue;
      conds.push_back({true, s});
      fs.declare_integer(ex_to<symbol>(s));
    }
    // u = x mod s is in [0, s - 1] by itself (s >= 1); else prove it.
    bool u_fits = pamela_function(u) == Fn::Mod && (u.op(1) - s).expand().is_zero() && f.provably_positive(s);
    if (!u_fits) u_fits = fs.provably_nonneg(u) && fs.provably_nonneg(s - 1 - u);
    if (!u_fits || !fs.provably_integer(u) || !fs.provably_integer(q) || !fs.provably_nonneg(q)) continue;
    return GridMap{outer->first, inner->first, c, u, q, u.has(i), conds};
  }
  return std::nullopt;
}

}  // namespace

// Product map (a 2-D process grid, grid_map) with a separable weight c = c0 ci(i) cj(j)
// (each factor of c mentions i or j, not both): the load at (a, b) is c0 (sum of ci over
// the i with (u or q) = a) (sum of cj over the j with (q or u) = b), and the max of these
// products of nonnegative loads is the product of the maxes: c0 max(sum (i) { ci unitvec(u
// or q) }) max(sum (j) { cj unitvec(q or u) }) (a cyclic grid whose work grows with the
// column, j + 1). Empty ranges give 0 on both sides. Side conditions: c0, ci over i's range
// and cj over j's range >= 0 and not failing (proved: ci is now evaluated at every i, where
// the grid evaluated it only under a non-empty j range); grid_map's bounds on u and q.
std::optional<ex> rule_vmax_product(const ex& e, const Facts& f, Assumptions& a) {
  auto g = grid_map(e, f);
  if (!g) return std::nullopt;
  const reduction &ri = g->ri(), &rj = g->rj();
  const ex &i = ri.index_ex(), &j = rj.index_ex();
  ex c0 = 1, ci = 1, cj = 1;
  for (const ex& x : operands_of(g->c, false)) {
    if (x.has(i) && x.has(j)) return std::nullopt;
    (x.has(i) ? ci : x.has(j) ? cj : c0) *= x;
  }
  if (!f.provably_nonneg(c0) || may_fail(c0, f)) return std::nullopt;
  Facts fi = f, fj = f;
  fi.declare_index(ri.index(), ri.lb(), ri.ub());
  fj.declare_index(rj.index(), rj.lb(), rj.ub());
  if (!fi.provably_nonneg(ci) || may_fail(ci, fi) || !fj.provably_nonneg(cj) || may_fail(cj, fj)) return std::nullopt;
  if (!require(g->conds, f, a)) return std::nullopt;
  ex mi = vector_max(rebuild_reduction(ri, ReduceKind::Sum, ri.lb(), ri.ub(), ci * unitvec(g->u_outer ? g->u : g->q)));
  ex mj = vector_max(rebuild_reduction(rj, ReduceKind::Sum, rj.lb(), rj.ub(), cj * unitvec(g->u_outer ? g->q : g->u)));
  return c0 * mi * mj;
}

// Distinct positions: where every point of the index domain has a position of its own, the
// vector holds the weights themselves, and with weights >= 0 its max is their max over the
// domain, 0 on an empty one. The domain is read two ways:
//  - one sum, max(w * sum (i = lb, ub) { c * unitvec(a i + d) }), a a nonzero integer and d
//    free of i: an index-free weight w c gives (ub - lb >= 0) w c (the guard dropped when
//    provable; w c must not fail on a possibly empty range, map_weight), an index-dependent
//    one max (i = lb, ub) { w c };
//  - a 2-D process grid (grid_map) whose u and q are each a nonzero integer times their
//    index plus a term free of it, with a weight c(i, j) (an index-free one is
//    vmax_product's): max (i) { max (j) { c } }. The wavefront over a process grid,
//    if (x + y == d) use(cpu(x * PY + y), t), is one.
// Each max is 0 on its empty range, as the vector's. Side conditions: the weights >= 0 over
// the domain (proved with the indices' ranges); the lower bounds integers, and for an
// index-free weight the upper bound too (proved or assumed).
std::optional<ex> rule_vmax_distinct(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto distinct = [](const ex& x, const ex& idx) {
    auto lin = linear_in(x, idx);  // a nonzero coefficient
    return lin && lin->first.is_integer();
  };
  // max (r) { body }, 0 on an empty range
  auto max_over = [&](const reduction& r, const ex& body) {
    return make_reduction(ReduceKind::Max, r.index(), r.lb(), r.ub(), body, !f.provably_nonneg(r.ub() - r.lb()));
  };
  if (auto m = single_map(e.op(0))) {
    const reduction& r = ex_to<reduction>(m->red);
    if (!distinct(m->pos, r.index_ex())) return std::nullopt;
    // The positions a i + d must exist: d an integer, the lowest one >= 0 (proved, or
    // assumed and checked: cpu(i + B) at B = -3 has no value, and the max of the weights
    // would give one). Over-strict where a guard skips the low positions: then the
    // assumption fails and the unsimplified model answers.
    auto lin = linear_in(m->pos, r.index_ex());
    ex lowest = lin->first.is_positive() ? lin->first * r.lb() + lin->second : lin->first * r.ub() + lin->second;
    if (!require({{true, lin->second}, {false, lowest}}, f, a)) return std::nullopt;
    if (auto wc = map_weight(*m, f, a)) {
      if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
      return nonempty_guard(r.ub() - r.lb(), f) * *wc;
    }
    Facts fi = f;
    fi.declare_index(r.index(), r.lb(), r.ub());
    const ex wc = m->w * m->c;
    if (!m->c.has(r.index_ex())) return std::nullopt;
    auto sign = nonneg_weight_conds(wc, r.index(), r.lb(), r.ub(), f, fi);
    if (!sign) return std::nullopt;
    sign->conds.push_back({true, r.lb()});
    if (!require(sign->conds, f, a)) return std::nullopt;
    return max_over(r, wc);
  }
  auto g = grid_map(e, f);
  if (!g) return std::nullopt;
  const reduction &ri = g->ri(), &rj = g->rj();
  const ex &i = ri.index_ex(), &j = rj.index_ex();
  if (!g->c.has(i) && !g->c.has(j)) return std::nullopt;  // vmax_product's
  if (!distinct(g->u, g->u_outer ? i : j) || !distinct(g->q, g->u_outer ? j : i)) return std::nullopt;
  Facts fij = f;
  fij.declare_index(ri.index(), ri.lb(), ri.ub());
  fij.declare_index(rj.index(), rj.lb(), rj.ub());
  if (!fij.provably_nonneg(g->c)) return std::nullopt;
  std::vector<Cond> conds = g->conds;
  conds.insert(conds.end(), {{true, ri.lb()}, {true, rj.lb()}});
  if (!require(conds, f, a)) return std::nullopt;
  return max_over(ri, max_over(rj, g->c));
}

namespace {

// x = c0 + sum_k a_k i_k over a box of loops is one-to-one when, in some order of the
// loops, each coefficient outweighs the spread of all before it: |a_next| >= sum |a_m|
// (ub_m - lb_m) + 1 (mixed radix: i * Py + j with j in 0..Py - 1). Every a_k must be free
// of the loops and of proved sign (nonzero: a single loop needs a != 0 proved). On success
// `span` is x's spread over the box, sum |a_k| (ub_k - lb_k).
bool one_to_one(const ex& x, const std::vector<Loop>& loops, const Facts& f, ex& span) {
  ex xe = x.expand();
  std::vector<ex> mag;  // |a_k|
  for (const Loop& l : loops) {
    if (xe.degree(l.index) != 1 || xe.ldegree(l.index) < 0) return false;
    ex a = xe.coeff(l.index, 1);
    for (const Loop& o : loops)
      if (a.has(o.index)) return false;
    if (f.provably_positive(a)) mag.push_back(a);
    else if (f.provably_positive(-a)) mag.push_back(-a);
    else return false;
  }
  std::vector<size_t> order(loops.size());
  std::iota(order.begin(), order.end(), 0);
  do {
    ex spread = 0;
    bool ok = true;
    for (size_t k = 0; k < order.size() && ok; ++k) {
      const Loop& l = loops[order[k]];
      if (k > 0) ok = f.provably_nonneg(mag[order[k]] - spread - 1);
      spread += mag[order[k]] * (l.ub - l.lb);
    }
    if (ok) {
      span = spread;
      return true;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return false;
}

}  // namespace

// One-to-one positions over a box of loops: max(w * sum (i_1) { ... sum (i_m) { c * unitvec(
// d + x mod M) } }) (or d + x) with x affine in the loops and one-to-one on the box
// (one_to_one), and, for the mod, x's spread at most M - 1, so that x mod M is one-to-one
// too (a rotation of a process grid, (i * Py + j + 1) mod (Px * Py)). Every position then
// holds one weight, and with weights >= 0 the busiest holds their max: max (i_1) { ... max
// (i_m) { w c } }, each 0 on an empty range as the vector is. Side conditions: the inner
// bounds free of the outer loops; w c >= 0 over the box (proved); M > 0 (proved); d an
// integer >= 0 and the lower bounds integers (proved or assumed). One loop with an index-free
// weight or a grid of two terms is vmax_distinct's.
std::optional<ex> rule_vmax_injective(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto is_vsum = [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); };
  auto top = split_factor(e.op(0).expand(), is_vsum);
  if (!top) return std::nullopt;
  ex weight = top->second, body = top->first;
  std::vector<Loop> loops;
  std::vector<const reduction*> reds;
  Facts in = f;
  while (const reduction* r = as_red(body, ReduceKind::Sum)) {
    if (!is_vector_valued(body)) break;
    for (const Loop& l : loops)
      if (r->lb().has(l.index) || r->ub().has(l.index)) return std::nullopt;
    loops.push_back(Loop{r->index(), r->lb(), r->ub()});
    reds.push_back(r);
    in.declare_index(r->index(), r->lb(), r->ub());
    ex b = r->body().expand();
    if (auto inner = split_factor(b, is_vsum)) {
      weight *= inner->second;
      body = inner->first;
      continue;
    }
    auto vt = split_vector(b);
    if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
    weight *= vt->terms[0].second;
    body = vt->terms[0].first;  // the position
    break;
  }
  if (loops.empty() || is_vector_valued(body)) return std::nullopt;
  if (loops.size() == 1 && !weight.has(loops[0].index)) return std::nullopt;  // vmax_distinct's
  // body = d + x mod M, or d + x
  ex mod_node, d = 0;
  for (const ex& t : operands_of(body.expand(), true)) {
    if (pamela_function(t) == Fn::Mod && mod_node.is_zero()) mod_node = t;
    else d += t;
  }
  ex x = mod_node.is_zero() ? d : mod_node.op(0);
  if (mod_node.is_zero()) d = 0;
  for (const Loop& l : loops)
    if (d.has(l.index) || (!mod_node.is_zero() && mod_node.op(1).has(l.index))) return std::nullopt;
  ex span;
  if (!one_to_one(x, loops, f, span)) return std::nullopt;
  if (!mod_node.is_zero()) {
    const ex& M = mod_node.op(1);
    if (!f.provably_positive(M) || !f.provably_nonneg(M - 1 - span)) return std::nullopt;
  }
  if (may_fail(weight, in)) return std::nullopt;
  std::vector<Cond> conds{{true, d}, {false, d}};
  if (!in.provably_nonneg(weight)) {
    // One loop: a weight >= 0 at the ends of its concave factors (assumed there).
    if (loops.size() != 1) return std::nullopt;
    auto sign = nonneg_weight_conds(weight, loops[0].index, loops[0].lb, loops[0].ub, f, in);
    if (!sign) return std::nullopt;
    conds.insert(conds.end(), sign->conds.begin(), sign->conds.end());
  }
  for (const Loop& l : loops) conds.push_back({true, l.lb});
  if (!mod_node.is_zero()) {
    // Without the mod the lowest position must exist too: d + min x >= 0 is position_domain's.
  }
  if (!require(conds, f, a)) return std::nullopt;
  ex out = weight;
  for (size_t k = loops.size(); k-- > 0;)
    out = make_reduction(ReduceKind::Max, loops[k].index, loops[k].lb, loops[k].ub, out, true);
  return out;
}

}  // namespace pamc::sym
