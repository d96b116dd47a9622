// The numerics of fitting: linear least squares with the variance of each unknown, and
// Levenberg-Marquardt, for compiler/analysis/fit.h. The linear algebra is GSL's (already
// pamc_analysis's library for the statistics of projection and predictability): a
// Householder QR and a triangular inverse kept by others and tested far beyond ours.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pamc {

// min |A x - b| for a dense m x n matrix A (row-major, m >= n) by GSL's Householder QR. Columns
// are scaled to unit norm first, so unknowns of very different magnitude (a startup of
// 3e-4 s next to a per-byte cost of 7e-7 s/B) are treated alike.
struct LeastSquares {
  std::vector<double> x;
  // diag((A^T A)^-1): times sigma^2 = RSS / (m - n), the variance of each x.
  std::vector<double> cov_diag;
  // The first column (in order) that is, to working precision, a combination of the
  // columns before it (or zero); absent when A has full column rank. x is then empty.
  std::optional<std::size_t> dependent;
};
LeastSquares solve_least_squares(const std::vector<double>& a, std::size_t m, std::size_t n,
                                 const std::vector<double>& b);

// min |A x - b| subject to lo <= x <= hi (each bound may be infinite): the active-set
// method of Stark and Parker ("Bounded-variable least squares", 1995), which is Lawson and
// Hanson's NNLS with upper bounds too. Each subproblem (the free columns, the others held
// at their bounds) is solve_least_squares; a problem whose unconstrained solution lies
// within the bounds gets exactly that solution. `at_bound[j]` says x_j was held at a bound;
// cov_diag is that of the free columns (0 for the held ones). A dependent column of A is
// reported as solve_least_squares does, before any bound is tried.
struct BoundedLeastSquares : LeastSquares {
  std::vector<bool> at_bound;
};
BoundedLeastSquares solve_bounded_least_squares(const std::vector<double>& a, std::size_t m, std::size_t n,
                                                const std::vector<double>& b, const std::vector<double>& lo,
                                                const std::vector<double>& hi);

// Levenberg-Marquardt for min sum r_i(x)^2: GSL's trust-region multifit_nlinear (Moré's
// scaling by the Jacobian's column norms, each step by QR), driven here so each way of
// stopping has its own message. Trial points where the model has no value are rejected
// steps, not failures.
struct LmProblem {
  std::size_t m = 0, n = 0;
  // Fill r (m values); false when the model has no finite value at x.
  std::function<bool(const std::vector<double>& x, std::vector<double>& r)> residuals;
  // Fill jac (m x n, row-major): jac[i*n + j] = d r_i / d x_j; false as above.
  std::function<bool(const std::vector<double>& x, std::vector<double>& jac)> jacobian;
};
struct LmOptions {
  int max_iterations = 200;
  double ftol = 1e-14;  // relative reduction of the sum of squares that counts as none
  double xtol = 1e-12;  // relative step that counts as none
  double gtol = 1e-14;  // scaled gradient that counts as zero
};
struct LmResult {
  std::vector<double> x;
  double cost = 0;  // sum of squared residuals at x
  int iterations = 0;
  bool converged = false;
  std::string why;  // how it converged, or why it stopped
  std::optional<std::size_t> dependent;  // a column of J that is zero or dependent at x
};
LmResult levenberg_marquardt(const LmProblem& problem, std::vector<double> x0, const LmOptions& options = {});

}  // namespace pamc
