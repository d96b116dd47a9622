// The proof memo (compiler/symbolic/proof_memo.cpp): a remembered answer is the answer the
// prover gives under the facts as they are now, and a hit records the same default signs
// as the proof it stands for.
#include <doctest/doctest.h>

#include "compiler/symbolic/symbolic.h"

using namespace pamc::sym;
using GiNaC::ex;
using GiNaC::symbol;

namespace {
// Runs f with the default-sign log recording, as a rule's proofs are; returns the log.
template <class F>
std::vector<symbol> logged(F f) {
  auto& log = DefaultBoundLog::used();
  log.clear();
  DefaultBoundLog::recording() = true;
  f();
  DefaultBoundLog::recording() = false;
  std::vector<symbol> out = log;
  log.clear();
  return out;
}
}  // namespace

TEST_CASE("a fact added after a proof changes the answer, for that copy only") {
  symbol N("N"), P("P"), i("i");
  Facts f;
  f.declare(N, "N");
  f.declare(P, "P");
  CHECK(!f.provably_nonneg(N - 1));
  Facts g = f;  // shares f's answers until it changes
  CHECK(!g.provably_nonneg(N - 1));
  g.add_lower(N, 1, false);
  CHECK(g.provably_nonneg(N - 1));
  CHECK(!f.provably_nonneg(N - 1));

  CHECK(!f.provably_nonneg(P - N));
  f.add_upper(N, P, false);
  CHECK(f.provably_nonneg(P - N));

  // an index declared after a question about it
  CHECK(!f.provably_nonneg(N - 1 - i));
  f.declare_index(i, 0, N - 1);
  CHECK(f.provably_nonneg(N - 1 - i));

  // K (K - 1) >= 0 needs K to be an integer (0 or >= 1)
  symbol K("K");
  f.declare(K, "K");
  CHECK(!f.provably_nonneg(K * (K - 1)));
  f.declare_integer(K);
  CHECK(f.provably_nonneg(K * (K - 1)));
  CHECK(!f.provably_positive(K));
}

TEST_CASE("a remembered proof records the default signs it relied on, every time") {
  symbol N("N"), M("M");
  Facts f;
  f.declare_parameter(N, "N");
  f.declare_parameter(M, "M");
  auto first = logged([&] { CHECK(f.provably_nonneg(N)); });
  REQUIRE(first.size() == 1);
  CHECK(first[0].is_equal(N));
  auto again = logged([&] { CHECK(f.provably_nonneg(N)); });
  REQUIRE(again.size() == 1);
  CHECK(again[0].is_equal(N));
  // after another proof that logged N: the hit still adds its own entry
  auto both = logged([&] {
    CHECK(f.provably_nonneg(N * M));
    CHECK(f.provably_nonneg(N));
  });
  CHECK(both.size() >= 2);
  CHECK(both.back().is_equal(N));
  // a failed proof logs nothing, remembered or not
  CHECK(logged([&] { CHECK(!f.provably_nonneg(N - M)); }).empty());
  CHECK(logged([&] { CHECK(!f.provably_nonneg(N - M)); }).empty());
  // asked first without recording, the answer is the same and the log is still written
  Facts g;
  g.declare_parameter(N, "N");
  CHECK(g.provably_positive(N + 1));
  auto recorded = logged([&] { CHECK(g.provably_positive(N + 1)); });
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0].is_equal(N));
}
