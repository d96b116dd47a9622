// Rewrite rules for the busiest position of a load vector whose positions are a cyclic
// ((i + e) mod k + d), strided, block ((i + e) div k + d) or block-cyclic map of the index,
// with a constant or a monotone weight. The map readers (single_map, mod_div_position,
// map_weight) are shared with rules_loads.cpp.
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

std::optional<StridedPos> strided_position(const ex& pos, const ex& i) {
  ex fn, d = 0;
  for (const ex& t : operands_of(pos.expand(), true)) {
    if (pamela_function(t) == Fn::Mod && t.op(0).has(i) && fn.is_zero()) fn = t;
    else d += t;
  }
  if (fn.is_zero() || d.has(i) || fn.op(1).has(i)) return std::nullopt;
  auto lin = linear_in(fn.op(0), i);
  if (!lin || !lin->first.is_integer() || lin->first.is_zero() || abs(lin->first) > 64) return std::nullopt;
  return StridedPos{lin->first, lin->second, fn.op(1), d};
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
// a nonzero integer constant (|a| <= 64), k an integer >= 1 (the model's fact for a mod),
// w c free of i and >= 0. Over n consecutive i the positions repeat with period k / g,
// g = gcd(a, k), and within a period hit k / g distinct positions once each; so the busiest
// position holds ceil(n / (k / g)) = ceil(n g / k) items. The shift e and the offset d move
// positions, not counts: they must make positions that exist (e an integer, d an integer
// >= 0: proved, or assumed and checked, as a fractional or negative position has no value).
std::optional<ex> vmax_strided(const MapSum& m, const Facts& f, Assumptions& a) {
  const reduction& r = ex_to<reduction>(m.red);
  const ex& i = r.index_ex();
  auto sp = strided_position(m.pos, i);
  if (!sp || abs(sp->a) == 1) return std::nullopt;
  const ex& k = sp->k;
  if (!f.provably_positive(k) || !f.provably_integer(k)) return std::nullopt;
  auto wc = map_weight(m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}, {true, sp->e}, {true, sp->d}, {false, sp->d}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  return nonempty_guard(n, f) * by_gcd_cases(abs(sp->a).to_long(), k, [&](const ex& g) { return ceil_of(n * g / k); }) * *wc;
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

namespace {

// The weight w c(i) of a map sum, when it is >= 0 on the range (proved, or at the ends of a
// concave weight: `conds`, for the rule's require) and monotone in i (proved): (w c, true)
// for nondecreasing, (w c, false) for nonincreasing. It must not fail where the range may be
// empty (brute force would not evaluate it there).
struct MonotoneWeight {
  ex wc;
  bool up;
  std::vector<Cond> conds;
};
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

}  // namespace

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
// k (red-black or even/odd phases, 2 i mod P: k' = P / (1 + (P mod 2 == 0))). Then e and d
// must give positions that exist: integers, d >= 0 (proved or assumed).
std::optional<ex> rule_vmax_cyclic_weighted(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  ex k;
  long stride = 1;
  if (auto p = mod_div_position(m->pos, i, Fn::Mod)) {
    if (!f.provably_positive(p->k) || !f.provably_integer(p->k) || !f.provably_integer(p->e0)) return std::nullopt;
    k = p->k;
  } else {
    auto sp = strided_position(m->pos, i);
    if (!sp) return std::nullopt;
    k = sp->k;
    if (!f.provably_positive(k) || !f.provably_integer(k)) return std::nullopt;
    if (!require({{true, sp->e}, {true, sp->d}, {false, sp->d}}, f, a)) return std::nullopt;
    stride = abs(sp->a).to_long();
  }
  auto mono = monotone_weight(*m, r, f);
  if (!mono) return std::nullopt;
  const ex& wc = mono->wc;
  bool up = mono->up;
  std::vector<Cond> conds = {{true, r.lb()}, {true, r.ub()}};
  conds.insert(conds.end(), mono->conds.begin(), mono->conds.end());
  if (!require(conds, f, a)) return std::nullopt;
  return by_gcd_cases(stride, k, [&](const ex& g) {
    ex period = k / g;
    ex count = ceil_of((r.ub() - r.lb() + 1) / period);
    ex item = up ? r.ub() - period * i : r.lb() + period * i;
    return rebuild_reduction(r, ReduceKind::Sum, 0, count - 1, wc.subs(exmap{{i, item}}));
  });
}

namespace {

// A weight that sees i through residues (a i + e) mod m with numeric moduli (the nodes, of
// period M = 2..12) and otherwise, with each node frozen as an integer in 0..m - 1, not at
// all or monotonically in i over the range (proved step by step): up for nondecreasing.
struct PeriodicWeight {
  exvector nodes;
  long M = 0;
  bool up = false;
};
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

}  // namespace

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
  if (pamela_function(m->c) == Fn::Eq && residue_test(m->c, i, f)) return std::nullopt;
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

// Block map: max(w * sum (i = lb, ub) { c * unitvec((s i + e) div k + d) }), s = +-1, w c free
// of i and >= 0. Blocks hold the j = s i + e with q k <= j < (q + 1) k; the j form the
// consecutive run from lb + e (s = 1), e - ub (s = -1: blocks numbered from the top, the
// same set of j read backwards), n of them. With j starting at 0 (lb + e = 0, resp. e = ub)
// the first block is the busiest: min(n, ceil(k)) items (min(n, k) for an integer k; a
// half-open interval of length k holds at most ceil(k) integers). Otherwise, for k a proved
// integer and o = (lb + e) mod k, the first block holds min(n, k - o) and the second
// min(k, n - k + o), and every later one at most as many as the second: the busiest is
// max(min(n, k - o), min(k, n - k + o)). Side conditions: k > 0, e an integer (proved,
// or implied by start 0 and the integer bounds); for an offset start, k an integer (proved,
// or assumed for a symbolic k: "P divides N" for blocks of N / P);
// lb, ub integers (proved or assumed); w c >= 0; guarded for a possibly empty range.
std::optional<ex> rule_vmax_block(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  auto p = mod_div_position(m->pos, r.index_ex(), Fn::Div, true);
  if (!p || !f.provably_positive(p->k)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1, busiest;
  ex start = (p->s > 0 ? r.lb() + p->e0 : p->e0 - r.ub()).expand();
  // start = 0 makes e = -lb (resp. ub) an integer with the bounds (required below).
  if (!start.is_zero() && !f.provably_integer(p->e0)) return std::nullopt;
  auto wc = map_weight(*m, f, a);
  if (!wc) return std::nullopt;
  bool int_k = f.provably_integer(p->k);
  std::vector<Cond> conds{{true, r.lb()}, {true, r.ub()}};
  // From an offset start a real block length leaves blocks of floor(k) and ceil(k) items in
  // a pattern of k's fraction; a symbolic k (N / P rows a block) is assumed an integer.
  if (!start.is_zero() && !int_k && !is_class<numeric>(p->k)) {
    conds.push_back({true, p->k});
    int_k = true;
  }
  if (start.is_zero()) {
    busiest = make_min({n, int_k ? p->k : ceil_of(p->k)});
  } else if (int_k) {
    ex o = mod_of(start, p->k);
    busiest = make_max({make_min({n, p->k - o}), make_min({p->k, n - p->k + o})});
  } else {
    return std::nullopt;
  }
  if (!require(conds, f, a)) return std::nullopt;
  return nonempty_guard(n, f) * busiest * *wc;
}

// Block map with a weight monotone in the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec((i + e) div k + d) }) with lb + e = 0 (blocks start at lb), k a positive integer,
// w c(i) >= 0. Blocks are [lb + t k, lb + t k + k - 1]; with q = floor(n / k) full blocks
// and a partial one after them. For w c nondecreasing, a later full block dominates an
// earlier one term by term, so the busiest is the last full block or the partial block:
// max((1 <= q) sum (i = lb + (q - 1) k, lb + q k - 1) { w c }, sum (i = lb + q k, ub) { w c });
// for w c nonincreasing, the first block: sum (i = lb, min(ub, lb + k - 1)) { w c }. The sums
// are closed by the sum rules; all are 0 on an empty range (the zero vector). For w c
// nonincreasing k may be any real > 0 (a block owner i * P div N): the first block then
// holds ceil(k) items, the most any block holds. Side conditions: k > 0 and lb + e = 0
// (proved); k and n / k integers for a nondecreasing weight (proved, or both assumed); w c >= 0 and
// monotone on the range (proved); lb, ub integers (proved or assumed).
std::optional<ex> rule_vmax_block_weighted(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  auto p = mod_div_position(m->pos, i, Fn::Div);
  if (!p || !(r.lb() + p->e0).expand().is_zero()) return std::nullopt;
  if (!f.provably_positive(p->k)) return std::nullopt;
  bool k_integer = f.provably_integer(p->k);
  auto mono = monotone_weight(*m, r, f);
  if (!mono) return std::nullopt;
  const ex& wc = mono->wc;
  bool up = mono->up;
  // A rising weight needs blocks of one size: k an integer (P divides N for blocks of N / P
  // rows), assumed and checked where not proved, and then the blocks whole (n / k, which is
  // P, an integer): with uneven blocks a shorter last block can hold less than the one
  // before it.
  const ex& k = p->k;
  ex n = r.ub() - r.lb() + 1;
  bool whole = f.provably_integer(n / k);
  std::vector<Cond> conds{{true, r.lb()}, {true, r.ub()}};
  conds.insert(conds.end(), mono->conds.begin(), mono->conds.end());
  if (up && !k_integer) {
    conds.push_back({true, k});
    conds.push_back({true, n / k});
    k_integer = whole = true;
  }
  if (!require(conds, f, a)) return std::nullopt;
  auto part = [&](const ex& lo, const ex& hi) { return rebuild_reduction(r, ReduceKind::Sum, lo, hi, wc); };
  // Nonincreasing: the first block [0, k) holds ceil(k) items, the most any block holds,
  // and the largest weights, so it dominates any other block item by item (any real k > 0).
  if (!up) return part(r.lb(), make_min({r.ub(), r.lb() + (k_integer ? k : ceil_of(k)) - 1}));
  ex q = whole ? ex(n / k) : floor_of(n / k);
  ex last_full = part(r.lb() + (q - 1) * k, r.lb() + q * k - 1);
  if (whole) return compare(Cmp::Le, 1, q) * last_full;
  return make_max({compare(Cmp::Le, 1, q) * last_full, part(r.lb() + q * k, r.ub())});
}

// Block map with a weight periodic in the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec((i + e) div k + d) }) with lb + e = 0 (blocks start at lb), k a positive integer,
// and c seeing i through residues with numeric moduli, of period M (2..12), and otherwise,
// the residues frozen, not at all or monotonically (periodic_weight): odd rows twice as
// dear, (i mod 2) + 1, in blocks of B. There are q = floor(n / k) full blocks [lb + b k, lb
// + b k + k - 1] and a partial one after them. Blocks M apart start at the same residue, so
// they hold the same residues item by item, each item of the later block k M further on:
// with w c >= 0 and the rest falling (or free of i), block b mod M is at least as busy as
// block b, and with the rest rising, the later block is. So the busiest is among the first
// M full blocks (the last M for a rising rest; those that exist, j + 1 <= q) and the
// partial block: max over them of the sums of w c over each block, closed by the sum rules.
// Positions no item reaches hold 0, below every load. Side conditions: k > 0 and lb + e = 0
// (proved), k an integer (proved, or assumed for a symbolic k); w c >= 0 on the range and
// the monotonicity (proved); w c not failing unless the range is provably non-empty; lb, ub
// integers (proved or assumed); guarded for an empty range.
std::optional<ex> rule_vmax_block_periodic(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  ex wc = m->w * m->c;
  auto pw = periodic_weight(wc, r, f);
  if (!pw) return std::nullopt;
  const long M = pw->M;
  auto p = mod_div_position(m->pos, i, Fn::Div);
  if (!p || !(r.lb() + p->e0).expand().is_zero()) return std::nullopt;
  const ex& k = p->k;
  if (!f.provably_positive(k) || (is_class<numeric>(k) && !f.provably_integer(k))) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  if (may_fail(wc, f) && !f.provably_nonneg(n - 1)) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  if (!in.provably_nonneg(wc)) return std::nullopt;
  if (!require({{true, k}, {true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  auto part = [&](const ex& lo, const ex& hi) { return rebuild_reduction(r, ReduceKind::Sum, lo, hi, wc); };
  ex q = floor_of(n / k);
  exvector loads;
  for (long j = 0; j < M; ++j) {
    ex b = pw->up ? q - 1 - j : ex(j);  // the last M full blocks for a rising rest
    loads.push_back(compare(Cmp::Le, j + 1, q) * part(r.lb() + b * k, r.lb() + b * k + k - 1));
  }
  loads.push_back(part(r.lb() + q * k, r.ub()));
  return nonempty_guard(n, f) * make_max(loads);
}

// Block map with a concave weight symmetric about the middle of the range: max(w * sum (i =
// lb, ub) { c(i) * unitvec((i + e) div k + d) }) with lb + e = 0, k a positive integer that
// divides n = ub - lb + 1 (m = n / k blocks), w c(i) >= 0 on the range, concave in i
// (structurally_convex) and w c(lb + ub - i) = w c(i). Block t's load L(t) = sum (s = 0,
// k - 1) { w c(lb + t k + s) } is concave in t (a sum of concave functions of t), and
// L(m - 1 - t) = L(t) (the reflection i -> lb + ub - i maps block t onto block m - 1 - t), so
// over the integers 0..m-1 it is largest at the middle block floor((m - 1) / 2): a banded
// row's 1 + min(i - 1, W) + min(N - i, W) nonzeros under block rows. Side conditions: k > 0
// (proved); k, n / k, lb and ub integers (proved or assumed); 0 where the range is empty.
std::optional<ex> rule_vmax_block_concave(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  ex wc = m->w * m->c;
  if (!wc.has(i)) return std::nullopt;
  // Tried top-down, before the rate in (i - 1) * P div N is divided out: div_rate reads it
  // here, its assumption kept only if this rule applies.
  Assumptions tentative = a;
  auto p = mod_div_position(m->pos, i, Fn::Div);
  if (!p) {
    Facts at_i = f;
    at_i.declare_index(r.index(), r.lb(), r.ub());
    exmap rated;
    for (const ex& t : operands_of(m->pos.expand(), true))
      if (pamela_function(t) == Fn::Div && t.has(i))
        if (auto y = rule_div_rate(t, at_i, tentative)) rated[t] = *y;
    if (rated.empty()) return std::nullopt;
    p = mod_div_position(m->pos.subs(rated, subs_options::no_pattern), i, Fn::Div);
    if (!p) return std::nullopt;
  }
  // Blocks of N / P: a processor count P in the denominator, P >= 1 assumed if not proved.
  std::vector<Cond> conds;
  Facts g = f;  // with that sign
  ex den = p->k.denom();
  if (is_class<symbol>(den) && !g.provably_positive(den) && !g.mentions_index(den)) {
    conds.push_back({false, den - 1});
    g.add_lower(ex_to<symbol>(den), 1, false);
  }
  if (p->s != 1 || !(r.lb() + p->e0).expand().is_zero() || !g.provably_positive(p->k)) return std::nullopt;
  if (may_fail(wc, f) && !f.provably_nonneg(r.ub() - r.lb())) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  if (!in.provably_nonneg(wc) || !structurally_convex(wc, i, in, -1)) return std::nullopt;
  ex mirrored = wc.subs(exmap{{i, r.lb() + r.ub() - i}});
  if (!(mirrored - wc).expand().is_zero()) return std::nullopt;
  const ex& k = p->k;
  ex n = r.ub() - r.lb() + 1, blocks = n / k;
  conds.insert(conds.end(), {{true, k}, {true, blocks}, {true, r.lb()}, {true, r.ub()}});
  if (!require(conds, f, tentative)) return std::nullopt;
  a = tentative;
  ex middle = floor_of((blocks - 1) / 2);
  ex load = rebuild_reduction(r, ReduceKind::Sum, r.lb() + middle * k, r.lb() + (middle + 1) * k - 1, wc);
  return (f.provably_positive(n) ? ex(1) : compare(Cmp::Le, 1, n)) * load;
}

// Block-cyclic map: max(w * sum (i = lb, ub) { c * unitvec(((i + e) div B) mod P + d) }) with
// B and P positive integers and w c >= 0 free of i: the n = ub - lb + 1 items j = i + e =
// s..s+n-1 (s = lb + e) lie in blocks of B dealt round-robin to P owners. Every full round of
// B P consecutive items gives each owner B; the rest, m = n mod (B P) items, is a window that
// starts v = s mod B into a block. An owner's share of it is at most B and at most m; the
// window's first block holds B - v of it, its last m - (B - v) when it spans two blocks, and
// a block in between (or, for P >= 2, a window that wraps round to its first owner) gives B,
// which m - (B - v) >= B also says. So the busiest gets B floor(n / (B P)) + min(m, B,
// max(B - v, m - B + v)), and for P = 1 the one owner gets all m (the (P <= 1) B arm). From
// a block start (s = 0) that is owner 0's B floor(n / (B P)) + min(m, B). Checked against
// counting for B, P = 1..5, s = -12..12, n = 0..39. Side conditions: B, P positive integers
// (proved); s, lb, ub integers (proved or assumed); guarded for an empty range.
std::optional<ex> rule_vmax_block_cyclic(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  ex modt, d = 0;
  for (const ex& t : operands_of(m->pos.expand(), true)) {
    if (modt.is_zero() && pamela_function(t) == Fn::Mod && t.has(i)) modt = t;
    else d += t;
  }
  if (modt.is_zero() || d.has(i)) return std::nullopt;
  ex P = modt.op(1), inner = modt.op(0);
  if (P.has(i) || pamela_function(inner) != Fn::Div) return std::nullopt;
  ex B = inner.op(1);
  auto lin = linear_in(inner.op(0), i);
  if (B.has(i) || !lin || lin->first != 1) return std::nullopt;
  const ex start = (r.lb() + lin->second).expand();
  if (!f.provably_integer(B) || !f.provably_positive(B) || !f.provably_integer(P) || !f.provably_positive(P))
    return std::nullopt;
  auto wc = map_weight(*m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}, {true, start}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1, rest = mod_of(n, B * P);
  ex share = make_min({rest, B});
  if (!start.is_zero()) {
    ex v = mod_of(start, B);
    share = make_min({rest, B, make_max({B - v, rest - B + v, compare(Cmp::Le, P, 1) * B})});
  }
  return nonempty_guard(n, f) * (B * floor_of(n / (B * P)) + share) * *wc;
}

// A block map under another map, with a weight of the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec(G((i + e) div B)) }) where i enters the position only through (i + e) div B and G is
// not that div alone (a block-cyclic ((i + e) div B) mod P). When the range is whole blocks,
// B | lb + e and B | ub + e + 1, each i is b B + t - e with t = 0..B - 1 and (i + e) div B = b,
// so the sum is sum (b = (lb + e) / B, (ub + e + 1) / B - 1) { sum (t = 0, B - 1) {
// c(b B + t - e) } * unitvec(G(b)) }: one item per block, its weight the block's total, which
// the cyclic and monotone rules read (a triangle's rows in blocks dealt cyclically). A
// constant weight is vmax_block_cyclic's, which needs no whole blocks. Side conditions: B a
// positive integer, (lb + e) / B and (ub + e + 1) / B integers (proved or assumed: "B divides
// N"; not assumed for a number lb + e: "B divides 1" would hold at B = 1 alone); lb, ub
// integers. Exact wherever they hold.
std::optional<ex> rule_vmax_block_split(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  // The one div of i in the position, (i + e) div B with a unit coefficient.
  ex dv;
  for (const_preorder_iterator it = m->pos.preorder_begin(); it != m->pos.preorder_end(); ++it)
    if (pamela_function(*it) == Fn::Div && it->has(i)) {
      if (!dv.is_zero() && !dv.is_equal(*it)) return std::nullopt;
      dv = *it;
    }
  if (dv.is_zero() || dv.is_equal(m->pos)) return std::nullopt;
  const ex B = dv.op(1);
  auto lin = linear_in(dv.op(0), i);
  if (B.has(i) || !lin || lin->first != 1) return std::nullopt;
  symbol b(r.index().get_name()), t("t");
  ex pos_b = m->pos.subs(exmap{{dv, b}}, subs_options::no_pattern);
  if (pos_b.has(i)) return std::nullopt;
  if (!f.provably_positive(B) || !f.provably_integer(B)) return std::nullopt;
  const ex off = lin->second;
  ex first = ((r.lb() + off) / B).expand(), last = ((r.ub() + off + 1) / B).expand();
  // Not where the first block's start would be an assumption about a number: "1 / B is an
  // integer" (a range from 1) holds at B = 1 alone, and every other point would fall back to
  // the model.
  if (is_class<numeric>((r.lb() + off).expand()) && !f.provably_integer(first)) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}, {true, first}, {true, last}}, f, a)) return std::nullopt;
  ex block = make_reduction(ReduceKind::Sum, t, 0, B - 1, m->c.subs(exmap{{i, b * B + t - off}}));
  return vector_max(m->w * make_reduction(ReduceKind::Sum, b, first, last - 1, block * unitvec(pos_b)));
}

}  // namespace pamc::sym
