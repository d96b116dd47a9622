// Rewrite rules for bodies that are periodic in the index. Extrema with a numeric period:
// the body sees the index only through residues (a i + e) mod m with numeric moduli (the
// parity of a worker, (i mod 2) + 1; a stride over a guard's progression, (W j) mod 2), so
// one period of the range holds every value the whole range takes. A product whose
// factors are all largest at one end of the range (a residue weight beside a falling count,
// with any period). Sums whose body sees the index only through (+-i + e) mod k: over one
// whole period, split by residue class (numeric k), or whole periods plus two partial ones
// (any k). See rules.h.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace {

constexpr long kMaxPeriod = 12;  // the rule writes out one term per index of a period

}  // namespace

namespace detail {

// The least common multiple of the moduli m of the residues (a i + e) mod m through which h
// sees i (m a positive integer number, a and e free of i and integers, proved): h(i + T) =
// h(i) for that T. 1 when h is free of i; 0 when i occurs elsewhere (bare, in a symbolic
// modulus, in an inner reduction) or the period exceeds kMaxPeriod.
long numeric_period(const ex& h, const ex& i, const Facts& f) {
  if (!h.has(i)) return 1;
  if (is_class<symbol>(h) || is_class<reduction>(h)) return 0;
  if (pamela_function(h) == Fn::Mod) {
    const ex &x = h.op(0), &m = h.op(1);
    if (m.has(i) || !is_class<numeric>(m) || !ex_to<numeric>(m).is_pos_integer() || ex_to<numeric>(m) > kMaxPeriod)
      return 0;
    ex xe = x.expand();
    if (xe.degree(i) != 1 || xe.ldegree(i) < 0) return 0;
    ex a = xe.coeff(i, 1), rest = (xe - a * i).expand();
    if (a.has(i) || rest.has(i) || !f.provably_integer(a) || !f.provably_integer(rest)) return 0;
    return ex_to<numeric>(m).to_long();
  }
  long t = 1;
  for (size_t k = 0; k < h.nops(); ++k) {
    long p = numeric_period(h.op(k), i, f);
    if (p == 0) return 0;
    t = std::lcm(t, p);
    if (t > kMaxPeriod) return 0;
  }
  return t;
}

}  // namespace detail

namespace {

// h sees i only through residues R mod m (m a positive integer number) of one node R = (s i +
// e) mod P (s = +-1, e an integer, P a positive integer, all proved; P not a number): any
// 2 L - 1 consecutive indices show every value h takes at any later index, L the lcm of the
// m. Proof: R mod L decides h; 2 L - 1 >= P consecutive i give every residue R; fewer run
// through consecutive residues that wrap at most once, and of the two runs one is >= L long,
// so it holds every class mod L. The workers' speeds t / (1 + (i mod P) mod 2): 3. T = 0
// where h sees i otherwise (R bare, two nodes R) or 2 L - 1 exceeds kMaxPeriod.
struct Window {
  long T = 0;               // every value shows within T consecutive indices
  std::optional<ex> node;   // R, for a window of residue classes; none for a numeric period
};
Window residue_class_window(const ex& h, const ex& i, const Facts& f) {
  std::optional<ex> node;
  long L = 1;
  std::function<bool(const ex&)> walk = [&](const ex& x) {
    if (!x.has(i)) return true;
    if (is_class<symbol>(x) || is_class<reduction>(x)) return false;
    if (pamela_function(x) == Fn::Mod && pamela_function(x.op(0)) == Fn::Mod && is_class<numeric>(x.op(1))) {
      const ex &R = x.op(0), &P = R.op(1);
      const numeric& m = ex_to<numeric>(x.op(1));
      if (!m.is_pos_integer() || P.has(i) || is_class<numeric>(P)) return false;
      if (node && !node->is_equal(R)) return false;
      if (!node) {
        auto lin = linear_in(R.op(0), i);
        if (!lin || (lin->first != 1 && lin->first != -1) || !f.provably_integer(lin->second)) return false;
        if (!f.provably_integer(P) || !f.provably_positive(P)) return false;
        node = R;
      }
      L = std::lcm(L, m.to_long());
      return 2 * L - 1 <= kMaxPeriod;
    }
    if (pamela_function(x) == Fn::Mod) return false;
    for (size_t k = 0; k < x.nops(); ++k)
      if (!walk(x.op(k))) return false;
    return true;
  };
  if (!walk(h) || !node) return {};
  return {2 * L - 1, node};
}

Window value_window(const ex& h, const ex& i, const Facts& f) {
  long T = numeric_period(h, i, f);
  if (T >= 2) return {T, std::nullopt};
  return residue_class_window(h, i, f);
}

// A max of h = (periodic factors) * (the other factors), every factor >= 0 on the range and
// the other factors all nonincreasing (or all nondecreasing) in i, step by step (proved):
// at any index beyond the first T from lb (the last T before ub), some index among them
// has the same periodic part (value_window) and others at least as large, so the max is
// among those T. A count falling in i times a processor's speed by parity, (N - i + 1) /
// (1 + (i mod P) mod 2).
struct ProductWindow {
  Window window;
  bool from_top;
};
std::optional<ProductWindow> periodic_times_monotone(const reduction& r, const Facts& f) {
  const ex& i = r.index_ex();
  Facts in = f, step = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  step.declare_index(r.index(), r.lb(), r.ub() - 1);
  ex h = r.body();
  if (auto shared = shared_factors(h)) h = *shared;  // (N - i + 1) x written out term by term
  if (!is_class<mul>(h)) return std::nullopt;
  // Each factor >= 0, or <= 0 and then negated (-(i - N - 1) / x, (i - N - 1) / (x - 2)),
  // with an even number of minus signs in all.
  ex periodic = 1;
  exvector rest;
  bool negative = false;
  for (const ex& x : h) {
    if (is_class<numeric>(x)) {
      negative ^= ex_to<numeric>(x).is_negative();
      continue;
    }
    ex y = x;
    if (!in.provably_nonneg(x)) {
      if (!in.provably_nonpos(x)) return std::nullopt;
      y = -x;
      negative = !negative;
    }
    if (!y.has(i) || value_window(y, i, in).T >= 2) periodic *= y;
    else rest.push_back(y);
  }
  Window w = value_window(periodic, i, in);
  if (negative || w.T < 2 || rest.empty()) return std::nullopt;
  auto monotone = [&](int dir) {  // dir (x(i + 1) - x(i)) >= 0 for lb <= i <= ub - 1
    for (const ex& x : rest)
      if (!step.provably_nonneg((dir * (x.subs(exmap{{i, i + 1}}) - x)).expand())) return false;
    return true;
  };
  if (monotone(-1)) return ProductWindow{w, false};
  if (monotone(1)) return ProductWindow{w, true};
  return std::nullopt;
}

// The extremum over the first w.T indices from one end (the last when from_top), each
// taken where it is in range; and, for a window of residue classes on a body that is all
// periodic, the extremum over the residues 0..P - 1 where the range holds w.T indices.
std::optional<ex> over_window(const reduction& r, const Window& w, bool from_top, bool all_periodic,
                              const Facts& f, Assumptions& a) {
  const ex& i = r.index_ex();
  const ex& h = r.body();
  const bool is_max = r.kind() == ReduceKind::Max;
  if (may_fail(h, f)) return std::nullopt;
  const ex span = r.ub() - r.lb();
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  auto some = nonempty_factor(r, f, a);
  if (!some) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  const ex start = from_top ? r.ub() : r.lb();
  const int step = from_top ? -1 : 1;
  bool gate_with_zero = is_max && in.provably_nonneg(h);
  const ex first = h.subs(exmap{{i, start}});
  exvector args{first};
  for (long t = 1; t < w.T; ++t) {
    ex term = h.subs(exmap{{i, start + step * t}});
    if (f.provably_nonneg(span - t)) args.push_back(term);
    else if (gate_with_zero) args.push_back(compare(Cmp::Le, t, span) * term);
    else args.push_back(first + compare(Cmp::Le, t, span) * (term - first));
  }
  ex ext = is_max ? make_max(args) : make_min(args);
  if (w.node && all_periodic) {
    // A range of T indices or more shows every value h takes anywhere: those at the
    // residues 0..P - 1, a range free of lb and ub.
    symbol rr(r.index().get_name());
    ex all = make_reduction(r.kind(), rr, 0, w.node->op(1) - 1, h.subs(exmap{{*w.node, rr}}, subs_options::no_pattern));
    if (f.provably_nonneg(span - (w.T - 1))) return *some * all;
    ext = compare(Cmp::Le, w.T - 1, span) * all + compare(Cmp::Lt, span, w.T - 1) * ext;
  }
  return *some * ext;
}

}  // namespace

// max (i = lb, ub) { h(i) } with h periodic in i (numeric_period T >= 2): the range's values
// are those of its first min(T, ub - lb + 1) indices, so the max is max(h(lb), ..., h(lb + T
// - 1)) with the term for lb + t taken only where lb + t <= ub: written (t <= ub - lb) h(lb +
// t) for a max of h >= 0 (proved over the range; a 0 then changes nothing), else h(lb) + (t
// <= ub - lb) (h(lb + t) - h(lb)), which is h(lb) where the term is out of range (also min).
// A term proved in range is written bare. On an empty range a par's max (0 there) is
// guarded; any other extremum needs a non-empty range (proved or assumed). Side conditions:
// lb, ub integers (proved or assumed); h does not fail (may_fail), as it is now evaluated
// at lb + t beyond the range where the guard is 0. The even/odd workers of a farm, max (i =
// 0, U) { (i mod W == 0) ((i mod 2) + 1) }, become after the residue selection max (j = 0,
// floor(U / W)) { (W j) mod 2 + 1 } = max(1, (1 <= floor(U / W)) (W mod 2 + 1)).
std::optional<ex> rule_ext_periodic(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  long T = numeric_period(r->body(), r->index_ex(), f);
  if (T < 2) return std::nullopt;
  return over_window(*r, Window{T, std::nullopt}, false, true, f, a);
}

// max (i = lb, ub) { h(i) } (also min) where h shows all its values within T indices of any
// start without a numeric period (residue_class_window: a processor's parity, (i mod P) mod
// 2, T = 3): the extremum over the residues 0..P - 1 where the range holds T indices or
// more, else over the indices in range among the first T, as ext_periodic writes them.
// And a max of such a factor times factors monotone in i, all the same way
// (periodic_times_monotone): the max over the T indices at the end where they are largest. Side conditions as ext_periodic's; P a
// positive integer (proved). Residues that run from 0 up are left to ext_mod_range, whose
// form is shorter; this rule comes before it, whose two runs of residues from a symbolic
// start leave sums over them that do not close.
std::optional<ex> rule_ext_class_window(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  Window w = residue_class_window(r->body(), r->index_ex(), f);
  if (w.T >= 2) {
    // residues from 0 up: ext_mod_range's max over r = 0..min(ub - lb, P - 1) reads shorter
    auto lin = linear_in(w.node->op(0), r->index_ex());
    if (lin->first == 1 && (r->lb() + lin->second).expand().is_zero()) return std::nullopt;
    return over_window(*r, w, false, true, f, a);
  }
  if (r->kind() != ReduceKind::Max) return std::nullopt;
  auto at = periodic_times_monotone(*r, f);
  if (!at) return std::nullopt;
  return over_window(*r, at->window, at->from_top, false, f, a);
}

// max (i = lb, ub) { f_1(i) ... f_n(i) } = f_1(e) ... f_n(e), e = lb or ub, when every
// factor is nonnegative on the range and largest at e: f_k(e) - f_k(i) >= 0 for lb <= i <=
// ub, proved; a 0/1 test (a <= b) (or <) is largest at e when (b - a)(e) >= (b - a)(i).
// A product of nonnegative numbers grows with each of them, so no index does better than
// e. A count falling in i times a weight of the residue that is largest at i = 0:
// max (i = 0, U) { (N - i + 1) / (1 + (i mod P) mod 2) } is N + 1 (P >= 1), which neither
// ext_monotone nor ext_periodic reads (the weight has the symbolic period P). A negative
// number in front moves into a factor proved <= 0 (-(N - i + 1) / (x - 2)). A body written
// as a sum of terms that share their factors is read as their product (shared_factors). A
// min of h is minus the max of -h, so a min of a product with a negative number in front is
// at e too.
// Side conditions: integer bounds, a non-empty range (nonempty_factor), a body that cannot fail.
std::optional<ex> rule_ext_product_at_end(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex h = r->body();
  if (auto shared = shared_factors(h)) h = *shared;  // a guarded count written out term by term
  if (!is_class<mul>(h) || may_fail(h, f)) return std::nullopt;
  Facts in = f;
  in.declare_index(r->index(), r->lb(), r->ub());
  numeric c = r->kind() == ReduceKind::Max ? 1 : -1;  // min h = -max(-h), at the same end
  exvector factors;
  for (const ex& x : h) {
    if (is_class<numeric>(x)) c *= ex_to<numeric>(x);
    else factors.push_back(x);
  }
  // Where a test linear in i fails the product is 0, which no end exceeds (e passes every
  // test some index passes, below): the other factors are compared where the tests hold,
  // (i - 1 <= N) * (N - i + 1) as N - i + 1 with i <= N + 1.
  Facts held = in;
  for (const ex& x : factors) {
    Fn fn = pamela_function(x);
    if (fn != Fn::Le && fn != Fn::Lt) continue;
    auto lin = linear_in((x.op(1) - x.op(0)).expand(), i);  // gap = c i + d >= 0 (> 0)
    if (!lin || lin->first.is_zero()) continue;
    ex at = (-lin->second / lin->first).expand();
    if (lin->first.is_positive()) held.add_lower(r->index(), at, fn == Fn::Lt);
    else held.add_upper(r->index(), at, fn == Fn::Lt);
  }
  if (!c.is_rational() || c.is_zero()) return std::nullopt;
  if (c.is_negative()) {
    auto it = std::find_if(factors.begin(), factors.end(),
                           [&](const ex& x) { return x.has(i) && !is_comparison(x) && held.provably_nonpos(x); });
    if (it == factors.end()) return std::nullopt;
    *it = -*it;
  }
  for (const ex& x : factors)
    if (!(is_comparison(x) ? in : held).provably_nonneg(x)) return std::nullopt;
  auto largest_at = [&](const ex& end) {
    for (const ex& x : factors) {
      if (!x.has(i)) continue;
      Fn fn = pamela_function(x);
      ex d;
      if (fn == Fn::Le || fn == Fn::Lt) {
        ex gap = x.op(1) - x.op(0);
        d = gap.subs(exmap{{i, end}}) - gap;
      } else {
        d = decide_all(x.subs(exmap{{i, end}}), in) - x;
      }
      if (!(is_comparison(x) ? in : held).provably_nonneg(d.expand())) return false;
    }
    return true;
  };
  for (const ex& end : {r->lb(), r->ub()}) {
    if (!largest_at(end)) continue;
    if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
    auto some = nonempty_factor(*r, f, a);
    if (!some) return std::nullopt;
    return *some * h.subs(exmap{{i, end}});
  }
  return std::nullopt;
}

namespace {

// The nodes (s i + e) mod k (s = +-1, e an integer, proved with the facts of the loops
// around the node) through which alone e depends on i, also inside another residue ((i mod
// P) mod 2); false when i occurs elsewhere, or in an inner loop's bounds.
bool i_only_in_mods(const ex& x, const ex& i, const Facts& f, std::vector<std::pair<ex, numeric>>& mods) {
  if (!x.has(i)) return true;
  if (x.is_equal(i)) return false;
  if (is_class<reduction>(x)) {
    const auto& r = ex_to<reduction>(x);
    if (r.lb().has(i) || r.ub().has(i)) return false;
    Facts in = f;
    in.declare_index(r.index(), r.lb(), r.ub());
    return i_only_in_mods(r.body(), i, in, mods);
  }
  if (pamela_function(x) == Fn::Mod && !x.op(1).has(i)) {
    // (i mod P) mod 2: the inner residue is the node; a mod of anything else linear fails
    if (auto lin = linear_in(x.op(0), i)) {
      if ((lin->first != 1 && lin->first != -1) || !f.provably_integer(lin->second)) return false;
      mods.push_back({x, lin->first});
      return true;
    }
  }
  for (size_t k = 0; k < x.nops(); ++k)
    if (!i_only_in_mods(x.op(k), i, f, mods)) return false;
  return true;
}

// e a sum whose body depends on its index only through residue nodes (i_only_in_mods)
// that all share one modulus k: the sum, k and the nodes; nullopt otherwise.
struct ResidueSum {
  const reduction* r;
  ex k;
  std::vector<std::pair<ex, numeric>> mods;  // (node (s i + e) mod k, s)
};
// Whether x reads the index of a loop inside body.
bool reads_inner_index(const ex& x, const ex& body) {
  for (const_preorder_iterator it = body.preorder_begin(); it != body.preorder_end(); ++it)
    if (is_class<reduction>(*it) && x.has(ex_to<reduction>(*it).index_ex())) return true;
  return false;
}

std::optional<ResidueSum> residue_sum(const ex& e, const Facts& f) {
  ResidueSum out{as_red(e, ReduceKind::Sum), 0, {}};
  if (!out.r || !i_only_in_mods(out.r->body(), out.r->index_ex(), f, out.mods) || out.mods.empty())
    return std::nullopt;
  out.k = out.mods[0].first.op(1);
  for (const auto& [m, s0] : out.mods)
    if (!m.op(1).is_equal(out.k)) return std::nullopt;
  return out;
}

}  // namespace

// sum (i = lb, ub) { B } over exactly k consecutive integers (ub - lb + 1 = k), where B
// depends on i only through residues (s i + e) mod k (s = +-1, e an integer free of i,
// possibly an inner loop's index): i runs over a complete residue system, so the first
// residue (s0 i + e0) mod k = r runs over 0..k-1 once each, and the others are
// (s s0 (r - e0) + e) mod k: sum (r = 0, k - 1) { B[r] }. With inner loops whose bounds do
// not mention i the sums are exchanged first (finite sums), so an exchange of P messages
// from each p to (p + q) mod P sends P - 1 to every link. Side conditions: k an integer >= 1,
// lb an integer (proved); every offset e an integer (proved). Exact for any B.
std::optional<ex> rule_sum_full_period(const ex& e, const Facts& f, Assumptions&) {
  auto rs = residue_sum(e, f);
  if (!rs) return std::nullopt;
  const reduction* r = rs->r;
  const ex &i = r->index_ex(), &k = rs->k;
  const auto& mods = rs->mods;
  if (!(r->ub() - r->lb() + 1 - k).expand().is_zero()) return std::nullopt;
  if (!f.provably_integer(k) || !f.provably_nonneg(k - 1) || !f.provably_integer(r->lb())) return std::nullopt;
  // The new index: r = (s0 i + e0) mod k, so i = s0 (r - e0) (mod k).
  GiNaC::symbol rr(r->index().get_name());
  const numeric s0 = mods[0].second;
  ex e0 = (mods[0].first.op(0) - s0 * i).expand();
  exmap m;
  for (const auto& [node, s] : mods) {
    ex ei = (node.op(0) - s * i).expand();
    m[node] = node.is_equal(mods[0].first) ? ex(rr) : mod_of((s * s0 * (rr - e0) + ei).expand(), k);
  }
  ex body = r->body().subs(m, subs_options::no_pattern);
  if (body.has(i)) return std::nullopt;
  return make_reduction(ReduceKind::Sum, rr, 0, k - 1, body);
}

constexpr long kMaxResidueSplit = 16;

namespace detail {

bool position_mentions(const ex& e, const ex& i) {
  if (pamela_function(e) == Fn::Unitvec) return e.op(0).has(i);
  for (size_t k = 0; k < e.nops(); ++k)
    if (position_mentions(e.op(k), i)) return true;
  return false;
}

}  // namespace detail

// sum (i = lb, ub) { B } where B depends on i only through residues (s i + e) mod k for one
// constant k (2 <= k <= kMaxResidueSplit; s = +-1, e an integer free of i), over any range:
// the i with i mod k = q share the body B[q] (each residue node becomes (s q + e) mod k), and
// there are floor((ub - q) / k) - floor((lb - 1 - q) / k) of them, so the sum is
// sum_q count_q B[q], k terms. Odd-even phases reduce so: the work of phase ph depends on
// ph mod 2 only. Exact for any B; on a range more than one short of non-empty the counts
// would go negative, hence the guard. Side conditions: lb, ub integers (proved or
// assumed); the offsets e integers (proved, as i_only_in_mods requires).
std::optional<ex> rule_sum_residue_split(const ex& e, const Facts& f, Assumptions& asm_) {
  auto rs = residue_sum(e, f);
  if (!rs) return std::nullopt;
  const reduction* r = rs->r;
  const ex &i = r->index_ex(), &k = rs->k;
  const auto& mods = rs->mods;
  if (!is_class<numeric>(k) || !ex_to<numeric>(k).is_integer() || ex_to<numeric>(k) < 2 ||
      ex_to<numeric>(k) > kMaxResidueSplit)
    return std::nullopt;
  // Loads whose position holds the index (unitvec(i mod 16)) are the vector-max rules' to
  // read whole: split, they become a 16-way max of floors (ceil(N / 16) is the answer).
  if (position_mentions(r->body(), i)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, asm_)) return std::nullopt;
  const long kk = ex_to<numeric>(k).to_long();
  ex total = 0;
  for (long q = 0; q < kk; ++q) {
    exmap m;
    for (const auto& [node, s] : mods) m[node] = mod_of((s * q + (node.op(0) - s * i)).expand(), k);
    ex body = r->body().subs(m, subs_options::no_pattern);
    if (body.has(i)) return std::nullopt;
    ex count = floor_of((r->ub() - q) / k) - floor_of((r->lb() - 1 - q) / k);
    total += count * body;
  }
  return nonempty_guard(r->ub() - r->lb() + 1, f) * total;
}

// sum (i = lb, ub) { B } where B sees i only through residues (a i + e) mod m with numeric
// moduli m and any integer a, e (numeric_period: period T, 2..12): B(i) = B(q) for i = q
// modulo T, so the sum is sum_q count_q B(q) over q = 0..T - 1, count_q = floor((ub - q) /
// T) - floor((lb - 1 - q) / T) as in sum_residue_split, whose one modulus and unit slopes
// this does not need: a stride's parity, (2 i + B) mod 3; a test that never holds, (2 i) mod
// 4 == 1. Exact for any B that fails at no q (B(q) is written even where count_q is 0);
// guarded where the range may be more than one short of non-empty. Side conditions: lb, ub
// integers (proved or assumed); a, e integers (proved, as numeric_period requires).
std::optional<ex> rule_sum_numeric_period(const ex& e, const Facts& f, Assumptions& asm_) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  const long T = numeric_period(r->body(), i, f);
  if (T < 2 || position_mentions(r->body(), i)) return std::nullopt;
  exvector bodies;
  try {  // GiNaC refuses 1 / (i mod 2) at q = 0 outright
    for (long q = 0; q < T; ++q) {
      bodies.push_back(r->body().subs(exmap{{i, q}}, subs_options::no_pattern));
      if (may_fail(bodies.back(), f)) return std::nullopt;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, asm_)) return std::nullopt;
  ex total = 0;
  for (long q = 0; q < T; ++q)
    total += (floor_of((r->ub() - q) / T) - floor_of((r->lb() - 1 - q) / T)) * bodies[q];
  return nonempty_guard(r->ub() - r->lb() + 1, f) * total;
}

// sum (i = lb, ub) { B } where B sees i only through one residue r = (s0 i + e0) mod k with
// a symbolic modulus k (s0 = +-1, e0 an integer free of i), over any range: B = g(r), and
// x = s0 i + e0 runs over lo..hi. For every integer y = q k + m (0 <= m < k), F(y) = sum
// (x = 0, y - 1) { g(x mod k) } (minus the sum over y..-1 for y < 0) is q S + G(m), with
// S = sum (r = 0, k - 1) { g(r) } and G(m) = sum (r = 0, m - 1) { g(r) }: whole periods
// and one partial period that starts at residue 0, so no residue wraps. The sum is
// F(hi + 1) - F(lo): (floor((hi + 1) / k) - floor(lo / k)) S + G((hi + 1) mod k) - G(lo mod
// k); F(lo) is written out term by term for a small numeric lo. Two workers' speeds by the
// parity of their processor, sum (i = 1, N) { t / (1 + (i mod P) mod 2) }, become sums over
// r that the residue split of r mod 2 closes. Side conditions: k an integer >= 1 (proved),
// lb, ub integers (proved or assumed), e0 an integer (proved, as i_only_in_mods requires);
// g does not fail at any residue 0..k-1 (G and S visit residues the range may not); guarded
// where the range may be more than one short of non-empty (there F(hi + 1) - F(lo) != 0).
// Residues at two offsets are left alone (they would leave sums of both); a numeric modulus
// is sum_residue_split's, a load whose position holds i the vector rules'.
std::optional<ex> rule_sum_period_split(const ex& e, const Facts& f, Assumptions& asm_) {
  auto rs = residue_sum(e, f);
  if (!rs) return std::nullopt;
  const reduction* r = rs->r;
  const ex &i = r->index_ex(), &k = rs->k;
  const auto& mods = rs->mods;
  if (is_class<numeric>(k) || position_mentions(r->body(), i)) return std::nullopt;
  if (!f.provably_integer(k) || !f.provably_nonneg(k - 1)) return std::nullopt;
  for (const auto& [node, s] : mods)  // residues at two offsets would leave sums of both
    if (!node.is_equal(mods[0].first)) return std::nullopt;
  GiNaC::symbol rr(r->index().get_name());
  const numeric s0 = mods[0].second;
  const ex e0 = (mods[0].first.op(0) - s0 * i).expand();
  // The offset goes into the new bounds, outside the body: it must not read the index of a
  // loop inside it ((2 j + t) mod P under sum (j) left j unbound in the closed form).
  if (reads_inner_index(e0, r->body())) return std::nullopt;
  ex g = r->body().subs(exmap{{mods[0].first, rr}}, subs_options::no_pattern);
  if (g.has(i)) return std::nullopt;
  Facts fr = f;
  fr.declare_index(rr, 0, k - 1);
  if (may_fail(g, fr)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, asm_)) return std::nullopt;
  const ex lo = s0 == 1 ? (r->lb() + e0).expand() : (e0 - r->ub()).expand();
  const ex hi = s0 == 1 ? (r->ub() + e0).expand() : (e0 - r->lb()).expand();
  auto G = [&](const ex& top) { return make_reduction(ReduceKind::Sum, rr, 0, top - 1, g); };
  // F(lo) for a small start written out: sum (i = 1, N) loses g(0), not floor(1 / P) S + G(1 mod P)
  const bool small_lo = is_class<numeric>(lo) && ex_to<numeric>(lo).is_nonneg_integer() && ex_to<numeric>(lo) <= 8;
  ex below = small_lo ? make_reduction(ReduceKind::Sum, rr, 0, lo - 1, g.subs(exmap{{rr, mod_of(rr, k)}}))
                      : floor_of(lo / k) * G(k) + G(mod_of(lo, k));
  ex total = floor_of((hi + 1) / k) * G(k) + G(mod_of(hi + 1, k)) - below;
  return nonempty_guard(r->ub() - r->lb() + 1, f) * total;
}

}  // namespace pamc::sym
