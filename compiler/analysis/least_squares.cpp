// Linear least squares (GSL's QR) and Levenberg-Marquardt (GSL's trust-region
// multifit_nlinear) for fit.cpp (least_squares.h).
#include "compiler/analysis/least_squares.h"

#include "compiler/analysis/gsl_support.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>

#include <algorithm>
#include <cmath>

namespace pamc {

namespace {

double column_norm(const std::vector<double>& a, std::size_t m, std::size_t n, std::size_t j, std::size_t from) {
  // Scaled sum of squares: no overflow for large entries, no underflow for tiny ones.
  double big = 0;
  for (std::size_t i = from; i < m; ++i) big = std::max(big, std::fabs(a[i * n + j]));
  if (big == 0 || !std::isfinite(big)) return big;
  double s = 0;
  for (std::size_t i = from; i < m; ++i) {
    double t = a[i * n + j] / big;
    s += t * t;
  }
  return big * std::sqrt(s);
}

}  // namespace

LeastSquares solve_least_squares(const std::vector<double>& a_in, std::size_t m, std::size_t n,
                                 const std::vector<double>& b_in) {
  LeastSquares out;
  std::vector<double> scale(n);
  for (std::size_t j = 0; j < n; ++j) {
    scale[j] = column_norm(a_in, m, n, j, 0);
    if (scale[j] == 0 || !std::isfinite(scale[j])) {
      out.dependent = j;
      return out;
    }
  }
  gsl::Matrix qr(m, n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) gsl_matrix_set(qr.get(), i, j, a_in[i * n + j] / scale[j]);
  gsl::Vector tau(n), b(m), y(n), residual(m);
  for (std::size_t i = 0; i < m; ++i) gsl_vector_set(b.get(), i, b_in[i]);
  gsl::NoAbort quiet;  // a singular R is the caller's answer (dependent), not an abort
  gsl_linalg_QR_decomp(qr.get(), tau.get());
  // |R_kk| is the norm of column k once the columns before it are projected out; the
  // columns have unit norm, so a small one is (to working precision) a combination of them.
  constexpr double kRankTol = 1e-11;
  for (std::size_t k = 0; k < n; ++k)
    if (!(std::fabs(gsl_matrix_get(qr.get(), k, k)) > kRankTol)) {
      out.dependent = k;
      return out;
    }
  gsl_linalg_QR_lssolve(qr.get(), tau.get(), b.get(), y.get(), residual.get());
  out.x.resize(n);
  for (std::size_t j = 0; j < n; ++j) out.x[j] = gsl_vector_get(y.get(), j) / scale[j];
  // (A^T A)^-1 = S^-1 R^-1 R^-T S^-1: its diagonal from the rows of R^-1.
  gsl::Matrix rinv(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) gsl_matrix_set(rinv.get(), i, j, j >= i ? gsl_matrix_get(qr.get(), i, j) : 0.0);
  gsl_linalg_tri_invert(CblasUpper, CblasNonUnit, rinv.get());
  out.cov_diag.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t j = i; j < n; ++j) s += gsl_matrix_get(rinv.get(), i, j) * gsl_matrix_get(rinv.get(), i, j);
    out.cov_diag[i] = s / (scale[i] * scale[i]);
  }
  return out;
}

BoundedLeastSquares solve_bounded_least_squares(const std::vector<double>& a, std::size_t m, std::size_t n,
                                                const std::vector<double>& b, const std::vector<double>& lo,
                                                const std::vector<double>& hi) {
  BoundedLeastSquares out;
  out.at_bound.assign(n, false);
  static_cast<LeastSquares&>(out) = solve_least_squares(a, m, n, b);
  if (out.dependent) return out;
  auto inside = [&](const std::vector<double>& x) {
    for (std::size_t j = 0; j < n; ++j)
      if (x[j] < lo[j] || x[j] > hi[j]) return false;
    return true;
  };
  if (inside(out.x)) return out;  // the bounds do not bind

  // Active set: x_j is free, or held at lo_j or hi_j. Start from every x_j held at the
  // bound nearest 0 (lo = 0 for a time: all held at 0, as NNLS starts).
  enum State { Free, AtLo, AtHi };
  std::vector<State> state(n);
  std::vector<double> x(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (std::isfinite(lo[j]) && (lo[j] >= 0 || !std::isfinite(hi[j]) || std::fabs(lo[j]) <= std::fabs(hi[j])))
      state[j] = AtLo, x[j] = lo[j];
    else if (std::isfinite(hi[j]))
      state[j] = AtHi, x[j] = hi[j];
    else
      state[j] = Free, x[j] = 0;
  }
  std::vector<double> colnorm(n, 0);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < m; ++i) colnorm[j] += a[i * n + j] * a[i * n + j];
  for (double& c : colnorm) c = std::sqrt(c);
  // Solves for the free columns with the held ones at their bounds; false if none is free.
  // The free columns, and their least-squares problem with the held ones at their bounds.
  auto free_columns = [&] {
    std::vector<std::size_t> f;
    for (std::size_t j = 0; j < n; ++j)
      if (state[j] == Free) f.push_back(j);
    return f;
  };
  auto solve_columns = [&](const std::vector<std::size_t>& f) {
    std::vector<double> af(m * f.size()), bf(m);
    for (std::size_t i = 0; i < m; ++i) {
      double r = b[i];
      for (std::size_t j = 0; j < n; ++j)
        if (state[j] != Free) r -= a[i * n + j] * x[j];
      bf[i] = r;
      for (std::size_t k = 0; k < f.size(); ++k) af[i * f.size() + k] = a[i * n + f[k]];
    }
    return solve_least_squares(af, m, f.size(), bf);
  };
  auto solve_free = [&](std::vector<double>& z) -> bool {
    std::vector<std::size_t> f = free_columns();
    z = x;
    if (f.empty()) return false;
    LeastSquares ls = solve_columns(f);
    if (ls.dependent) return false;  // not when A has full rank
    for (std::size_t k = 0; k < f.size(); ++k) z[f[k]] = ls.x[k];
    return true;
  };
  for (std::size_t round = 0; round < 10 * n + 10; ++round) {
    // The gradient of |A x - b|^2 / 2 is -w, w = A^T (b - A x): a held x_j whose w points
    // into the box would reduce the sum if freed; the one with the largest scaled w goes.
    std::vector<double> r(m);
    double rnorm = 0;
    for (std::size_t i = 0; i < m; ++i) {
      r[i] = b[i];
      for (std::size_t j = 0; j < n; ++j) r[i] -= a[i * n + j] * x[j];
      rnorm += r[i] * r[i];
    }
    rnorm = std::sqrt(rnorm);
    std::optional<std::size_t> enter;
    double best = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (state[j] == Free || colnorm[j] == 0) continue;
      double w = 0;
      for (std::size_t i = 0; i < m; ++i) w += a[i * n + j] * r[i];
      double g = (state[j] == AtLo ? w : -w) / (colnorm[j] * std::max(rnorm, 1e-300));
      if (g > 1e-12 && g > best) best = g, enter = j;
    }
    if (!enter) break;  // Kuhn-Tucker: no held x_j would move into the box
    state[*enter] = Free;
    // Inner loop: step towards the free solution, holding each x_j that reaches a bound.
    for (std::size_t inner = 0; inner <= n; ++inner) {
      std::vector<double> z;
      if (!solve_free(z)) break;
      double alpha = 1;
      std::optional<std::size_t> hit;
      for (std::size_t j = 0; j < n; ++j) {
        if (state[j] != Free) continue;
        if (z[j] < lo[j] && z[j] < x[j]) {
          double t = (x[j] - lo[j]) / (x[j] - z[j]);
          if (t < alpha) alpha = t, hit = j;
        } else if (z[j] > hi[j] && z[j] > x[j]) {
          double t = (hi[j] - x[j]) / (z[j] - x[j]);
          if (t < alpha) alpha = t, hit = j;
        }
      }
      for (std::size_t j = 0; j < n; ++j)
        if (state[j] == Free) x[j] += alpha * (z[j] - x[j]);
      if (!hit) break;
      for (std::size_t j = 0; j < n; ++j) {  // every free x_j now on a bound is held there
        if (state[j] != Free) continue;
        if (x[j] <= lo[j] || (j == *hit && z[j] < lo[j])) state[j] = AtLo, x[j] = lo[j];
        else if (x[j] >= hi[j] || (j == *hit && z[j] > hi[j])) state[j] = AtHi, x[j] = hi[j];
      }
    }
  }
  // The free columns' exact solution (no accumulated steps) and their variances.
  std::vector<std::size_t> f = free_columns();
  out.cov_diag.assign(n, 0);
  if (!f.empty()) {
    LeastSquares ls = solve_columns(f);
    if (!ls.dependent)
      for (std::size_t k = 0; k < f.size(); ++k) {
        x[f[k]] = std::clamp(ls.x[k], lo[f[k]], hi[f[k]]);
        out.cov_diag[f[k]] = ls.cov_diag[k];
      }
  }
  for (std::size_t j = 0; j < n; ++j) out.at_bound[j] = state[j] != Free;
  out.x = x;
  return out;
}

namespace {

// What GSL's callbacks need: the problem, the workspace (for the current residuals), and
// what went wrong inside a callback, for the message.
struct LmCallbacks {
  const LmProblem& problem;
  gsl_multifit_nlinear_workspace* work = nullptr;
  std::vector<double> x, r, jac;
  std::optional<std::size_t> dependent;
};

void read_vector(const gsl_vector* v, std::vector<double>& out) {
  out.resize(v->size);
  for (std::size_t i = 0; i < v->size; ++i) out[i] = gsl_vector_get(v, i);
}

// f(x). Where the model has no finite value (a trial step out of its domain), the current
// residuals are returned: a trial no better than the current point, which GSL's trust region
// rejects (it would stop the whole fit on a failed evaluation; a NaN would be accepted).
int residuals_at(const gsl_vector* x, void* data, gsl_vector* f) {
  auto& cb = *static_cast<LmCallbacks*>(data);
  read_vector(x, cb.x);
  bool ok = cb.problem.residuals(cb.x, cb.r);
  for (std::size_t i = 0; ok && i < cb.r.size(); ++i) ok = std::isfinite(cb.r[i]);
  if (!ok) return gsl_vector_memcpy(f, gsl_multifit_nlinear_residual(cb.work));
  for (std::size_t i = 0; i < cb.r.size(); ++i) gsl_vector_set(f, i, cb.r[i]);
  return GSL_SUCCESS;
}

// J(x), only ever at a point the fit moves to. A derivative with no finite value, or an
// unknown the target does not change with (a zero column), ends the fit.
int jacobian_at(const gsl_vector* x, void* data, gsl_matrix* j) {
  auto& cb = *static_cast<LmCallbacks*>(data);
  const std::size_t m = cb.problem.m, n = cb.problem.n;
  read_vector(x, cb.x);
  if (!cb.problem.jacobian(cb.x, cb.jac)) return GSL_EDOM;
  for (double v : cb.jac)
    if (!std::isfinite(v)) return GSL_EDOM;
  for (std::size_t c = 0; c < n; ++c)
    if (column_norm(cb.jac, m, n, c, 0) == 0) {
      cb.dependent = c;
      return GSL_EDOM;
    }
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t c = 0; c < n; ++c) gsl_matrix_set(j, i, c, cb.jac[i * n + c]);
  return GSL_SUCCESS;
}

// max_j |(J^T r)_j| / (|J_j| |r|): the gradient of the sum of squares, scale-free.
double scaled_gradient(const gsl_matrix* j, const gsl_vector* r) {
  const double rnorm = gsl_blas_dnrm2(r);
  double gmax = 0;
  for (std::size_t c = 0; c < j->size2; ++c) {
    gsl_vector_const_view col = gsl_matrix_const_column(j, c);
    double g = 0;
    gsl_blas_ddot(&col.vector, r, &g);
    const double cn = gsl_blas_dnrm2(&col.vector);
    if (cn > 0 && rnorm > 0) gmax = std::max(gmax, std::fabs(g) / (cn * rnorm));
  }
  return gmax;
}

}  // namespace

LmResult levenberg_marquardt(const LmProblem& p, std::vector<double> x0, const LmOptions& o) {
  const std::size_t m = p.m, n = p.n;
  LmResult res;
  res.x = x0;
  {
    std::vector<double> r(m);
    if (!p.residuals(x0, r) || !std::all_of(r.begin(), r.end(), [](double v) { return std::isfinite(v); })) {
      res.why = "the model has no finite value at the starting point";
      return res;
    }
  }
  gsl::NoAbort quiet;  // every status below is checked
  // GSL's trust-region Levenberg-Marquardt, Moré's scaling by the Jacobian's column norms
  // (as MINPACK), each step by QR.
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  params.trs = gsl_multifit_nlinear_trs_lm;
  params.scale = gsl_multifit_nlinear_scale_more;
  params.solver = gsl_multifit_nlinear_solver_qr;
  gsl::Owned<gsl_multifit_nlinear_workspace, gsl_multifit_nlinear_free> work(
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, m, n));
  LmCallbacks cb{p, work.get(), {}, std::vector<double>(m), std::vector<double>(m * n), std::nullopt};
  gsl_multifit_nlinear_fdf fdf{};
  fdf.f = residuals_at;
  fdf.df = jacobian_at;
  fdf.n = m;
  fdf.p = n;
  fdf.params = &cb;
  gsl::Vector start(n);
  for (std::size_t j = 0; j < n; ++j) start.at(j) = x0[j];

  // A callback's failure: what it says about the point the fit stopped at.
  auto stopped = [&](int status) {
    if (cb.dependent) {
      res.dependent = cb.dependent;
      res.why = "the target does not change with this unknown at the current point";
    } else if (status == GSL_EDOM) {
      res.why = "the derivatives have no finite value at the current point";
    } else {
      res.why = std::string("GSL: ") + gsl_strerror(status);
    }
    return res;
  };
  auto read_state = [&]() {
    read_vector(gsl_multifit_nlinear_position(work.get()), res.x);
    const double norm = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(work.get()));
    res.cost = norm * norm;
  };
  if (int status = gsl_multifit_nlinear_init(start.get(), &fdf, work.get())) return stopped(status);
  read_state();
  for (int it = 1; it <= o.max_iterations; ++it) {
    res.iterations = it;
    if (res.cost == 0) {
      res.converged = true;
      res.why = "the model fits the data exactly";
      return res;
    }
    const double gmax = scaled_gradient(gsl_multifit_nlinear_jac(work.get()), gsl_multifit_nlinear_residual(work.get()));
    if (gmax <= o.gtol) {
      res.converged = true;
      res.why = "the gradient vanishes";
      return res;
    }
    const double cost_before = res.cost;
    int status = gsl_multifit_nlinear_iterate(work.get());
    if (status == GSL_ENOPROG) {
      // No step along the derivatives reduces the sum: a minimum to working precision when
      // the gradient is small, else a local minimum at a kink of max/min (the derivatives
      // change there, so the linear model promises a decrease no step delivers). Both are
      // where the fit ends; the second says so.
      res.converged = true;
      res.why = gmax <= 1e-7 ? "no step reduces the sum of squares further"
                             : "stopped at a kink of max/min: no step along the derivatives reduces the sum of squares";
      return res;
    }
    if (status != GSL_SUCCESS) return stopped(status);
    read_state();
    if ((cost_before - res.cost) / cost_before <= o.ftol) {
      res.converged = true;
      res.why = "the sum of squares no longer decreases";
      return res;
    }
    int info = 0;
    if (gsl_multifit_nlinear_test(o.xtol, o.gtol, o.ftol, &info, work.get()) == GSL_SUCCESS) {
      res.converged = true;
      res.why = info == 2 ? "the gradient vanishes" : "the step is below the relative tolerance";
      return res;
    }
  }
  res.why = "no convergence in " + std::to_string(o.max_iterations) + " iterations";
  return res;
}

}  // namespace pamc
