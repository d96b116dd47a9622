// Why a reduction stayed open (issue 11, "say why when it cannot"): one short sentence a
// user can act on, read off the shape of the residual reduction. It names the first thing
// no rule covers: a weight with no closed sum (sqrt(i), log(i), 2 ^ i), a resource position
// that is not an index map pamc closes, a weight that is not monotone for a cyclic map, or
// a max/min whose body is neither monotone nor convex.
#pragma once

#include "compiler/symbolic/facts.h"

#include <string>

namespace pamc::sym {

// r must be a reduction; facts are the model's facts.
std::string why_open(const ex& r, const Facts& facts);

}  // namespace pamc::sym
