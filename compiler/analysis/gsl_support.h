// GSL as pamc_analysis uses it: matrices, vectors and workspaces that free themselves, a
// guard that turns GSL's abort-on-error off while a caller checks every status itself, and
// the one linear least-squares call the statistics share. Only analysis code includes this.
#pragma once
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>

#include <cstddef>
#include <vector>

namespace pamc::gsl {

// A GSL object, freed when it goes out of scope.
template <class T, void (*Free)(T*)>
class Owned {
 public:
  explicit Owned(T* p) : p_(p) {}
  ~Owned() { Free(p_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  T* get() const { return p_; }

 private:
  T* p_;
};

// Zero-filled.
struct Matrix : Owned<gsl_matrix, gsl_matrix_free> {
  Matrix(std::size_t rows, std::size_t cols) : Owned(gsl_matrix_calloc(rows, cols)) {}
  double& at(std::size_t i, std::size_t j) const { return *gsl_matrix_ptr(get(), i, j); }
};
struct Vector : Owned<gsl_vector, gsl_vector_free> {
  explicit Vector(std::size_t n) : Owned(gsl_vector_calloc(n)) {}
  double& at(std::size_t i) const { return *gsl_vector_ptr(get(), i); }
};

// GSL's default error handler aborts the process; within this guard's scope every status
// is the caller's to check.
class NoAbort {
 public:
  NoAbort() : old_(gsl_set_error_handler_off()) {}
  ~NoAbort() { gsl_set_error_handler(old_); }
  NoAbort(const NoAbort&) = delete;
  NoAbort& operator=(const NoAbort&) = delete;

 private:
  gsl_error_handler_t* old_;
};

// min |X c - y| for an n x p matrix X (n >= p) by GSL's SVD (gsl_multifit_linear), which
// answers a rank-deficient X too (the minimum-norm solution).
struct LinearFit {
  std::vector<double> c;
  double rss = 0;  // residual sum of squares
};
LinearFit linear_fit(const Matrix& x, const Vector& y);

}  // namespace pamc::gsl
