// A guard (`if (P mod 2 == 0)`, `if (N >= 1)`) is a fact for the rest of its product in the
// simplifier: P / 2 is an integer there, N is at least 1. But a loop bound in that rest is
// evaluated even where the guard is 0 (a zero factor does not cover a non-integer bound,
// docs/semantics.md), so a bound must keep its value there: `floor(P / 2)` may not become
// `P / 2`, nor `max(N, 0)` become `N`. eval must agree with brute force at every point,
// where the guard holds and where it fails (odd, fractional and negative P and N).
#include <doctest/doctest.h>

#include <string>

#include "compiler/passes/pipeline.h"
#include "tests/unit/edge_points.h"

using namespace pamc;

namespace {

// Every point of N x P from the edges (both parities, fractions, negatives), compared as
// pamc eval does against pamc eval --brute-force. Returns T_main's closed form.
std::string agree_everywhere(const std::string& body, const std::string& p_bound = "") {
  const std::string text = "numeric parameter N\nnumeric parameter P" + p_bound + "\nprocess main = " + body + "\n";
  Diagnostics d1, d2;
  auto timed = compile_text("m.pam", text, {}, Stage::Time, d1);
  auto simplified = compile_text("m.pam", text, {}, Stage::Simplified, d2);
  REQUIRE(timed);
  REQUIRE(simplified);
  const GiNaC::numeric half(1, 2), five_halves(5, 2);
  long compared = 0;
  for (const GiNaC::numeric& n : {GiNaC::numeric(-3), GiNaC::numeric(-1, 2), GiNaC::numeric(0), half, GiNaC::numeric(1),
                                  five_halves, GiNaC::numeric(3), GiNaC::numeric(4)})
    for (const GiNaC::numeric& p : {GiNaC::numeric(-1), GiNaC::numeric(0), half, GiNaC::numeric(2), five_halves,
                                    GiNaC::numeric(3), GiNaC::numeric(6)}) {
      edge::Verdict v = edge::compare(simplified->model, timed->model, "T_main", {{"N", n}, {"P", p}});
      CHECK_MESSAGE(v.outcome != edge::Outcome::Mismatch, body << "\n  at N=" << n << " P=" << p << ": " << v.problem);
      compared += v.outcome == edge::Outcome::Compared;
    }
  CHECK(compared >= 20);
  const CostEquation* t = simplified->model.equation("T_main");
  REQUIRE(t);
  return sym::to_pamela(t->value);
}

}  // namespace

TEST_CASE("a loop bound under a residue guard keeps its value where the guard fails") {
  // floor(P / 2) is P / 2 only where P is even; at P = 3 the guard is 0 and the model is 0.
  std::string closed = agree_everywhere("if (P mod 2 == 0) seq (k = 1, floor(P / 2)) delay(log2(k + 1))");
  CHECK(closed.find("0.5 * P)") == std::string::npos);
  // The same bound one loop down, with the guard lifted out of the loop over i.
  agree_everywhere("seq (i = 1, N) if (P mod 2 == 0) seq (k = 1, floor(P / 2)) delay(log2(k + i))");
  // A residue of a loop index: floor(i / 2) under i mod 2 == 0.
  agree_everywhere("seq (i = 1, N) if (i mod 2 == 0) seq (k = 1, floor(i / 2)) delay(log2(k + 1))");
}

TEST_CASE("a loop a rule splits under a residue guard keeps bounds that are integers where the guard fails") {
  // sum_piecewise splits the loop over k where 2 ceil(2 (N - k + 1) / P) crosses 3, at
  // N - P / 2 under P mod 2 == 0; the log2 weight keeps both pieces open, so their bounds
  // are evaluated at odd P too: the split is then made without the guard's facts.
  std::string closed =
      agree_everywhere("if (P mod 2 == 0) seq (k = 1, N) delay(max(2 * ceil(2 * (N - k + 1) / P), 3) * log2(k + 1))", " >= 1");
  CHECK(closed.find("0.5 * P") == std::string::npos);
}

TEST_CASE("a loop bound under a comparison guard keeps its value where the guard fails") {
  // max(N, 0) is N only where N >= 1; at N = -1/2 the guard is 0 and the bound is 0.
  agree_everywhere("if (N >= 1) seq (k = 1, max(N, 0)) delay(log2(k + 1))");
}

TEST_CASE("a bound the guard makes an integer closes where it is summed away") {
  // Where the loop closes, the guard's facts still shorten the closed form.
  std::string closed = agree_everywhere("if (P mod 2 == 0) seq (k = 1, floor(P / 2)) delay(k)");
  CHECK(closed.find("floor") == std::string::npos);
}
