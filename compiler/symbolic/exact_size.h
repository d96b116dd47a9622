// The budget on exact numbers. pamc keeps rational arithmetic exact (docs/design.md), so a
// model whose constants double their size per line (c1 = c0 * c0 + c0, c2 = c1 * c1 + c1,
// ...) would compute numbers of millions of digits for minutes. Every stage that computes
// exact numbers (lowering's constant folding, the simplifier's closed forms, the exact
// evaluator) asks these functions first, before the operation, and refuses a result of more
// than kMaxExactBits bits (about 300,000 decimal digits), the limit powers always had.
#pragma once

#include <ginac/ginac.h>

#include <string>

namespace pamc::sym {

inline constexpr double kMaxExactBits = 1e6;

// The size of an exact number in bits: numerator and denominator. A float is 0 (its size
// is fixed).
double exact_bits(const GiNaC::numeric& x);

// The size in bits of c ^ y for a rational c and an integer y (0 for c = 0, 1 or -1, and
// for any other c or y): what lowering, the exact evaluator and the prover compare with
// kMaxExactBits before they build a power.
double power_bits(const GiNaC::numeric& c, const GiNaC::numeric& y);

// Upper bounds on the size of the exact number GiNaC computes when it builds the product or
// the sum of these operands: the numbers among them and the numeric coefficients or
// constant terms it merges (a product of a * x and b * y multiplies a and b).
double product_bits(const GiNaC::exvector& factors);
double sum_bits(const GiNaC::exvector& terms);
double sum_bits(const GiNaC::numeric& a, const GiNaC::numeric& b);  // a + b, without building a vector

// The number of decimal digits of a number of `bits` bits, as a message says it: "575279",
// or "1.1e+19" past what a long long holds (converting that was undefined behaviour, found
// by the fuzzer: 2 ^ 64 ^ 2 ^ 64 said it had -9223372036854775808 digits).
std::string digits_text(double bits);

// The error message for an operation whose exact result would have `bits` bits: "the exact
// value of <what> would have about N digits (more than 300,000); ...".
std::string too_large_message(const std::string& what, double bits);

}  // namespace pamc::sym
