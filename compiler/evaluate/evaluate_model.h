// Evaluates a cost model for concrete parameter values (`pamc eval`). Exact for integer
// and rational arithmetic (mod, div, ceil, ...), doubles once sqrt/log/exp enter.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "compiler/passes/cost_model.h"

namespace pamc {

struct EvalRequest {
  std::map<std::string, GiNaC::numeric> bindings;  // -D NAME=VALUE
  std::vector<std::string> targets;                // equation names or process names; empty: top level
  // Residual reductions are unrolled term by term; a point that needs more terms than this
  // (estimated from the bounds before evaluating) is an error naming the loop (--max-terms).
  double max_terms = 1e9;
  // Large open loops through the compiled program (kCompiledEvalFrom); false for
  // --brute-force, whose value is the exact evaluator's reference.
  bool compiled = true;
  // The model is its time domain, not simplified (pamc eval at one point): each target is
  // simplified for this point alone, with the point's numbers in place of the parameters
  // (evaluate_at_point), where that is cheaper than the closed form for every value.
  bool at_point = false;
};

// The number of reduction terms evaluating e at env unrolls (an estimate from the bounds:
// an inner range that depends on an outer index is sized at the outer range's ends).
double estimate_terms(const GiNaC::ex& e, const GiNaC::exmap& env);

struct EvalResult {
  std::vector<std::pair<std::string, sym::Value>> values;  // in the order asked for
  std::vector<std::string> notes;  // e.g. a value computed in double precision
  // For a value computed in double precision: how many significant digits its rounding
  // errors leave right (significant_digits()); eval prints that many.
  std::map<std::string, int> digits;
  // With EvalRequest::at_point: a target kept a loop of more than kAtPointTermsLimit terms at
  // this point, or its value was an error; the caller simplifies the model (the closed form
  // for every value, and its messages) and evaluates again. `values` is then incomplete.
  bool needs_closed_form = false;
};

// The largest loop a target simplified at one point may keep (terms unrolled exactly): about
// a millisecond, against tens of milliseconds for the closed form of a large model.
constexpr double kAtPointTermsLimit = 2000;

// The significant digits that stay right after a double-precision evaluation of `terms`
// reduction terms: rounding errors of n additions grow as sqrt(n) units in the last place
// (Higham, "Accuracy and Stability of Numerical Algorithms", 2002, section 4.2), so about
// 16 - log10(sqrt(n)) digits: 13 at 10^5 terms, 12 at 10^6, 11 at 10^9.
int significant_digits(double terms);

// Above this many reduction terms a point is evaluated by the compiled program
// (compiler/evaluate), exactly while every value is an integer below 2^53, else in double
// precision with a note; below it, by the exact evaluator.
constexpr double kCompiledEvalFrom = 1e5;

// Throws CompileError (UnboundParameter naming every missing parameter, UnknownTarget,
// EvaluationError, WorkLimit).
EvalResult evaluate_model(const CostModel& model, const EvalRequest& request);

// Binds parameters: -D values, then declared defaults (in declaration order); checks
// declared bounds. Unbound parameters are left out.
GiNaC::exmap bind_parameters(const CostModel& model, const std::map<std::string, GiNaC::numeric>& bindings);

// True when every assumption the closed form recorded holds at this point (those that
// mention unbound parameters are not checked). Where one fails, evaluate_model uses the
// time-domain model instead (exact, by unrolling): the closed form is valid only under
// its assumptions (docs/semantics.md).
bool assumptions_hold(const CostModel& model, const GiNaC::exmap& env);

// "100000000", "10.1", "0.3333333333333333", "[4, 8, 12]": exact where the value is a
// finite decimal, else the shortest double that reads back the same. A vector longer than
// kDenseVectorLimit elements prints sparse, as Pamela writes it: `[1, 2, 3] + 10 *
// unitvec(1000000000000000000)` (its zeros would not fit in any memory).
constexpr long kDenseVectorLimit = 4096;
std::string format_value(const sym::Value& v);
std::string format_number(const GiNaC::numeric& x);

// Parses a -D value: a decimal literal kept exact ("1e6", "0.1"), or "-" before one.
bool parse_binding_value(const std::string& text, GiNaC::numeric& out);

}  // namespace pamc
