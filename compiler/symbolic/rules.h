// Rewrite rules of the simplifier, one small function each.
//
// A rule looks at one node whose children are already simplified. It returns the rewritten
// node, or nullopt when it does not apply or cannot prove its side condition (the node is
// then left alone: simplification never changes a value). A few side conditions that the
// seed's closed forms need and the facts usually cannot prove (loop bounds are integers, a
// max/min range is non-empty, a sum's iteration count is >= 0) are recorded in Assumptions
// instead, but only when they mention parameters alone (never an enclosing loop index).
#pragma once

#include "compiler/symbolic/facts.h"

#include "compiler/symbolic/ginac_headers.h"

#include <optional>
#include <string>
#include <vector>

namespace pamc::sym {

using Rule = std::optional<ex> (*)(const ex&, const Facts&, Assumptions&);
struct NamedRule {
  const char* name;
  Rule fn;
};

// The rules in the order the driver tries them (all of them; each checks its node type).
const std::vector<NamedRule>& all_rules();

// Rules that assume what a model's layout implies but its facts cannot show (families kept
// apart, vmax_disjoint_assumed) fire only inside this scope: the pipeline's last round, for
// a model every other round leaves open, so a model that closes without them never
// carries their assumptions. One scope per thread.
class LastResortRules {
 public:
  LastResortRules();
  ~LastResortRules();
  LastResortRules(const LastResortRules&) = delete;
  LastResortRules& operator=(const LastResortRules&) = delete;
  static bool on();
};

// Individual rules (exposed for unit tests). Reductions: sum/max/min (i = lb, ub) { body }.
std::optional<ex> rule_sum_zero(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_factor(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_const(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_poly(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_const(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_shift(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_scale(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_monotone(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_numeric(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_single(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_identity(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_unroll(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_strided_residue(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_mod_count(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_mod_select(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_cmp_count(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_swap_triangle(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_full_period(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_residue_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_period_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_numeric_period(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_short_range(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_cmp_select(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_floor_poly(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_floor_multiple(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_div_step(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_piecewise(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_slope_zero_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_attained(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_convex_shape(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_convex_min(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_uniform(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_extremum(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_normal(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_eq_factor(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_guard_factor(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_rounding(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_power_log(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_decide(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_cmp_power(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_rescale(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_product(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_div_rate(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_cyclic(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_indicator(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_residue_select(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_breakpoints(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_weighted(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_concave(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_geometric(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_cyclic_weighted(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_cyclic_periodic(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_cyclic_classes(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_residue_weight(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_periodic(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_ends(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block_strided(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_block_count(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_residue_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_class_window(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_mod_range(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_skip_one(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_periodic(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_product_at_end(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_floor_residue(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_floor_ratio(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_rounding_split(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_floor_quotient(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_collect(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_ext_convex(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_cyclic(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_cyclic_shifts(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_block(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_distinct(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_vmax_injective(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_floor_int(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_floor_shift(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_floor_window(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_floor_nested(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_power_rounding(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_mod_window(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_mod_of_mod(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_max_vector_bound(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_max_dominated(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_max_factor(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_max_ratio(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_case_lift(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_max_common_term(const ex& e, const Facts& f, Assumptions& a);

// Could evaluating e fail at a point the facts allow (empty max/min range, a loop bound not
// proved an integer, division by a possibly-zero value, log of a possibly non-positive
// one)? Conservative: true when unsure.
bool may_fail(const ex& e, const Facts& f);
// The conditions under which evaluating e fails, outside reductions: (0, b) b == 0 (a
// divisor, a base to a negative integer power), (1, x) the power x itself (a fractional
// power's base < 0), (2, k) unitvec(k) with k not a nonnegative integer, (3, x) log2(x) and
// (4, x) log(x) with x <= 0. false when a reduction may fail (its conditions have no name).
bool failure_conditions(const ex& e, const Facts& f, std::vector<std::pair<int, ex>>& out);
// Does y fail wherever x does (each of x's failure conditions is one of y's)? Then a max or
// min that keeps y may drop x without giving a value where the model has none.
bool fails_with(const ex& x, const ex& y, const Facts& f);
// The symbols e divides by (a power of a symbol with a negative exponent), in e's order.
void denominators(const ex& e, std::vector<GiNaC::symbol>& out);

// GiNaC's factor() of a polynomial over the rationals, with a fast path for the shape cost
// models produce most (a common monomial times a linear polynomial with positive
// coefficients, 0.05 N^2 + 19.15 N = 0.05 N (N + 383)) that gives the same expression
// without factor()'s general machinery (a third of a millisecond per call).
ex factor_polynomial(const ex& x);

// Sum_{i=1..n} i^k as a polynomial in n (Faulhaber, via Bernoulli numbers).
ex faulhaber(unsigned k, const ex& n);
// S(m), a polynomial antiderivative of the polynomial h in j (S(m) - S(m - 1) = h(m) for
// every integer m, by Faulhaber), so that sum (j = lo, hi) { h } = S(hi) - S(lo - 1)
// wherever hi >= lo - 1.
ex antiderivative(const ex& h, const ex& j, const ex& m);

}  // namespace pamc::sym
