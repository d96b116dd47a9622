// Scalar functions with Pamela semantics, unit vectors and vector helpers.
//
// Each function is a GiNaC function whose eval folds numeric arguments exactly and
// otherwise stays symbolic. Vectors are linear combinations of unitvec(k) (base 0) with
// scalar coefficients: [a, b, c] == a*unitvec(0) + b*unitvec(1) + c*unitvec(2); vectors of
// different lengths combine as if padded with zeros.
#pragma once

#include "compiler/symbolic/ginac_headers.h"

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace pamc::sym {

using GiNaC::ex;

ex unitvec(const ex& k);
ex vector_literal(const GiNaC::exvector& elems);
// max(v) over the elements 0..n-1 of vector v (n = 1 + highest position; implicit elements
// are 0); the zero vector gives 0.
ex vector_max(const ex& v);

ex floor_of(const ex& x);
ex ceil_of(const ex& x);
ex mod_of(const ex& a, const ex& b);   // floor semantics: a - b*floor(a/b)
ex idiv_of(const ex& a, const ex& b);  // `div`: floor(a/b)
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
ex compare(Cmp c, const ex& a, const ex& b);  // 1 or 0; Gt/Ge are stored as Lt/Le swapped
ex log2_of(const ex& x);
ex gcd_of(const ex& a, const ex& b);  // the greatest common divisor of two integers (>= 0)

// Recognizers (for rules, printer, evaluator).
enum class Fn { None, Unitvec, VectorMax, Floor, Ceil, Mod, Div, Eq, Ne, Lt, Le, Log2, Gcd };
Fn pamela_function(const ex& e);  // which of ours e is (Fn::None if not one of them)
bool is_comparison(const ex& e);   // ==, !=, < or <= (> and >= are stored swapped): 1 or 0
bool has_comparison(const ex& e);  // e holds one anywhere
// The argument x of a floor or ceil as one quotient (numerator, denominator), where that is
// not x itself: (P - 1, 2) for P / 2 - 1/2. nullopt for a denominator of 1 or a vector x.
// floor(num / den) divides once, where x's own terms round one by one.
std::optional<std::pair<ex, ex>> as_quotient(const ex& x);
// x = c * s_1^k_1 * ... (c rational, s_i symbols, k_i integers) as the pair
// x.normal().numer_denom() gives, computed directly; nullopt for any other x.
std::optional<std::pair<ex, ex>> monomial_numer_denom(const ex& x);

// Exact floor/ceil of a real rational number.
GiNaC::numeric floor_num(const GiNaC::numeric& x);
GiNaC::numeric ceil_num(const GiNaC::numeric& x);

// Does e denote a vector (contains unitvec outside a vector_max)?
bool is_vector_valued(const ex& e);

// A vector split into terms coefficient * unitvec(position) after expansion, equal
// positions merged (in first-seen order), plus the scalar part (nonzero only for an
// ill-typed mix). nullopt when unitvec occurs other than as one linear factor of a term
// (e.g. inside a reduction, or unitvec(i)*unitvec(j)).
struct VectorTerms {
  std::vector<std::pair<ex, ex>> terms;  // (position, coefficient)
  ex scalar = 0;
};
std::optional<VectorTerms> split_vector(const ex& v);

// A product t (or t alone as one factor) as (d, s): d its first factor that `pick` accepts,
// s the product of the others, which must be scalars. nullopt when no factor is picked or
// another one is vector-valued (c * unitvec(k) -> (unitvec(k), c)).
std::optional<std::pair<ex, ex>> split_factor(const ex& t, const std::function<bool(const ex&)>& pick);

}  // namespace pamc::sym
