// Readable forms of a simplified expression (the last step of simplify()): polynomials
// factored where that prints shorter, sums over a common denominator, terms gathered over
// their roundings, signs made canonical. Every step is an identity, so no value changes.
#pragma once

#include "compiler/symbolic/expr_key.h"
#include "compiler/symbolic/ginac_headers.h"

#include <unordered_map>

namespace pamc::sym {

struct TidyEntry {
  GiNaC::ex result;
  long fired;  // tidy_factor firings of the computation, replayed on a hit
};
// Results per node (no facts involved), kept by the simplifier's cache.
using TidyMemo = std::unordered_map<GiNaC::ex, TidyEntry, ExprHash, ExprEq>;

// e in its readable form; `fired` grows by the factorings it took (cached ones counted again).
GiNaC::ex tidy(const GiNaC::ex& e, TidyMemo& memo, long& fired);

}  // namespace pamc::sym
