// Rewrite rules for extrema of bodies that are periodic in the index with a numeric period:
// the body sees the index only through residues (a i + e) mod m with numeric moduli (the
// parity of a worker, (i mod 2) + 1; a stride over a guard's progression, (W j) mod 2), so
// one period of the range holds every value the whole range takes. See rules.h.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

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

}  // namespace pamc::sym
