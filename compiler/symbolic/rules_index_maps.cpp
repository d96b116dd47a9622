// Rewrite rules for the busiest position of a load vector whose positions are a cyclic
// ((i + e) mod k + d) or strided ((a i + e) mod k + d) map of the index, with a constant, a
// monotone or a periodic weight. The map readers (single_map, mod_div_position, map_weight)
// and the weight readers (monotone_weight, periodic_weight) are shared with rules_loads.cpp
// and rules_blocks.cpp.
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
#include <functional>
#include <map>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace detail {

// What it reads and returns: struct MapSum in rules_internal.h.
static std::optional<MapSum> read_single_map(const ex& v) {
  MapSum m;
  bool have = false;
  for (const ex& t : operands_of(v.expand(), true)) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) return std::nullopt;
    if (have && !rs->first.is_equal(m.red)) return std::nullopt;
    m.red = rs->first;
    m.w += rs->second;
    have = true;
  }
  if (!have) return std::nullopt;
  const reduction& r = ex_to<reduction>(m.red);
  auto vt = split_vector(r.body());
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  m.pos = vt->terms[0].first;
  m.c = vt->terms[0].second;
  if (m.w.has(r.index_ex())) return std::nullopt;
  return m;
}

// The rules below are tried one after another on the same vector, and each reads it here
// first: the last answer is kept, with its vector (so that no other takes its address).
std::optional<MapSum> single_map(const ex& v) {
  static thread_local ex last_v;
  static thread_local std::optional<MapSum> last;
  if (!are_ex_trivially_equal(v, last_v)) last = read_single_map(v), last_v = v;
  return last;
}

// What it reads and returns: struct ModDivPos in rules_internal.h.
std::optional<ModDivPos> mod_div_position(const ex& pos, const ex& i, Fn which, bool allow_neg) {
  ex fn, d = 0;
  bool found = false;
  for (const ex& t : operands_of(pos.expand(), true)) {
    if (pamela_function(t) == which && t.op(0).has(i) && !found) {
      fn = t;
      found = true;
    } else {
      d += t;
    }
  }
  if (!found || d.has(i) || fn.op(1).has(i)) return std::nullopt;
  auto lin = linear_in(fn.op(0), i);
  if (!lin) return std::nullopt;
  const numeric& a = lin->first;
  if (which == Fn::Div && a != 1 && a != -1 && a.is_rational()) {
    // (a i + e) div k = (s i + e / |a|) div (k / |a|), s the sign of a: a block of k / |a|
    // indices (2 i div B: blocks of B / 2).
    if (a.is_negative() && !allow_neg) return std::nullopt;
    return ModDivPos{lin->second / abs(a), fn.op(1) / abs(a), d, a.is_positive() ? 1 : -1};
  }
  if (a != 1 && !(allow_neg && a == -1)) return std::nullopt;
  return ModDivPos{lin->second, fn.op(1), d, a == 1 ? 1 : -1};
}

// The busiest-position factor is applied to w * c; it must be index-free, >= 0, and (unless
// the range is provably non-empty) never fail, as brute force does not evaluate it then.
// A weight that divides by parameters (w / (X Y) over X Y items) may fail only where the
// range is empty: then X >= 1 and Y >= 1 are assumed, as for a sum (cannot_fail_or_assume).
std::optional<ex> map_weight(const MapSum& m, const Facts& f, Assumptions& a) {
  const reduction& r = ex_to<reduction>(m.red);
  ex wc = m.w * m.c;
  if (m.c.has(r.index_ex())) return std::nullopt;
  Facts g = f;  // with the denominators >= 1 where they are assumed
  std::vector<Cond> conds;
  if (may_fail(wc, f) && !f.provably_nonneg(r.ub() - r.lb())) {
    std::vector<symbol> dens;
    denominators(wc, dens);
    for (const symbol& d : dens) {
      if (f.mentions_index(d) || f.provably_positive(d)) continue;
      g.add_lower(d, 1, false);
      conds.push_back({false, d - 1});
    }
    if (may_fail(wc, g)) return std::nullopt;
  }
  if (!g.provably_nonneg(wc) || !require(conds, f, a)) return std::nullopt;
  return wc;
}

std::optional<AffineRounding> affine_rounding(const ex& pos, const ex& i, Fn which) {
  ex fn, d = 0;
  for (const ex& t : operands_of(pos.expand(), true)) {
    if (pamela_function(t) == which && t.op(0).has(i) && fn.is_zero()) fn = t;
    else d += t;
  }
  if (fn.is_zero() || d.has(i) || fn.op(1).has(i)) return std::nullopt;
  ex x = fn.op(0).expand();
  if (!x.is_polynomial(i) || x.degree(i) != 1) return std::nullopt;
  ex a = x.coeff(i, 1), e = x.coeff(i, 0);
  if (a.has(i) || e.has(i)) return std::nullopt;
  return AffineRounding{a, e, fn.op(1), d};
}

namespace {

// a nonzero whole number with |a| <= 64: a stride the numeric cases read
bool numeric_stride(const ex& a) {
  if (!is_class<numeric>(a)) return false;
  const numeric& n = ex_to<numeric>(a);
  return n.is_integer() && !n.is_zero() && abs(n) <= 64;
}

}  // namespace

std::optional<StridedPos> strided_position(const ex& pos, const ex& i) {
  auto p = affine_rounding(pos, i, Fn::Mod);
  if (!p || !numeric_stride(p->a)) return std::nullopt;
  return StridedPos{ex_to<numeric>(p->a), p->e, p->k, p->d};
}

std::optional<AffineRounding> any_stride_position(const ex& pos, const ex& i, const Facts& f) {
  auto p = affine_rounding(pos, i, Fn::Mod);
  if (!p) return std::nullopt;
  if (is_class<numeric>(p->a) ? !numeric_stride(p->a) : !f.provably_integer(p->a)) return std::nullopt;
  return p;
}

// f(gcd(a, k)): by_gcd_cases for a number a, else f of the gcd itself.
ex gcd_cases(const ex& a, const ex& k, const std::function<ex(const ex&)>& fn) {
  if (is_class<numeric>(a)) return by_gcd_cases(abs(ex_to<numeric>(a)).to_long(), k, fn);
  return fn(gcd_of(a, k));
}

std::optional<exmap> residues_at(const ex& w, const ex& i, const ex& P, const symbol& rho, const Facts& f,
                                 bool reversed_too) {
  exmap out;
  for (const_preorder_iterator it = w.preorder_begin(); it != w.preorder_end(); ++it) {
    if (pamela_function(*it) != Fn::Mod || !it->op(1).is_equal(P) || !it->op(0).has(i)) continue;
    auto li = linear_in(it->op(0), i);
    if (!li || !(li->first.is_equal(1) || (reversed_too && li->first.is_equal(-1))) || !f.provably_integer(li->second))
      return std::nullopt;
    out[*it] = li->first.is_equal(1) && li->second.is_zero() ? ex(rho) : mod_of(li->first * rho + li->second, P);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// f(gcd(a, k)) for a positive integer a and an integer k >= 1, as cases on k mod a: the sum
// over the values g that gcd(a, s) takes for s = 0..a-1 of [k mod a in the s with gcd g] *
// f(g). Each case is a guard the simplifier reads as a fact (k mod 2 == 0 makes k / 2 an
// integer), so f(g) is simplified where it holds: gcd(2, P) gives (P mod 2 == 0) f(2) +
// (P mod 2 == 1) f(1). A number k gives f(gcd(a, k)).
ex by_gcd_cases(long a, const ex& k, const std::function<ex(const ex&)>& fn) {
  if (a == 1) return fn(1);
  if (is_class<numeric>(k) && ex_to<numeric>(k).is_integer()) return fn(GiNaC::gcd(numeric(a), ex_to<numeric>(k)));
  std::map<long, std::vector<long>> by_g;  // g -> the s with gcd(a, s) = g
  for (long r = 0; r < a; ++r) by_g[std::gcd(a, r)].push_back(r);
  ex out = 0;
  for (const auto& [g, rs] : by_g) {
    bool odd = a % 2 == 0 && static_cast<long>(rs.size()) * 2 == a;
    for (long r : rs) odd = odd && r % 2 == 1;
    ex when = 0;
    if (odd) {
      when = compare(Cmp::Eq, mod_of(k, 2), 1);
    } else {
      for (long r : rs) when += compare(Cmp::Eq, mod_of(k, a), r);
    }
    out += when * fn(g);
  }
  return out;
}

}  // namespace detail

namespace {

// Strided cyclic map: max(w * sum (i = lb, ub) { c * unitvec((a i + e) mod k + d) }) with a
// a nonzero integer constant (|a| <= 64) or a symbolic integer (proved: the W of a filter
// i mod W == c), k an integer >= 1 (the model's fact for a mod),
// w c free of i and >= 0. Over n consecutive i the positions repeat with period k / g,
// g = gcd(a, k), and within a period hit k / g distinct positions once each; so the busiest
// position holds ceil(n / (k / g)) = ceil(n g / k) items. The shift e and the offset d move
// positions, not counts: they must make positions that exist (e an integer, d an integer
// >= 0: proved, or assumed and checked, as a fractional or negative position has no value).
// A symbolic a gives gcd(a, k) itself (any integer a: gcd(0, k) = k puts every item on one
// position, ceil(n k / k) = n).
std::optional<ex> vmax_strided(const MapSum& m, const Facts& f, Assumptions& a) {
  const reduction& r = ex_to<reduction>(m.red);
  const ex& i = r.index_ex();
  auto sp = any_stride_position(m.pos, i, f);
  if (!sp || sp->a.is_equal(1) || sp->a.is_equal(-1)) return std::nullopt;
  const ex& k = sp->k;
  if (!f.provably_positive(k) || !f.provably_integer(k)) return std::nullopt;
  auto wc = map_weight(m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}, {true, sp->e}, {true, sp->d}, {false, sp->d}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  return nonempty_guard(n, f) * gcd_cases(sp->a, k, [&](const ex& g) { return ceil_of(n * g / k); }) * *wc;
}

}  // namespace

// Cyclic map: max(w * sum (i = lb, ub) { c * unitvec((i + e) mod k + d) }) with w c free of i
// and >= 0: the busiest position gets ceil(n / k) of the n = ub - lb + 1 items (n
// consecutive integers spread over k residues), so the result is ceil(n / k) w c.
// Side conditions: k > 0 (proved), e an integer (proved), lb, ub integers (proved or
// assumed); w c >= 0 (proved). When k is not provably an integer the result uses ceil(k):
// with a real k brute force has a value only when all i + e lie in one block of length k
// (then n <= ceil(k) distinct positions, ceil(n / ceil(k)) = 1), and ceil(k) = k otherwise;
// k itself is kept when 1 <= lb + e < 2 k is proved (e.g. i = 1..N with k >= 1).
// Guarded where the range may be empty (then the vector is 0 and so is its max).
std::optional<ex> rule_vmax_cyclic(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  if (auto strided = vmax_strided(*m, f, a)) return strided;
  auto p = mod_div_position(m->pos, r.index_ex(), Fn::Mod);
  if (!p || !f.provably_positive(p->k)) return std::nullopt;
  // The shift and the offset must give positions that exist (integers, offset >= 0).
  if (!f.provably_integer(p->e0) && !(f.provably_integer(p->k) && require({{true, p->e0}}, f, a))) return std::nullopt;
  if (!require({{true, p->d}, {false, p->d}}, f, a)) return std::nullopt;
  auto wc = map_weight(*m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  // A real k is as good as an integer when 1 <= lb + e < 2 k: the one-block case then has
  // n <= ub + e < k items, and a block q >= 1 with q k an integer would need 2 k <= lb + e.
  ex start = r.lb() + p->e0;
  bool k_integer = f.provably_integer(p->k);  // else ask for real_ok (whose proof may need a sign)
  bool real_ok = !k_integer && f.provably_nonneg(start - 1) && f.provably_positive(2 * p->k - start);
  ex k = k_integer || real_ok ? p->k : ceil_of(p->k);
  return nonempty_guard(n, f) * ceil_of(n / k) * *wc;
}

// Several cyclic maps of one loop range with consecutive offsets and one weight: v = w *
// sum_t sum (i = lb, ub) { unitvec((i + e_t) mod k + d) }, e_t = e + t for t = 0..m-1 in any
// order, m >= 2 (a ring neighbour's uses of cpu(i mod P) and cpu((i + 1) mod P)). Each map
// gives every residue q = floor(n / k) items plus one more to the n mod k residues of a
// cyclic block E; position r receives m q + #{t : r - e_t in E}, and a window of m
// consecutive residues meets the block in at most min(n mod k, m) places (attained), so the
// max is w (m q + min(n mod k, m)). Two maps may weigh differently (w0, w1): (w0 + w1) q +
// (n mod k >= 1) max(w0, w1) + (n mod k >= 2) min(w0, w1). Side conditions: k a positive
// integer and the offsets integers whose differences are the numbers 0..m-1 (proved); m <= k
// (proved or assumed: a window longer than the cycle wraps onto itself); w >= 0 and free of
// i (proved); lb, ub integers (proved or assumed); an empty range gives 0 (guarded).
std::optional<ex> rule_vmax_cyclic_shifts(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  exvector terms = operands_of(e.op(0).expand(), true);
  if (terms.size() < 2 || terms.size() > 16) return std::nullopt;
  ex lb, ub, k, d, w;
  std::vector<ex> offsets, weights;
  for (const ex& t : terms) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) return std::nullopt;
    const reduction& r = ex_to<reduction>(rs->first);
    const ex& i = r.index_ex();
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
    const auto& [pos, c] = vt->terms[0];
    if (c.has(i) || rs->second.has(i)) return std::nullopt;
    auto p = mod_div_position(pos, i, Fn::Mod);
    if (!p) return std::nullopt;
    ex wt = rs->second * c;
    if (offsets.empty()) {
      lb = r.lb(), ub = r.ub(), k = p->k, d = p->d, w = wt;
    } else if (!(r.lb() - lb).expand().is_zero() || !(r.ub() - ub).expand().is_zero() || !(p->k - k).expand().is_zero() ||
               !(p->d - d).expand().is_zero()) {
      return std::nullopt;
    }
    offsets.push_back(p->e0);
    weights.push_back(wt);
  }
  // The offsets, less the first, must be the numbers 0..m-1 shifted by one common number.
  // An offset is only known modulo k: (i + P - 1) mod P is (i - 1) mod P.
  std::vector<std::pair<long, ex>> shifts;  // (offset less the first, weight)
  for (std::size_t t = 0; t < offsets.size(); ++t) {
    ex diff = (offsets[t] - offsets[0]).expand();
    for (const ex& alt : {(diff - k).expand(), (diff + k).expand()})
      if (!is_class<numeric>(diff) && is_class<numeric>(alt)) diff = alt;
    if (!is_class<numeric>(diff) || !ex_to<numeric>(diff).is_integer()) return std::nullopt;
    shifts.emplace_back(ex_to<numeric>(diff).to_long(), weights[t]);
  }
  std::sort(shifts.begin(), shifts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (std::size_t t = 1; t < shifts.size(); ++t)
    if (shifts[t].first != shifts[t - 1].first + 1) return std::nullopt;
  const long m = static_cast<long>(shifts.size());
  bool equal = true;
  for (const auto& [sh, wt] : shifts) {
    equal = equal && (wt - w).expand().is_zero();
    if (!f.provably_nonneg(wt) || may_fail(wt, f)) return std::nullopt;
  }
  // Different weights only for two maps: with more, the residues a position meets in the
  // block need not be consecutive shifts, and the heaviest window is no bound.
  if (!equal && m != 2) return std::nullopt;
  if (!f.provably_positive(k) || !f.provably_integer(k) || !f.provably_integer(offsets[0])) return std::nullopt;
  if (!require({{true, lb}, {true, ub}, {false, k - m}}, f, a)) return std::nullopt;
  ex n = ub - lb + 1;
  ex q = floor_of(n / k);
  ex e_rest = mod_of(n, k);
  if (equal) return nonempty_guard(n, f) * w * (m * q + make_min({e_rest, ex(m)}));
  // Two maps, weights w0, w1: a position gets both extra items when the block holds two
  // consecutive residues (n mod k >= 2), else the heavier one when it holds one.
  const ex& w0 = shifts[0].second;
  const ex& w1 = shifts[1].second;
  return nonempty_guard(n, f) * ((w0 + w1) * q + compare(Cmp::Le, 1, e_rest) * make_max({w0, w1}) +
                                 compare(Cmp::Le, 2, e_rest) * make_min({w0, w1}));
}

namespace detail {

// The weight w c(i) of a map sum, when it is >= 0 on the range (proved, or at the ends of a
// concave weight: `conds`, for the rule's require) and monotone in i (proved): (w c, true)
// for nondecreasing, (w c, false) for nonincreasing. It must not fail where the range may be
// empty (brute force would not evaluate it there).
std::optional<MonotoneWeight> monotone_weight(const MapSum& m, const reduction& r, const Facts& f) {
  const ex& i = r.index_ex();
  ex wc = m.w * m.c;
  if (may_fail(wc, f) && !f.provably_nonneg(r.ub() - r.lb())) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  auto sign = nonneg_weight_conds(wc, r.index(), r.lb(), r.ub(), f, in);
  if (!sign) return std::nullopt;
  Facts step = f;
  step.declare_index(r.index(), r.lb(), r.ub() - 1);
  sign->declare_in(in);  // >= 0 on the range wherever the conditions hold
  sign->declare_in(step);
  ex d = (wc.subs(exmap{{i, i + 1}}) - wc).expand();
  bool up = step.provably_nonneg(d);
  if (!up && !step.provably_nonpos(d)) {
    // By structure where the difference does not simplify: i div P + 1 rises with i.
    auto dir = structural_direction(sign->form, i, in);
    if (!dir || *dir == 0) return std::nullopt;
    up = *dir > 0;
  }
  return MonotoneWeight{wc, up, sign->conds};
}

}  // namespace detail

// Cyclic map with a weight that depends on the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec((i + e) mod k + d) }). The n = ub - lb + 1 items fall into residue classes, each
// an arithmetic progression with step k; with w c(i) >= 0 and nondecreasing in i, the class
// of ub is the busiest: a class with as many items is dominated term by term (its t-th
// largest item is <= ub - t k), and a class with one item fewer is dominated by it without
// its smallest item. It holds the m = ceil(n / k) items ub - t k, t = 0..m-1, so the max is
// sum (t = 0, m - 1) { w c(ub - k t) } (nonincreasing: the class of lb, c(lb + k t)); that
// sum is closed by the sum rules (Faulhaber for a polynomial c) and is 0 on an empty range,
// where the vector is 0. Side conditions: k a positive integer, e an integer (proved; the
// model implies both for i mod P); w c(i) >= 0 on the range and the monotonicity
// (proved); w c does not fail unless the range is provably non-empty; lb, ub integers
// (proved or assumed). An index-free c is vmax_cyclic's case.
// Strided, (a i + e) mod k + d with a a nonzero integer (|a| <= 64): two indices share a
// position iff k divides a (i - i'), iff k' = k / gcd(a, k) divides i - i', so the fibers
// are the residue classes mod k' and the same argument gives the class of ub with k' for
// k (red-black or even/odd phases, 2 i mod P: k' = P / (1 + (P mod 2 == 0))); a symbolic
// integer a (a filter's W) gives k' = k / gcd(a, k). Then e and d must give positions that
// exist: integers, d >= 0 (proved or assumed).
std::optional<ex> rule_vmax_cyclic_weighted(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  ex k, stride = 1;
  if (auto p = mod_div_position(m->pos, i, Fn::Mod)) {
    if (!f.provably_positive(p->k) || !f.provably_integer(p->k) || !f.provably_integer(p->e0)) return std::nullopt;
    k = p->k;
  } else {
    auto sp = any_stride_position(m->pos, i, f);
    if (!sp) return std::nullopt;
    k = sp->k;
    if (!f.provably_positive(k) || !f.provably_integer(k)) return std::nullopt;
    if (!require({{true, sp->e}, {true, sp->d}, {false, sp->d}}, f, a)) return std::nullopt;
    stride = sp->a;
  }
  auto mono = monotone_weight(*m, r, f);
  if (!mono) return std::nullopt;
  const ex& wc = mono->wc;
  bool up = mono->up;
  std::vector<Cond> conds = {{true, r.lb()}, {true, r.ub()}};
  conds.insert(conds.end(), mono->conds.begin(), mono->conds.end());
  if (!require(conds, f, a)) return std::nullopt;
  return gcd_cases(stride, k, [&](const ex& g) {
    ex period = k / g;
    ex count = ceil_of((r.ub() - r.lb() + 1) / period);
    ex item = up ? r.ub() - period * i : r.lb() + period * i;
    return rebuild_reduction(r, ReduceKind::Sum, 0, count - 1, wc.subs(exmap{{i, item}}));
  });
}

// Cyclic map with any weight >= 0: max(w * sum (i = lb, ub) { c(i) * unitvec((i + e) mod k +
// d) }) read class by class (a strided map, (a i + e) mod k with a whole number |a| <= 8, as
// the same classes of i mod k / gcd(a, k), by cases on gcd(a, k)), the general path where no shape of the weight is known (a
// rising and falling count of a triangle's rows, (N - i + 1) i; a row's cost times the
// items left). The n = ub - lb + 1 items fall into k classes: class s (0 <= s <= k - 1)
// holds lb + s + k t, t = 0, 1, ..., q items for s < rho and q - 1 for s >= rho, where q =
// floor(n / k) and rho = n mod k (for n < k: q = 0, the classes s < n one item each, the
// others none). Distinct classes sit at distinct positions, and positions no item reaches
// hold 0, below every load. So the busiest is max(max (s = 0, rho - 1) { sum (t = 0, q) {
// w c(lb + s + k t) } }, max (s = rho, k - 1) { sum (t = 0, q - 1) { w c(lb + s + k t) } }),
// each max 0 on its empty range (loads are >= 0); the sum rules close the sums, the extremum
// rules the maxes (a concave quadratic at its vertex). Side conditions: k a positive
// integer (proved); e, lb, ub and d integers, d >= 0 (proved or assumed: a position must
// exist); w c >= 0 on the range (proved, or at the ends of a concave weight, assumed); w c
// not failing unless the range is provably non-empty; 0 where the range is empty.
std::optional<ex> rule_vmax_cyclic_classes(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  // (a i + e) mod k + d, a a whole number: i and i' share a position iff k / gcd(a, k)
  // divides i - i', so the classes are those of i mod k / gcd(a, k) (by cases on gcd(a, k))
  auto p = strided_position(m->pos, i);
  if (!p || abs(p->a) > 8 || !f.provably_positive(p->k) || !f.provably_integer(p->k)) return std::nullopt;
  const ex wc = m->w * m->c;
  if (may_fail(wc, f) && !f.provably_nonneg(r.ub() - r.lb())) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  auto sign = nonneg_weight_conds(wc, r.index(), r.lb(), r.ub(), f, in);
  if (!sign) return std::nullopt;
  std::vector<Cond> conds{{true, r.lb()}, {true, r.ub()}, {true, p->e}, {true, p->d}, {false, p->d}};
  conds.insert(conds.end(), sign->conds.begin(), sign->conds.end());
  if (!require(conds, f, a)) return std::nullopt;
  symbol s(r.index().get_name()), t("t");
  // Tests the range decides (a count's (i - 1 <= N) on i = 1..N - 1) go first: on a class
  // they would read as tests of s and t that need the class's place in the range. A weight
  // with a rounding, a residue, a test, a min or a max left is the periodic, residue and
  // piecewise rules' (tried first, or after a split): read by classes it would only hide its
  // shape from them.
  const ex plain = decide_all(wc, in);
  for (const_preorder_iterator it = plain.preorder_begin(); it != plain.preorder_end(); ++it)
    if (pamela_function(*it) != Fn::None || is_class<extremum>(*it)) return std::nullopt;
  const ex n = r.ub() - r.lb() + 1;
  // rho as n - k q, not n mod k: with it the prover sees each item inside the range (lb + s
  // + k t <= lb + rho - 1 + k q = ub), which a count in the weight needs.
  auto by_classes = [&](const ex& k) {
    const ex q = floor_of(n / k), rho = n - k * q;
    ex item = plain.subs(exmap{{i, r.lb() + s + k * t}}, subs_options::no_pattern);
    auto classes = [&](const ex& lo, const ex& hi, const ex& last) {
      return make_reduction(ReduceKind::Max, s, lo, hi, make_reduction(ReduceKind::Sum, t, 0, last, item), true);
    };
    return make_max({classes(0, rho - 1, q), classes(rho, k - 1, q - 1)});
  };
  const long a_abs = abs(p->a).to_long();
  // floor(k / g): k / g itself in its case, and an integer (no item or bound without a
  // value) in the others, which the case's guard multiplies by 0
  ex busiest = a_abs == 1 ? by_classes(p->k)
                          : by_gcd_cases(a_abs, p->k, [&](const ex& g) { return by_classes(floor_of(p->k / g)); });
  return nonempty_guard(n, f) * busiest;
}

namespace detail {

// A weight that sees i through residues (a i + e) mod m with numeric moduli (the nodes, of
// period M = 2..12) and otherwise, with each node frozen as an integer in 0..m - 1, not at
// all or monotonically in i over the range (proved step by step): up for nondecreasing.
std::optional<PeriodicWeight> periodic_weight(const ex& wc, const reduction& r, const Facts& f) {
  const ex& i = r.index_ex();
  PeriodicWeight out;
  std::function<void(const ex&)> walk = [&](const ex& x) {
    if (!x.has(i)) return;
    if (pamela_function(x) == Fn::Mod && is_class<numeric>(x.op(1)) && x.op(0).has(i)) {
      if (std::none_of(out.nodes.begin(), out.nodes.end(), [&](const ex& y) { return y.is_equal(x); }))
        out.nodes.push_back(x);
      return;
    }
    for (size_t k = 0; k < x.nops(); ++k) walk(x.op(k));
  };
  walk(wc);
  if (out.nodes.empty()) return std::nullopt;
  ex all = 0;
  for (const ex& x : out.nodes) all += x;
  out.M = numeric_period(all, i, f);
  if (out.M < 2) return std::nullopt;
  exmap freeze;
  Facts step = f;
  step.declare_index(r.index(), r.lb(), r.ub() - 1);
  for (const ex& x : out.nodes) {
    GiNaC::symbol rho("_rho");
    step.declare_index(rho, 0, x.op(1) - 1);
    freeze[x] = rho;
  }
  ex frozen = wc.subs(freeze, subs_options::no_pattern);
  if (frozen.has(i)) {
    ex diff = (frozen.subs(exmap{{i, i + 1}}) - frozen).expand();
    out.up = step.provably_nonneg(diff);
    if (!out.up && !step.provably_nonpos(diff)) return std::nullopt;
  }
  return out;
}

}  // namespace detail

// Cyclic map with a weight periodic in the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec((a i + e) mod k + d) }) where c sees i through residues with numeric moduli, of
// period M (2..4), and otherwise (the residues frozen) not at all or monotonically: odd
// items twice as dear, (i mod 2) + 1, also times the items left, (N - i + 1). With k' = k /
// gcd(a, k) the fibers are the classes of lb + j, j = 0..k' - 1 (as in
// vmax_cyclic_weighted), class j holding cnt_j = ceil((n - j) / k') items lb + j + k' t,
// cnt_j falling as j grows. On a fiber k' t = s t modulo M, s = k' mod M, so item t's
// residues are those of lb + j + s t. With w c >= 0 and the rest nonincreasing (or free of
// i), class j mod M (the same residues item by item, each item at or before its partner, as
// many items or more) is at least as busy as class j: the max is over j = 0..M - 1 that are
// classes (j <= k' - 1). With the rest nondecreasing, mirrored: the classes whose last
// items are ub - j, j = 0..M - 1, items ub - j - k' t, t = 0..floor((ub - j - lb) / k').
// One case per value s of k' mod M; each load a sum closed by the sum rules; positions no
// item reaches hold 0, below every load. Side conditions: k a positive integer, a an
// integer (|a| <= 64), e, d integers, d >= 0, lb, ub integers (proved or assumed); w c >= 0
// on the range and the monotonicity (proved, the residues as integers in 0..m - 1); w c not
// failing unless the range is provably non-empty; guarded for an empty range. A weight that
// is a residue filter alone is left to the progression it selects (sum_mod_select).
std::optional<ex> rule_vmax_cyclic_periodic(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  ex wc = m->w * m->c;
  auto pw = periodic_weight(wc, r, f);
  if (!pw || pw->M > 4) return std::nullopt;
  const long M = pw->M;
  const exvector& nodes = pw->nodes;
  // A residue filter times a weight free of i (if (i mod 2 == 0)) is a progression whose
  // map vmax_cyclic reads with one count: ceil(2 (floor(N / 2) + 1) / P).
  if (auto sel = residue_selection(m->c, i, f); sel && !sel->rest.has(i)) return std::nullopt;
  auto sp = strided_position(m->pos, i);
  if (!sp) return std::nullopt;
  const ex& k = sp->k;
  if (!f.provably_positive(k) || !f.provably_integer(k)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  if (may_fail(wc, f) && !f.provably_nonneg(n - 1)) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  if (!in.provably_nonneg(wc)) return std::nullopt;
  const bool up = pw->up;
  if (!require({{true, sp->e}, {true, sp->d}, {false, sp->d}, {true, r.lb()}, {true, r.ub()}}, f, a))
    return std::nullopt;
  // The weight of the item at x = x0 +- k' t, its residues read at x0 +- s t (k' = s mod M).
  GiNaC::symbol T("_t");
  auto item_weight = [&](const ex& residue_at, const ex& at) {
    exmap by_residue;
    for (const ex& x : nodes) by_residue[x] = x.subs(exmap{{i, residue_at}}, subs_options::no_pattern);
    ex w = wc.subs(by_residue, subs_options::no_pattern).subs(exmap{{i, at}}, subs_options::no_pattern);
    return w.subs(exmap{{T, i}}, subs_options::no_pattern);
  };
  ex busiest = by_gcd_cases(abs(sp->a).to_long(), k, [&](const ex& g) {
    ex kp = k / g, out = 0;
    for (long s = 0; s < M; ++s) {
      exvector loads;
      for (long j = 0; j < M; ++j) {
        ex load;
        if (!up) {  // the class of lb + j: items lb + j + k' t
          ex w = item_weight(r.lb() + j + s * T, r.lb() + j + kp * T);
          load = rebuild_reduction(r, ReduceKind::Sum, 0, ceil_of((n - j) / kp) - 1, w);
        } else {  // the class whose last item is ub - j: items ub - j - k' t
          ex w = item_weight(r.ub() - j - s * T, r.ub() - j - kp * T);
          load = rebuild_reduction(r, ReduceKind::Sum, 0, floor_of((r.ub() - j - r.lb()) / kp), w);
          if (j > 0) load = compare(Cmp::Le, j, r.ub() - r.lb()) * load;
        }
        loads.push_back(j == 0 ? load : compare(Cmp::Le, j, kp - 1) * load);
      }
      out += compare(Cmp::Eq, mod_of(kp, M), s) * make_max(loads);
    }
    return out;
  });
  return nonempty_guard(n, f) * busiest;
}

}  // namespace pamc::sym
