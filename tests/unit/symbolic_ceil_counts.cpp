// ceil_counts: c * floor((x - 1) / m) + c prints as c * ceil(x / m), where x is an integer
// and m an integer >= 1 by the facts, the rounding stands nowhere else, and the form is
// shorter. Values are compared with the form it replaces at negative, zero and large
// integer points (the only points the facts allow).
#include <doctest/doctest.h>

#include "compiler/symbolic/ceil_counts.h"
#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

namespace {

struct Counts {
  symbol N{"N"}, P{"P"}, W{"W"}, t{"t"};
  Facts F;
  Counts() {
    F.declare_parameter(N, "N");
    F.declare_integer(N);
    F.declare_parameter(P, "P");
    F.add_lower(P, 1, false);
    F.declare_integer(P);
    F.declare_parameter(W, "W");  // no facts but the default sign
    F.declare_parameter(t, "t");
  }
};

numeric at(const ex& e, const GiNaC::exmap& env) {
  WorkBudget b;
  return evaluate(e, env, b).scalar;
}

}  // namespace

TEST_CASE_FIXTURE(Counts, "ceil_counts: a count of rounds reads as ceil(N / P), with the same value") {
  ex before = 6 * floor_of((N - 1) / P) + 6;
  ex after = ceil_counts(before, F);
  CHECK(to_pamela(after) == "6 * ceil(N / P)");
  ex inside = t * (floor_of((N - 1) / P) + 1) + ceil_of(N / W);
  CHECK(to_pamela(ceil_counts(inside, F)) == "ceil(N / P) * t + ceil(N / W)");
  int compared = 0;
  for (int n = -7; n <= 40; ++n)
    for (int p : {1, 2, 3, 5, 8, 1000}) {
      GiNaC::exmap env{{N, n}, {P, p}};
      CHECK(at(after, env) == at(before, env));
      ++compared;
    }
  CHECK(compared == 288);
}

TEST_CASE_FIXTURE(Counts, "ceil_counts: left alone where the identity is not proved or reads worse") {
  // m not an integer: floor((2 - 1) / 1.5) + 1 = 1, ceil(2 / 1.5) = 2.
  ex by_w = floor_of((N - 1) / W) + 1;
  CHECK(ceil_counts(by_w, F).is_equal(by_w));
  // x not an integer (t has no facts).
  ex of_t = floor_of((t - 1) / P) + 1;
  CHECK(ceil_counts(of_t, F).is_equal(of_t));
  // The constant differs from the coefficient.
  ex other = 2 * floor_of((N - 1) / P) + 3;
  CHECK(ceil_counts(other, F).is_equal(other));
  // The rounding also stands elsewhere: one atom, not floor and ceil side by side.
  ex twice = (floor_of((N - 1) / P) + 1) * floor_of((N - 1) / P);
  CHECK(ceil_counts(twice, F).is_equal(twice));
  // Not shorter: floor(N / P) + 1 would become ceil((N + 1) / P).
  ex plain = floor_of(N / P) + 1;
  CHECK(ceil_counts(plain, F).is_equal(plain));
}
