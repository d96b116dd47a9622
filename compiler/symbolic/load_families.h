// Load vectors read as families, top-down (the load algebra's first step).
//
// The argument of max(v) is a sum of families: nested sum loops over a scalar weight times
// unitvec(position). A family whose position depends on one of its loops only, q, has the
// same loads when q is made its outermost loop and the other loops are summed into the
// weight: load(q) = sum over the other loops of the weight, a scalar sum the general sum
// rules close. The family then reads as sum (q) { load(q) * unitvec(pos(q)) }, the 1-D shape
// every busiest-position rule reads (an injective, cyclic, block or block-cyclic map).
//
// The simplifier tries this at a max(v) node before it simplifies the node's children, so
// no scalar rule has split a vector sum (a guard `p != q` rewritten as "all minus the
// diagonal") before the families are seen whole.
#pragma once

#include "compiler/symbolic/facts.h"

#include <optional>

namespace pamc::sym {

// max(v) with every family that holds an owner test (g == w) on one of its loops w read at
// w = g (the w loop dropped: on each point of the other loops only w = g passes, where g is
// an integer in w's range), and then every family whose position depends on one loop q only, and that has other
// loops, rewritten with q outermost and the other loops summed into its weight. Exact:
// the finite sums are exchanged over a rectangular domain (q's bounds mention none of the
// family's other loops), so every (index point, position, weight) is counted once either
// way, and a weight is evaluated at the same index points. nullopt when no family changes.
std::optional<ex> rule_vmax_collapse(const ex& e, const Facts& f, Assumptions& a);

// max(v) as the max over groups of families whose positions are proved apart (the compute
// and network families of a process grid; workers beside a shared queue), when every
// weight is >= 0. nullopt when the families form one group.
std::optional<ex> rule_vmax_disjoint(const ex& e, const Facts& f, Assumptions& a);
// vmax_disjoint where the families' separation is assumed (recorded): only under
// LastResortRules (rules.h), the pipeline's last round for a model left open.
std::optional<ex> rule_vmax_disjoint_assumed(const ex& e, const Facts& f, Assumptions& a);

// max(v) of families that each load a box of cells of one process grid (S (x + dx) + y +
// dy, the column within [0, S - 1]) with a weight free of the loops: the max of the box
// sums at the cells whose row and column are lower ends of boxes. nullopt otherwise.
std::optional<ex> rule_vmax_boxes(const ex& e, const Facts& f, Assumptions& a);

// max(v) of one family over a 2-D cyclic grid, cells (row A(i), column (j + e) mod K), read
// in the column of the fixed end of j's range toward which the weight does not fall: every
// cell's load is at most that column's in its row. nullopt otherwise.
std::optional<ex> rule_vmax_grid_column(const ex& e, const Facts& f, Assumptions& a);

// max(A + B) for two families that are each one-to-one in one loop (position a * i + b, the
// same load L at every position) and share a position, proved at a witness (load_crossing.cpp):
// L_A + L_B, when the weights are >= 0. nullopt otherwise.
std::optional<ex> rule_vmax_crossing(const ex& e, const Facts& f, Assumptions& a);

// max(v) of one to six families whose positions are intervals (s i + b), blocks ((s i + e)
// div k + d) or residues ((s i + e) mod k + d) of one loop each, with weights free of it:
// the max of the summed loads at the positions where some family's count rises
// (load_fibers.cpp). nullopt otherwise.
std::optional<ex> rule_vmax_fibers(const ex& e, const Facts& f, Assumptions& a);

// max(v) with a symbolic offset d that every family's position shares dropped (`Px * Py + p`
// read as p), when the weights are >= 0, the positions without d are >= 0 and d >= 0 is an
// integer. nullopt otherwise.
std::optional<ex> rule_vmax_offset(const ex& e, const Facts& f, Assumptions& a);

// max(c * sum (w) { sum (i) { unitvec(i + w + d) } }) (either index may enter negated): the
// busiest position is hit by min(ni, nw) pairs, the shorter of the two ranges. nullopt
// otherwise.
std::optional<ex> rule_vmax_index_sum(const ex& e, const Facts& f, Assumptions& a);

// max(sum (i) { g((i + e) mod P) * unitvec((i + e) mod P) }): a weight that is a function of
// the position, read as max (r = 0, P - 1) { g(r) * count(r) }. nullopt otherwise.
std::optional<ex> rule_vmax_position_weight(const ex& e, const Facts& f, Assumptions& a);

// max(sum (p) { sum (q) { (p != q) * c(q) * unitvec((p + q + e) mod K) } }) over two full
// periods: every position gets sum (q) { c(q) } less its diagonal term; closed by the parity
// of K. nullopt otherwise.
std::optional<ex> rule_vmax_all_but_diagonal(const ex& e, const Facts& f, Assumptions& a);

// max (w) { sum (j) { c(j) * (g(j) == w) } } read as the vector max(sum (j) { c(j) *
// unitvec(g(j)) }), and sum (w) of such counts as sum (j) { c(j) }, where every g(j) is an
// integer in w's range (and >= 0). nullopt otherwise.
std::optional<ex> rule_ext_fiber_vector(const ex& e, const Facts& f, Assumptions& a);
std::optional<ex> rule_sum_fiber_total(const ex& e, const Facts& f, Assumptions& a);

// max(..., max (p) { max(phi(p), max(v(p))) }, max(sum (p) { v(p) })) with the inner max(v(p))
// dropped, where every v(p) >= 0 (a par's branch load beside the loads of all branches).
std::optional<ex> rule_max_inner_load(const ex& e, const Facts& f, Assumptions& a);

}  // namespace pamc::sym
