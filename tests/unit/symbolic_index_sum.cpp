// Loads whose position is the sum of two loop indices (W workers each sweeping N cells from
// their own offset, cpu(i + w)): the busiest position holds min(N, W) items.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/load_families.h"
#include "tests/unit/assumptions_at.h"

#include <vector>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

TEST_CASE("vmax_index_sum: two indices that add up to the position") {
  symbol N("N"), W("W"), i("i"), w("w");
  Facts F;
  F.declare_parameter(N, "N");
  F.declare_parameter(W, "W");
  F.declare_integer(N);
  F.declare_integer(W);
  auto family = [&](const ex& pos, const ex& weight) {
    return vector_max(weight * make_reduction(ReduceKind::Sum, w, 0, W - 1,
                                              make_reduction(ReduceKind::Sum, i, 0, N - 1, unitvec(pos))));
  };
  for (const ex& pos : {ex(i + w), ex(i - w + W - 1), ex(i + w + 3)}) {
    Assumptions a;
    ex orig = family(pos, 2);
    auto r = rule_vmax_index_sum(orig, F, a);
    REQUIRE(r);
    for (int n : {0, 1, 2, 3, 5, 8})
      for (int ww : {0, 1, 2, 4, 7}) {
        GiNaC::exmap env{{N, n}, {W, ww}};
        if (!assumptions_hold(a, env)) continue;
        WorkBudget b1, b2;
        CHECK(evaluate(*r, env, b1).scalar == evaluate(orig, env, b2).scalar);
      }
  }
  Assumptions a;
  CHECK(!rule_vmax_index_sum(family(i + w, i), F, a));      // a weight that varies with i
  CHECK(!rule_vmax_index_sum(family(2 * i + w, 1), F, a));  // a coefficient other than +-1
  CHECK(!rule_vmax_index_sum(family(i + w - 1, 1), F, a));  // position -1 at i = w = 0
}
