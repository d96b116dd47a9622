// Rewrite rules for extrema of bodies that are periodic in the index with a numeric period:
// the body sees the index only through residues (a i + e) mod m with numeric moduli (the
// parity of a worker, (i mod 2) + 1; a stride over a guard's progression, (W j) mod 2), so
// one period of the range holds every value the whole range takes. And a product whose
// factors are all largest at one end of the range (a residue weight beside a falling count,
// with any period). See rules.h.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <numeric>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace {

constexpr long kMaxPeriod = 12;  // the rule writes out one term per index of a period

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
  const ex& i = r->index_ex();
  const ex& h = r->body();
  long T = numeric_period(h, i, f);
  if (T < 2 || may_fail(h, f)) return std::nullopt;
  const ex span = r->ub() - r->lb();
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  auto some = nonempty_factor(*r, f, a);
  if (!some) return std::nullopt;
  bool is_max = r->kind() == ReduceKind::Max;
  Facts in = f;
  in.declare_index(r->index(), r->lb(), r->ub());
  bool gate_with_zero = is_max && in.provably_nonneg(h);
  const ex first = h.subs(exmap{{i, r->lb()}});
  exvector args{first};
  for (long t = 1; t < T; ++t) {
    ex term = h.subs(exmap{{i, r->lb() + t}});
    if (f.provably_nonneg(span - t)) args.push_back(term);
    else if (gate_with_zero) args.push_back(compare(Cmp::Le, t, span) * term);
    else args.push_back(first + compare(Cmp::Le, t, span) * (term - first));
  }
  return *some * (is_max ? make_max(args) : make_min(args));
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

}  // namespace pamc::sym
