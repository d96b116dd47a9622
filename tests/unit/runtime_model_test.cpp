// simulate() on models compiled from Pamela text, and the simulated time against the
// compiled bound T_main (SPEC section 5: simulated >= bound on deterministic models, equal
// when nothing is contended).
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "runtime/simulate.h"

using namespace pamc;

namespace {

std::unique_ptr<Compilation> compile(const std::string& text) {
  Diagnostics diags;
  auto c = compile_text("model.pam", text, LoadOptions{}, Stage::Simplified, diags);
  if (!c) {
    std::ostringstream out;
    diags.render(out);
    FAIL("model does not compile:\n" << out.str());
  }
  return c;
}

double bound(const Compilation& c, const std::map<std::string, double>& params, const std::string& target = "T_main") {
  EvalRequest req;
  for (auto& kv : params) {
    GiNaC::numeric v;
    std::ostringstream s;
    s.precision(17);
    s << kv.second;
    REQUIRE(parse_binding_value(s.str(), v));
    req.bindings[kv.first] = v;
  }
  req.targets = {target};
  EvalResult r = evaluate_model(c.model, req);
  REQUIRE(r.values.size() == 1);
  REQUIRE_FALSE(r.values[0].second.is_vector);
  return r.values[0].second.scalar.to_double();
}

const char* kMrm = R"(
numeric parameter P % # clients
numeric parameter N % # iterations
numeric t_l = 10 % local think time
numeric t_s = 0.1 % service time
resource parameter fcfs(i)
resource s = fcfs(0,1)
process main = par (p = 1, P)
  seq (i = 1, N) {
    delay(t_l) ;
    use(s,t_s)
  }
)";

}  // namespace

TEST_CASE("simulate model: the seed's MRM from source") {
  auto c = compile(kMrm);
  for (double P : {1.0, 10.0, 100.0, 200.0}) {
    CAPTURE(P);
    std::map<std::string, double> params{{"P", P}, {"N", 50}};
    SimResult r = simulate(c->normal, "main", params, SimOptions{});
    double b = bound(*c, params);
    CHECK(b == doctest::Approx(std::max(50 * 10.1, P * 50 * 0.1)));
    CHECK(r.makespan.mean >= b * (1 - 1e-12));
  }
  SimResult one = simulate(c->normal, "main", {{"P", 1}, {"N", 50}}, SimOptions{});
  CHECK(one.makespan.mean == doctest::Approx(505));
  // "T_main" names the same process
  CHECK(simulate(c->normal, "T_main", {{"P", 1}, {"N", 50}}, SimOptions{}).makespan.mean == doctest::Approx(505));
}

TEST_CASE("simulate model: parameters, defaults and errors") {
  auto c = compile(R"(
numeric parameter N = 4
numeric parameter P
numeric f(x) = x * x
process work(k) = delay(f(k))
process main = seq (i = 1, N) work(i)
process other = par (p = 1, P) delay(1)
)");
  CHECK(simulate(c->normal, "main", {}, SimOptions{}).makespan.mean == 1 + 4 + 9 + 16);
  CHECK(simulate(c->normal, "main", {{"N", 2}}, SimOptions{}).makespan.mean == 5);
  CHECK_THROWS_WITH_AS(simulate(c->normal, "other", {}, SimOptions{}), doctest::Contains("P"), SimError);
  CHECK_THROWS_WITH_AS(simulate(c->normal, "nope", {}, SimOptions{}), doctest::Contains("no process"), SimError);
  CHECK_THROWS_WITH_AS(simulate(c->normal, "main", {{"Q", 1}}, SimOptions{}), doctest::Contains("Q"), SimError);
  try {
    simulate(c->normal, "other", {}, SimOptions{});
  } catch (const SimError& e) {
    CHECK(e.diag.kind == DiagKind::UnboundParameter);
  }
}

// Deterministic models: the bound is a lower bound, exact when uncontended.
TEST_CASE("simulate model: simulated >= bound on deterministic models") {
  struct Case {
    const char* text;
    std::map<std::string, double> params;
    bool exact;
  };
  const Case cases[] = {
      {"process main = seq (i = 1, 10) delay(i)", {}, true},
      {"process main = par (i = 1, 10) delay(i)", {}, true},
      {"numeric parameter P\nprocess main = par (p = 0, P - 1) seq (i = 1, 5) use(fcfs(p, 1), 2)", {{"P", 8}}, true},
      // cyclic mapping: ceil(N/P) items on the busiest resource
      {"numeric parameter N\nnumeric parameter P\nprocess main = par (i = 0, N - 1) use(fcfs(i mod P, 1), 1)",
       {{"N", 10}, {"P", 3}},
       true},
      {"process main = par (p = 1, 6) use(fcfs(0, 2), 3)", {}, true},
      {"process main = par (p = 1, 5) { delay(p) ; use(fcfs(0, 1), 2) }", {}, false},
      {"process main = { delay(3) ; use(fcfs(1, 1), 2) } || { use(fcfs(1, 1), 4) ; delay(1) }", {}, false},
      {"numeric parameter N\nprocess main = seq (k = 1, N) par (i = k, N) use(fcfs(i mod 2, 1), 1)", {{"N", 6}}, false},
      {"process main = if (1) delay(2) else delay(3)", {}, true},
      {"process main = seq (i = 1, 10) if (i mod 2 == 0) delay(i)", {}, true},
  };
  for (const Case& k : cases) {
    CAPTURE(k.text);
    auto c = compile(k.text);
    SimResult r = simulate(c->normal, "main", k.params, SimOptions{});
    double b = bound(*c, k.params);
    CAPTURE(b);
    CAPTURE(r.makespan.mean);
    CHECK(r.makespan.mean >= b * (1 - 1e-12));
    if (k.exact) CHECK(r.makespan.mean == doctest::Approx(b).epsilon(1e-12));
  }
}

TEST_CASE("simulate model: probabilities hold for the mean") {
  auto c = compile("process main = seq (i = 1, 200) { if (0.25) delay(4) else delay(1) }");
  SimOptions o;
  o.runs = 200;
  o.seed = 5;
  SimResult r = simulate(c->normal, "main", {}, o);
  double b = bound(*c, {});
  CHECK(b == doctest::Approx(200 * (0.25 * 4 + 0.75)));
  CHECK(r.makespan.mean == doctest::Approx(b).epsilon(0.01));
}
