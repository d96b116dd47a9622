// Counts printed as a person writes them: c * floor((x - 1) / m) + c is c * ceil(x / m).
// The last step of simplify_model (pipeline.cpp), after tidy(), on the chosen round's
// equations except the delta_ load vectors; it needs the facts, which tidy does not read.
#pragma once

#include "compiler/symbolic/facts.h"
#include "compiler/symbolic/ginac_headers.h"

namespace pamc::sym {

// e with every sum's pair c * floor(a / m) + c (c a number) written c * ceil((a + 1) / m)
// where that prints shorter. An identity only where a is an integer and m an integer >= 1
// (then floor(a / m) + 1 = floor((a + m) / m) = ceil((a + 1) / m)), both proved from
// `facts`; anything else is left as it is.
GiNaC::ex ceil_counts(const GiNaC::ex& e, const Facts& facts);

}  // namespace pamc::sym
