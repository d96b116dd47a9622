// Load vectors read as families: see load_families.h.
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/load_families_internal.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"

#include <algorithm>
#include <unordered_map>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace detail {

// Reads v, a vector-valued expression, as families; false when some part is not one
// (a scalar added to a vector, a vector literal, a vector inside a max).
bool read_families(const ex& v, std::vector<Loop>& loops, const ex& outer, const ex& weight,
                   std::vector<Family>& out) {
  if (is_class<add>(v)) {
    for (size_t k = 0; k < v.nops(); ++k)
      if (!is_vector_valued(v.op(k)) || !read_families(v.op(k), loops, outer, weight, out)) return false;
    return true;
  }
  if (is_class<mul>(v)) {
    ex vec = 0, rest = 1;
    for (size_t k = 0; k < v.nops(); ++k) {
      if (!is_vector_valued(v.op(k))) {
        rest *= v.op(k);
      } else {
        if (!vec.is_zero()) return false;  // a product of two vectors
        vec = v.op(k);
      }
    }
    if (vec.is_zero()) return false;
    return loops.empty() ? read_families(vec, loops, outer * rest, weight, out)
                         : read_families(vec, loops, outer, weight * rest, out);
  }
  if (is_class<reduction>(v)) {
    const auto& r = ex_to<reduction>(v);
    if (r.kind() != ReduceKind::Sum) return false;
    loops.push_back({r.index(), r.lb(), r.ub()});
    bool ok = read_families(r.body(), loops, outer, weight, out);
    loops.pop_back();
    return ok;
  }
  if (pamela_function(v) == Fn::Unitvec) {
    out.push_back({loops, outer, weight, v.op(0)});
    return true;
  }
  return false;
}

// The facts inside a family's loops: each index in its range.
Facts within(const Facts& f, const std::vector<Loop>& loops) {
  std::vector<std::array<ex, 3>> ls;
  ls.reserve(loops.size());
  for (const Loop& l : loops) ls.push_back({l.index, l.lb, l.ub});
  return f.with_indices(ls);
}

// Every family's weight >= 0 over its own loops (proved): loads, not signed entries.
bool weights_nonneg(const std::vector<Family>& fams, const Facts& f) {
  for (const Family& fam : fams)
    if (!within(f, fam.loops).provably_nonneg(fam.outer * fam.weight)) return false;
  return true;
}

// The one family of max(v) when v is a single family with `depth` loops; else nullopt.
std::optional<Family> one_family(const ex& e, size_t depth) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams) || fams.size() != 1 || fams[0].loops.size() != depth) return std::nullopt;
  return fams[0];
}

}  // namespace detail

namespace {

using detail::Family;
using detail::Loop;
using detail::one_family;
using detail::read_families;
using detail::weights_nonneg;
using detail::within;

ex nest(const std::vector<Loop>& loops, ex body) {
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) body = make_reduction(ReduceKind::Sum, it->index, it->lb, it->ub, body);
  return body;
}

// The family with its position loop q outermost and the other loops summed into the
// weight; nullopt when the position depends on no loop or on several, when q is already
// the only loop, or when q's range depends on another loop of the family.
// A weight that may fail (N / P) moves inside q's range, which may be empty where it was
// not: then its denominators are assumed >= 1 (recorded, checked) if that makes it safe.
std::optional<ex> collapse(const Family& fam, const Facts& f, Assumptions& a) {
  int q = -1;
  for (size_t k = 0; k < fam.loops.size(); ++k) {
    if (!fam.pos.has(fam.loops[k].index)) continue;
    if (q >= 0) return std::nullopt;
    q = static_cast<int>(k);
  }
  if (q < 0 || fam.loops.size() < 2) return std::nullopt;
  const Loop& lq = fam.loops[q];
  std::vector<Loop> others;
  for (size_t k = 0; k < fam.loops.size(); ++k) {
    if (static_cast<int>(k) == q) continue;
    if (lq.lb.has(fam.loops[k].index) || lq.ub.has(fam.loops[k].index)) return std::nullopt;
    others.push_back(fam.loops[k]);
  }
  Facts in = within(f, fam.loops);
  // q's loop runs outside the others now. Where another loop's range is empty the model
  // never reads q's bounds, and where q's is empty it never reads the others'; a bound that
  // is not an integer leaves no value, which a zero count does not cover (`par (i = K, N)
  // par (j = 1, C)` at N < K has a value for every C). So each bound read by one form and
  // not the other is an integer: by its form (no prover call, which may make symbols and
  // so change GiNaC's term order), proved or assumed. Emptiness is asked under f: `in`
  // declares the loops' indices, which makes every range non-empty.
  {
    auto by_form = [&](const Loop& l) { return detail::integer_by_form(l.lb, in) && detail::integer_by_form(l.ub, in); };
    std::vector<detail::Cond> bounds_read;
    auto add_bounds = [&](const Loop& l) {
      for (const ex& b : {l.lb, l.ub})
        if (!detail::integer_by_form(b, in)) bounds_read.push_back({true, b});
    };
    if (!by_form(lq)) {
      bool others_nonempty = true;
      for (const Loop& l : others) others_nonempty = others_nonempty && f.provably_nonneg(l.ub - l.lb);
      if (!others_nonempty) add_bounds(lq);
    }
    bool others_by_form = true;
    for (const Loop& l : others) others_by_form = others_by_form && by_form(l);
    if (!others_by_form && !f.provably_nonneg(lq.ub - lq.lb))
      for (const Loop& l : others) add_bounds(l);
    if (!bounds_read.empty() && !detail::require(bounds_read, in, a)) return std::nullopt;
  }
  if (may_fail(fam.weight, in) && !f.provably_nonneg(lq.ub - lq.lb)) {
    std::vector<symbol> dens;
    denominators(fam.weight, dens);
    std::vector<symbol> assume;
    for (const symbol& d : dens) {
      if (in.mentions_index(d) || in.provably_positive(d)) continue;
      in.add_lower(d, 1, false);
      assume.push_back(d);
    }
    if (assume.empty() || may_fail(fam.weight, in)) return std::nullopt;
    for (const symbol& d : assume)
      if (a.items.insert(to_pamela(d) + " >= 1").second) a.nonneg.push_back(d - 1);
  }
  ex load = nest(others, fam.weight);
  return fam.outer * make_reduction(ReduceKind::Sum, lq.index, lq.lb, lq.ub, load * unitvec(fam.pos));
}


// The lowest (up = false) or highest (up = true) value x takes over the family's loops, as
// an expression free of their indices; nullopt where x is not monotone in a way the rules
// below read. A bound, not necessarily attained: every index point of the domain has
// lo <= x <= hi (each index lies in [lb, ub], and every step below is monotone in its
// argument), which is all that disjointness needs. An empty domain has no points: any
// bound holds.
std::optional<ex> position_bound(const ex& x, bool up, const std::vector<Loop>& loops, const Facts& f,
                                 const Facts& in) {
  bool has_index = false;
  for (const Loop& l : loops) has_index = has_index || x.has(l.index);
  if (!has_index) return x;
  if (is_class<symbol>(x)) {
    for (auto it = loops.rbegin(); it != loops.rend(); ++it)
      if (x.is_equal(it->index)) return position_bound(up ? it->ub : it->lb, up, loops, f, in);
    return std::nullopt;
  }
  if (is_class<add>(x)) {
    ex sum = 0;
    for (size_t k = 0; k < x.nops(); ++k) {
      auto b = position_bound(x.op(k), up, loops, f, in);
      if (!b) return std::nullopt;
      sum += *b;
    }
    return sum;
  }
  if (is_class<mul>(x)) {
    // c * y with c free of the indices: monotone in y, up or down by c's sign.
    ex c = 1, y = 1;
    int dependent = 0;
    for (size_t k = 0; k < x.nops(); ++k) {
      bool dep = false;
      for (const Loop& l : loops) dep = dep || x.op(k).has(l.index);
      if (dep) {
        y *= x.op(k);
        ++dependent;
      } else {
        c *= x.op(k);
      }
    }
    if (dependent != 1) return std::nullopt;
    bool c_up = f.provably_nonneg(c);
    if (!c_up && !f.provably_nonpos(c)) return std::nullopt;
    auto b = position_bound(y, c_up ? up : !up, loops, f, in);
    if (!b) return std::nullopt;
    return c * *b;
  }
  switch (pamela_function(x)) {
    case Fn::Mod: {
      // a mod M lies in [0, M - 1] for integers a and M >= 1, wherever a lies.
      const ex& m = x.op(1);
      for (const Loop& l : loops)
        if (m.has(l.index)) return std::nullopt;
      if (!f.provably_positive(m) || !f.provably_integer(m) || !in.provably_integer(x.op(0))) return std::nullopt;
      return up ? m - 1 : ex(0);
    }
    case Fn::Div: {
      // floor(a / B) is nondecreasing in a for B > 0.
      const ex& b = x.op(1);
      for (const Loop& l : loops)
        if (b.has(l.index)) return std::nullopt;
      if (!f.provably_positive(b)) return std::nullopt;
      auto a = position_bound(x.op(0), up, loops, f, in);
      if (!a) return std::nullopt;
      return idiv_of(*a, b);
    }
    case Fn::Floor:
    case Fn::Ceil: {
      auto a = position_bound(x.op(0), up, loops, f, in);
      if (!a) return std::nullopt;
      return pamela_function(x) == Fn::Floor ? floor_of(*a) : ceil_of(*a);
    }
    default: return std::nullopt;
  }
}

// The positions a family can touch, [lo, hi].
std::optional<std::pair<ex, ex>> position_span(const Family& fam, const Facts& f) {
  Facts in = within(f, fam.loops);
  auto lo = position_bound(fam.pos, false, fam.loops, f, in);
  auto hi = position_bound(fam.pos, true, fam.loops, f, in);
  if (!lo || !hi) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

}  // namespace

namespace {

// Every value of g over the loops an integer in [lb, ub] (proved, position_bound): then g's
// least value, else nullopt. An owner test g == w then holds for exactly one w of that range.
std::optional<ex> values_within(const ex& g, const std::vector<Loop>& loops, const ex& lb, const ex& ub,
                                const Facts& f) {
  Facts in = within(f, loops);
  auto lo = position_bound(g, false, loops, f, in);
  auto hi = position_bound(g, true, loops, f, in);
  if (!lo || !hi || !in.provably_integer(g) || !f.provably_nonneg(*lo - lb) || !f.provably_nonneg(ub - *hi))
    return std::nullopt;
  return lo;
}

// A family whose weight holds an owner test (g == w), w one of its loops and g free of w
// (`if (c mod W == w) use(cpu(w + 1), t(c))` in a worker loop over the chunks c): on each
// point of the other loops w takes the one value g, where g is an integer in w's range, so
// the w loop and the test go and w reads g in the weight and the position (the workers'
// loads are the cyclic map c mod W + 1 of the chunks' weights). Exact where g is an
// integer in [lb, ub] of w over the other loops (proved, position_bound) and no loop's
// bounds mention w. Done only where the rest of the weight depends on the other loops.
// nullopt when no loop of the family has such a test.
std::optional<Family> exchange_fiber(const Family& fam, const Facts& f) {
  for (size_t k = 0; k < fam.loops.size(); ++k) {
    const Loop& lw = fam.loops[k];
    const ex w = lw.index;
    bool bounds_free = true;
    for (const Loop& l : fam.loops) bounds_free = bounds_free && !l.lb.has(w) && !l.ub.has(w);
    if (!bounds_free) continue;
    ex g, rest = 1;
    bool found = false;
    for (const ex& x : detail::operands_of(fam.weight, false)) {
      if (!found && pamela_function(x) == Fn::Eq && x.op(0).is_equal(w) != x.op(1).is_equal(w)) {
        ex side = x.op(0).is_equal(w) ? x.op(1) : x.op(0);
        if (!side.has(w)) {
          g = side;
          found = true;
          continue;
        }
      }
      rest *= x;
    }
    if (!found) continue;
    std::vector<Loop> others;
    for (size_t m = 0; m < fam.loops.size(); ++m)
      if (m != k) others.push_back(fam.loops[m]);
    // Only where the weight varies along the fiber (a chunk's length min(C, N - c C)): a
    // weight of w alone, t (w + 1), is w's load times its fiber's count, which collapse
    // writes more simply with w kept.
    bool varies = false;
    for (const Loop& l : others) varies = varies || rest.has(l.index);
    if (!varies) continue;
    if (!values_within(g, others, lw.lb, lw.ub, f)) continue;
    exmap at{{w, g}};
    return Family{others, fam.outer, rest.subs(at, subs_options::no_pattern), fam.pos.subs(at, subs_options::no_pattern)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<ex> rule_vmax_collapse(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams)) return std::nullopt;
  // In printed-text order: GiNaC's operand order follows the executable's layout, and where
  // two rebuilt sums are alike, the first one added names the loop index.
  std::vector<std::pair<std::string, size_t>> order;
  for (size_t k = 0; k < fams.size(); ++k)
    order.emplace_back(to_pamela(fams[k].outer * nest(fams[k].loops, fams[k].weight * unitvec(fams[k].pos))), k);
  std::sort(order.begin(), order.end());
  std::vector<Family> sorted;
  for (const auto& [text, k] : order) sorted.push_back(fams[k]);
  fams = sorted;
  ex v = 0;
  bool changed = false;
  std::vector<ex> parts;
  for (Family fam : fams) {
    while (auto x = exchange_fiber(fam, f)) {
      fam = *x;
      changed = true;
    }
    if (auto c = collapse(fam, f, a)) {
      parts.push_back(*c);
      changed = true;
    } else {
      parts.push_back(fam.outer * nest(fam.loops, fam.weight * unitvec(fam.pos)));
    }
  }
  // Alike parts (the same sum over loops named p and q) are written as the first one, so
  // the index name GiNaC keeps when it adds them up does not depend on its term order.
  std::unordered_map<unsigned, std::vector<size_t>> seen;  // by hash: the first of alike parts
  for (size_t k = 0; k < parts.size(); ++k) {
    auto& same = seen[parts[k].gethash()];
    auto first = std::find_if(same.begin(), same.end(), [&](size_t j) { return parts[k].is_equal(parts[j]); });
    if (first != same.end()) parts[k] = parts[*first];
    else same.push_back(k);
  }
  if (!changed) return std::nullopt;
  return vector_max(GiNaC::add(GiNaC::exvector(parts.begin(), parts.end())));
}

}  // namespace pamc::sym

namespace pamc::sym {

// Families on disjoint positions: max(v_1 + ... + v_m) = max(max(G_1), ..., max(G_g)),
// where G_1..G_g group the families so that no two groups can share a position. Each
// family's positions lie in a span [lo, hi] bounded over its loops (position_bound: affine
// maps with coefficients of proved sign, mod, div, floor); two families are apart when
// lo_B - hi_A > 0 or lo_A - hi_B > 0 is proved, and families not proved apart share a
// group. Exact when every weight is >= 0 over its loops (proved): then each position's
// load comes from one group, each group's max sees only its own loads and zeros, and every
// max is >= 0, so the max over groups is the max over positions (0 for the zero vector on
// both sides). Every unitvec of v stays in one group, so a position without a value
// (negative, fractional) still has none. The cpu and network families of a process grid,
// `cpu(i * Py + j)` and `nic(i * Py + j)` at `Px * Py + p`, or workers at `w + 1` beside a
// shared queue at 0, are such groups (vmax_disjoint).
// With `assume` (vmax_disjoint_assumed), two families not proved apart are kept apart where
// the family that starts lower can be assumed to end below the other's start (a condition
// free of loop indices that the facts do not refute), a weight not proved >= 0 is assumed so
// at the ends of its range where it is concave, and the conditions are recorded. nullopt for
// fewer than two groups.
static std::optional<ex> disjoint_groups(const ex& e, const Facts& f, Assumptions* assume) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams) || fams.size() < 2 || fams.size() > 64) return std::nullopt;
  std::vector<detail::Cond> conds;
  for (const Family& fam : fams) {
    const Facts in = within(f, fam.loops);
    if (in.provably_nonneg(fam.outer * fam.weight)) continue;
    // with `assume`: a concave weight of one loop, >= 0 at the ends of its range (a band's
    // 1 + min(i - 1, W) + min(N - i, W) where W >= 0), as nonneg_weight_conds reads it
    if (!assume || fam.loops.size() != 1) return std::nullopt;
    const Loop& l = fam.loops[0];
    auto sign = detail::nonneg_weight_conds(fam.outer * fam.weight, l.index, l.lb, l.ub, f, in);
    if (!sign) return std::nullopt;
    conds.insert(conds.end(), sign->conds.begin(), sign->conds.end());
  }
  std::vector<std::optional<std::pair<ex, ex>>> spans;
  for (const Family& fam : fams) spans.push_back(position_span(fam, f));
  // Groups: the connected parts of "may overlap".
  std::vector<size_t> group(fams.size());
  for (size_t k = 0; k < fams.size(); ++k) group[k] = k;
  std::function<size_t(size_t)> root = [&](size_t k) { return group[k] == k ? k : group[k] = root(group[k]); };
  // A separation is assumed only where it holds at some of the facts' sample points (every
  // parameter small, 2, large, or one large): a condition false at all of them (cpu(i * P
  // div N) for i up to 2 N - 1 below P) would leave the closed form unused wherever the
  // model is meant to run.
  auto holds_somewhere = [&](const ex& x) {
    return f.visit_values({x}, [](const std::vector<std::optional<numeric>>& v) {
      return v[0] && !v[0]->is_negative();
    });
  };
  for (size_t a = 0; a < fams.size(); ++a)
    for (size_t b = a + 1; b < fams.size(); ++b) {
      if (root(a) == root(b)) continue;
      bool apart = spans[a] && spans[b] &&
                   (f.provably_positive(spans[b]->first - spans[a]->second) ||
                    f.provably_positive(spans[a]->first - spans[b]->second));
      if (!apart && assume && spans[a] && spans[b]) {
        // the lower family's last position below the other's first: hi_low <= lo_high - 1
        const auto& [lo_a, hi_a] = *spans[a];
        const auto& [lo_b, hi_b] = *spans[b];
        std::optional<ex> gap;
        if (f.provably_nonneg(lo_b - lo_a)) gap = (lo_b - hi_a - 1).expand();
        else if (f.provably_nonneg(lo_a - lo_b)) gap = (lo_a - hi_b - 1).expand();
        if (gap && !f.mentions_index(*gap) && !f.provably_nonneg(-*gap - 1) && holds_somewhere(*gap)) {
          conds.push_back({false, *gap});
          apart = true;
        }
      }
      if (!apart) group[root(a)] = root(b);
    }
  std::map<size_t, ex> parts;
  for (size_t k = 0; k < fams.size(); ++k)
    parts[root(k)] += fams[k].outer * nest(fams[k].loops, fams[k].weight * unitvec(fams[k].pos));
  if (parts.size() < 2) return std::nullopt;
  if (!conds.empty() && !detail::require(conds, f, *assume)) return std::nullopt;
  // In printed-text order, so the result does not follow GiNaC's term order.
  std::vector<std::pair<std::string, ex>> order;
  for (const auto& [g, v] : parts) order.emplace_back(to_pamela(v), vector_max(v));
  std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  exvector args;
  for (const auto& [text, m] : order) args.push_back(m);
  return make_max(args);
}

std::optional<ex> rule_vmax_disjoint(const ex& e, const Facts& f, Assumptions&) {
  return disjoint_groups(e, f, nullptr);
}

// Families a model keeps apart by its layout but the facts cannot: `cpu(i div B)` for i up
// to 2 N - 1 beside `link(p) = fcfs(P + p, 1)`, apart where the cpu positions stay below P.
// Only in the pipeline's last round for a model every other round left open
// (LastResortRules), top-down beside vmax_disjoint, before any rule splits a family's sum:
// the condition that keeps them apart (disjoint_groups) is recorded as an assumption,
// checked by every evaluator, which use the model itself where it fails; then as
// vmax_disjoint.
std::optional<ex> rule_vmax_disjoint_assumed(const ex& e, const Facts& f, Assumptions& a) {
  if (!LastResortRules::on()) return std::nullopt;
  return disjoint_groups(e, f, &a);
}

// A symbolic offset shared by every family: max(sum of w * unitvec(pos + d)) =
// max(sum of w * unitvec(pos)), with d the terms of each position free of its loops that
// mention a parameter (the network family of a process grid at `Px * Py + p`, a resource
// at `i + B`). Exact when every weight is >= 0 (proved: the zeros below a family do not
// change its max), pos >= 0 over the loops (proved, with position_bound) and d >= 0 an
// integer (proved; a default sign is recorded as an assumption): then pos + d and pos are
// both positions that exist, at every index point, and the shift moves every load alike.
// Numeric offsets are left to the rules that read them (`i + 1`).
std::optional<ex> rule_vmax_offset(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams) || fams.empty()) return std::nullopt;
  std::optional<ex> d;
  std::vector<ex> rest;
  for (const Family& fam : fams) {
    ex pos = fam.pos.expand(), off = 0, inner = 0;
    for (const ex& t : is_class<add>(pos) ? exvector(pos.begin(), pos.end()) : exvector{pos}) {
      bool dep = false;
      for (const Loop& l : fam.loops) dep = dep || t.has(l.index);
      (dep || is_class<numeric>(t) ? inner : off) += t;
    }
    if (off.is_zero() || (d && !(off - *d).expand().is_zero())) return std::nullopt;
    d = off;
    rest.push_back(inner);
  }
  if (!f.provably_nonneg(*d) || !f.provably_integer(*d)) return std::nullopt;
  if (!weights_nonneg(fams, f)) return std::nullopt;
  ex v = 0;
  for (size_t k = 0; k < fams.size(); ++k) {
    const Family& fam = fams[k];
    auto lo = position_bound(rest[k], false, fam.loops, f, within(f, fam.loops));
    if (!lo || !f.provably_nonneg(*lo)) return std::nullopt;
    v += fam.outer * nest(fam.loops, fam.weight * unitvec(rest[k]));
  }
  return vector_max(v);
}

// Two loops whose indices add up to the position, one weight: max(c * sum (w = lw, uw) {
// sum (i = li, ui) { unitvec(s i + t w + d) } }) with s, t = +-1, c free of both loops and
// >= 0, the inner bounds free of w (workers sweeping cells from their own offset, cpu(i +
// w); a convolution's taps). Position r is hit by the pairs on one anti-diagonal of the
// ni x nw box (ni = ui - li + 1, nw = uw - lw + 1), one pair per w and per i, so by at most
// min(ni, nw); the diagonal through a corner of the box attains it (r = s li + t uw when
// ni >= nw, pairs (li + k, uw - k) for s = t: within the box). So the max is c * min(ni,
// nw), 0 for an empty box (guarded). Side conditions: the bounds integers (proved or
// assumed); the positions exist at every index point: d an integer and the lowest
// position >= 0 (proved, position_bound); c >= 0 (proved).
std::optional<ex> rule_vmax_index_sum(const ex& e, const Facts& f, Assumptions& a) {
  auto fam = one_family(e, 2);
  if (!fam) return std::nullopt;
  const Loop &lw = fam->loops[0], &li = fam->loops[1];
  if (li.lb.has(lw.index) || li.ub.has(lw.index)) return std::nullopt;
  if (fam->weight.has(lw.index) || fam->weight.has(li.index)) return std::nullopt;
  ex pos = fam->pos.expand();
  ex s = pos.coeff(li.index, 1), t = pos.coeff(lw.index, 1);
  ex d = (pos - s * li.index - t * lw.index).expand();
  auto unit = [](const ex& x) { return x.is_equal(1) || x.is_equal(-1); };
  if (!unit(s) || !unit(t) || d.has(li.index) || d.has(lw.index) || !f.provably_integer(d)) return std::nullopt;
  const ex c = fam->outer * fam->weight;
  if (!f.provably_nonneg(c) || may_fail(c, f)) return std::nullopt;
  auto lo = position_bound(pos, false, fam->loops, f, within(f, fam->loops));
  if (!lo || !f.provably_nonneg(*lo)) return std::nullopt;
  if (!detail::require({{true, li.lb}, {true, li.ub}, {true, lw.lb}, {true, lw.ub}}, f, a)) return std::nullopt;
  ex ni = (li.ub - li.lb + 1).expand(), nw = (lw.ub - lw.lb + 1).expand();
  return c * make_min({ni, nw}) * detail::nonempty_guard(ni, f) * detail::nonempty_guard(nw, f);
}

// All but the diagonal on a cyclic sum of two indices: max(sum (p) { sum (q) { (p != q) *
// c(q) * unitvec((p + q + e) mod K) } }) with p and q each over K consecutive integers (the
// same range), c free of p and >= 0 (proved), e an integer and K a positive integer
// (proved). Without the test, p runs over a full residue system for each q, so every
// position 0..K-1 receives S = sum (q) { c(q) }; the test removes the diagonal p = q,
// c(q) at position (2 q + e) mod K. So position r holds S - D(r), and the busiest is
// S - min over r of D(r): for K even the positions of the other parity than e get no
// diagonal term (D = 0 there); for K odd q -> (2 q + e) mod K is one to one onto 0..K-1, so
// min D = min (q) { c(q) }. The result: (K mod 2 == 0) S + (K mod 2 == 1) (S - min (q) {
// c(q) }) (0 for K = 1, where every message would go to itself). An exchange where each
// rank skips itself: the 2-D FFT's transpose by (p + q) mod P.
std::optional<ex> rule_vmax_all_but_diagonal(const ex& e, const Facts& f, Assumptions& a) {
  auto one = one_family(e, 2);
  if (!one) return std::nullopt;
  const Family& fam = *one;
  const Loop &lp = fam.loops[0], &lq = fam.loops[1];
  if (pamela_function(fam.pos) != Fn::Mod) return std::nullopt;
  const ex& K = fam.pos.op(1);
  const ex pe = lp.index, qe = lq.index;
  if (K.has(pe) || K.has(qe)) return std::nullopt;
  ex off = (fam.pos.op(0) - pe - qe).expand();
  if (off.has(pe) || off.has(qe)) return std::nullopt;
  // the same range of K integers for both indices
  if (!(lp.lb - lq.lb).expand().is_zero() || !(lp.ub - lq.ub).expand().is_zero() ||
      !(lp.ub - lp.lb + 1 - K).expand().is_zero() || lq.lb.has(pe) || lq.ub.has(pe))
    return std::nullopt;
  // the weight: (p != q) times c free of p (either index may be the one it reads: symmetric)
  ex test, c = 1;
  for (const ex& x : detail::operands_of(fam.weight, false)) {
    if (test.is_zero() && pamela_function(x) == Fn::Ne &&
        ((x.op(0).is_equal(pe) && x.op(1).is_equal(qe)) || (x.op(0).is_equal(qe) && x.op(1).is_equal(pe))))
      test = x;
    else
      c *= x;
  }
  if (test.is_zero()) return std::nullopt;
  ex w = c * fam.outer;
  symbol q(lq.index.get_name());
  if (w.has(pe)) {
    // symmetric in p and q: a weight that reads p only is read as a weight of q
    if (w.has(qe)) return std::nullopt;
    w = w.subs(exmap{{pe, q}}, subs_options::no_pattern);
  } else {
    w = w.subs(exmap{{qe, q}}, subs_options::no_pattern);
  }
  Facts in = f;
  in.declare_index(q, lq.lb, lq.ub);
  if (!in.provably_nonneg(w) || may_fail(w, in)) return std::nullopt;
  if (!f.provably_positive(K) || !f.provably_integer(K) || !f.provably_integer(lp.lb)) return std::nullopt;
  if (!detail::require({{true, off}}, f, a)) return std::nullopt;
  ex S = make_reduction(ReduceKind::Sum, q, lq.lb, lq.ub, w);
  ex least = make_reduction(ReduceKind::Min, q, lq.lb, lq.ub, w);
  return compare(Cmp::Eq, mod_of(K, 2), 0) * S + compare(Cmp::Eq, mod_of(K, 2), 1) * (S - least);
}

namespace {

// body = sum (j = lb, ub) { c(j, w) * (g(j) == w) } with g free of w: the fiber of position
// w of the family sum (j) { c(j, g(j)) * unitvec(g(j)) } (on the fiber w is g(j), so a
// weight in w, a worker's speed t * (w + 1), is read at g(j)). The sum's body may be a sum
// of terms that each carry the one test. Returns the family's loop, weight and position;
// nullopt for another shape.
struct FiberSum {
  Loop loop;
  ex weight, pos;
};
std::optional<FiberSum> fiber_sum(const ex& body, const ex& w) {
  if (!is_class<reduction>(body)) return std::nullopt;
  const auto& r = ex_to<reduction>(body);
  if (r.kind() != ReduceKind::Sum || r.lb().has(w) || r.ub().has(w)) return std::nullopt;
  ex c = 0, test;
  for (const ex& term : detail::operands_of(r.body(), true)) {
    ex ct = 1, tt;
    for (const ex& x : detail::operands_of(term, false)) {
      if (pamela_function(x) == Fn::Eq && tt.is_zero() && (x.op(0).is_equal(w) || x.op(1).is_equal(w))) {
        tt = x;
        continue;
      }
      ct *= x;
    }
    if (tt.is_zero() || (!test.is_zero() && !tt.is_equal(test))) return std::nullopt;
    test = tt;
    c += ct;
  }
  if (test.is_zero()) return std::nullopt;
  ex g = test.op(0).is_equal(w) ? test.op(1) : test.op(0);
  if (g.has(w)) return std::nullopt;
  if (c.has(w)) c = c.subs(exmap{{w, g}}, subs_options::no_pattern);
  return FiberSum{{r.index(), r.lb(), r.ub()}, c, g};
}

// The fiber sum's positions g(j) lie in the reduction r's range [lb, ub] of w, are integers
// (proved with j's range) and >= 0 (proved): so each j matches exactly one w of r's range,
// and unitvec(g(j)) exists.
bool fibers_cover(const FiberSum& fs, const reduction& r, const Facts& f) {
  auto lo = values_within(fs.pos, {fs.loop}, r.lb(), r.ub(), f);
  return lo && f.provably_nonneg(*lo);
}

}  // namespace

// Loads written as counts: max (w = lb, ub) { sum (j) { c(j) * (g(j) == w) } } is the busiest
// position of the family sum (j) { c(j) * unitvec(g(j)) }, max(sum (j) { c(j) *
// unitvec(g(j)) }), which the vector rules read whole (a strided map 2 j mod W among W
// workers, where an owner test j mod W == w meets a parity test j mod 2 == 0). Exact when
// every g(j) is an integer in [max(lb, 0), ub] (proved: then the entries of the vector at
// positions lb..ub are the sums, its other entries 0) and c(j) >= 0 (proved: the zeros
// below lb change no max; the zero vector and a max of zero counts are both 0). The range
// of w is non-empty then wherever j's is (g(j) lies in it); an empty j range gives 0 on both
// sides when the max over w is a par's (0 on an empty range) or w's range is proved non-empty.
std::optional<ex> rule_ext_fiber_vector(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<reduction>(e)) return std::nullopt;
  const auto& r = ex_to<reduction>(e);
  if (r.kind() != ReduceKind::Max) return std::nullopt;
  auto fs = fiber_sum(r.body(), r.index_ex());
  if (!fs || !(r.empty_is_zero() || f.provably_nonneg(r.ub() - r.lb()))) return std::nullopt;
  if (!within(f, {fs->loop}).provably_nonneg(fs->weight) || !fibers_cover(*fs, r, f)) return std::nullopt;
  return vector_max(nest({fs->loop}, fs->weight * unitvec(fs->pos)));
}

// sum (w = lb, ub) { sum (j) { c(j) * (g(j) == w) } } = sum (j) { c(j) } where every g(j) is
// an integer in [lb, ub] (proved, fibers_cover): each j is counted at its one position
// (the shared queue's total beside the workers' loads). Exact for any c.
std::optional<ex> rule_sum_fiber_total(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<reduction>(e)) return std::nullopt;
  const auto& r = ex_to<reduction>(e);
  if (r.kind() != ReduceKind::Sum) return std::nullopt;
  auto fs = fiber_sum(r.body(), r.index_ex());
  if (!fs || !fibers_cover(*fs, r, f)) return std::nullopt;
  return nest({fs->loop}, fs->weight);
}

namespace {

// v(p) >= 0 elementwise for every p of r's range, family by family: proved, or for a weight
// free of the family's own loops (a branch's use, maybe repeated), at the ends of its weight's concave factors
// over p (nonneg_weight_conds), the conditions added to `conds` for the rule's require.
bool nonneg_loads(const ex& v, const reduction& r, const Facts& f, std::vector<detail::Cond>& conds) {
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(v, loops, 1, 1, fams)) return false;
  const Facts in = within(f, {{r.index(), r.lb(), r.ub()}});
  for (const Family& fam : fams) {
    const ex w = fam.outer * fam.weight;
    if (within(in, fam.loops).provably_nonneg(w)) continue;
    for (const Loop& l : fam.loops)
      if (w.has(l.index)) return false;
    auto sign = detail::nonneg_weight_conds(w, r.index(), r.lb(), r.ub(), f, in);
    if (!sign) return false;
    conds.insert(conds.end(), sign->conds.begin(), sign->conds.end());
  }
  return true;
}

// v is g times one position (every unitvec in v the same, free of v's own loops): v's one
// entry is g. Through nested pars: g = max (j) { g' } beside v = sum (j) { v' } over the
// same range, each g'(j) an entry of v'(j).
bool branch_is_its_load(const ex& g, const ex& v) {
  if (is_class<reduction>(g) && ex_to<reduction>(g).kind() == ReduceKind::Max) {
    const auto& rg = ex_to<reduction>(g);
    if (!is_class<reduction>(v) || ex_to<reduction>(v).kind() != ReduceKind::Sum) return false;
    const auto& rv = ex_to<reduction>(v);
    if (!(rg.lb() - rv.lb()).expand().is_zero() || !(rg.ub() - rv.ub()).expand().is_zero()) return false;
    return branch_is_its_load(rg.body(), rv.body().subs(exmap{{rv.index_ex(), rg.index_ex()}}, subs_options::no_pattern));
  }
  ex u;
  std::set<ex, ex_is_less> inner;
  for (const_preorder_iterator it = v.preorder_begin(); it != v.preorder_end(); ++it) {
    if (is_class<reduction>(*it)) inner.insert(ex_to<reduction>(*it).index_ex());
    if (pamela_function(*it) != Fn::Unitvec) continue;
    if (!u.is_zero() && !u.is_equal(*it)) return false;
    u = *it;
  }
  if (u.is_zero()) return false;
  for (const ex& j : inner)
    if (u.has(j)) return false;
  return (v.subs(exmap{{u, 1}}, subs_options::no_pattern) - g).expand().is_zero();
}

}  // namespace

// A branch's own load beside the loads of all branches: the time of `par (p) B(p)` is
// max(max (p) { max(phi(p), max(v(p))) }, max(sum (p) { v(p) })), where v(p) is branch p's
// load vector. With every v(q) >= 0 elementwise (proved, family by family), each entry of
// v(p) is at most the same entry of the sum, so max(v(p)) <= max(sum (p) { v(p) }) and the
// inner max(v(p)) changes nothing: it is dropped (the branch's time keeps phi(p)). Exact;
// the sum's unitvec positions are the inner ones, so a position without a value still has
// none. The inner max repeats the outer one at every level of a nest of pars, and rules that
// cannot close it (a per-branch load of an all-to-all) would leave the whole time open.
std::optional<ex> rule_max_inner_load(const ex& e, const Facts& f, Assumptions& a) {
  if (!is_class<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  if (!m.is_max()) return std::nullopt;
  const auto& args = m.args();
  for (size_t gi = 0; gi < args.size(); ++gi) {
    if (pamela_function(args[gi]) != Fn::VectorMax || !is_class<reduction>(args[gi].op(0))) continue;
    const auto& total = ex_to<reduction>(args[gi].op(0));
    if (total.kind() != ReduceKind::Sum) continue;
    for (size_t ri = 0; ri < args.size(); ++ri) {
      if (!is_class<reduction>(args[ri])) continue;
      const auto& r = ex_to<reduction>(args[ri]);
      if (r.kind() != ReduceKind::Max) continue;
      if (!(r.lb() - total.lb()).expand().is_zero() || !(r.ub() - total.ub()).expand().is_zero()) continue;
      ex v = total.body().subs(exmap{{total.index_ex(), r.index_ex()}}, subs_options::no_pattern);
      if (!is_class<extremum>(r.body()) || !ex_to<extremum>(r.body()).is_max()) {
        // A branch that is only its own use (par (i) use(cpu(f(i)), g(i))): g(i) is v(i)'s
        // one entry, at most the sum's entry there, so the whole arm goes.
        std::vector<detail::Cond> conds;
        if (!branch_is_its_load(r.body(), v) || !nonneg_loads(v, r, f, conds) || !detail::require(conds, f, a)) continue;
        exvector out(args.begin(), args.end());
        out.erase(out.begin() + static_cast<long>(ri));
        return make_max(out);
      }
      const auto& inner = ex_to<extremum>(r.body()).args();
      exvector kept;
      bool dropped = false;
      for (const ex& x : inner) {
        if (!dropped && pamela_function(x) == Fn::VectorMax && x.op(0).is_equal(v)) {
          dropped = true;
          continue;
        }
        kept.push_back(x);
      }
      std::vector<detail::Cond> conds;
      if (!dropped || kept.empty() || !nonneg_loads(v, r, f, conds) || !detail::require(conds, f, a)) continue;
      exvector out(args.begin(), args.end());
      out[ri] = rebuild_reduction(r, ReduceKind::Max, r.lb(), r.ub(), kept.size() == 1 ? kept[0] : make_max(kept));
      return make_max(out);
    }
  }
  return std::nullopt;
}

}  // namespace pamc::sym
