// Seed 001's hybrid study (compiler/analysis/predictability.h): the two-factor ANOVA
// against a hand computation, and the predictability verdict on m0 that is constant and
// m0 that drifts with problem size.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>

#include "compiler/analysis/predictability.h"

using namespace pamc::analysis;

TEST_CASE("two-factor ANOVA with interaction matches a hand computation (2 x 2, 2 replicates)") {
  // cells (code, machine): A1B1 {3, 5}, A1B2 {6, 8}, A2B1 {4, 6}, A2B2 {10, 12}
  std::vector<std::string> a = {"A1", "A1", "A1", "A1", "A2", "A2", "A2", "A2"};
  std::vector<std::string> b = {"B1", "B1", "B2", "B2", "B1", "B1", "B2", "B2"};
  std::vector<double> y = {3, 5, 6, 8, 4, 6, 10, 12};
  Anova t = two_factor_anova("cpi", a, b, y);
  // By hand: grand mean 6.75; code means 5.5, 8; machine means 4.5, 9; cell means 4, 7, 5, 11.
  // SS_code = 4 (1.25^2 + 1.25^2) = 12.5; SS_machine = 4 (2.25^2 + 2.25^2) = 40.5;
  // SS_cells = 2 (2.75^2 + 0.25^2 + 1.75^2 + 4.25^2) = 57.5; SS_inter = 57.5 - 12.5 - 40.5 = 4.5;
  // SS_error = 8 x 1^2 = 8; MSE = 8 / 4 = 2; F = 6.25, 20.25, 2.25.
  REQUIRE(t.rows.size() == 5);
  CHECK(t.balanced);
  CHECK(t.rows[0].ss == doctest::Approx(12.5));
  CHECK(t.rows[1].ss == doctest::Approx(40.5));
  CHECK(t.rows[2].ss == doctest::Approx(4.5));
  CHECK(t.rows[3].ss == doctest::Approx(8));
  CHECK(t.rows[3].df == 4);
  CHECK(t.rows[4].ss == doctest::Approx(65.5));
  CHECK(*t.rows[0].f == doctest::Approx(6.25));
  CHECK(*t.rows[1].f == doctest::Approx(20.25));
  CHECK(*t.rows[2].f == doctest::Approx(2.25));
  CHECK(*t.model.f == doctest::Approx(57.5 / 3 / 2));
  // p of F(1, 4) = p of |t_4| > sqrt(F); for 4 degrees of freedom, with u = t / sqrt(4 + t^2),
  // P(|T| > t) = 1 - (3u - u^3) / 2 (the closed form of Student's t with 4 df).
  auto p_f1_4 = [](double f) {
    double tt = std::sqrt(f), u = tt / std::sqrt(4 + tt * tt);
    return 1 - (3 * u - u * u * u) / 2;
  };
  CHECK(*t.rows[0].p == doctest::Approx(p_f1_4(6.25)).epsilon(1e-9));  // 0.0668
  CHECK(*t.rows[1].p == doctest::Approx(p_f1_4(20.25)).epsilon(1e-9));
  CHECK(*t.rows[2].p == doctest::Approx(p_f1_4(2.25)).epsilon(1e-9));
  CHECK(*t.rows[0].p == doctest::Approx(0.0668).epsilon(1e-3));
}

TEST_CASE("ANOVA refuses a design it cannot estimate") {
  CHECK_THROWS_AS(two_factor_anova("cpi", {"A", "A", "B"}, {"x", "y", "x"}, {1, 2, 3}), std::invalid_argument);
  CHECK_THROWS_AS(two_factor_anova("cpi", {"A", "B"}, {"x", "x"}, {1, 2}), std::invalid_argument);
}

namespace {

// Three runs at each of six problem sizes; cpi from eq. 2 with the given m0(size), 0.5%
// measurement noise on cpi.
std::vector<HybridObservation> runs(const std::function<double(double)>& m0, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 0.005);
  std::uniform_real_distribution<double> hits(0.005, 0.03);
  std::vector<HybridObservation> out;
  for (double size = 50; size <= 300; size += 50)
    for (int r = 0; r < 3; ++r) {
      HybridObservation o;
      o.code = "HYDRO";
      o.machine = "origin2000";
      o.size = size;
      o.cpi_pipeline = 0.8;
      double h2 = hits(rng), h3 = hits(rng) / 5;
      o.memory_max = h2 * 10 + h3 * 70;
      o.cpi = (o.cpi_pipeline + (1 - m0(size)) * o.memory_max) * (1 + noise(rng));
      out.push_back(o);
    }
  return out;
}

}  // namespace

TEST_CASE("m0 constant across sizes is judged predictable, m0 drifting with size is not") {
  std::vector<M0Study> flat = m0_studies(runs([](double) { return 0.35; }, 1), 0.05, 0);
  REQUIRE(flat.size() == 1);
  REQUIRE(flat[0].sizes.size() == 6);
  for (const M0Estimate& e : flat[0].sizes) {
    CHECK(e.n == 3);
    CHECK(e.m0 == doctest::Approx(0.35).epsilon(0.15));
    REQUIRE(e.std_error);
    CHECK(*e.std_error > 0);
    CHECK(*e.std_error < 0.05);
  }
  CHECK(flat[0].test == "F");
  CHECK(flat[0].f_df1 == 5);
  CHECK(flat[0].f_df2 == 12);
  REQUIRE(flat[0].predictable);
  CHECK(*flat[0].predictable);

  std::vector<M0Study> drift = m0_studies(runs([](double s) { return 0.2 + 0.0015 * s; }, 1), 0.05, 0);
  REQUIRE(drift[0].predictable);
  CHECK_FALSE(*drift[0].predictable);
  CHECK(*drift[0].f_p < 1e-6);
  CHECK(*drift[0].slope == doctest::Approx(0.0015).epsilon(0.1));
  CHECK(*drift[0].slope_p < 0.01);
  CHECK(drift[0].sizes.front().m0 == doctest::Approx(0.275).epsilon(0.05));

  // The paper's steady state: sizes below 100 left out.
  std::vector<M0Study> late = m0_studies(runs([](double) { return 0.35; }, 1), 0.05, 100);
  CHECK(late[0].sizes.size() == 5);
}

TEST_CASE("without replicates the verdict is the slope test, exact data give m0 exactly") {
  std::vector<HybridObservation> obs;
  for (double size : {50.0, 100.0, 150.0, 200.0}) {
    HybridObservation o;
    o.code = "HEAT";
    o.machine = "powerchallenge";
    o.size = size;
    o.cpi_pipeline = 1.0;
    o.memory_max = 0.5;
    o.cpi = 1.0 + (1 - 0.4) * 0.5;
    obs.push_back(o);
  }
  std::vector<M0Study> s = m0_studies(obs, 0.05, 0);
  CHECK(s[0].sizes[2].m0 == doctest::Approx(0.4).epsilon(1e-12));
  CHECK_FALSE(s[0].sizes[2].std_error);
  CHECK_FALSE(s[0].f);
  CHECK(s[0].test == "slope");
  REQUIRE(s[0].predictable);
  CHECK(*s[0].predictable);
}

TEST_CASE("across machines: a constant m0 - m0' is judged constant, a changing one is not") {
  auto two_machines = [](double amp_b) {
    std::vector<HybridObservation> all = runs([](double) { return 0.40; }, 3);
    std::vector<HybridObservation> b = runs([amp_b](double s) { return 0.35 + amp_b * std::sin(s / 40.0); }, 4);
    for (HybridObservation& o : b) o.machine = "powerchallenge";
    all.insert(all.end(), b.begin(), b.end());
    return m0_differences(all, 0.05, 0);
  };
  std::vector<M0Difference> same = two_machines(0.0);
  REQUIRE(same.size() == 1);
  CHECK(same[0].machine_a == "origin2000");
  CHECK(same[0].sizes.size() == 6);
  CHECK(same[0].df1 == 5);
  CHECK(same[0].df2 == 36 - 12);
  for (double d : same[0].difference) CHECK(d == doctest::Approx(0.05).epsilon(0.3));
  REQUIRE(same[0].constant);
  CHECK(*same[0].constant);
  std::vector<M0Difference> apart = two_machines(0.1);
  REQUIRE(apart[0].constant);
  CHECK_FALSE(*apart[0].constant);
  CHECK(*apart[0].p < 1e-6);
}
