// Loads that several families share, each family's fibers an interval, a block or a residue
// class (vmax_fibers): a block partition's own items and its halo items (cpu(i div B) beside
// cpu((i - 1) div B) and cpu((i + 1) div B)), blocks beside a cyclic map that overlaps them,
// a shared bus inside a range of links. The busiest position is found among the positions
// where some family's count rises.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/rules.h"
#include "tests/unit/assumptions_at.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {
struct Fibers {
  symbol N{"N"}, B{"B"}, P{"P"}, i{"i"}, t{"t"};
  Facts F;
  Fibers() {
    for (const symbol& s : {N, B, P, t}) F.declare_parameter(s, s.get_name());
    for (const symbol& s : {N, B, P}) F.declare_integer(s);
    F.add_lower(B, 1, false);  // a block or a cycle holds at least one position
    F.add_lower(P, 1, false);
    F.add_lower(t, 0, false);
  }
  ex sum(const ex& lo, const ex& hi, const ex& body) const { return make_reduction(ReduceKind::Sum, i, lo, hi, body); }
  // The rewritten max against the vector's own max at every point where the vector has a
  // value (positions >= 0) and the recorded assumptions hold; how many points were compared.
  int agree(const ex& v, const Assumptions& a) {
    Assumptions none;
    auto r = rule_vmax_fibers(vector_max(v.expand()), F, none);
    REQUIRE(r);
    CHECK(count_reductions(*r) == 0);
    int compared = 0;
    for (int n = -3; n <= 13; ++n)
      for (int b = 1; b <= 4; ++b)
        for (int p = 1; p <= 4; ++p)
          for (const numeric& tt : {numeric(0), numeric(5, 2), numeric(1000000)}) {
            GiNaC::exmap env{{N, n}, {B, b}, {P, p}, {t, tt}};
            if (!assumptions_hold(a, env) || !assumptions_hold(none, env)) continue;
            WorkBudget b1, b2;
            Value want;
            try {
              want = evaluate(vector_max(v), env, b1);
            } catch (const EvalError&) {
              continue;  // a position below 0: no value (the pipeline's position check says so)
            }
            CHECK(evaluate(*r, env, b2).scalar == want.scalar);
            ++compared;
          }
    return compared;
  }
};
}  // namespace

TEST_CASE_FIXTURE(Fibers, "vmax_fibers: a block partition's items and its halos to both neighbours") {
  // i = 1 .. N - 2 owned by i div B; each also reads its neighbours' owners.
  ex v = t * sum(1, N - 2, unitvec(idiv_of(i, B))) +
         2 * sum(1, N - 2, unitvec(idiv_of(i - 1, B))) + 2 * sum(1, N - 2, unitvec(idiv_of(i + 1, B)));
  CHECK(agree(v, Assumptions{}) > 500);
}

TEST_CASE_FIXTURE(Fibers, "vmax_fibers: blocks of 2N items beside a cyclic map of the same items") {
  ex v = t * sum(0, 2 * N - 1, unitvec(idiv_of(i, B) + 1)) + t * sum(0, 2 * N - 1, unitvec(mod_of(i, P) + P));
  CHECK(agree(v, Assumptions{}) > 500);
  // reversed maps: the last item goes to the first block, the first residue class
  ex w = 3 * sum(0, N - 1, unitvec(idiv_of(N - 1 - i, B))) + t * sum(0, N - 1, unitvec(mod_of(N - i, P)));
  CHECK(agree(w, Assumptions{}) > 500);
  // a range that starts mid-cycle: the busiest residue is its first, 3 mod P
  ex u = t * sum(3, N, unitvec(mod_of(i, P))) + 2 * unitvec(ex(0));
  CHECK(agree(u, Assumptions{}) > 500);
}

TEST_CASE_FIXTURE(Fibers, "vmax_fibers: each block's first item sends to the block before, beside the blocks' items") {
  // if (i mod B == 0 and i > 0) use(link(i div B - 1), 5) beside use(cpu(i div B), t)
  ex v = t * sum(0, N - 1, unitvec(idiv_of(i, B))) +
         5 * sum(1, N - 1, compare(Cmp::Eq, mod_of(i, B), 0) * unitvec(idiv_of(i, B) + P - 1));
  CHECK(agree(v, Assumptions{}) > 500);
  // blocks numbered from the top, the filter on i + 1: the first block may keep none
  ex w = sum(0, N - 1, unitvec(idiv_of(i, B))) +
         t * sum(1, N, compare(Cmp::Eq, mod_of(i + 1, B), B - 1) * unitvec(idiv_of(N - i, B)));
  CHECK(agree(w, Assumptions{}) > 500);
}

TEST_CASE_FIXTURE(Fibers, "vmax_fibers: links of a range with a shared bus among them") {
  ex v = t * sum(0, N - 1, unitvec(i + 2)) + 7 * unitvec(ex(3)) + sum(0, P - 1, unitvec(idiv_of(i, B) + 3));
  CHECK(agree(v, Assumptions{}) > 500);
}

TEST_CASE_FIXTURE(Fibers, "vmax_fibers: left alone where a count is not a fiber's") {
  Assumptions a;
  // a weight that varies with the index
  CHECK(!rule_vmax_fibers(vector_max((sum(0, N, i * unitvec(idiv_of(i, B))) + sum(0, N, unitvec(i))).expand()), F, a));
  // a weight of unknown sign
  CHECK(!rule_vmax_fibers(vector_max(((N - 5) * sum(0, N, unitvec(idiv_of(i, B))) + sum(0, N, unitvec(i))).expand()), F, a));
  // a stride: 2 i mod P is not one residue class per position
  CHECK(!rule_vmax_fibers(vector_max((sum(0, N, unitvec(mod_of(2 * i, P))) + sum(0, N, unitvec(i))).expand()), F, a));
  // a filter that holds nowhere (a remainder of B is never B), one whose modulus need not
  // divide the block size
  CHECK(!rule_vmax_fibers(vector_max((sum(0, N, compare(Cmp::Eq, mod_of(i, B), B) * unitvec(idiv_of(i, B))) +
                                      sum(0, N, unitvec(i))).expand()), F, a));
  CHECK(!rule_vmax_fibers(vector_max((sum(0, N, compare(Cmp::Eq, mod_of(i, 2), 0) * unitvec(idiv_of(i, B))) +
                                      sum(0, N, unitvec(i))).expand()), F, a));
  // a block size not proved >= 1
  CHECK(!rule_vmax_fibers(vector_max((sum(0, N, unitvec(idiv_of(i, N))) + sum(0, N, unitvec(i))).expand()), F, a));
  // a filter that excludes a residue, (i mod B != 0) alone as the weight: it keeps B - 1
  // items a block, not the one i mod B == 0 keeps (read as that, it gave 4 for 5 at
  // N = 10, B = 3)
  CHECK(!rule_vmax_fibers(vector_max((sum(0, N - 1, compare(Cmp::Ne, mod_of(i, B), 0) * unitvec(idiv_of(i, B) + 1)) +
                                      sum(0, N - 1, unitvec(idiv_of(i, B)))).expand()), F, a));
  CHECK(a.items.empty());
}
