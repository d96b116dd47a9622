// The budget on exact numbers: see exact_size.h.
#include "compiler/symbolic/exact_size.h"

#include <cln/integer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compiler/symbolic/class_test.h"

namespace pamc::sym {

using namespace GiNaC;

namespace {

double integer_bits(const numeric& n) {
  return static_cast<double>(cln::integer_length(cln::the<cln::cl_I>(n.to_cl_N())));
}

// The number GiNaC would merge out of one operand of a product or a sum: the operand itself
// when it is a number, else the number among its own operands (a product's coefficient, a
// sum's constant term) when it has the same operator as the result and is flattened into it.
const numeric* merged_number(const ex& e, bool product) {
  if (is_class<numeric>(e)) return &ex_to<numeric>(e);
  if (product ? is_class<mul>(e) : is_class<add>(e))
    for (size_t k = 0; k < e.nops(); ++k)
      if (is_class<numeric>(e.op(k))) return &ex_to<numeric>(e.op(k));
  return nullptr;
}

}  // namespace

double power_bits(const numeric& c, const numeric& y) {
  if (!c.is_rational() || !y.is_integer() || c.is_zero() || c == 1 || c == -1) return 0;
  return std::fabs(y.to_double()) * (std::log2(std::fabs(c.numer().to_double())) + std::log2(c.denom().to_double()));
}

double exact_bits(const numeric& x) {
  if (!x.is_rational()) return 0;
  if (x.is_integer()) return integer_bits(x);
  return integer_bits(x.numer()) + integer_bits(x.denom());
}

double product_bits(const exvector& factors) {
  double bits = 0;
  for (const ex& f : factors)
    if (const numeric* n = merged_number(f, true)) bits += exact_bits(*n);
  return bits;
}

// n1/d1 + ... + nk/dk has a denominator of at most d1 ... dk and a numerator of at most
// k max|ni| d1 ... dk.
double sum_bits(const exvector& terms) {
  double numer = 0, denom = 0, count = 0;
  for (const ex& t : terms)
    if (const numeric* n = merged_number(t, false); n && n->is_rational()) {
      numer = std::max(numer, integer_bits(n->numer()));
      denom += integer_bits(n->denom());
      ++count;
    }
  return count == 0 ? 0 : numer + 2 * denom + std::ceil(std::log2(count));
}

double sum_bits(const numeric& a, const numeric& b) {
  if (!a.is_rational() || !b.is_rational()) return 0;
  if (a.is_integer() && b.is_integer()) return std::max(integer_bits(a), integer_bits(b)) + 1;
  return std::max(integer_bits(a.numer()), integer_bits(b.numer())) +
         2 * (integer_bits(a.denom()) + integer_bits(b.denom())) + 1;
}

std::string digits_text(double bits) {
  double digits = bits / 3.321928;
  if (digits < 1e15) return std::to_string(static_cast<long long>(digits));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", digits);  // inf and NaN print as words
  return buf;
}

std::string too_large_message(const std::string& what, double bits) {
  return "the exact value of " + what + " would have about " + digits_text(bits) +
         " digits (more than 300,000); pamc keeps numbers exact, so a number this large has no value";
}

}  // namespace pamc::sym
