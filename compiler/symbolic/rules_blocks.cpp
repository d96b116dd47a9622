// Rewrite rules for the busiest position of a load vector whose positions are a block map
// of the index, (a i + e) div k + d, or a block-cyclic one, ((i + e) div B) mod P + d: a
// constant weight (the first block or the two at the range's start), a monotone weight (the
// blocks at the end the weight rises to), a periodic or a concave one, and blocks under
// another map. The map and weight readers are rules_index_maps.cpp's.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

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

// Block map with a monotone weight, from any start and with any stride: max(w * sum (i =
// lb, ub) { c(i) * unitvec((a i + e) div K + d) }) with a a positive integer (<= 8), K a
// positive integer, e an integer, w c(i) >= 0 and monotone on the range. Block q holds the
// i with q K <= a i + e < (q + 1) K, from first(q) = ceil((q K - e) / a) up. Moving K items
// up, i -> i + K, moves block q onto block q + a one to one; so for w c nondecreasing every
// block below the a blocks before the last is dominated item by item by one of those (each
// lies wholly in the range, between a block that meets it and the last), and the busiest is
// among the blocks q1 - j, j = 0..a, q1 = (a ub + e) div K the block of ub, each clipped to
// the range: max over j of sum (i = max(lb, first(q1 - j)), min(ub, first(q1 - j + 1) - 1))
// { w c }. Nonincreasing is mirrored from the block of lb, q0 = (a lb + e) div K. Rows from
// 1 in blocks of B, a row's cost rising with its length; even rows two at a time (2 i div
// B). The sums are closed by the sum rules; each is 0 where its piece is empty, and all are
// where the range is, as the vector is. Side conditions: K, e, lb, ub integers (proved, or
// assumed: "P divides N" for blocks of N / P); K > 0 and the weight's sign and direction
// (proved; its sign at the ends of a concave weight, assumed).
// `constant`: the weight is free of i (vmax_block_strided); else it depends on i.
static std::optional<ex> block_ends(const ex& e, const Facts& f, Assumptions& a, bool constant) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  auto p = affine_rounding(m->pos, i, Fn::Div);
  if (!p || !is_class<numeric>(p->a) || !ex_to<numeric>(p->a).is_pos_integer() || ex_to<numeric>(p->a) > 8)
    return std::nullopt;
  const long stride = ex_to<numeric>(p->a).to_long();
  if (m->c.has(i) == constant || (constant && stride == 1)) return std::nullopt;
  const ex e0 = p->e, K = p->k;
  if (!f.provably_positive(K) || (is_class<numeric>(K) && !f.provably_integer(K))) return std::nullopt;
  auto mono = monotone_weight(*m, r, f);
  if (!mono) return std::nullopt;
  std::vector<Cond> conds{{true, r.lb()}, {true, r.ub()}, {true, K}, {true, e0}};
  conds.insert(conds.end(), mono->conds.begin(), mono->conds.end());
  if (!require(conds, f, a)) return std::nullopt;
  // A weight free of i rises and falls: read from the range's start, whose blocks print
  // shorter (blocks 0 and 1 of rows from 0).
  const bool up = mono->up && !constant;
  const ex end = up ? r.ub() : r.lb(), end_block = idiv_of(stride * end + e0, K);
  // Block end_block + d's first i. With a unit stride, written from the range's end: the
  // block of ub starts at ub - (ub + e) mod K, a form whose place in the range the prover
  // reads off the residue's bounds (K ((ub + e) div K) - e is the same number).
  auto first = [&](long d) {
    if (stride == 1) return end - mod_of(end + e0, K) + d * K;
    return ceil_of(((end_block + d) * K - e0) / stride);
  };
  exvector loads;
  for (long j = 0; j <= stride; ++j) {
    long d = up ? -j : j;  // the block's place from the end block
    ex lo = !up && j == 0 ? r.lb() : make_max({r.lb(), first(d)});
    ex hi = up && j == 0 ? r.ub() : make_min({r.ub(), first(d + 1) - 1});
    loads.push_back(rebuild_reduction(r, ReduceKind::Sum, lo, hi, mono->wc));
  }
  return make_max(loads);
}

std::optional<ex> rule_vmax_block_ends(const ex& e, const Facts& f, Assumptions& a) {
  return block_ends(e, f, a, false);
}

// The same with a weight free of i and a stride a >= 2 (the odd rows of a red-black sweep,
// (2 i + 1) div B): a constant is monotone, so the busiest block is among a + 1 blocks at
// one end, read from the range's start. The interior blocks hold floor(K / a) or ceil(K / a)
// items by their place, and those a + 1 blocks show both. Tried after vmax_block and
// vmax_fibers, whose forms of the cases they read are shorter (p div 2 over the even p).
std::optional<ex> rule_vmax_block_strided(const ex& e, const Facts& f, Assumptions& a) {
  return block_ends(e, f, a, true);
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
