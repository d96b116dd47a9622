// The embedding library (runtime/include/pamela/pamela.h): compile, evaluate, errors.
#include <doctest/doctest.h>

#include <cmath>
#include <thread>

#include "pamela/pamela.h"

namespace {
const std::string kSamples = std::string(PAMC_SOURCE_DIR) + "/samples/";
}

TEST_CASE("api: the MRM from a file") {
  pamela::Model m = pamela::Model::from_file(kSamples + "mrm.pam");
  CHECK(m.name() == "mrm");
  CHECK(m.parameters() == std::vector<std::string>{"P", "N"});
  CHECK(m.top_level_equations() == std::vector<std::string>{"T_main"});
  CHECK(m.equations().at(0) == "T_main");
  pamela::CostFunction t = m.function("main");
  CHECK(t.name() == "T_main");
  CHECK(t({1000, 1e6}) == 100000000.0);
  CHECK(m.function("T_main")(std::vector<double>{10, 1e6}) == doctest::Approx(10.1e6));
  CHECK(t(std::map<std::string, double>{{"P", 1000}, {"N", 1e6}}) == 100000000.0);
  CHECK(m.evaluate({{"P", 1000}, {"N", 1e6}}).at("T_main") == 100000000.0);
  CHECK(t.formula() == "N * max(0.1 * P, 10.1)");
  CHECK(t.instructions() < 10);
  CHECK_THROWS_AS(t({1.0}), std::invalid_argument);
  CHECK_THROWS_AS(t(std::map<std::string, double>{{"P", 1}}), std::invalid_argument);
}

TEST_CASE("api: defaults, reductions, functions") {
  pamela::Model m = pamela::Model::from_text(
      "numeric parameter N\nnumeric parameter K = 3\nnumeric parameter L = K * 2\n"
      "numeric s = sum (i = 1, N) { max (j = 1, i) { (j - K) ^ 2 } } + L\n"
      "numeric f = floor(N / 3) + (N mod 4) + (N div 3) + (N < K) + sqrt(N) + log2(N + 1)\n",
      "defaults");
  auto s = m.function("s");
  auto brute = [](double n, double k, double l) {
    double total = l;
    for (double i = 1; i <= n; ++i) {
      double best = -HUGE_VAL;
      for (double j = 1; j <= i; ++j) best = std::max(best, (j - k) * (j - k));
      total += best;
    }
    return total;
  };
  for (double n : {0.0, 1.0, 5.0, 9.0}) {
    CHECK(s({n}) == doctest::Approx(brute(n, 3, 6)));
    CHECK(s({n, 2}) == doctest::Approx(brute(n, 2, 4)));
    CHECK(s({n, 2, 1}) == doctest::Approx(brute(n, 2, 1)));
  }
  auto f = m.function("f");
  CHECK(f({7}) == doctest::Approx(2 + 3 + 2 + 0 + std::sqrt(7.0) + 3));
  CHECK(m.parameter_info()[2].default_text == std::optional<std::string>("2 * K"));
}

TEST_CASE("api: errors carry diagnostics") {
  try {
    pamela::Model::from_text("numeric parameter N\nnumeric x = N +\n", "broken");
    FAIL("no error");
  } catch (const pamela::Error& e) {
    REQUIRE(!e.diagnostics().empty());
    const pamela::Diagnostic& d = e.diagnostics()[0];
    CHECK(d.file == "broken.pam");
    CHECK(d.line >= 2);
    CHECK(d.column > 0);
    CHECK(d.kind == "SyntaxError");
    CHECK(d.rendered.find("broken.pam:") == 0);
    CHECK(std::string(e.what()).find("error:") != std::string::npos);
  }
  try {
    pamela::Model::from_file(kSamples + "does-not-exist.pam");
    FAIL("no error");
  } catch (const pamela::Error& e) {
    CHECK(e.diagnostics().at(0).line == 0);
    CHECK(e.diagnostics().at(0).file.find("does-not-exist.pam") != std::string::npos);
  }
  pamela::Model m = pamela::Model::from_file(kSamples + "mrm.pam");
  try {
    m.function("nothing");
    FAIL("no error");
  } catch (const pamela::Error& e) {
    CHECK(e.diagnostics().at(0).kind == "UnknownTarget");
  }
}

TEST_CASE("api: functions evaluate concurrently") {
  pamela::CostFunction t = pamela::Model::from_file(kSamples + "mrm.pam").function("main");
  std::vector<double> results(4);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      double acc = 0;
      for (int i = 0; i < 100000; ++i) acc += t({double(k + 1) * 100, 1});
      results[k] = acc;
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; ++k) CHECK(results[k] == doctest::Approx(100000 * std::max(10.1, 0.1 * (k + 1) * 100)));
}

TEST_CASE("api: assumptions of the closed form") {
  pamela::Model m = pamela::Model::from_file(kSamples + "mrm.pam");
  CHECK(!m.assumptions().empty());
  CHECK(m.violated_assumptions({1000, 1e6}).empty());
  CHECK(!m.violated_assumptions({1000, 0.5}).empty());  // N is an integer
}

TEST_CASE("api: a point whose unsimplified loops would run for hours is refused at once") {
  // A tree's levels over P processors: the closed form assumes log2(P) is an integer; at
  // P = 3 the unsimplified model answers, and at L = 10000 its loops run 2 ^ 10000 steps.
  pamela::Model m = pamela::Model::from_text(
      "numeric parameter L\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
      "process main = seq (d = 0, L - 1) par (i = 0, 2 ^ (L - d) - 1) use(cpu(i mod P), 1)\n",
      "levels");
  pamela::CostFunction t = m.function("T_main");
  CHECK(t({5, 8}) == 9);    // the closed form
  CHECK(t({5, 12}) == 8);   // log2(12) is not an integer: the unsimplified model, 62 steps
  CHECK_THROWS_AS(t({10000, 3}), pamela::WorkLimit);
  try {
    t({10000, 3});
  } catch (const pamela::WorkLimit& e) {
    CHECK(std::string(e.what()).find("more than the limit of 1e9") != std::string::npos);
  }
}
