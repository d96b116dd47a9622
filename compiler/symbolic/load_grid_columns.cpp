// The busiest column of a 2-D cyclic grid (vmax_grid_column): see load_families.h.
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/load_families_internal.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules.h"

#include <optional>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;
using detail::Family;
using detail::Loop;
using detail::read_families;
using detail::within;

namespace {

// pos = R(i) + s * C with C = (j + e) mod K the one term that mentions j, e free of both
// loops. Each (row, column) pair is one cell: the position names the cell it came from.
struct GridPosition {
  ex column, e, K;  // the column term (j + e) mod K
  ex rest, scale;   // pos = rest + scale * column
};

std::optional<GridPosition> grid_position(const ex& pos, const Loop& li, const Loop& lj, const Facts& in) {
  const ex &i = li.index, &j = lj.index;
  ex column, scale;
  for (const ex& t : detail::operands_of(pos.expand(), true)) {
    if (!t.has(j)) continue;
    if (!column.is_zero()) return std::nullopt;
    ex c = 1, m;
    for (const ex& x : detail::operands_of(t, false)) {
      if (pamela_function(x) == Fn::Mod && x.has(j) && m.is_zero()) m = x;
      else c *= x;
    }
    if (m.is_zero() || c.has(j) || c.has(i)) return std::nullopt;
    column = m;
    scale = c;
  }
  if (column.is_zero()) return std::nullopt;
  auto lin = detail::linear_in(column.op(0), j);
  const ex K = column.op(1);
  if (!lin || lin->first != 1 || lin->second.has(i) || K.has(i) || K.has(j)) return std::nullopt;
  if (!in.provably_integer(K) || !in.provably_positive(K) || !in.provably_integer(lin->second)) return std::nullopt;
  ex rest = (pos.expand() - scale * column).expand();
  if (rest.has(j) || !in.provably_integer(rest) || !in.provably_integer(scale)) return std::nullopt;
  // One cell per position: rows K apart around a column in [0, K - 1] (rest = K * A(i)), or
  // columns `scale` apart around a row A(i) = rest in [0, scale - 1].
  bool row_major = scale.is_equal(1) && in.provably_integer(rest / K);
  bool col_major = in.provably_nonneg(rest) && in.provably_nonneg(scale - 1 - rest);
  if (!row_major && !col_major) return std::nullopt;
  return GridPosition{column, lin->second, K, rest, scale};
}

}  // namespace

// max(w * sum (i) { sum (j = lo, hi) { c(i, j) * unitvec(R(i) + s * ((j + e) mod K)) } })
// on a grid of cells (row A(i), column (j + e) mod K; R = K A(i) with s = 1, or R = A(i) in
// [0, s - 1]): for each i, the column of a fixed end of j's range is the busiest. With
// lo free of i and c nonincreasing in j, the column of lo holds items lo, lo + K, ..., as
// many as any column and each at least the same-rank item of another column (lo + r + t K
// > lo + t K); symmetrically the column of hi for hi free of i and c nondecreasing. So
// every cell's load is at most its row's load in that column b*, and the max is that of
// the family restricted to column b*: sum (i) { sum (j) { ((j + e) mod K == b*) c } *
// unitvec(R(i) + s b*) }, a 1-D map of the rows that the row rules read (a Cholesky-like
// triangle dealt 2-D cyclically). Side conditions: w c >= 0 and not failing (proved), K a
// positive integer, e, R, s integers (proved), one cell per position (above); lo, hi
// integers (proved or assumed).
std::optional<ex> rule_vmax_grid_column(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams) || fams.size() != 1 || fams[0].loops.size() != 2) return std::nullopt;
  const Family& fam = fams[0];
  const Loop &li = fam.loops[0], &lj = fam.loops[1];
  const ex &i = li.index, &j = lj.index;
  const ex w = fam.outer * fam.weight;
  const Facts in = within(f, fam.loops);
  if (!in.provably_nonneg(w) || may_fail(w, f)) return std::nullopt;
  auto g = grid_position(fam.pos, li, lj, in);
  if (!g) return std::nullopt;
  // The anchor: a fixed end of j's range toward which the weight does not fall.
  Facts step = f;
  step.declare_index(li.index, li.lb, li.ub);
  step.declare_index(lj.index, lj.lb, lj.ub - 1);
  const ex rise = (w.subs(exmap{{j, j + 1}}) - w).expand();
  ex anchor;
  if (!lj.lb.has(i) && (!w.has(j) || step.provably_nonpos(rise)))
    anchor = lj.lb;
  else if (!lj.ub.has(i) && (!w.has(j) || step.provably_nonneg(rise)))
    anchor = lj.ub;
  else
    return std::nullopt;
  // j's bounds are integers at each i of its range (read with i declared), i's outright.
  const Facts at_i = within(f, {li});
  Assumptions tentative = a;
  if (!detail::require({{true, li.lb}, {true, li.ub}}, f, tentative) ||
      !detail::require({{true, lj.lb}, {true, lj.ub}}, at_i, tentative))
    return std::nullopt;
  a = tentative;
  const ex best = mod_of(anchor + g->e, g->K);
  const ex column_load = make_reduction(ReduceKind::Sum, lj.index, lj.lb, lj.ub, compare(Cmp::Eq, g->column, best) * w);
  return vector_max(make_reduction(ReduceKind::Sum, li.index, li.lb, li.ub,
                                   column_load * unitvec(g->rest + g->scale * best)));
}

}  // namespace pamc::sym
