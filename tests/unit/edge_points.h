// For the property tests: parameter values at the edges (negative, zero, fractional, huge)
// and the comparison of `pamc eval` (the closed form, and the model simplified at the
// point) against `pamc eval --brute-force` at one point.
//
// A closed form is applied only where its conditions hold (docs/semantics.md), so at any
// point where the unsimplified model has a value, eval must give that value; where brute
// force reports a domain error (division by zero, a non-integer bound or position, an empty
// max), eval must not give a value either. Brute force running out of work (a huge count)
// or meeting a value too large to hold is no verdict: nothing is compared there.
#pragma once

#include <random>
#include <string>

#include "compiler/evaluate/evaluate_model.h"

namespace pamc::edge {

// -3, -1, 0, 1/2, 5/2, 1 or 10^6.
inline GiNaC::numeric value(std::mt19937& rng) {
  static const GiNaC::numeric edges[] = {-3, -1, 0, GiNaC::numeric(1, 2), GiNaC::numeric(5, 2), 1, 1000000};
  return edges[std::uniform_int_distribution<int>(0, 6)(rng)];
}

// Brute force's budget: its workload vector grows quadratically with the positions it holds
// (1e4 positions take seconds), so a point that needs more terms is not compared.
constexpr double kBruteTerms = 4000;

enum class Outcome { Compared, NoValueBoth, NotCompared, Mismatch };

struct Verdict {
  Outcome outcome = Outcome::Compared;
  std::string problem;  // for a mismatch: what differs
};

// `simplified` is the model at Stage::Simplified, `timed` the same text at Stage::Time.
inline Verdict compare(const CostModel& simplified, const CostModel& timed, const std::string& target,
                       const std::map<std::string, GiNaC::numeric>& bindings) {
  EvalRequest req;
  req.bindings = bindings;
  req.targets = {target};
  EvalRequest brute_req = req;
  brute_req.compiled = false;
  brute_req.max_terms = kBruteTerms;
  sym::Value brute;
  std::string brute_error;
  bool brute_has_value = false;
  try {
    brute = evaluate_model(timed, brute_req).values[0].second;
    brute_has_value = true;
  } catch (const CompileError& e) {
    if (e.diag.kind == DiagKind::WorkLimit || e.diag.kind == DiagKind::ValueTooLarge) return {Outcome::NotCompared, ""};
    brute_error = e.diag.message;
  }
  // pamc eval's way for one point: the model simplified with the point's numbers in place
  // (evaluate_model's at_point), where it answers without the closed form.
  {
    EvalRequest at = req;
    at.at_point = true;
    at.compiled = false;
    at.max_terms = kBruteTerms;
    try {
      EvalResult r = evaluate_model(timed, at);
      if (!r.needs_closed_form) {
        if (!brute_has_value)
          return {Outcome::Mismatch, "eval at the point gives " + format_value(r.values[0].second) +
                                         " where the model has none (brute force: " + brute_error + ")"};
        if (!sym::values_equal(r.values[0].second, brute, 1e-12))
          return {Outcome::Mismatch, "eval at the point " + format_value(r.values[0].second) + " != brute force " +
                                         format_value(brute)};
      }
    } catch (const CompileError& e) {
      if (brute_has_value && e.diag.kind != DiagKind::WorkLimit)
        return {Outcome::Mismatch, "eval at the point fails (" + e.diag.message + ") where brute force gives " +
                                       format_value(brute)};
    }
  }
  try {
    sym::Value got = evaluate_model(simplified, req).values[0].second;
    if (!brute_has_value)
      return {Outcome::Mismatch, "eval gives " + format_value(got) + " where the model has none (brute force: " + brute_error + ")"};
    if (!sym::values_equal(got, brute, 1e-12))
      return {Outcome::Mismatch, "eval " + format_value(got) + " != brute force " + format_value(brute)};
    return {Outcome::Compared, ""};
  } catch (const CompileError& e) {
    if (!brute_has_value) return {Outcome::NoValueBoth, ""};
    if (e.diag.kind == DiagKind::WorkLimit) return {Outcome::NotCompared, ""};
    return {Outcome::Mismatch, "eval fails (" + e.diag.message + ") where brute force gives " + format_value(brute)};
  }
}

}  // namespace pamc::edge
