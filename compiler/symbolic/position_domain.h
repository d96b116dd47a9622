// Resource positions as part of the model's domain (docs/semantics.md, "Points without a
// value").
//
// A use of a resource at a position that is not a nonnegative integer has no value: the
// brute-force evaluator and the simulator say so where it runs. The closed forms of load
// vectors read positions as they are (the largest load of cpu(i - 3) for i = 0..N - 1 is
// a number whatever happens at i = 0), so before the equations are simplified every
// position is proved a nonnegative integer over its loops, or that is recorded as an
// assumption each evaluator checks; where it fails they evaluate the unsimplified model,
// which reports the bad position or, if no use there runs, gives the model's value.
#pragma once

#include "compiler/symbolic/facts.h"

#include "compiler/symbolic/ginac_headers.h"

#include <vector>

namespace pamc::sym {

// Records in `a` what the positions of `equations` need that `facts` cannot prove. The
// recorded condition may be stronger than the model needs (it ignores a guard it cannot
// read, or a zero weight): then the evaluators fall back to the unsimplified model, which
// is slower, never different.
void assume_valid_positions(const std::vector<ex>& equations, const Facts& facts, Assumptions& a);

}  // namespace pamc::sym
