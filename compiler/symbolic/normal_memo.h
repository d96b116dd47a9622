// Rational normal forms, remembered: GiNaC's normal() of a large quotient (gcds of
// multivariate polynomials) costs milliseconds, and the prover asks for the same one under
// every set of facts it tries (each simplification round, each context).
#pragma once

#include "compiler/symbolic/ginac_headers.h"

namespace pamc::sym {

// x.normal().numer_denom(), computed once per expression (per thread).
GiNaC::ex numer_denom_of(const GiNaC::ex& x);

}  // namespace pamc::sym
