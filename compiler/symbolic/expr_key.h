// Expressions as hash-map keys for the simplifier's memos (simplify.cpp, proof_memo.cpp).
//
// Two keys are the same when they are is_equal and name their reductions' indices alike:
// is_equal identifies alpha-equivalent reductions, which print differently, and what a memo
// returns must be what the computation would have returned for this very expression.
// gethash() covers the whole structure, reduction bodies included (reduction::calchash),
// and is the same for alpha-equivalent reductions, so it is a valid hash for ExprEq.
#pragma once

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/ginac_headers.h"
#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

// Same reduction index names in the same places (for two is_equal expressions).
inline bool same_index_names(const GiNaC::ex& a, const GiNaC::ex& b) {
  if (GiNaC::are_ex_trivially_equal(a, b)) return true;
  if (is_class<reduction>(a) != is_class<reduction>(b)) return false;
  if (is_class<reduction>(a)) {
    const auto& ra = GiNaC::ex_to<reduction>(a);
    const auto& rb = GiNaC::ex_to<reduction>(b);
    return ra.index().get_name() == rb.index().get_name() && same_index_names(ra.lb(), rb.lb()) &&
           same_index_names(ra.ub(), rb.ub()) && same_index_names(ra.body(), rb.body());
  }
  if (a.nops() != b.nops()) return false;
  for (size_t i = 0; i < a.nops(); ++i)
    if (!same_index_names(a.op(i), b.op(i))) return false;
  return true;
}

struct ExprHash {
  size_t operator()(const GiNaC::ex& e) const { return e.gethash(); }
};
struct ExprEq {
  bool operator()(const GiNaC::ex& a, const GiNaC::ex& b) const { return a.is_equal(b) && same_index_names(a, b); }
};

}  // namespace pamc::sym
