// Facts from the model itself (SPEC 2, "Facts from the model itself"; docs/simplifier.md).
//
// What evaluating the time-domain model already requires is a fact the simplifier may use
// without any declared bound:
//   - a loop bound that mentions parameters only is an integer (`par (i = 1, N)`: N is an
//     integer; `seq (i = 1, N / P)`: N / P is an integer, "P divides N");
//   - the divisor of `mod` / `div` is an integer >= 1 (`i mod P`: P >= 1 integer);
//   - a resource position that mentions parameters only is an integer >= 0.
// They are inferred once per model, from the lowered equations, in this one place, added to
// the simplifier's Facts, and printed (`% from the model: P >= 1 integer, P divides N`).
// A fact is still checked at every evaluation, like an assumption: a loop that is never
// entered does not evaluate its bounds, so a point can violate a fact and still have a value
// (`seq (k = 1, K) par (i = 1, N / P)` at K = 0). There the evaluators fall back to the
// time-domain form, which gives the model's own value or error: never a different number.
#pragma once

#include "compiler/symbolic/facts.h"

#include "compiler/symbolic/ginac_headers.h"

#include <vector>

namespace pamc::sym {

// Adds to `facts` what the equations require, and to `out` the printed items (out.from_model)
// and the conditions every evaluator checks (out.nonneg, out.integer).
void infer_model_facts(const std::vector<ex>& equations, Facts& facts, Assumptions& out);

// s ^ k * 2 ^ t = 2 ^ (k log2(s) + t) for a parameter s whose log2 is a known integer (a
// loop bound log2(P)): exact wherever log2(s) has a value (s > 0, which the fact's check
// requires), and it turns a tree's P / 2 ^ l processes into 2 ^ (log2(P) - l), an integer
// power the facts can reason about.
ex powers_of_two(const ex& e, const Facts& facts);

// Promotes assumptions recorded by the rules into facts, where a fact can say them (a symbol
// bounded below, an integer symbol or expression). Sound because every evaluator checks all
// assumptions together and falls back to the time-domain form where any fails: a closed
// form found under these facts is used only where they hold.
// A promotion that relies on a parameter's default sign (Q ^ 2 >= 1 gives Q >= 1 only with
// Q >= 0) adds that sign to `a` as an assumption.
void promote_assumptions(Assumptions& a, Facts& facts);

// Drops an assumption `s >= 0` on a parameter that another assumption already bounds from
// above zero (`s >= c`, c >= 0: P >= 1 makes P >= 0 say nothing new).
void drop_implied_nonneg(Assumptions& a);

// Drops an assumption c >= 0 (not a bare sign) that the model's facts and the other
// assumptions imply (P >= 2 implies floor(P / 2) >= 1; min(N, P) >= 2 implies N >= 2), one
// at a time, each proved from those that stay: the evaluators check fewer conditions and
// reach the same verdict. A proof that needs a parameter's default sign counts only when
// that sign is itself an assumption that stays.
void drop_redundant_assumptions(Assumptions& a, const Facts& facts);

// The assumptions as printed, one line each, except that the bare sign conditions on
// parameters share one line ("N, t_s >= 0"): a model with ten machine constants reads one
// line, not ten.
std::vector<std::string> assumption_lines(const Assumptions& a);

}  // namespace pamc::sym
