// Loads whose weight is a function of the index's residue by the map's own modulus, under a
// cyclic map that is not the plain (i + e) mod P (vmax_position_weight's): a reversed map,
// (e - i) mod P, or a strided one, (a i + e) mod P. Workers of two speeds by their place
// in a node, t / (2 - (i mod P) mod 2), whose items are dealt from the far end or two at a
// time (red-black, even/odd phases).
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

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

}  // namespace pamc::sym
