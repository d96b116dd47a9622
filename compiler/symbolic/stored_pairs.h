// The pairs an add or a mul stores, and its numeric coefficient, read in place.
//
// e.op(i) of a sum builds term * coefficient anew, and of a product base ^ exponent anew
// (GiNaC's recombine_pair_to_ex): a walk over a long sum through op() allocates and
// evaluates a product per term. Both members are protected in GiNaC's expairseq; a member
// pointer taken through a derived class reads them from any expairseq.
#pragma once

#include "compiler/symbolic/ginac_headers.h"

namespace pamc::sym {

struct StoredPairs : GiNaC::expairseq {
  // An add's (term, coefficient) or a mul's (base, exponent) pairs, in op()'s order.
  static const GiNaC::epvector& pairs(const GiNaC::expairseq& s) { return s.*(&StoredPairs::seq); }
  // The numeric coefficient, op()'s last operand unless it is 0 (add) or 1 (mul).
  static const GiNaC::ex& coeff(const GiNaC::expairseq& s) { return s.*(&StoredPairs::overall_coeff); }
};

}  // namespace pamc::sym
