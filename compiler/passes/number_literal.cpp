// Numeric literals read exactly (lower.h: parse_exact_number).
#include "compiler/passes/lower.h"

#include <cctype>
#include <string>

namespace pamc {

bool parse_exact_number(const std::string& text, GiNaC::numeric& out) {
  // digits [. digits] [e|E [+|-] digits], kept exact: mantissa / 10^fraction * 10^exponent
  std::size_t i = 0;
  std::string digits;
  long fraction = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) digits += text[i++];
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      digits += text[i++];
      ++fraction;
    }
  }
  if (digits.empty()) return false;
  long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    std::string e;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) e += text[i++];
    if (e.empty() || e.size() > 6) return false;
    exponent = std::stol(e) * (negative ? -1 : 1);
  }
  if (i != text.size()) return false;
  std::size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  // A literal of up to 18 digits with a power of ten below 10^18 (19, 0.1, 4e-8) in
  // machine integers: the same rational, without parsing a bignum and raising 10 to a
  // power (a generated model has a few literals per line).
  const long shift = exponent - fraction;
  if (digits.size() <= 18 && shift > -19 && shift < 19) {
    long mantissa = std::stol(digits), ten = 1;
    for (long k = 0; k < (shift < 0 ? -shift : shift); ++k) ten *= 10;
    long scaled;
    if (shift < 0) {
      out = GiNaC::numeric(mantissa, ten);
      return true;
    }
    if (!__builtin_mul_overflow(mantissa, ten, &scaled)) {
      out = GiNaC::numeric(scaled);
      return true;
    }
  }
  GiNaC::numeric mantissa(cln::cl_I(digits.c_str()));
  out = mantissa * GiNaC::pow(GiNaC::numeric(10), GiNaC::numeric(shift));
  return true;
}

}  // namespace pamc
