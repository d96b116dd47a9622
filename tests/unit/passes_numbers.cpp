// Exact literals (compiler/passes/lower.h, parse_exact_number): the machine-integer path
// for short literals gives the rational the bignum path gives, at every digit count and
// power of ten on both sides of its limits.
#include <doctest/doctest.h>

#include "compiler/passes/lower.h"

#include <cln/integer.h>

#include <string>

namespace {

// The literal's value the long way: its digits as a bignum times a power of ten.
GiNaC::numeric reference(const std::string& digits, long fraction, long exponent) {
  GiNaC::numeric mantissa(cln::cl_I(digits.c_str()));
  return mantissa * GiNaC::pow(GiNaC::numeric(10), GiNaC::numeric(exponent - fraction));
}

}  // namespace

TEST_CASE("a literal's exact value is the same rational whatever its length and power of ten") {
  int checked = 0;
  for (int length = 1; length <= 21; ++length) {
    std::string digits;
    for (int k = 0; k < length; ++k) digits += static_cast<char>('1' + (k * 7) % 9);
    for (long fraction = 0; fraction <= 21; fraction += 3) {
      if (fraction > length) break;
      std::string text = digits;
      if (fraction > 0) text.insert(text.size() - fraction, ".");
      if (text[0] == '.') text = "0" + text;
      for (long exponent : {0L, 1L, -1L, 5L, -7L, 17L, -18L, 19L, -20L, 40L}) {
        std::string literal = exponent == 0 ? text : text + "e" + std::to_string(exponent);
        GiNaC::numeric value;
        REQUIRE(pamc::parse_exact_number(literal, value));
        CHECK_MESSAGE(value == reference(digits, fraction, exponent), literal);
        ++checked;
      }
    }
  }
  CHECK(checked > 300);
  GiNaC::numeric v;
  REQUIRE(pamc::parse_exact_number("0.1", v));
  CHECK(v == GiNaC::numeric(1, 10));
  REQUIRE(pamc::parse_exact_number("4e-8", v));
  CHECK(v == GiNaC::numeric(1, 25000000));
  REQUIRE(pamc::parse_exact_number("000120.500", v));
  CHECK(v == GiNaC::numeric(241, 2));
  REQUIRE(pamc::parse_exact_number("9223372036854775807", v));  // 19 digits: the bignum path
  CHECK(v == GiNaC::numeric(cln::cl_I("9223372036854775807")));
  CHECK(!pamc::parse_exact_number("1e", v));
  CHECK(!pamc::parse_exact_number(".", v));
}
