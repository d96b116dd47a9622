// An owner test inside a worker loop (`par (w) seq (c) if (c mod W == w) use(cpu(w + 1),
// t(c))`): the w loop goes, and the workers' loads are the cyclic map c mod W + 1 of the
// chunks' weights (vmax_collapse's owner-test exchange).
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/load_families.h"
#include "tests/unit/assumptions_at.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

TEST_CASE("vmax_collapse: an owner test c mod W == w reads the worker loop at w = c mod W") {
  symbol N("N"), W("W"), C("C"), w("w"), c("c");
  Facts F;
  for (const symbol& s : {N, W, C}) F.declare_parameter(s, s.get_name());
  F.declare_integer(N);
  F.declare_integer(W);
  F.add_lower(W, 1, false);  // from the model: c mod W needs W >= 1
  F.declare_integer(C);
  auto farm = [&](const ex& weight) {
    return vector_max(make_reduction(
        ReduceKind::Sum, w, 0, W - 1,
        make_reduction(ReduceKind::Sum, c, 0, N - 1, compare(Cmp::Eq, mod_of(c, W), w) * weight * unitvec(w + 1))));
  };
  // chunks that shrink: the weight varies along the fiber, so the w loop goes
  ex shrinking = farm(make_min({C, N - c}));
  Assumptions a;
  auto r = rule_vmax_collapse(shrinking, F, a);
  REQUIRE(r);
  CHECK(!r->has(w));
  int compared = 0;
  for (int n = -2; n <= 9; ++n)
    for (int ww = 1; ww <= 4; ++ww)
      for (int cc = 0; cc <= 3; ++cc) {
        GiNaC::exmap env{{N, n}, {W, ww}, {C, cc}};
        if (!assumptions_hold(a, env)) continue;
        WorkBudget b1, b2;
        CHECK(evaluate(*r, env, b1).scalar == evaluate(shrinking, env, b2).scalar);
        ++compared;
      }
  CHECK(compared > 100);
  // a weight of w alone (a worker's own speed) keeps the w loop: its load is the weight
  // times the count of its chunks
  auto kept = rule_vmax_collapse(farm(w + 1), F, a);
  CHECK((!kept || kept->has(w)));
}
