// Linear least squares (GSL's QR) and Levenberg-Marquardt for fit.cpp (least_squares.h).
#include "compiler/analysis/least_squares.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

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

double sum_squares(const std::vector<double>& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return s;
}

// A GSL matrix or vector, freed when it goes out of scope.
template <class T, void (*Free)(T*)>
struct Owned {
  explicit Owned(T* p) : p_(p) {}
  ~Owned() { Free(p_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  T* get() const { return p_; }
  T* p_;
};
struct Matrix : Owned<gsl_matrix, gsl_matrix_free> {
  Matrix(std::size_t rows, std::size_t cols) : Owned(gsl_matrix_calloc(rows, cols)) {}
};
struct Vector : Owned<gsl_vector, gsl_vector_free> {
  explicit Vector(std::size_t n) : Owned(gsl_vector_calloc(n)) {}
};

// GSL's default error handler aborts the process; here every failure is checked for.
struct NoGslAbort {
  NoGslAbort() : old(gsl_set_error_handler_off()) {}
  ~NoGslAbort() { gsl_set_error_handler(old); }
  gsl_error_handler_t* old;
};

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
  Matrix qr(m, n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) gsl_matrix_set(qr.get(), i, j, a_in[i * n + j] / scale[j]);
  Vector tau(n), b(m), y(n), residual(m);
  for (std::size_t i = 0; i < m; ++i) gsl_vector_set(b.get(), i, b_in[i]);
  NoGslAbort quiet;  // a singular R is the caller's answer (dependent), not an abort
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
  Matrix rinv(n, n);
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

LmResult levenberg_marquardt(const LmProblem& p, std::vector<double> x, const LmOptions& o) {
  const std::size_t m = p.m, n = p.n;
  LmResult res;
  std::vector<double> r(m), rn(m), jac(m * n), aug((m + n) * n), rhs(m + n), xn(n), d(n, 0.0);
  res.x = x;
  if (!p.residuals(x, r)) {
    res.why = "the model has no finite value at the starting point";
    return res;
  }
  double cost = sum_squares(r);
  double lambda = 1e-3;
  for (int it = 1; it <= o.max_iterations; ++it) {
    res.iterations = it;
    res.x = x;
    res.cost = cost;
    if (cost == 0) {
      res.converged = true;
      res.why = "the model fits the data exactly";
      return res;
    }
    if (!p.jacobian(x, jac)) {
      res.why = "the derivatives have no finite value at the current point";
      return res;
    }
    std::vector<double> cn(n);
    double gmax = 0;
    for (std::size_t j = 0; j < n; ++j) {
      cn[j] = column_norm(jac, m, n, j, 0);
      if (cn[j] == 0) {
        res.dependent = j;
        res.why = "the target does not change with this unknown at the current point";
        return res;
      }
      d[j] = std::max(d[j], cn[j]);
      double g = 0;
      for (std::size_t i = 0; i < m; ++i) g += jac[i * n + j] * r[i];
      gmax = std::max(gmax, std::fabs(g) / (cn[j] * std::sqrt(cost)));
    }
    if (gmax <= o.gtol) {
      res.converged = true;
      res.why = "the gradient vanishes";
      return res;
    }
    for (;;) {
      // [J; sqrt(lambda) D] delta = [-r; 0]
      std::fill(aug.begin(), aug.end(), 0.0);
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) aug[i * n + j] = jac[i * n + j];
        rhs[i] = -r[i];
      }
      for (std::size_t j = 0; j < n; ++j) {
        aug[(m + j) * n + j] = std::sqrt(lambda) * d[j];
        rhs[m + j] = 0;
      }
      LeastSquares step = solve_least_squares(aug, m + n, n, rhs);
      bool ok = !step.dependent;
      double cost_new = 0;
      if (ok) {
        for (std::size_t j = 0; j < n; ++j) xn[j] = x[j] + step.x[j];
        ok = p.residuals(xn, rn);
        if (ok) cost_new = sum_squares(rn);
        ok = ok && std::isfinite(cost_new);
      }
      if (ok && cost_new < cost) {
        double dx = 0, xs = 0;
        for (std::size_t j = 0; j < n; ++j) {
          dx += (d[j] * step.x[j]) * (d[j] * step.x[j]);
          xs += (d[j] * xn[j]) * (d[j] * xn[j]);
        }
        double reduction = (cost - cost_new) / cost;
        x = xn;
        r = rn;
        cost = cost_new;
        res.x = x;
        res.cost = cost;
        lambda = std::max(lambda / 10, 1e-15);
        if (reduction <= o.ftol) {
          res.converged = true;
          res.why = "the sum of squares no longer decreases";
          return res;
        }
        if (std::sqrt(dx) <= o.xtol * std::sqrt(xs)) {
          res.converged = true;
          res.why = "the step is below the relative tolerance";
          return res;
        }
        break;
      }
      lambda *= 10;
      if (lambda > 1e16) {
        // No step along the derivatives reduces the sum, down to a vanishing gradient-descent
        // step: a minimum to working precision when the gradient is small, else a local
        // minimum at a kink of max/min (the derivatives change there, so the linear model
        // promises a decrease no step delivers). Both are where the fit ends; the second
        // says so (a fit stopped there used to be an error or not, by the last bit of a
        // QR's rounding).
        res.converged = true;
        res.why = gmax <= 1e-7 ? "no step reduces the sum of squares further"
                               : "stopped at a kink of max/min: no step along the derivatives reduces the sum of squares";
        return res;
      }
    }
  }
  res.why = "no convergence in " + std::to_string(o.max_iterations) + " iterations";
  return res;
}

}  // namespace pamc
