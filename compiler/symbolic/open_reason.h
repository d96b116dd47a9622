// Why a reduction stayed open: one short sentence a user can act on, read off the shape of
// the residual reduction. It names the first thing no rule covers: a weight with no closed
// sum (sqrt(i), log(i), 2 ^ i); for a load vector, the step of the load algebra that failed
// (a position that is no index map, a weight not proved >= 0, or the busiest position's
// load); or a max/min whose body is neither monotone nor convex.
#pragma once

#include "compiler/symbolic/facts.h"

#include <string>

namespace pamc::sym {

// r must be a reduction; facts are the model's facts. `negated`: r stands in its equation
// with a negative number in front (GiNaC may hold a load vector as -sum { -w ... }), so a
// weight the note names is the body's negated, as the model wrote it.
std::string why_open(const ex& r, const Facts& facts, bool negated = false);

// Whether e is a product with an odd number of negative numbers among its factors: what
// stands in it is negated (-sum { ... }).
bool negative_number_in_front(const ex& e);

}  // namespace pamc::sym
