#include "compiler/analysis/gsl_support.h"

namespace pamc::gsl {

LinearFit linear_fit(const Matrix& x, const Vector& y) {
  const std::size_t n = x.get()->size1, p = x.get()->size2;
  Vector c(p);
  Matrix cov(p, p);
  Owned<gsl_multifit_linear_workspace, gsl_multifit_linear_free> work(gsl_multifit_linear_alloc(n, p));
  LinearFit out;
  gsl_multifit_linear(x.get(), y.get(), c.get(), cov.get(), &out.rss, work.get());
  out.c.assign(c.get()->data, c.get()->data + p);
  return out;
}

}  // namespace pamc::gsl
