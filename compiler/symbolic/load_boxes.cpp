// Boxes on a process grid (vmax_boxes): see load_families.h.
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/load_families_internal.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;
using detail::Family;
using detail::Loop;
using detail::read_families;
using detail::within;

// Boxes on a process grid. Each family is w * sum (x = ax, bx) { sum (y = ay, by) { c *
// unitvec(S (x + dx) + y + dy) } } (the x and y loops in either order), with one row length
// S, a symbol that is a positive integer, shared by all; dx, dy integers free of the loops;
// the column y + dy within [0, S - 1] over y's range (proved): so the position determines
// the cell (X, Y) = (x + dx, y + dy), and the family adds w c to every cell of the box
// [ax + dx, bx + dx] x [ay + dy, by + dy]. The load of a cell is the sum of the boxes that
// hold it; with loads >= 0 a busiest cell can be moved, dimension by dimension, to the
// largest lower end among the boxes that hold it (every one of them still holds it), so
// the max is over cells whose X is some box's lower x end and whose Y is some box's lower y
// end: at most 36 candidates for 6 boxes, each the sum of the boxes that hold it (of the
// nonempty ones only, so each is a cell's load or 0). An empty vector's max is 0, as every
// candidate's is then. A 2-D
// stencil's compute and halo messages (`if (x > 0) use(cpu((x - 1) * Py + y), t_halo)`).
// Side conditions: w c >= 0 and not failing, free of the loops (proved); dx and dy
// integers (proved); S an integer >= 1 and the loop bounds integers (proved or assumed: at
// S = 0 the rows are empty and the unsimplified model answers).
std::optional<ex> rule_vmax_boxes(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams) || fams.size() < 2 || fams.size() > 6) return std::nullopt;
  struct Box {
    ex ax, bx, ay, by, load;
  };
  std::vector<Box> boxes;
  std::optional<symbol> S;
  std::vector<detail::Cond> conds;
  for (const Family& fam : fams) {
    if (fam.loops.size() != 2) return std::nullopt;
    const Loop &l0 = fam.loops[0], &l1 = fam.loops[1];
    if (l1.lb.has(l0.index) || l1.ub.has(l0.index)) return std::nullopt;
    const ex w = fam.outer * fam.weight;
    if (w.has(l0.index) || w.has(l1.index) || !f.provably_nonneg(w) || may_fail(w, f)) return std::nullopt;
    const ex pos = fam.pos.expand();
    if (!pos.is_polynomial(l0.index) || !pos.is_polynomial(l1.index) || pos.degree(l0.index) != 1 ||
        pos.degree(l1.index) != 1)
      return std::nullopt;
    const ex c0 = pos.coeff(l0.index, 1), c1 = pos.coeff(l1.index, 1);
    if (c0.has(l1.index) || c1.has(l0.index)) return std::nullopt;  // no x * y term
    // The row index x has the coefficient S, the column index y the coefficient 1.
    const bool y_inner = c1.is_equal(1);
    if (!y_inner && !c0.is_equal(1)) return std::nullopt;
    const Loop &lx = y_inner ? l0 : l1, &ly = y_inner ? l1 : l0;
    const ex cs = y_inner ? c0 : c1;
    if (!is_class<symbol>(cs)) return std::nullopt;
    if (!S) S = ex_to<symbol>(cs);
    else if (!cs.is_equal(*S)) return std::nullopt;
    const ex rest = (pos - cs * lx.index - ly.index).expand();
    if (!rest.is_polynomial(*S) || rest.degree(*S) > 1) return std::nullopt;
    const ex dx = rest.coeff(*S, 1), dy = rest.coeff(*S, 0);
    if (dx.has(*S) || dy.has(*S)) return std::nullopt;
    if (!f.provably_integer(dx) || !f.provably_integer(dy)) return std::nullopt;
    const Facts in = within(f, fam.loops);
    if (!in.provably_nonneg(ly.index + dy) || !in.provably_nonneg(*S - 1 - ly.index - dy)) return std::nullopt;
    for (const ex& b : {lx.lb, lx.ub, ly.lb, ly.ub}) conds.push_back({true, b});
    boxes.push_back({lx.lb + dx, lx.ub + dx, ly.lb + dy, ly.ub + dy, w});
  }
  conds.push_back({true, *S});
  conds.push_back({false, *S - 1});
  if (!detail::require(conds, f, a)) return std::nullopt;
  // The distinct lower ends. No candidate needs a guard that its box is nonempty: its value
  // sums only the nonempty boxes that hold the cell (an empty box's indicator is 0), so it
  // is the load of a cell of the grid, or 0.
  auto distinct = [](exvector v) {
    exvector out;
    for (const ex& x : v)
      if (std::none_of(out.begin(), out.end(), [&](const ex& y) { return (x - y).expand().is_zero(); })) out.push_back(x);
    return out;
  };
  exvector xs, ys;
  for (const Box& b : boxes) {
    xs.push_back(b.ax.expand());
    ys.push_back(b.ay.expand());
  }
  auto le = [](const ex& x, const ex& y) { return compare(Cmp::Le, x, y); };
  exvector cands;
  for (const ex& X : distinct(xs))
    for (const ex& Y : distinct(ys)) {
      ex load = 0;
      for (const Box& t : boxes) load += t.load * le(t.ax, X) * le(X, t.bx) * le(t.ay, Y) * le(Y, t.by);
      cands.push_back(detail::decide_all(load, f).expand());
    }
  return make_max(cands);
}

}  // namespace pamc::sym
