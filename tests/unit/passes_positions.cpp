// A resource position that is not a nonnegative integer where a use runs gives the model no
// value there (docs/semantics.md). The closed forms of load vectors must not hide that: eval
// must agree with brute force at every point, negative, zero, fractional and huge, and the
// models whose positions are valid must close without a condition on them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compiler/passes/pipeline.h"
#include "tests/unit/edge_points.h"

using namespace pamc;

namespace {

struct Compiled {
  std::unique_ptr<Compilation> timed, simplified;
};

Compiled compile_both(const std::string& text) {
  Diagnostics d1, d2;
  Compiled c{compile_text("m.pam", text, {}, Stage::Time, d1), compile_text("m.pam", text, {}, Stage::Simplified, d2)};
  REQUIRE(c.timed);
  REQUIRE(c.simplified);
  return c;
}

const std::string kHead = "numeric parameter N\nnumeric parameter P\nresource cpu(i) = fcfs(i, 1)\n";

// Every point of N x P from the edges, compared as pamc eval does against brute force.
void agree_everywhere(const std::string& text) {
  Compiled c = compile_both(text);
  const GiNaC::numeric half(1, 2);
  long compared = 0;
  for (const GiNaC::numeric& n : {GiNaC::numeric(-3), GiNaC::numeric(0), half, GiNaC::numeric(1), GiNaC::numeric(2),
                                  GiNaC::numeric(7), GiNaC::numeric(1000000)})
    for (const GiNaC::numeric& p : {GiNaC::numeric(-1), GiNaC::numeric(0), half, GiNaC::numeric(1), GiNaC::numeric(3)}) {
      edge::Verdict v = edge::compare(c.simplified->model, c.timed->model, "T_main", {{"N", n}, {"P", p}});
      CHECK_MESSAGE(v.outcome != edge::Outcome::Mismatch, "at N=" << n << " P=" << p << ": " << v.problem);
      compared += v.outcome == edge::Outcome::Compared || v.outcome == edge::Outcome::NoValueBoth;
    }
  CHECK(compared >= 20);
}

bool assumes_position(const CostModel& m) {
  for (const std::string& item : m.assumptions.items)
    if (item.rfind("resource position", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("positions: a position below 0 or between integers gives no value, closed form or not") {
  const std::vector<std::string> bodies = {
      // p - 1 at p = 0: there is no link -1.
      "process main = par (p = 0, P - 1) use(cpu(p - 1), 1)\n",
      "process main = par (p = 0, P - 1) seq (k = 1, 2) use(cpu(p - 1), 1)\n",
      // i mod P - 1 is -1 wherever P divides i.
      "process main = par (i = 0, N - 1) use(cpu(i mod P - 1), i)\n",
      // The queue's load bounds the vector's, but cpu(-3) still has no value.
      "process main = par (i = 0, N - 1) use(cpu(i - 3), 2) || use(cpu(0), 10 * N)\n",
      // i / 2 between integers at odd i.
      "process main = par (i = 1, N) use(cpu(i / 2), 1)\n",
      // A weight that is 0 exactly where the position is bad: a value everywhere.
      "process main = par (i = 0, N - 1) use(cpu(i - 1), i)\n",
      // A position of parameters only.
      "process main = par (i = 1, N) use(cpu(P - 2), 1)\n",
  };
  for (const std::string& b : bodies) {
    INFO(b);
    agree_everywhere(kHead + b);
  }
}

TEST_CASE("positions: valid positions close with no condition on them") {
  const std::vector<std::string> bodies = {
      "process main = par (i = 0, N - 1) if (i >= 1) use(cpu(i - 1), 1)\n",
      "process main = par (p = 0, P - 1) { if (p > 0) use(cpu(p - 1), 1) ; if (p < P - 1) use(cpu(p + 1), 1) }\n",
      "process main = par (i = 0, N - 1) use(cpu(i mod P), 1)\n",
      "process main = par (i = 1, N) use(cpu((i - 1) div 2), 1)\n",
      "process main = par (w = 0, P - 1) seq (j = 1, N) use(cpu(w + 1), 1) || use(cpu(0), 1)\n",
  };
  for (const std::string& b : bodies) {
    INFO(b);
    Compiled c = compile_both(kHead + b);
    const CostModel& m = c.simplified->model;
    CHECK_FALSE(assumes_position(m));
    for (const CostEquation& e : m.equations)
      if (e.name == "T_main") CHECK(sym::count_reductions(e.value) == 0);
    agree_everywhere(kHead + b);
  }
}

TEST_CASE("positions: a shift by a parameter needs only that it is an integer") {
  // (i + B) mod P is an integer in 0..P - 1 wherever B is an integer: that is assumed and
  // checked, and the closed form is used wherever it holds (it was once never used).
  const std::string text = "numeric parameter N\nnumeric parameter P\nnumeric parameter B\nresource cpu(i) = fcfs(i, 1)\n"
                           "process main = par (i = 0, N - 1) use(cpu((i + B) mod P), 6 / (1 + (i mod P) mod 2))\n";
  Compiled c = compile_both(text);
  const CostModel& m = c.simplified->model;
  CHECK_FALSE(assumes_position(m));
  CHECK(m.assumptions.items.count("B is an integer") == 1);
  for (const CostEquation& e : m.equations)
    if (e.name == "T_main") CHECK(sym::count_reductions(e.value) == 0);
  const GiNaC::numeric half(1, 2);
  long compared = 0;
  for (const GiNaC::numeric& n : {GiNaC::numeric(-3), GiNaC::numeric(0), GiNaC::numeric(1), GiNaC::numeric(10), GiNaC::numeric(1000001)})
    for (const GiNaC::numeric& p : {GiNaC::numeric(0), half, GiNaC::numeric(1), GiNaC::numeric(2), GiNaC::numeric(5)})
      for (const GiNaC::numeric& b : {GiNaC::numeric(-7), GiNaC::numeric(0), half, GiNaC::numeric(3)}) {
        edge::Verdict v = edge::compare(m, c.timed->model, "T_main", {{"N", n}, {"P", p}, {"B", b}});
        CHECK_MESSAGE(v.outcome != edge::Outcome::Mismatch, "at N=" << n << " P=" << p << " B=" << b << ": " << v.problem);
        compared += v.outcome == edge::Outcome::Compared;
      }
  CHECK(compared >= 30);
}
