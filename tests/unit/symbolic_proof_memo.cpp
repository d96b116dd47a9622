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

// A claim is remembered divided by its positive rational content: c X >= 0 shares X >= 0's
// answer (and the default signs it logged), while -X, 2 X - 1 and X > 0 stay their own.
TEST_CASE("a claim and its positive multiples share one answer, nothing else does") {
  symbol N("N"), M("M");
  Facts f;
  f.declare_parameter(N, "N");
  f.declare_parameter(M, "M");
  f.add_lower(N, 1, false);
  CHECK(f.provably_nonneg(N - 1));
  CHECK(f.provably_nonneg(GiNaC::numeric(83, 10) * (N - 1)));
  CHECK(f.provably_nonneg(GiNaC::numeric(1, 3) * N - GiNaC::numeric(1, 3)));
  CHECK(!f.provably_nonneg(1 - N));
  CHECK(!f.provably_nonneg(-3 * (N - 1)));
  CHECK(!f.provably_nonneg(2 * N - 3));  // N = 1
  CHECK(!f.provably_positive(N - 1));
  CHECK(!f.provably_positive(5 * N - 5));
  // a failed proof first, then its multiple: still failed
  CHECK(!f.provably_nonneg(M - N));
  CHECK(!f.provably_nonneg(7 * M - 7 * N));
  // a proof that relies on M's default sign, then its multiple: the same sign logged
  auto first = logged([&] { CHECK(f.provably_nonneg(M * N)); });
  auto multiple = logged([&] { CHECK(f.provably_nonneg(GiNaC::numeric(5, 2) * M * N)); });
  REQUIRE(!first.empty());
  REQUIRE(multiple.size() == first.size());
  for (std::size_t k = 0; k < first.size(); ++k) CHECK(multiple[k].is_equal(first[k]));
}

// Refutation (refute.cpp) tries points before the prover: a point that breaks a fact must
// not refute a claim that the fact makes true.
TEST_CASE("a claim true only by a fact is proved, not refuted at a point that breaks it") {
  symbol N("N"), P("P"), i("i");
  Facts f;
  f.declare(N, "N");
  f.declare(P, "P");
  f.add_lower(P, 1, false);
  f.declare_integer(N);
  f.declare_integer(P);
  // N / P is an integer: floor(N / P) = N / P (false at N = 1, P = 1000)
  CHECK(!f.provably_nonneg(floor_of(N / P) - N / P));
  Facts g = f;
  g.declare_integer_expr(N / P);
  CHECK(g.provably_nonneg(floor_of(N / P) - N / P));
  // N >= P: N - P >= 0 (false at N = 1, P = 1000)
  Facts h = f;
  h.add_lower(N, P, false);
  CHECK(h.provably_nonneg(N - P));
  CHECK(!f.provably_nonneg(N - P));
  // an index inside its range: i <= N - 1 (false at i = 1000, N = 1)
  Facts k = f;
  k.declare_index(i, 0, N - 1);
  CHECK(k.provably_nonneg(N - 1 - i));
  CHECK(k.provably_positive(N - i));
  // an open bound: P > 1 makes P - 1 > 0 (false at P = 1)
  Facts o = f;
  o.add_lower(P, 1, true);
  CHECK(o.provably_positive(P - 1));
  CHECK(!f.provably_positive(P - 1));
}
