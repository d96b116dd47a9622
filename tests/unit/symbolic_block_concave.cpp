// Block rows whose weight is concave and symmetric (a banded matrix's row i of N has
// 1 + min(i - 1, W) + min(N - i, W) nonzeros): the middle block is the busiest
// (vmax_block_concave); and a par's branch that is only its own use is dropped beside the
// loads of all branches (max_inner_load).
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/rules.h"
#include "tests/unit/assumptions_at.h"

#include <tuple>
#include <vector>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {
struct Band {
  symbol N{"N"}, P{"P"}, W{"W"}, i{"i"};
  Facts F;
  Band() {
    for (const symbol& s : {N, P, W}) F.declare_parameter(s, s.get_name());
    F.declare_integer(N);
    F.add_lower(N, 1, false);  // what the model implies (a loop bound is an integer)
  }
  ex rows(const ex& weight, const ex& owner) const {
    return vector_max(make_reduction(ReduceKind::Sum, i, 1, N, weight * unitvec(owner)));
  }
  // The rule's result against the vector's max, wherever its assumptions hold.
  int compare_at_points(const ex& rewritten, const ex& original, const Assumptions& a) const {
    int compared = 0;
    for (int n : {1, 2, 5, 12, 30})
      for (int p : {-2, 0, 1, 2, 3, 4, 6, 30})
        for (const numeric& w : {numeric(-1), numeric(0), numeric(1, 2), numeric(2), numeric(7), numeric(1000000)}) {
          GiNaC::exmap env{{N, n}, {P, p}, {W, w}};
          if (!assumptions_hold(a, env)) continue;
          WorkBudget b1, b2;
          CHECK(evaluate(rewritten, env, b1).scalar == evaluate(original, env, b2).scalar);
          ++compared;
        }
    return compared;
  }
};
}  // namespace

TEST_CASE_FIXTURE(Band, "vmax_block_concave: banded rows under block rows, at the middle block") {
  ex band = 1 + make_min({i - 1, W}) + make_min({N - i, W});
  for (const ex& owner : {ex(idiv_of(P * (i - 1), N)), ex(idiv_of(i - 1, N / P))}) {
    ex v = rows(band, owner);
    Assumptions a;
    auto r = rule_vmax_block_concave(v, F, a);
    REQUIRE(r);
    CHECK(a.items.count("P divides N"));  // blocks of N / P rows
    CHECK(compare_at_points(*r, v, a) > 40);
  }
}

TEST_CASE_FIXTURE(Band, "vmax_block_concave: left alone unless concave, symmetric and >= 0") {
  Assumptions a;
  ex owner = idiv_of(i - 1, N / P);
  // concave but not symmetric about the middle row: the busiest block is elsewhere
  CHECK(!rule_vmax_block_concave(rows(1 + make_min({i - 1, W}), owner), F, a));
  // symmetric but convex (rows near the ends are the long ones)
  CHECK(!rule_vmax_block_concave(rows(1 + make_max({i - 1, N - i}), owner), F, a));
  // concave and symmetric, but negative at the end rows where W = 0
  CHECK(!rule_vmax_block_concave(rows(make_min({i - 1, W}) + make_min({N - i, W}) - 1, owner), F, a));
  CHECK(a.items.empty());  // a rule that gives up records nothing
}

TEST_CASE_FIXTURE(Band, "max_inner_load: a branch that is only its own use is dropped beside the loads") {
  ex band = 1 + make_min({i - 1, W}) + make_min({N - i, W});
  ex owner = idiv_of(i - 1, N / P);
  ex time = make_max({make_reduction(ReduceKind::Max, i, 1, N, band), rows(band, owner)});
  Assumptions a;
  F.add_lower(W, 0, false);
  auto r = rule_max_inner_load(time, F, a);
  REQUIRE(r);
  CHECK(r->is_equal(rows(band, owner)));
  // a branch that also waits (its time is more than its load) keeps its arm
  ex waits = make_max({make_reduction(ReduceKind::Max, i, 1, N, band + 1), rows(band, owner)});
  CHECK(!rule_max_inner_load(waits, F, a));
}

namespace {
struct CyclicGrid {
  symbol N{"N"}, Px{"Px"}, Py{"Py"}, i{"i"}, j{"j"};
  Facts F;
  CyclicGrid() {
    for (const symbol& s : {N, Px, Py}) {
      F.declare_parameter(s, s.get_name());
      F.declare_integer(s);
    }
    F.add_lower(Px, 1, false);  // what i mod Px and j mod Py imply
    F.add_lower(Py, 1, false);
  }
  ex family(const ex& jlo, const ex& jhi, const ex& weight, bool row_major) const {
    ex pos = row_major ? mod_of(i, Px) * Py + mod_of(j, Py) : mod_of(i, Px) + Px * mod_of(j, Py);
    return vector_max(make_reduction(ReduceKind::Sum, i, 0, N - 1,
                                     make_reduction(ReduceKind::Sum, j, jlo, jhi, weight * unitvec(pos))));
  }
};
}  // namespace

TEST_CASE_FIXTURE(CyclicGrid, "vmax_grid_column: a triangle dealt 2-D cyclically, read in its busiest column") {
  int compared = 0;
  for (bool row_major : {true, false})
    for (const auto& [lo, hi, w] : std::vector<std::tuple<ex, ex, ex>>{{0, i, 1}, {i, N - 1, 1}, {i, N - 1, j + 1}, {0, N - 1, j + 1}}) {
      ex v = family(lo, hi, w, row_major);
      Assumptions a;
      auto r = rule_vmax_grid_column(v, F, a);
      REQUIRE(r);
      for (int n : {-2, 0, 1, 5, 9})
        for (int px : {1, 2, 3})
          for (int py : {1, 2, 4}) {
            GiNaC::exmap env{{N, n}, {Px, px}, {Py, py}};
            if (!assumptions_hold(a, env)) continue;
            WorkBudget b1, b2;
            CHECK(evaluate(*r, env, b1).scalar == evaluate(v, env, b2).scalar);
            ++compared;
          }
    }
  CHECK(compared > 300);
  // the weight rises toward the end that moves with i: no column is busiest for every row
  Assumptions a;
  CHECK(!rule_vmax_grid_column(family(0, i, j + 1, true), F, a));
}

TEST_CASE_FIXTURE(CyclicGrid, "floor_quotient and sum_floor_ratio: quotients and a grid's ratio of sides") {
  Assumptions a;
  ex r = mod_of(N - 1, Py);
  // (N - 1 - (N - 1) mod Py) / Py is (N - 1) div Py; a residue over its modulus rounds to a constant
  for (const auto& [x, want] : std::vector<std::pair<ex, ex>>{
           {floor_of((N - 1 - r) / Py), floor_of(floor_of((N - 1) / Py))}, {floor_of(r / Py), 0},
           {ceil_of(-r / Py), 0}, {floor_of(-(r + 1) / Py), -1}, {ceil_of((r + 1) / Py), 1},
           // any remainder over its own modulus leaves the rounding as a whole floor
           {floor_of((r + 1) / Py), floor_of(N / Py) - floor_of((N - 1) / Py)},
           {floor_of((Px - 1 - mod_of(N, Py)) / Py), floor_of((Px - 1 - N) / Py) + floor_of(N / Py)},
           {ceil_of((Px + mod_of(N, Py)) / Py), ceil_of((Px + N) / Py) - floor_of(N / Py)}}) {
    auto got = rule_floor_quotient(x, F, a);
    REQUIRE(got);
    for (int n : {-7, -1, 0, 1, 6, 13})
      for (int py : {1, 2, 5}) {
        GiNaC::exmap env{{N, n}, {Py, py}, {Px, n * n % 7 - 3}};
        WorkBudget b1, b2;
        CHECK(evaluate(*got, env, b1).scalar == evaluate(x, env, b2).scalar);
      }
  }
  // a number modulus is left to the residue rules, unless quotient and remainder cancel
  CHECK(!rule_floor_quotient(floor_of((Px - mod_of(N, 2)) / 2), F, a));
  CHECK(rule_floor_quotient(floor_of((N - mod_of(N, 2)) / 2), F, a));
  // sum (t = 0, T) { floor((N - 1 - Px t) / Py) } under "Px / Py is an integer"
  symbol t("t"), T("T");
  ex s = make_reduction(ReduceKind::Sum, t, 0, T, floor_of((N - 1 - Px * t) / Py));
  auto got = rule_sum_floor_ratio(s, F, a);
  REQUIRE(got);
  CHECK(a.items.count("Py divides Px"));
  for (int n : {-3, 0, 7, 20})
    for (const auto& [px, py] : std::vector<std::pair<int, int>>{{2, 1}, {4, 2}, {6, 3}, {3, 3}})
      for (int tt : {-1, 0, 3}) {
        GiNaC::exmap env{{N, n}, {Px, px}, {Py, py}, {T, tt}};
        WorkBudget b1, b2;
        CHECK(evaluate(*got, env, b1).scalar == evaluate(s, env, b2).scalar);
      }
  // not where Px <= Py is a fact (as for a block owner's P / N with P <= N)
  Facts g = F;
  g.add_upper(Px, Py, false);
  Assumptions none;
  CHECK(!rule_sum_floor_ratio(s, g, none));
}
