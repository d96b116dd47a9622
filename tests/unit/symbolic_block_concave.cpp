// Block rows whose weight is concave and symmetric (a banded matrix's row i of N has
// 1 + min(i - 1, W) + min(N - i, W) nonzeros): the middle block is the busiest
// (vmax_block_concave); and a par's branch that is only its own use is dropped beside the
// loads of all branches (max_inner_load).
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
    CHECK(a.items.count("N / P is an integer"));  // blocks of N / P rows: P divides N
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
