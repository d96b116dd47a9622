// The least-squares solvers of `pamc fit` (compiler/analysis/fit.h): Householder QR on
// exact, overdetermined, badly scaled and rank-deficient problems; Levenberg-Marquardt on
// smooth and max-shaped models; fit_model's choice of method and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "compiler/analysis/fit.h"
#include "compiler/passes/pipeline.h"

using namespace pamc;

namespace {

bool close(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }

std::unique_ptr<Compilation> compile(const std::string& text) {
  Diagnostics diags;
  auto comp = compile_text("fit_test.pam", text, LoadOptions{}, Stage::Simplified, diags);
  REQUIRE(comp);
  return comp;
}

FitData csv(const std::string& text) { return parse_fit_data(std::make_shared<SourceFile>("data.csv", text)); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.diag.message;
  }
  return "";
}

}  // namespace

TEST_CASE("QR solves a square system exactly") {
  // 2x + y = 5, x - 3y = -8  ->  x = 1, y = 3
  LeastSquares ls = solve_least_squares({2, 1, 1, -3}, 2, 2, {5, -8});
  REQUIRE(!ls.dependent);
  CHECK(close(ls.x[0], 1, 1e-14));
  CHECK(close(ls.x[1], 3, 1e-14));
}

TEST_CASE("QR gives the least-squares line through noisy points") {
  // y = 2 + 0.5 x with residuals +-0.1 alternating: the normal equations' solution.
  std::vector<double> a, b;
  for (int i = 0; i < 6; ++i) {
    a.push_back(1);
    a.push_back(i);
    b.push_back(2 + 0.5 * i + (i % 2 ? 0.1 : -0.1));
  }
  LeastSquares ls = solve_least_squares(a, 6, 2, b);
  REQUIRE(!ls.dependent);
  // Closed form: slope = Sxy / Sxx, intercept = mean(y) - slope mean(x).
  double mx = 2.5, my = 0, sxy = 0, sxx = 0;
  for (double v : b) my += v / 6;
  for (int i = 0; i < 6; ++i) {
    sxy += (i - mx) * (b[i] - my);
    sxx += (i - mx) * (i - mx);
  }
  CHECK(close(ls.x[1], sxy / sxx, 1e-13));
  CHECK(close(ls.x[0], my - sxy / sxx * mx, 1e-13));
  CHECK(close(ls.cov_diag[1], 1 / sxx, 1e-12));  // var(slope) = sigma^2 / Sxx
}

TEST_CASE("QR recovers constants of very different magnitude (column scaling)") {
  // t = c_start * n + c_byte * bytes, c_start = 3.18e-4, c_byte = 6.62e-7 (seed 004).
  std::vector<double> a, b;
  for (int i = 1; i <= 8; ++i) {
    double n = i, bytes = 1000.0 * i * i * i;
    a.push_back(n);
    a.push_back(bytes);
    b.push_back(3.18e-4 * n + 6.62e-7 * bytes);
  }
  LeastSquares ls = solve_least_squares(a, 8, 2, b);
  REQUIRE(!ls.dependent);
  CHECK(close(ls.x[0], 3.18e-4, 1e-12));
  CHECK(close(ls.x[1], 6.62e-7, 1e-12));
}

TEST_CASE("QR reports a dependent column instead of a meaningless answer") {
  LeastSquares ls = solve_least_squares({1, 2, 2, 4, 3, 6}, 3, 2, {1, 2, 3});
  REQUIRE(ls.dependent);
  CHECK(*ls.dependent == 1);
  LeastSquares zero = solve_least_squares({1, 0, 2, 0}, 2, 2, {1, 2});
  REQUIRE(zero.dependent);
  CHECK(*zero.dependent == 1);
}

TEST_CASE("bounded least squares: bounds that do not bind change nothing") {
  std::vector<double> a{2, 1, 1, -3}, b{5, -8};
  BoundedLeastSquares ls = solve_bounded_least_squares(a, 2, 2, b, {0, 0}, {10, 10});
  REQUIRE(!ls.dependent);
  CHECK(close(ls.x[0], 1, 1e-14));
  CHECK(close(ls.x[1], 3, 1e-14));
  CHECK(!ls.at_bound[0]);
  CHECK(!ls.at_bound[1]);
}

TEST_CASE("bounded least squares: x >= 0 (NNLS) and an upper bound") {
  // rows (1, 0), (0, 1), (1, 1), b = (2, -1, 1): unconstrained x = (2, -1); with x >= 0,
  // x2 = 0 and x1 = 1.5; with x1 <= 1 too, x = (1, 0).
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> a{1, 0, 0, 1, 1, 1}, b{2, -1, 1};
  BoundedLeastSquares ls = solve_bounded_least_squares(a, 3, 2, b, {0, 0}, {inf, inf});
  REQUIRE(!ls.dependent);
  CHECK(close(ls.x[0], 1.5, 1e-14));
  CHECK(ls.x[1] == 0);
  CHECK(ls.at_bound[1]);
  CHECK(!ls.at_bound[0]);
  ls = solve_bounded_least_squares(a, 3, 2, b, {0, 0}, {1, inf});
  CHECK(ls.x[0] == 1);
  CHECK(ls.x[1] == 0);
}

TEST_CASE("bounded least squares equals the best of every active set (3 unknowns, 40 problems)") {
  // Brute force: each unknown free, at its lower or at its upper bound (27 sets); the
  // feasible solution with the least sum of squares is the bounded optimum.
  const std::size_t m = 8, n = 3;
  const std::vector<double> lo{0, -1, 0}, hi{2, 1, std::numeric_limits<double>::infinity()};
  unsigned seed = 12345;
  auto rnd = [&] { return (seed = seed * 1103515245u + 12345u) / 4294967296.0 * 2 - 1; };
  for (int problem = 0; problem < 40; ++problem) {
    std::vector<double> a(m * n), b(m);
    for (double& v : a) v = rnd();
    for (double& v : b) v = 3 * rnd();
    auto sumsq = [&](const std::vector<double>& x) {
      double s = 0;
      for (std::size_t i = 0; i < m; ++i) {
        double r = b[i];
        for (std::size_t j = 0; j < n; ++j) r -= a[i * n + j] * x[j];
        s += r * r;
      }
      return s;
    };
    double best = std::numeric_limits<double>::infinity();
    for (int code = 0; code < 27; ++code) {
      std::vector<int> st{code % 3, code / 3 % 3, code / 9};
      std::vector<double> x(n), af, bf(b);
      std::vector<std::size_t> f;
      bool ok = true;
      for (std::size_t j = 0; j < n; ++j) {
        if (st[j] == 0) f.push_back(j);
        else if (st[j] == 1) x[j] = lo[j];
        else if (std::isfinite(hi[j])) x[j] = hi[j];
        else ok = false;
      }
      if (!ok) continue;
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j)
          if (st[j] != 0) bf[i] -= a[i * n + j] * x[j];
        for (std::size_t j : f) af.push_back(a[i * n + j]);
      }
      if (!f.empty()) {
        LeastSquares sub = solve_least_squares(af, m, f.size(), bf);
        if (sub.dependent) continue;
        for (std::size_t k = 0; k < f.size(); ++k) x[f[k]] = sub.x[k];
      }
      bool inside = true;
      for (std::size_t j = 0; j < n; ++j) inside = inside && x[j] >= lo[j] - 1e-12 && x[j] <= hi[j] + 1e-12;
      if (inside) best = std::min(best, sumsq(x));
    }
    BoundedLeastSquares ls = solve_bounded_least_squares(a, m, n, b, lo, hi);
    REQUIRE(!ls.dependent);
    for (std::size_t j = 0; j < n; ++j) {
      CHECK(ls.x[j] >= lo[j]);
      CHECK(ls.x[j] <= hi[j]);
    }
    CHECK(close(sumsq(ls.x), best, 1e-10));
  }
}

TEST_CASE("Levenberg-Marquardt fits a power law") {
  // t = c P^g with c = 3.18e-4, g = 0.5 (latency growing as sqrt P), exact data.
  std::vector<double> p{1, 2, 4, 8, 16, 32, 64};
  LmProblem prob;
  prob.m = p.size();
  prob.n = 2;
  prob.residuals = [&](const std::vector<double>& x, std::vector<double>& r) {
    for (std::size_t i = 0; i < p.size(); ++i) r[i] = x[0] * std::pow(p[i], x[1]) - 3.18e-4 * std::sqrt(p[i]);
    return true;
  };
  prob.jacobian = [&](const std::vector<double>& x, std::vector<double>& j) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      j[2 * i] = std::pow(p[i], x[1]);
      j[2 * i + 1] = x[0] * std::pow(p[i], x[1]) * std::log(p[i]);
    }
    return true;
  };
  LmResult r = levenberg_marquardt(prob, {1e-4, 1});
  REQUIRE(r.converged);
  CHECK(close(r.x[0], 3.18e-4, 1e-9));
  CHECK(close(r.x[1], 0.5, 1e-9));
  LmOptions few;
  few.max_iterations = 1;
  CHECK(!levenberg_marquardt(prob, {1e-4, 1}, few).converged);
}

TEST_CASE("Levenberg-Marquardt treats a trial point outside the model's domain as a rejected step") {
  // r = sqrt(x) - 1e-3 from x = 100: the Gauss-Newton step lands at x < 0, where sqrt has no
  // value; the fit must shrink its step and still reach x = 1e-6, not stop.
  LmProblem prob;
  prob.m = 1;
  prob.n = 1;
  int outside = 0;
  prob.residuals = [&](const std::vector<double>& x, std::vector<double>& r) {
    if (x[0] < 0) return ++outside, false;
    r[0] = std::sqrt(x[0]) - 1e-3;
    return true;
  };
  prob.jacobian = [&](const std::vector<double>& x, std::vector<double>& j) {
    j[0] = 0.5 / std::sqrt(x[0]);
    return std::isfinite(j[0]);
  };
  LmResult r = levenberg_marquardt(prob, {100});
  REQUIRE(r.converged);
  CHECK(close(r.x[0], 1e-6, 1e-6));
  CHECK(outside > 0);  // the domain was hit, and survived
  CHECK(!levenberg_marquardt(prob, {-1}).converged);  // no value at the start: says so
  CHECK(levenberg_marquardt(prob, {-1}).why == "the model has no finite value at the starting point");
}

TEST_CASE("fit_model: a linear model is solved by QR and recovers its constants") {
  auto comp = compile("numeric parameter x\nnumeric parameter a = 1\nnumeric parameter b\nprocess main = delay(a * x + b)\n");
  FitData data = csv("# a comment\nx,T_main\n1,3.5\n2,6\n3,8.5\n4,11\n");
  FitRequest req;
  req.unknowns = {"a", "b"};
  FitResult r = fit_model(comp->model, data, req);
  CHECK(r.linear);
  CHECK(r.rows.size() == 4);
  CHECK(close(r.parameters[0].value, 2.5, 1e-14));
  CHECK(close(r.parameters[1].value, 1, 1e-14));
  CHECK(r.rows[0].line == 3);
  REQUIRE(r.r2);
  CHECK(*r.r2 == doctest::Approx(1));
}

TEST_CASE("fit_model: an unknown inside max is fitted by Levenberg-Marquardt on the active branch") {
  // The machine repair model with an unknown service time: N * max(t_s P, 10 + t_s).
  auto comp = compile(
      "numeric parameter P\nnumeric parameter N\nnumeric parameter t_s = 0.05\nresource s = fcfs(0, 1)\n"
      "process main = par (p = 1, P) seq (i = 1, N) { delay(10) ; use(s, t_s) }\n");
  FitData data = csv("P,N,T_main\n10,1000,10100\n90,1000,10100\n150,1000,15000\n300,1000,30000\n");
  FitRequest req;
  req.unknowns = {"t_s"};
  FitResult r = fit_model(comp->model, data, req);
  CHECK(!r.linear);
  CHECK(r.parameters[0].start == 0.05);
  CHECK(close(r.parameters[0].value, 0.1, 1e-12));
}

TEST_CASE("fit_model errors name what is wrong") {
  auto comp = compile("numeric parameter x\nnumeric parameter y\nnumeric parameter a\nprocess main = delay(a * x + y)\n");
  FitRequest req;
  req.unknowns = {"a"};
  CHECK(error_of([&] { fit_model(comp->model, csv("x,T_main\n1,2\n"), req); }).find("parameter y has no value") !=
        std::string::npos);
  CHECK(error_of([&] { fit_model(comp->model, csv("x,y,z\n1,2,3\n"), req); }).find("no column holds the measurements") !=
        std::string::npos);
  FitRequest two = req;
  two.unknowns = {"a", "y"};
  CHECK(error_of([&] { fit_model(comp->model, csv("x,T_main\n1,2\n"), two); }).find("1 row cannot determine 2 unknowns") !=
        std::string::npos);
  CHECK(error_of([&] { fit_model(comp->model, csv("x,T_main\n1,2\n1,3\n"), two); }).find("cannot separate") !=
        std::string::npos);
  FitRequest bad = req;
  bad.unknowns = {"nope"};
  CHECK(error_of([&] { fit_model(comp->model, csv("x,T_main\n1,2\n"), bad); }).find("no parameter 'nope'") !=
        std::string::npos);
  CHECK(error_of([&] { csv("x,T_main\n1,zz\n"); }).find("'zz' is not a number") != std::string::npos);
  CHECK(error_of([&] { csv("x,T_main\n1\n"); }).find("1 field") != std::string::npos);
  CHECK(error_of([&] { csv("x,x\n1,2\n"); }).find("appears twice") != std::string::npos);
  CHECK(error_of([&] { csv("x,T_main\n"); }).find("no rows") != std::string::npos);
}
