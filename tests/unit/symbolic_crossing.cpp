// Two one-to-one families that share a position (vmax_crossing): a row broadcast and a
// column broadcast on a Q x Q grid meet at the diagonal processor, which carries both loads.
// And a block map under another map, with a weight of the index, read one item per block
// (vmax_block_split).
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
  symbol N{"N"}, Q{"Q"}, k{"k"}, i{"i"}, j{"j"};
  Facts F;
  Grid() {
    for (const symbol& s : {N, Q}) F.declare_parameter(s, s.get_name());
    F.declare_integer(Q);
    F.add_lower(Q, 1, false);  // Q * Q processors: the model's positions need Q >= 1
    F.declare_index(k, 0, Q - 1);
  }
  ex sum(const symbol& x, const ex& lo, const ex& hi, const ex& body) const {
    return make_reduction(ReduceKind::Sum, x, lo, hi, body);
  }
  // Both sides at every (N, Q, k) with 0 <= k <= Q - 1; how many points were compared.
  int agree(const ex& rewritten, const ex& original) const {
    int compared = 0;
    for (const numeric& n : {numeric(0), numeric(1, 2), numeric(3), numeric(40)})
      for (int q = 1; q <= 5; ++q)
        for (int kk = 0; kk < q; ++kk) {
          GiNaC::exmap env{{N, n}, {Q, q}, {k, kk}};
          WorkBudget b1, b2;
          CHECK(evaluate(rewritten, env, b1).scalar == evaluate(original, env, b2).scalar);
          ++compared;
        }
    return compared;
  }
};
}  // namespace

TEST_CASE_FIXTURE(Grid, "a row and a column broadcast of step k meet at the diagonal: the loads add there") {
  Assumptions a;
  // SUMMA's step k: process (i, j) takes row block N / Q from (i, k) and column block from (k, j)
  ex v = sum(i, 0, Q - 1, sum(j, 0, Q - 1, N / Q * unitvec(i * Q + k) + N / Q * unitvec(k * Q + j)));
  auto r = rule_vmax_crossing(vector_max(v), F, a);
  REQUIRE(r);
  CHECK(agree(*r, vector_max(v)) > 50);
  // a weight that differs per family, and the column family written with its index negated
  ex w = sum(i, 0, Q - 1, 3 * unitvec(i * Q + k)) + sum(j, 0, Q - 1, N * unitvec(k * Q + Q - 1 - j));
  auto r2 = rule_vmax_crossing(vector_max(w), F, a);
  REQUIRE(r2);
  CHECK(agree(*r2, vector_max(w)) > 50);
}

TEST_CASE_FIXTURE(Grid, "families that may not cross, or are not one-to-one, are left alone") {
  Assumptions a;
  // even and odd positions never meet; neither coefficient is 1, so no witness is sought
  CHECK(!rule_vmax_crossing(vector_max(sum(i, 0, Q - 1, unitvec(2 * i)) + sum(j, 0, Q - 1, unitvec(2 * j + 1))), F, a));
  // the column family lies past the row family's last position: no witness is proved
  CHECK(!rule_vmax_crossing(vector_max(sum(i, 0, Q - 1, unitvec(i * Q + k)) + sum(j, 0, Q - 1, unitvec(Q * Q + j))), F, a));
  // two indices in one position: not one-to-one in a single loop
  CHECK(!rule_vmax_crossing(
      vector_max(sum(i, 0, Q - 1, sum(j, 0, Q - 1, unitvec(i * Q + j))) + sum(j, 0, Q - 1, unitvec(j))), F, a));
  // a weight that may be negative
  CHECK(!rule_vmax_crossing(vector_max(sum(i, 0, Q - 1, (N - 5) * unitvec(i * Q + k)) + sum(j, 0, Q - 1, unitvec(k * Q + j))), F, a));
}

TEST_CASE("a triangle's rows in blocks of B dealt cyclically: one item per block, weighed by its rows") {
  symbol N("N"), B("B"), P("P"), i("i");
  Facts F;
  for (const symbol& s : {N, B, P}) F.declare_parameter(s, s.get_name());
  for (const symbol& s : {N, B, P}) F.declare_integer(s);
  F.add_lower(B, 1, false);
  F.add_lower(P, 1, false);
  ex v = vector_max(make_reduction(ReduceKind::Sum, i, 0, N - 1, (i + 1) * unitvec(mod_of(idiv_of(i, B), P))));
  Assumptions a;
  auto r = rule_vmax_block_split(v, F, a);
  REQUIRE(r);
  CHECK(a.items.count("B divides N"));
  Assumptions a2;
  RuleStats st;
  ex closed = simplify(*r, F, a2, st);
  CHECK(count_reductions(closed) == 0);
  int compared = 0;
  for (int n : {0, 1, 4, 6, 12, 30})
    for (int b : {1, 2, 3, 4})
      for (int p : {1, 2, 3, 5}) {
        GiNaC::exmap env{{N, n}, {B, b}, {P, p}};
        if (!assumptions_hold(a, env) || !assumptions_hold(a2, env)) continue;
        WorkBudget b1, b2;
        CHECK(evaluate(closed, env, b1).scalar == evaluate(v, env, b2).scalar);
        ++compared;
      }
  CHECK(compared > 30);
  // a constant weight is vmax_block_cyclic's (no whole blocks needed); a block map alone is
  // the block rules'
  CHECK(!rule_vmax_block_split(vector_max(make_reduction(ReduceKind::Sum, i, 0, N - 1, unitvec(mod_of(idiv_of(i, B), P)))), F, a));
  CHECK(!rule_vmax_block_split(vector_max(make_reduction(ReduceKind::Sum, i, 0, N - 1, i * unitvec(idiv_of(i, B)))), F, a));
}
