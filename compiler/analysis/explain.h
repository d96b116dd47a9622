// Point analyses of a cost model (`pamc explain`, `pamc sensitivity`).
//
// explain: for every max/min in a cost equation, the value of each argument at the point,
// which one dominates and by how much, and where two arguments cross: the equation
// a = b solved for each parameter, symbolically when it is linear in that parameter (other
// parameters kept as symbols, then evaluated at the point), else numerically by bracketing
// around the point's value. A crossover is reported only where the parameter's domain
// allows it (the facts: >= 0 unless declared otherwise, declared bounds, integer loop
// bounds) and the other argument strictly takes over at a point beyond it where the model
// has a value. Arguments that are the same function near the point (equal there and at the
// point moved in each parameter) are one regime, not a tie.
//
// sensitivity: partial derivatives and elasticities (dT/dx * x / T). GiNaC's diff does not
// know Pamela's max/min, so each equation is first reduced to its *active branch* at the
// point (every max/min replaced by the argument that attains it; a tie is reported, since
// the derivative is then one-sided), floor/ceil/div relaxed to their real-valued argument
// (their derivative is 0 almost everywhere, which says nothing useful), and then
// differentiated symbolically.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/cost_model.h"

namespace pamc {

struct Crossover {
  std::size_t other = 0;   // the argument it crosses with
  std::string parameter;   // solved for
  std::string symbolic;    // the solution in Pamela syntax ("" when found numerically only)
  std::optional<GiNaC::numeric> value;  // at the point (other parameters at their values)
  std::string takes_over;  // "P < 101": where the other argument dominates
  bool numeric_only = false;
  std::vector<std::string> depends_on;  // the other parameters that move it
};

struct ExtremumInfo {
  std::string text;  // the max/min in Pamela syntax
  bool is_max = true;
  struct Arg {
    std::string text;
    GiNaC::numeric value;
    std::vector<std::string> parameters;  // that it depends on
  };
  std::vector<Arg> args;
  std::size_t dominant = 0;
  std::vector<std::size_t> same;        // the same function as the dominant one near the point
  std::vector<std::size_t> tied;        // other arguments equal to the dominant one here only
  std::optional<GiNaC::numeric> ratio;  // dominant / runner-up (max), runner-up / dominant (min)
  std::vector<Crossover> crossovers;    // of the dominant argument with each other one
  std::vector<std::string> crossover_parameters;  // parameters that move a crossover (union of depends_on)
};

struct ExplainReport {
  std::string target;
  std::string equation;  // Pamela text
  GiNaC::numeric value;
  std::vector<std::pair<std::string, GiNaC::numeric>> point;  // the parameters it mentions
  std::vector<ExtremumInfo> extrema;
  std::vector<std::string> notes;
};

struct SensitivityRow {
  std::string parameter;
  GiNaC::numeric at;             // the parameter's value
  std::string derivative;        // symbolic, Pamela syntax ("" if unavailable)
  std::optional<GiNaC::numeric> value;
  std::optional<GiNaC::numeric> elasticity;
  std::string note;
};

struct SensitivityReport {
  std::string target;
  std::string equation;
  std::string active;  // the active branch that was differentiated
  GiNaC::numeric value;
  std::vector<std::pair<std::string, GiNaC::numeric>> point;
  std::vector<SensitivityRow> rows;
  std::vector<std::string> notes;  // ties, relaxations
};

// Both throw CompileError as evaluate_model does (unbound parameter, unknown target, ...).
std::vector<ExplainReport> explain_model(const CostModel& model, const std::map<std::string, GiNaC::numeric>& bindings,
                                         const std::vector<std::string>& targets);
std::vector<SensitivityReport> sensitivity_model(const CostModel& model,
                                                 const std::map<std::string, GiNaC::numeric>& bindings,
                                                 const std::vector<std::string>& targets);

// Crossovers of max/min arguments in `target` as `param` varies over [lo, hi], the other
// parameters bound as in `bindings` (for drawing them on a sweep plot): solved exactly
// where the two arguments' difference is linear in `param`, else found numerically (a
// sign change of the difference between samples of the range, then bisection). Only
// kinks of the max/min count: both arguments attain it there. Values only.
std::vector<std::pair<GiNaC::numeric, std::string>> crossovers_in(
    const CostModel& model, const std::string& target, const std::map<std::string, GiNaC::numeric>& bindings,
    const std::string& param, double lo, double hi);

// A crossover's value for people: exact when short ("101", "12.5"), else 6 significant
// digits after "~" ("~18.7643"), never a double's 17.
std::string crossover_text(const GiNaC::numeric& value, bool numeric_only);

std::string format_explain(const std::vector<ExplainReport>& reports, bool json);
std::string format_sensitivity(const std::vector<SensitivityReport>& reports, bool json);

// e's value at env; nullopt when it has none or is a vector.
std::optional<GiNaC::numeric> value_at(const GiNaC::ex& e, const GiNaC::exmap& env);

// The active branch of e at env (see the top of this file): every max/min replaced by the
// argument that attains it, floor/ceil/div relaxed, mod with its quotient held, comparisons
// evaluated. `notes`, if given, collects what that assumed (ties, relaxations).
GiNaC::ex active_branch(const GiNaC::ex& e, const GiNaC::exmap& env, std::vector<std::string>* notes = nullptr);

}  // namespace pamc
