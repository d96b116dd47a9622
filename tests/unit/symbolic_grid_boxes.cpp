// Loads of a process grid that several families share (a stencil's compute and halo
// messages, cpu(y * Px + x - 1) beside cpu(y * Px + x)): each family loads a box of cells,
// and the busiest cell is found among the boxes' lower corners (vmax_boxes).
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/rules.h"
#include "tests/unit/assumptions_at.h"

#include <vector>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {
struct Grid {
  symbol Px{"Px"}, Py{"Py"}, N{"N"}, x{"x"}, y{"y"};
  Facts F;
  Grid() {
    for (const symbol& s : {Px, Py, N}) {
      F.declare_parameter(s, s.get_name());
      F.declare_integer(s);
    }
  }
  // weight * sum (y = ylo, yhi) { sum (x = xlo, xhi) { unitvec(pos) } }
  ex family(const ex& weight, const ex& ylo, const ex& yhi, const ex& xlo, const ex& xhi, const ex& pos) const {
    return weight * make_reduction(ReduceKind::Sum, y, ylo, yhi, make_reduction(ReduceKind::Sum, x, xlo, xhi, unitvec(pos)));
  }
};
}  // namespace

TEST_CASE_FIXTURE(Grid, "vmax_boxes: a 5-point stencil's compute and halos on a Px x Py grid") {
  ex v = family(2 * N, 0, Py - 1, 0, Px - 1, y * Px + x) +
         family(3, 0, Py - 1, 1, Px - 1, y * Px + x - 1) +       // to the left neighbour
         family(3, 0, Py - 1, 0, Px - 2, y * Px + x + 1) +       // to the right one
         family(3, 1, Py - 1, 0, Px - 1, (y - 1) * Px + x) +     // below
         family(6, 0, Py - 2, 0, Px - 1, (y + 1) * Px + x);      // above, twice as much
  Assumptions a;
  auto r = rule_vmax_boxes(vector_max(v.expand()), F, a);
  REQUIRE(r);
  CHECK(count_reductions(*r) == 0);
  int compared = 0;
  for (int px = -1; px <= 5; ++px)
    for (int py = -1; py <= 5; ++py)
      for (const numeric& n : {numeric(0), numeric(1), numeric(7, 2), numeric(1000000)}) {
        GiNaC::exmap env{{Px, px}, {Py, py}, {N, n}};
        if (!assumptions_hold(a, env)) continue;
        WorkBudget b1, b2;
        CHECK(evaluate(*r, env, b1).scalar == evaluate(vector_max(v), env, b2).scalar);
        ++compared;
      }
  CHECK(compared > 100);
  // The same with x outermost and the grid stored by columns (x * Py + y).
  ex w = 5 * make_reduction(ReduceKind::Sum, x, 0, Px - 1, make_reduction(ReduceKind::Sum, y, 1, Py - 1, unitvec(x * Py + y - 1))) +
         make_reduction(ReduceKind::Sum, x, 0, Px - 1, make_reduction(ReduceKind::Sum, y, 0, Py - 1, unitvec(x * Py + y)));
  REQUIRE(rule_vmax_boxes(vector_max(w.expand()), F, a));
}

TEST_CASE_FIXTURE(Grid, "vmax_boxes: left alone where a position does not name one cell") {
  Assumptions a;
  // x - 1 + y * Px with x from 0: the column -1 is the previous row's last cell
  ex wraps = family(1, 0, Py - 1, 0, Px - 1, y * Px + x) + family(1, 0, Py - 1, 0, Px - 1, y * Px + x - 1);
  CHECK(!rule_vmax_boxes(vector_max(wraps.expand()), F, a));
  // a weight that varies over the box
  ex varies = family(x, 0, Py - 1, 0, Px - 1, y * Px + x) + family(1, 0, Py - 1, 1, Px - 1, y * Px + x - 1);
  CHECK(!rule_vmax_boxes(vector_max(varies.expand()), F, a));
  // a triangle: the inner range depends on the outer index
  ex tri = family(1, 0, Py - 1, 0, y, y * Px + x) + family(1, 0, Py - 1, 1, Px - 1, y * Px + x - 1);
  CHECK(!rule_vmax_boxes(vector_max(tri.expand()), F, a));
}

TEST_CASE("cmp_power: a comparison is 0 or 1, so its powers are itself") {
  symbol P("P");
  Facts F;
  Assumptions a;
  ex c = compare(Cmp::Le, 2, P);
  CHECK(rule_cmp_power(GiNaC::pow(c, 3), F, a)->is_equal(c));
  CHECK(!rule_cmp_power(GiNaC::pow(c, -1), F, a));  // 1 / (2 <= P) has no value at P = 1
  CHECK(!rule_cmp_power(GiNaC::pow(P, 2), F, a));
  for (int p = -2; p <= 4; ++p) {
    WorkBudget b1, b2;
    GiNaC::exmap env{{P, p}};
    CHECK(evaluate(GiNaC::pow(c, 2), env, b1).scalar == evaluate(c, env, b2).scalar);
  }
}
