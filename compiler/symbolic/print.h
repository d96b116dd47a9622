// Printing expressions in Pamela syntax.
//
// Deterministic: operands of + and *, and arguments of max/min, are sorted by their own
// printed text (numbers last in sums, first in products), so the output does not depend on
// GiNaC's internal order (which follows symbol creation). Exact rationals print as
// decimals when exact (101/10 -> 10.1), else as a/b; vectors with numeric positions print
// as [c0, c1, ...], others as c * unitvec(k); mod/div infix; comparisons as (a < b);
// parentheses by Pamela precedence. The text reparses as Pamela.
#pragma once

#include "compiler/symbolic/ginac_headers.h"

#include <optional>
#include <string>

namespace pamc::sym {

std::string to_pamela(const GiNaC::ex& e);
// A number in Pamela syntax (no sign handling beyond a leading '-').
std::string number_to_pamela(const GiNaC::numeric& n);
// "P divides N" for x = N / P (over one fraction: a symbol under a symbol or a product),
// else nullopt.
std::optional<std::string> divides_text(const GiNaC::ex& x);
// The claim "e is an integer" in words: divides_text, else "<e> is an integer".
std::string integer_claim_text(const GiNaC::ex& e);

}  // namespace pamc::sym
