// What the rule files (rules*.cpp) share and nothing else uses: side conditions, readers of
// reductions, index predicates and load-vector maps. Each function is defined in the file
// named above it; the comment at the definition states its contract in full, except for
// the readers whose result struct is declared here (the comment is then the struct's).
#pragma once

#include "compiler/symbolic/rules.h"

#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pamc::sym::detail {

// ---- rules.cpp: side conditions and reading reductions -------------------------------------

// A side condition: `e >= 0`, or `e is an integer`.
struct Cond {
  bool integer;
  ex e;
};

// All conditions provable, or (those that are not) assumable: they mention no loop index.
// Only then are the unprovable ones recorded in a, so a rule that gives up records nothing.
bool require(const std::vector<Cond>& conds, const Facts& f, Assumptions& a);
// Whether "e is an integer" holds, under the facts, at few parameter values only (e's range
// bounded with at most one integer in it, or bounded and reading one symbol: 1 / B).
bool pins_to_few_values(const ex& e, const Facts& f);
// An integer by its form alone (whole numbers, integer symbols, floors, ceilings, and sums,
// products and whole powers of these), without asking the prover.
bool integer_by_form(const ex& e, const Facts& f);
// Whether every symbol e reads is one the facts declare (a parameter or a loop index).
bool reads_only_declared(const ex& e, const Facts& f);
// e = sum_m c_m m as a polynomial in the factors is_index picks, each a symbol or its whole
// power, with coefficients c_m free of them: monomial (printed, a stable key) -> (m, c_m),
// the constant term under "1". nullopt where an index factor has another shape.
using IndexMonomials = std::map<std::string, std::pair<ex, ex>>;
std::optional<IndexMonomials> index_monomials(const ex& e, const std::function<bool(const ex&)>& is_index);
// The text of the assumption c >= 0 as recorded: positive terms >= the negated negative
// ones (P - 1 -> "P >= 1").
std::string nonneg_text(const ex& c);
// A weight w >= 0 at every index i of [lb, ub]: {} where `in` (the facts with i declared)
// proves it; else, where each factor of w that `in` does not prove >= 0 is concave in i
// (structurally_convex under f, every coefficient's sign proved), the conditions x(lb) >= 0
// and x(ub) >= 0 of those factors x for the rule's require: a concave function on [lb, ub]
// is at least the smaller of its values at the ends (not for a factor proved <= 0, which
// would be 0 throughout). A min at an end is
// split into its arguments (min(C, N - C (N - 1)) >= 0 is C >= 0 and N - C (N - 1) >= 0).
// nullopt otherwise. Where a recorded end condition fails, the evaluators use the model.
// `factors` are the factors taken at their ends: >= 0 for i in [lb, ub] wherever `conds`
// hold, so a rule may declare them so (Facts::declare_nonneg_atom) in facts with i in that
// range for its further proofs (a product of such factors falling with i).
struct WeightSign {
  std::vector<Cond> conds;
  GiNaC::exvector factors;
  ex form;  // w as the product it was read as (its shared factors taken out), the same value
  void declare_in(Facts& in) const {
    for (const ex& x : factors) in.declare_nonneg_atom(x);
  }
};
std::optional<WeightSign> nonneg_weight_conds(const ex& w, const GiNaC::symbol& i, const ex& lb, const ex& ub,
                                             const Facts& f, const Facts& in);
// True when body cannot fail, now or once a denominator parameter P >= 1 is assumed.
bool cannot_fail_or_assume(const ex& body, const Facts& f, Assumptions& a);
// 1 where the range of `count` items is provably non-empty, else the predicate count >= 0.
ex nonempty_guard(const ex& count, const Facts& f);
// For an extremum reduction r whose closed form needs a non-empty range: 1 where that is
// proved; for a par's extremum (0 on an empty range) the factor (0 <= ub - lb), which makes
// the closed form 0 there too; else ub >= lb assumed (1), or nullopt where it cannot be.
std::optional<ex> nonempty_factor(const reduction& r, const Facts& f, Assumptions& a);

// rules_extrema.cpp: whether a range's length holds a floor, ceil, mod or div, whose
// non-emptiness a par's extremum guards rather than assumes.
bool span_has_rounding(const ex& span);

// e as a reduction of kind k (as_red), or as a max/min reduction (as_ext_red); else nullptr.
const reduction* as_red(const ex& e, ReduceKind k);
const reduction* as_ext_red(const ex& e);
// r with kind k and body `body`, its index and bounds kept.
ex rebuild(const reduction& r, ReduceKind k, const ex& body);
// A sum whose terms share factors (every term holds the same base to the same power), as
// that product times the sum of what is left; nullopt when nothing is shared. An identity.
std::optional<ex> shared_factors(const ex& h);
// The terms of an add (is_add) or the factors of a mul; else e alone.
GiNaC::exvector operands_of(const ex& e, bool is_add);
// v sorted by printed text, so a rule's choices do not depend on symbol creation order.
GiNaC::exvector sorted_by_text(const GiNaC::exvector& v);
// e = a * i + b with a a nonzero real number and b free of i.
std::optional<std::pair<GiNaC::numeric, ex>> linear_in(const ex& e, const ex& i);
// g = a * i + b with a symbolic slope a free of i: its sign proved (>= 0 or <= 0), and a != 0
// wherever r has a value (each factor of a proved nonzero, or a symbol that a bound of r
// divides by: i = 0..ceil(N / C) - 1 has no value at C = 0). nullopt otherwise, and for a
// numeric slope (linear_in's case).
// The base x of a factor x ^ k with k a whole number >= 1 (zero where x is), else the factor.
ex power_base(const ex& factor);
struct SignedSlope {
  ex slope, offset;
  bool positive;
};
std::optional<SignedSlope> signed_slope(const ex& g, const reduction& r, const Facts& f);

// ---- rules_sums.cpp: counting the indices that satisfy a predicate -------------------------

// A residue test on the index: (i + e) mod k == r (either side), with k > 0 an integer and e
// an integer (proved). `none`: r is a number outside 0..k-1, so no i matches; else r is
// proved an integer, and `valid` is 1 where 0 <= r <= k - 1 is proved, else the comparisons
// that say so (i mod W == 1 matches nothing at W = 1: valid is (2 <= W)); every count or
// selection of the matching i is multiplied by it. nullopt when pred is not such a test or
// a proof fails.
struct Residue {
  ex e, k, r;
  bool none = false;
  ex valid = 1;
};
std::optional<Residue> residue_test(const ex& pred, const ex& i, const Facts& f);
// A product's residue test on i (residue_test; of several, one with a numeric modulus first,
// then in printed-text order: j mod 2 == 0 beside j mod W == w gives a progression whose
// positions 2 j mod W the load rules read) and the product of its other factors; a bare
// test is itself a selection, with the rest 1.
struct ResidueSelection {
  Residue test;
  ex rest;
};
std::optional<ResidueSelection> residue_selection(const ex& body, const ex& i, const Facts& f);
// An index and its range, for readers that walk loops (load families, resource positions).
struct Loop {
  GiNaC::symbol index;
  ex lb, ub;
};

// The number of i in lb..ub where x < y (also <=; > and >= are stored swapped), x == y or
// x != y holds, for y - x = a i + b linear in i (a a nonzero number). Le/Lt: the matches form
// a ray i >= L or i <= U, so the count is max(0, ub - max(lb, L) + 1), resp.
// max(0, min(ub, U) - lb + 1), with a > 0: L = ceil(-b / a) (<=), floor(-b / a) + 1 (<);
// a < 0: U = floor(b / -a) (<=), ceil(b / -a) - 1 (<); exact for an empty range too
// (`any_range`). Eq/Ne: with a = +-1 and s = -b / a an integer (proved), the one match is
// (lb <= s) (s <= ub) (another integer a: times (b mod |a| == 0), b an integer, proved);
// right where lb <= ub + 1. Needs lb, ub integers (the caller's require).
struct MatchCount {
  ex count;
  bool any_range;  // exact on an empty range too, not only where lb <= ub + 1
};
std::optional<MatchCount> linear_match_count(const ex& pred, const reduction& r, const Facts& f);
// The number of i in lb..ub matching a residue test (residue_test), right where
// lb <= ub + 1.
std::optional<ex> residue_match_count(const ex& pred, const reduction& r, const Facts& f);

// ---- rules_extrema.cpp: how a body moves with the index ------------------------------------

// The direction in which g moves with i, by its structure: +1 nondecreasing, -1
// nonincreasing, 0 free of i, nullopt unknown.
std::optional<int> structural_direction(const ex& g, const ex& i, const Facts& f, int depth = 0);
// Convex (sign > 0) or concave (sign < 0) in i over the reals, by its structure.
bool structurally_convex(const ex& g, const ex& i, const Facts& f, int sign = 1, int depth = 0);

// A two-way extremum of B that depends on the index i through g1 - g2 = a i + b (a a nonzero
// number, b free of i; with facts f, also a free of i of proved sign, normalized to +-1): max(g1, g2), min(g1, g2), or abs(g) read as max(g, -g); also a
// comparison x <= y with y - x = a i + b, which is 1 where a i + b >= 0 and 0 elsewhere. Searched
// outside inner reductions' bodies (their bounds included), first in printed-text order.
struct LinearChoice {
  ex node;      // the subexpression to replace
  ex g1, g2;    // its two candidates
  bool is_max;  // the node is max(g1, g2) (else min)
  GiNaC::numeric a;
  ex b;
  bool strict = false;  // x < y: g1 (= 1) only where a i + b > 0
  ex scale = 1;         // |slope| divided out of a symbolic slope: b * scale is d's own offset
  bool tie_at_edge = true;  // g1 = g2 where a i + b = 0 (false for a rounded difference)
};
// With a range r, a slope of proved sign that is 0 only where r has no value also counts
// (signed_slope): i = 0..ceil(N / C) - 1 has none at C = 0.
void find_linear_choices(const ex& x, const ex& i, std::vector<LinearChoice>& out, const Facts* f = nullptr,
                         const reduction* range = nullptr);

// ---- rules_max.cpp ---------------------------------------------------------------------------

// A sum of cases on k mod a, sum_j [guard_j] x_j, whose guards ((k mod a == s), or sums of
// such, a and s numbers) admit disjoint residue classes of an integer k (proved) that cover
// every residue: exactly one guard is 1 at each point. The (guard, x_j) pairs, else nullopt.
std::optional<std::vector<std::pair<ex, ex>>> residue_cases(const ex& e, const Facts& f);

// ---- rules_periodic.cpp --------------------------------------------------------------------

// The least common multiple T of the numeric moduli m of the residues (a i + e) mod m through
// which h sees i (a, e integers free of i, proved): h(i + T) = h(i). 1 when h is free of i;
// 0 when i occurs elsewhere or T would exceed 12.
long numeric_period(const ex& h, const ex& i, const Facts& f);

// Does the position of some unitvec in e mention i? (A load the vector-max rules read whole.)
bool position_mentions(const ex& e, const ex& i);

// ---- rules_compare.cpp ----------------------------------------------------------------------

// e with the comparisons the facts decide replaced by 1 or 0, and 0 mod k, 0 div k by 0
// for k provably positive.
ex decide_all(const ex& e, const Facts& f);

// ---- rules_index_maps.cpp: reading a load vector's index map --------------------------------

// A vector w * sum (i = lb, ub) { c * unitvec(pos) } (w, c scalars; w free of i), read from
// the argument of max(v): every term of v must be (scalar) * the same sum reduction.
struct MapSum {
  ex w = 0;  // the total scalar factor outside the reduction
  ex red;    // the reduction
  ex pos, c;
};
std::optional<MapSum> single_map(const ex& v);

// pos = F(s i + e0, k) + d for F = mod or div, with e0, k, d free of i and s = 1 (or -1
// when allow_neg). Returns (e0, k, d, s). A div of a i + e (a another nonzero number) is read
// as (s i + e / |a|) div (k / |a|), s the sign of a.
struct ModDivPos {
  ex e0, k, d;
  int s = 1;
};
std::optional<ModDivPos> mod_div_position(const ex& pos, const ex& i, Fn which, bool allow_neg = false);

// pos = (a i + e) mod k + d: the first remainder in pos that holds i, with a a nonzero
// integer (|a| <= 64) and e, k, d free of i (d: the rest of pos). nullopt for any other
// shape. The strided and cyclic map rules read their positions through it.
struct StridedPos {
  GiNaC::numeric a;
  ex e, k, d;
};
std::optional<StridedPos> strided_position(const ex& pos, const ex& i);
// pos = (a i + e) F k + d, F = mod or div (which): the first such rounding in pos that holds
// i, with a, e, k and d free of i (d: the rest of pos); a a number or a formula. nullopt
// for any other shape. The readers above and below are built on it.
struct AffineRounding {
  ex a, e, k, d;
};
std::optional<AffineRounding> affine_rounding(const ex& pos, const ex& i, Fn which);
// (a i + e) mod k + d with a stride a that is either strided_position's (a nonzero whole
// number, |a| <= 64) or a formula proved an integer (a symbolic stride: the W of a filter
// i mod W == c, read as i = W m + c); nullopt otherwise.
std::optional<AffineRounding> any_stride_position(const ex& pos, const ex& i, const Facts& f);
// f(gcd(a, k)): by_gcd_cases for a number a (cases on k mod a), else f(gcd(a, k)).
ex gcd_cases(const ex& a, const ex& k, const std::function<ex(const ex&)>& fn);

// The residues (s i + c) mod P in w read at i mod P = rho: rho for i mod P itself, else
// (s rho + c) mod P, for s = 1 (or -1 when reversed_too) and c a proved integer. nullopt
// when w holds another residue by P of i, or none.
std::optional<GiNaC::exmap> residues_at(const ex& w, const ex& i, const ex& P, const GiNaC::symbol& rho,
                                        const Facts& f, bool reversed_too);

// The weight w c(i) of a map sum over r, when it is >= 0 on the range (proved, or at the
// ends of a concave weight: conds, for the rule's require) and monotone in i (proved): up
// for nondecreasing. nullopt otherwise, and where it may fail on a range that may be empty.
struct MonotoneWeight {
  ex wc;
  bool up;
  std::vector<Cond> conds;
};
std::optional<MonotoneWeight> monotone_weight(const MapSum& m, const reduction& r, const Facts& f);

// A weight that sees i through residues with numeric moduli (the nodes, of period M) and
// otherwise, those frozen, not at all or monotonically (up for nondecreasing); else nullopt.
struct PeriodicWeight {
  GiNaC::exvector nodes;
  long M = 0;
  bool up = false;
};
std::optional<PeriodicWeight> periodic_weight(const ex& wc, const reduction& r, const Facts& f);

// f(gcd(a, k)) for a positive integer a and an integer k >= 1, as guarded cases on k mod a
// (gcd(2, P) gives (P mod 2 == 0) f(2) + (P mod 2 == 1) f(1)); a number k gives f(gcd).
ex by_gcd_cases(long a, const ex& k, const std::function<ex(const ex&)>& fn);

// The busiest-position factor w * c of a map sum: index-free, >= 0, and not failing where
// the range may be empty (denominators >= 1 assumed if need be).
std::optional<ex> map_weight(const MapSum& m, const Facts& f, Assumptions& a);

}  // namespace pamc::sym::detail
