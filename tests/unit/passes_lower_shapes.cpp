// lower: an equation of the same shape as an earlier one (the same normalized tree up to
// source positions) takes the earlier one's values and records its own loop sites and
// times at its own places, as lowering it would.
#include <doctest/doctest.h>

#include "compiler/passes/pipeline.h"
#include "compiler/symbolic/print.h"

#include <string>
#include <vector>

using namespace pamc;

namespace {

std::unique_ptr<Compilation> lowered(const std::string& text) {
  Diagnostics diags;
  auto c = compile_text("shapes.pam", text, {}, Stage::Time, diags);
  REQUIRE(c);
  return c;
}

const CostEquation& equation(const CostModel& m, const std::string& name) {
  for (const CostEquation& e : m.equations)
    if (e.name == name) return e;
  FAIL("no equation " << name);
  return m.equations.front();
}

}  // namespace

TEST_CASE("lower: equations of one shape share values and keep their own loop sites and times") {
  const std::string text =
      "numeric parameter N\nnumeric parameter M\n"                                      // lines 1-2
      "process a = seq (i = 1, N) { delay(M - 5) ; use(fcfs(0, 1), M) }\n"              // 3
      "process b = seq (i = 1, N) { delay(M - 5) ; use(fcfs(0, 1), M) }\n"              // 4
      "process c = par (p = 1, N) seq (j = 1, p) delay(M - 2)\n"                       // 5
      "process d = par (p = 1, N) seq (j = 1, p) delay(M - 2)\n"                       // 6
      "process e = seq (i = 1, N) { delay(M - 5) ; use(fcfs(0, 1), M + 1) }\n"          // 7: another shape
      "process main = a ; b\n";                                                         // 8
  auto c = lowered(text);
  const CostModel& m = c->model;
  // Equal values, shared: b's T is a's.
  CHECK(equation(m, "T_b").value.is_equal(equation(m, "T_a").value));
  CHECK(equation(m, "T_d").value.is_equal(equation(m, "T_c").value));
  CHECK(!equation(m, "T_e").value.is_equal(equation(m, "T_a").value));
  CHECK(sym::to_pamela(equation(m, "T_b").value) == "sum (i = 1, N) { 2 * M - 5 }");
  // Every equation's loops, at their own lines and columns, in the order of the equations.
  std::vector<std::pair<std::string, unsigned>> loops;
  for (const LoopSite& l : m.loops) loops.emplace_back(l.index.get_name(), l.loc.line);
  CHECK(loops == std::vector<std::pair<std::string, unsigned>>{{"i", 3}, {"i", 4}, {"p", 5}, {"j", 5}, {"p", 6}, {"j", 6}, {"i", 7}});
  // Every symbolic time at its own place: the delay and the use of a, b and e, the delays of
  // c and d (M - 2 is index-free too).
  std::vector<std::pair<std::string, unsigned>> times;
  for (const TimeSite& t : m.times) times.emplace_back(sym::to_pamela(t.time) + " " + t.what, t.loc.line);
  CHECK(times == std::vector<std::pair<std::string, unsigned>>{{"M - 5 delay", 3}, {"M use", 3}, {"M - 5 delay", 4}, {"M use", 4},
                                                               {"M - 2 delay", 5}, {"M - 2 delay", 6}, {"M - 5 delay", 7},
                                                               {"M + 1 use", 7}});
  // Columns too: b's delay time at the '-' of b's own M - 5 (a binary node's place).
  for (const TimeSite& t : m.times)
    if (t.loc.line == 4 && t.what == "delay") CHECK(t.loc.col == 38);
}

TEST_CASE("lower: an equation of the same shape gives what it gives in a model of its own") {
  auto both = lowered("numeric parameter N\nnumeric parameter P\n"
                      "process a = par (p = 1, P) seq (i = 1, N) { delay(p) ; use(fcfs(p mod 4, 1), i / 2) }\n"
                      "process b = par (p = 1, P) seq (i = 1, N) { delay(p) ; use(fcfs(p mod 4, 1), i / 2) }\n");
  auto alone = lowered("numeric parameter N\nnumeric parameter P\n\n"
                       "process b = par (p = 1, P) seq (i = 1, N) { delay(p) ; use(fcfs(p mod 4, 1), i / 2) }\n");
  for (const char* x : {"phi_b", "delta_b", "omega_b", "T_b"})
    CHECK(sym::to_pamela(equation(both->model, x).value) == sym::to_pamela(equation(alone->model, x).value));
  REQUIRE(alone->model.loops.size() == 2);
  REQUIRE(both->model.loops.size() == 4);
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(both->model.loops[2 + k].loc.line == alone->model.loops[k].loc.line);
    CHECK(both->model.loops[2 + k].loc.col == alone->model.loops[k].loc.col);
    CHECK(both->model.loops[2 + k].index.get_name() == alone->model.loops[k].index.get_name());
  }
}
