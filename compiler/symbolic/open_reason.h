// Why a reduction stayed open: one short sentence a user can act on, read off the shape of
// the residual reduction. It names the first thing no rule covers: a weight with no closed
// sum (sqrt(i), log(i), 2 ^ i); for a load vector, the step of the load algebra that failed
// (a position that is no index map, a weight not proved >= 0, or the busiest position's
// load); or a max/min whose body is neither monotone nor convex.
#pragma once

#include "compiler/symbolic/facts.h"

#include <string>

namespace pamc::sym {

// r must be a reduction; facts are the model's facts.
std::string why_open(const ex& r, const Facts& facts);

}  // namespace pamc::sym
