// Brute-force reference evaluation for concrete parameter values.
//
// Unrolls every reduction. Exact (GiNaC::numeric rationals) for integer and rational
// arithmetic, mod, div, floor, ceil and comparisons; floats where sqrt/log/exp or non-integer
// powers enter. Vectors are maps position -> value (zero elements are not stored).
// Errors throw EvalError, a CompileError whose kind says what went wrong: unbound symbol, division by zero, max/min over an empty range, a
// non-integer loop bound, a non-integer or negative unitvec position, a result that is not
// real, and exhausting the work budget (one step per unrolled iteration).
#pragma once

#include <functional>

#include "compiler/symbolic/ginac_headers.h"

#include <map>
#include <string>

#include "compiler/diag/diag.h"

namespace pamc::sym {

struct Value {
  bool is_vector = false;
  GiNaC::numeric scalar;
  std::map<long, GiNaC::numeric> elems;
};
// The diagnostic has no location (the evaluator sees expressions, not text); the caller
// places it, at the loop named by loop_index when a bound failed.
struct EvalError : CompileError {
  EvalError(DiagKind kind, std::string m, GiNaC::ex loop = 0)
      : CompileError(Loc{}, kind, m), message(std::move(m)), loop_index(std::move(loop)) {}
  std::string message;   // diag.message, for callers that only print it
  GiNaC::ex loop_index;  // the index symbol of the loop whose bound failed (else 0), for its location
};
struct WorkBudget {
  long long steps_left = 200'000'000;
  long long steps_done = 0;
  // Called every 2^16 reduction terms (progress lines, Ctrl-C); may throw EvalError.
  std::function<void(long long)> on_tick;
};

Value evaluate(const GiNaC::ex& e, const GiNaC::exmap& env, WorkBudget& budget);

// A sum whose body is a polynomial in its index (degree <= 32) with exact values is summed
// in closed form past this many terms, its d + 1 first terms read (term by term below it).
inline constexpr long kClosedSumFrom = 65536;

// Equal as values: exact numbers compare exactly; when a float is involved, to a relative
// tolerance `rel`. A scalar s equals the one-element vector [s].
bool values_equal(const Value& a, const Value& b, double rel = 1e-9);
std::string to_string(const Value& v);

}  // namespace pamc::sym
