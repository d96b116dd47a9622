// Tests of equality in a loop's body: a boundary process (p == 0) h + (p == P - 1) h and a
// hot item (i == 0) H under a cyclic map. The max reads each test as two steps
// (ext_breakpoints), a product with a nonzero factor tests its other factor (cmp_eq_factor),
// and a proof's case that no point meets holds vacuously (the prover).
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/rules.h"

#include <vector>

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {
struct Procs {
  symbol N{"N"}, P{"P"}, H{"H"}, p{"p"}, i{"i"};
  Facts F;
  Procs() {
    for (const symbol& s : {N, P, H}) F.declare_parameter(s, s.get_name());
    F.declare_integer(N);
    F.declare_integer(P);
    F.add_lower(P, 1, false);
  }
  numeric at(const ex& x, int n, int pp, const numeric& h) const {
    WorkBudget b;
    return evaluate(x, GiNaC::exmap{{N, n}, {P, pp}, {H, h}}, b).scalar;
  }
};
}  // namespace

TEST_CASE_FIXTURE(Procs, "the busiest of a boundary process's extra work: each end, or both when P = 1") {
  Assumptions a;
  ex body = 50 * compare(Cmp::Eq, p, 0) + 50 * compare(Cmp::Eq, p, P - 1);
  ex m = make_reduction(ReduceKind::Max, p, 0, P - 1, body, true);
  auto r = rule_ext_breakpoints(m, F, a);
  REQUIRE(r);
  CHECK(count_reductions(*r) == 0);
  for (int pp = 1; pp <= 6; ++pp) CHECK(at(*r, 0, pp, 0) == at(m, 0, pp, 0));
  // != as one less the two steps
  ex others = make_reduction(ReduceKind::Min, p, 0, P - 1, compare(Cmp::Ne, p, 2), true);
  auto r2 = rule_ext_breakpoints(others, F, a);
  REQUIRE(r2);
  for (int pp = 1; pp <= 6; ++pp) CHECK(at(*r2, 0, pp, 0) == at(others, 0, pp, 0));
}

TEST_CASE_FIXTURE(Procs, "an equality with a nonzero factor tests the other factor") {
  Assumptions a;
  auto r = rule_cmp_eq_factor(compare(Cmp::Eq, P * i, 0), F, a);
  REQUIRE(r);
  CHECK(to_pamela(*r) == to_pamela(compare(Cmp::Eq, i, 0)));
  auto r2 = rule_cmp_eq_factor(compare(Cmp::Ne, P * i + P, 0), F, a);  // shared by both terms
  REQUIRE(r2);
  CHECK(to_pamela(*r2) == to_pamela(compare(Cmp::Ne, i + 1, 0)));
  // a factor that may be 0 stays: (N i == 0) holds for every i at N = 0
  CHECK(!rule_cmp_eq_factor(compare(Cmp::Eq, N * i, 0), F, a));
}

TEST_CASE_FIXTURE(Procs, "a case of a proof that no point meets holds vacuously") {
  Facts g = F;
  g.declare_index(i, 0, N - 2);
  // (i + 1 == 0) - (i == 0) <= 0 for i >= 0: where the first test holds, i = -1 is out of range
  ex step = H * (compare(Cmp::Eq, i + 1, 0) - compare(Cmp::Eq, i, 0));
  CHECK(g.provably_nonpos(step));
  CHECK(!g.provably_nonneg(step));  // H (0 - 1) at i = 0 is negative for H > 0
  Facts empty = g;
  empty.add_upper(i, -1, false);
  CHECK(empty.numerically_empty());
  CHECK(!g.numerically_empty());
}

TEST_CASE_FIXTURE(Procs, "a hot item under a cyclic map: the first position carries it") {
  Assumptions a;
  RuleStats st;
  ex v = vector_max(make_reduction(ReduceKind::Sum, i, 0, N - 1, (1 + H * compare(Cmp::Eq, i, 0)) * unitvec(mod_of(i, P))));
  ex closed = simplify(v, F, a, st);
  CHECK(count_reductions(closed) == 0);
  for (int n : {1, 2, 5, 9})
    for (int pp : {1, 2, 3, 7})
      for (const numeric& h : {numeric(0), numeric(1, 2), numeric(4)}) CHECK(at(closed, n, pp, h) == at(v, n, pp, h));
}
