// Loads whose weight is a function of the position or of the index's residue by the map's
// own modulus: the load of processor r is its share of the items times its own speed.
// Workers of two speeds by their place in a node, t / (2 - (i mod P) mod 2), over the plain
// cyclic map (i + e) mod P, a reversed one (e - i) mod P or a strided one (a i + e) mod P
// (red-black, even/odd phases); a worker loop under a parity filter, whose items j = 2 m
// land on worker 2 m mod W at the worker's own speed.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/load_families_internal.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace {
using detail::Family;
using detail::Loop;
}  // namespace

// max(w * sum (i = lb, ub) { c(i) * unitvec((a i + e) mod P) }) where w c sees i only
// through residues (+-i + c_j) mod P of the same P, with a a nonzero integer, |a| <= 8, a
// != 1. With rho = i mod P those residues are (+-rho + c_j) mod P, so w c = g(rho). Two
// indices share a position iff P divides a (i - i'), iff P' = P / gcd(a, P) divides i - i':
// the fibers are the classes of i mod P', and the class of r (0 <= r < P') holds the
// residues rho = r + m P' mod P, m = 0..gcd - 1, each with cnt(rho) = floor((ub - rho) /
// P) - floor((lb - 1 - rho) / P) indices in lb..ub. So position loads are sum (m) { g(r +
// m P') cnt(r + m P') }, and the busiest is their max over r = 0..P' - 1, as cases on
// gcd(a, P) (by_gcd_cases); positions no index reaches hold 0, below every load when g >=
// 0. Side conditions: P a positive integer and a, e, c_j integers (proved; a i + e then
// integer for integer i); lb, ub integers (proved or assumed); g(rho) >= 0 and not failing
// for rho in 0..P - 1 (proved); an empty range gives 0 (guarded).
std::optional<ex> rule_vmax_residue_weight(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  auto sp = strided_position(m->pos, i);
  if (!sp || !sp->d.is_zero() || sp->a.is_equal(1) || abs(sp->a) > 8) return std::nullopt;
  const ex& P = sp->k;
  const long stride = abs(sp->a).to_long();
  ex wc = m->w * m->c;
  if (!wc.has(i)) return std::nullopt;  // index-free weights: vmax_cyclic
  if (!f.provably_positive(P) || !f.provably_integer(P) || !f.provably_integer(sp->e)) return std::nullopt;
  // Every residue of i in the weight, read through rho ((i mod P) mod 2: the inner one).
  symbol rho(r.index().get_name());
  auto residues = residues_at(wc, i, P, rho, f, true);
  if (!residues) return std::nullopt;
  ex g = wc.subs(*residues, subs_options::no_pattern);
  if (g.has(i)) return std::nullopt;
  Facts fr = f;
  fr.declare_index(rho, 0, P - 1);
  if (!fr.provably_nonneg(g) || may_fail(g, fr)) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  auto cnt = [&](const ex& x) { return floor_of((r.ub() - x) / P) - floor_of((r.lb() - 1 - x) / P); };
  ex busiest = by_gcd_cases(stride, P, [&](const ex& gd) {
    const long parts = ex_to<numeric>(gd).to_long();
    // floor: an integer bound in every case, also in those whose guard is 0 (P / 2 for an
    // odd P would be a bound without a value there, which no zero factor covers)
    ex period = floor_of(P / gd), load = 0;
    for (long k = 0; k < parts; ++k) {
      ex at = rho + k * period;
      load += g.subs(exmap{{rho, at}}, subs_options::no_pattern) * cnt(at);
    }
    return make_reduction(ReduceKind::Max, rho, 0, period - 1, load, true);
  });
  return nonempty_guard(r.ub() - r.lb() + 1, f) * busiest;
}

namespace {

// The items i in lb..ub of class s (i + sh = s mod K, s in 0..K - 1), x = ub + sh and y = lb
// + sh - 1: floor((x - s) / K) - floor((y - s) / K), each floor written as floor(x / K) - (x
// mod K < s), the form the extremum rules split at its steps (y = -1 or 0 give -1 and -(1
// <= s)). `steps` are the classes after which the count changes: x mod K, y mod K.
struct ClassCount {
  ex cnt;
  exvector steps;
};
ClassCount class_count(const ex& x, const ex& y, const ex& K, const symbol& s) {
  auto below = [&](const ex& z) { return floor_of(z / K) - compare(Cmp::Lt, mod_of(z, K), s); };
  ClassCount out{below(x), {mod_of(x, K)}};
  if (y.is_equal(-1)) {
    out.cnt += 1;
  } else if (y.is_zero()) {
    out.cnt += compare(Cmp::Le, 1, s);
    out.steps.push_back(0);
  } else {
    out.cnt -= below(y);
    out.steps.push_back(mod_of(y, K));
  }
  return out;
}

// max (s = lo, hi) { load(s) } for a load >= 0 (under the range's guard) that is a weight
// times a class count with the given steps: with the weight rising (up) or falling (down)
// in s the load rises (falls) within each run of classes of one count, so the max is at a
// run's last class (hi, or a step clipped to hi) or first (lo, or a step + 1 clipped to lo),
// each taken where it lies in lo..hi (else 0, below every load). Otherwise the max itself,
// 0 on an empty range, for the extremum rules.
ex class_max(const ex& load, const symbol& s, const ex& lo, const ex& hi, const exvector& steps, bool up, bool down) {
  if (!up && !down) return make_reduction(ReduceKind::Max, s, lo, hi, load, true);
  exvector at{up ? hi : lo}, out;
  for (const ex& x : steps) at.push_back(up ? make_min({x, hi}) : make_max({x + 1, lo}));
  for (const ex& x : at)
    out.push_back((up ? compare(Cmp::Le, lo, x) : compare(Cmp::Le, x, hi)) *
                  load.subs(exmap{{s, x}}, subs_options::no_pattern));
  return make_max(out);
}

// Whether g(r) rises (first) or falls (second) with r over r = 0..K - 1, proved.
std::pair<bool, bool> direction(const ex& g, const symbol& r, const ex& K, const Facts& f) {
  Facts step = f;
  step.declare_index(r, 0, K - 2);
  const ex rise = (g.subs(exmap{{r, r + 1}}, subs_options::no_pattern) - g).expand();
  const bool up = step.provably_nonneg(rise);
  return {up, !up && step.provably_nonpos(rise)};
}

}  // namespace

// A weight that is a function of a strided position: max(sum (i = lb, ub) { g(pos) *
// unitvec(pos + d) }) with pos = (a i + e) mod P, a a whole number 2..4 (a worker loop under
// a parity filter, j = 2 m or 2 m + 1: worker (2 m + e) mod W at its own speed). With h =
// gcd(a, P) and P' = P / h, i and i' share a position iff P' divides i - i', so the fibers
// are the classes i = s (mod P'), s = 0..P' - 1, with cnt(s) = floor((ub - s) / P') -
// floor((lb - 1 - s) / P') items, and class s sits at (a s + e') mod P, e' = e mod P in
// 0..P - 1 (e itself where that is proved). a s + e' runs over 0..(a / h) P - 1 (one more
// multiple of P with e' > 0), so on the piece c P <= a s + e' < (c + 1) P the position is a
// s + e' - c P and the busiest is the max over the pieces of max (s) { g(a s + e' - c P)
// cnt(s) } (0 on an empty piece): distinct classes at distinct positions, positions no item
// reaches hold 0, below every load (g >= 0). One case per value of gcd(a, P)
// (by_gcd_cases). Side conditions: P a positive integer (proved; the model's fact for a
// mod); lb, ub, e, d integers and d >= 0 (proved or assumed); g(r) >= 0 and not failing for
// r in 0..P - 1 (proved), g reading i only through pos; guarded for an empty range.
static std::optional<ex> strided_position_weight(const Family& fam, const Facts& f, Assumptions& as) {
  const Loop& l = fam.loops[0];
  auto sp = detail::strided_position(fam.pos, l.index);
  if (!sp) return std::nullopt;
  const numeric& a = sp->a;  // a nonzero whole number (strided_position)
  if (a < 2 || a > 4) return std::nullopt;
  const ex& P = sp->k;
  const ex node = mod_of(a * l.index + sp->e, P);
  if (!f.provably_positive(P) || !f.provably_integer(P)) return std::nullopt;
  // the shift as a residue e' in 0..P - 1: e itself where that is proved
  const bool shifted = !sp->e.is_zero();
  const ex e1 = !shifted || (f.provably_nonneg(sp->e) && f.provably_nonneg(P - 1 - sp->e)) ? sp->e : mod_of(sp->e, P);
  ex w = fam.outer * fam.weight;
  if (!w.has(l.index)) return std::nullopt;
  symbol r(l.index.get_name());
  ex g = w.subs(exmap{{node, r}}, subs_options::no_pattern);
  if (g.has(l.index)) return std::nullopt;
  Facts fr = f;
  fr.declare_index(r, 0, P - 1);
  if (!fr.provably_nonneg(g) || may_fail(g, fr)) return std::nullopt;
  if (!detail::require({{true, l.lb}, {true, l.ub}, {true, sp->e}, {true, sp->d}, {false, sp->d}}, f, as))
    return std::nullopt;
  // g monotone in the position (a worker's speed t (w + 1)): on a piece, where the position
  // rises with s, the max is then at an end of a run of classes of one count (class_max)
  const auto [up, down] = direction(g, r, P, f);
  const long an = a.to_long();
  ex busiest = detail::by_gcd_cases(an, P, [&](const ex& h) {
    const ex Pc = P / h;
    const ClassCount count = class_count(l.ub, l.lb - 1, Pc, r);
    exvector pieces;
    // a s + e' runs over 0..(a / h) P - 1 (a shift e' > 0: one piece more, maybe empty)
    const long n_pieces = an / ex_to<numeric>(h).to_long() + (shifted ? 1 : 0);
    for (long c = 0; c < n_pieces; ++c) {
      // piece c: c P <= a s + e' <= (c + 1) P - 1, within s = 0..P' - 1; floor(P / h) is
      // P / h itself in its case, an integer bound in the others
      ex lo = c == 0 ? ex(0) : ceil_of((c * P - e1) / an);
      ex hi = c + 1 == n_pieces ? floor_of(Pc) - 1 : floor_of(((c + 1) * P - 1 - e1) / an);
      ex load = g.subs(exmap{{r, an * r + e1 - c * P}}, subs_options::no_pattern) * count.cnt;
      pieces.push_back(class_max(load, r, lo, hi, count.steps, up, down));
    }
    return make_max(pieces);
  });
  return detail::nonempty_guard(l.ub - l.lb + 1, f) * busiest;
}

// A weight that is a function of a block map's block: max(sum (i = lb, ub) { g(q) *
// unitvec(q + d) }) with q = (i + e) div K (a block owner's speed, t / (1 + (i div B) mod 2)).
// Block q holds the items of lb..ub with K q - e <= i <= K q + K - 1 - e: K of them for
// every block strictly between the first, q0 = (lb + e) div K, and the last, q1 = (ub + e)
// div K, which hold min(ub, K q0 + K - 1 - e) - lb + 1 and ub - max(lb, K q1 - e) + 1 (both
// ub - lb + 1 where q0 = q1). So the busiest is max(g(q0) cnt(q0), g(q1) cnt(q1), K max (q =
// q0 + 1, q1 - 1) { g(q) }), the inner max 0 where no block lies between (the extremum
// rules close it: a periodic g at its first period, a monotone one at an end). Exact:
// positions no item reaches hold 0, below every load as g >= 0. Side conditions: K a
// positive integer, e, lb, ub and d integers, d >= 0 (proved or assumed); g(q) >= 0 and not
// failing for q in q0..q1 (proved); w depends on i only through q; an empty range gives 0 (guarded).
static std::optional<ex> block_position_weight(const Family& fam, const Facts& f, Assumptions& a) {
  const Loop& l = fam.loops[0];
  const ex& i = l.index;
  auto p = mod_div_position(fam.pos, i, Fn::Div);
  if (!p || p->s != 1) return std::nullopt;
  const ex& K = p->k;
  const ex e0 = p->e0;
  if (!f.provably_positive(K) || !f.provably_integer(K)) return std::nullopt;
  ex w = fam.outer * fam.weight;
  if (!w.has(i)) return std::nullopt;  // an index-free weight is the block rules'
  ex node;
  for (const ex& t : operands_of(fam.pos.expand(), true))
    if (pamela_function(t) == Fn::Div && t.has(i)) node = t;
  if (node.is_zero()) return std::nullopt;
  symbol q(l.index.get_name());
  ex g = w.subs(exmap{{node, q}}, subs_options::no_pattern);
  if (g.has(i)) return std::nullopt;
  const ex q0 = idiv_of(l.lb + e0, K), q1 = idiv_of(l.ub + e0, K);
  Facts fq = f;
  fq.declare_index(q, q0, q1);
  if (!fq.provably_nonneg(g) || may_fail(g, fq)) return std::nullopt;
  if (!require({{true, e0}, {true, l.lb}, {true, l.ub}, {true, p->d}, {false, p->d}}, f, a)) return std::nullopt;
  auto at = [&](const ex& x) { return g.subs(exmap{{q, x}}, subs_options::no_pattern); };
  const ex first = (make_min({l.ub, K * q0 + K - 1 - e0}) - l.lb + 1) * at(q0);
  const ex last = (l.ub - make_max({l.lb, K * q1 - e0}) + 1) * at(q1);
  const ex inner = K * make_reduction(ReduceKind::Max, q, q0 + 1, q1 - 1, g, true);
  return nonempty_guard(l.ub - l.lb + 1, f) * make_max({first, last, inner});
}

// A weight that is a function of the position: max(sum (i = lb, ub) { g(pos) * unitvec(pos) })
// with pos = (i + e) mod P is max (r = 0, P - 1) { g(r) * cnt(r) }, where cnt(r) =
// floor((ub + e - r) / P) - floor((lb + e - 1 - r) / P) counts the i in lb..ub with
// (i + e) mod P = r (workers of two speeds, t / (1 + (i mod P) mod 2): the load of
// processor r is its share of the items times its own speed); for a g monotone in r, the
// ends of the runs of one count (class_max). Exact: each position's load
// is g(r) times its count; positions never hit count 0, as the vector's zeros, and with
// g(r) >= 0 over 0..P-1 (proved) the max over r is the max over the elements (0 for the
// zero vector; an empty range is guarded). Side conditions: P > 0 an integer, e, lb, ub
// integers (proved or assumed); g(r) >= 0 and not failing for r in 0..P-1 (proved), and g
// depends on i only through the position (the position node substituted, no i left).
std::optional<ex> rule_vmax_position_weight(const ex& e, const Facts& f, Assumptions& a) {
  auto one = one_family(e, 1);
  if (!one) return std::nullopt;
  const Family& fam = *one;
  const Loop& l = fam.loops[0];
  const ex& pos = fam.pos;
  if (auto strided = strided_position_weight(fam, f, a)) return strided;
  if (auto blocks = block_position_weight(fam, f, a)) return blocks;
  if (pamela_function(pos) != Fn::Mod) return std::nullopt;
  const ex& P = pos.op(1);
  if (P.has(l.index)) return std::nullopt;
  auto lin = detail::linear_in(pos.op(0), l.index);
  if (!lin || lin->first != 1) return std::nullopt;
  const ex& off = lin->second;
  ex w = fam.outer * fam.weight;
  if (!w.has(l.index)) return std::nullopt;  // an index-free weight is the cyclic rules'
  symbol r(l.index.get_name());
  ex g = w.subs(exmap{{pos, r}}, subs_options::no_pattern);
  // Else a weight of the index's own residues, (i + e) mod P (a worker's speed by i mod P
  // beside the position (i + B) mod P): read over the residue r of i, whose position
  // (r + off) mod P runs over 0..P - 1 once as r does, so the max over r is the same.
  bool by_residue = false;
  if (g.has(l.index)) {
    auto residues = detail::residues_at(w, l.index, P, r, f, false);
    if (!residues) return std::nullopt;
    g = w.subs(*residues, subs_options::no_pattern);
    if (g.has(l.index)) return std::nullopt;
    by_residue = true;
  }
  bool p_positive = f.provably_positive(P);
  Facts fr = f;
  if (!p_positive) fr.add_lower(ex_to<symbol>(is_class<symbol>(P) ? P : ex(r)), 1, false);
  if (!p_positive && !is_class<symbol>(P)) return std::nullopt;
  const auto [up, down] = direction(g, r, P, fr);
  fr.declare_index(r, 0, P - 1);
  if (!fr.provably_nonneg(g) || may_fail(g, fr)) return std::nullopt;
  std::vector<detail::Cond> conds = {{true, P}, {true, off}, {true, l.lb}, {true, l.ub}};
  if (!p_positive) conds.push_back({false, P - 1});
  if (!detail::require(conds, f, a)) return std::nullopt;
  const ex shift = by_residue ? ex(0) : off;  // the residue r of i, or of i + off
  const ClassCount count = class_count(l.ub + shift, l.lb + shift - 1, P, r);
  return detail::nonempty_guard(l.ub - l.lb + 1, f) * class_max(g * count.cnt, r, 0, P - 1, count.steps, up, down);
}

}  // namespace pamc::sym
