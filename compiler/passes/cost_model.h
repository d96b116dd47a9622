// The cost model: the model's parameters as GiNaC symbols and its numeric equations
// (phi_L, delta_L, omega_L, T_L per process L, and the model's numeric equations), first
// as lowered (the time domain, `--stage time`), then simplified (`--stage simplified`).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compiler/symbolic/ginac_headers.h"

#include "compiler/source/source.h"
#include "compiler/symbolic/symbolic.h"

namespace pamc {

struct CostParameter {
  std::string name;
  GiNaC::symbol symbol;
  std::optional<GiNaC::ex> default_value;  // may mention earlier parameters
  struct Bound {
    std::string op;  // ">=", ">", "<=", "<"
    GiNaC::ex value;
  };
  std::vector<Bound> bounds;
};

enum class EquationRole { Time, Phi, Delta, Omega, Numeric };

struct CostEquation {
  std::string name;  // T_main, phi_main, ..., or the numeric equation's own name
  EquationRole role = EquationRole::Numeric;
  std::string process;  // for the four process roles: L
  GiNaC::ex value;
  // The lowered, unsimplified value: the reference a closed form is checked against, and
  // what eval falls back to where the closed form's assumptions do not hold.
  GiNaC::ex time_value;
  bool top_level = false;  // printed by default (T_ of top-level processes, top-level numerics)
  Loc loc;
};

// A loop index and where its loop is written (for the notes on reductions left open).
struct LoopSite {
  GiNaC::symbol index;
  Loc loc;
};

// A time the model spends (a delay or a use) that depends on parameters only: it must not
// be negative at the point evaluated (checked by evaluate_model; constants by lowering).
struct TimeSite {
  GiNaC::ex time;
  Loc loc;
  std::string what;  // "delay" or "use"
};

// What a point must meet to be in the model's domain: every declared bound (`P >= 1`) and
// every index-free time >= 0. Where `value` is below 0 (at or below 0 when `strict`) the
// point has no value, in every evaluator (pamc eval reports the error, the others give NaN);
// a value that is itself undefined fails nothing here (the evaluation will say).
struct DomainCheck {
  GiNaC::ex value;
  bool strict = false;
};

struct CostModel {
  std::string name;  // the model file's stem
  std::vector<CostParameter> parameters;
  std::vector<CostEquation> equations;
  sym::Facts facts;              // parameter bounds, for the simplifier's side conditions
  sym::Assumptions assumptions;  // what closed forms relied on without proof
  sym::RuleStats stats;
  std::vector<LoopSite> loops;  // every loop of the model, in source order
  std::vector<TimeSite> times;  // index-free symbolic times, in source order
  bool simplified = false;      // equations hold closed forms (the last stage ran)
  long proofs_stopped = 0;      // claims the prover left unproved at their step budget

  // One line per reduction left open in the printed equations: which loop, and what kept
  // it open ("sum over i (model.pam:7:16): the weight depends on i through sqrt(i), ...").
  std::vector<std::string> open_notes() const;

  const CostParameter* parameter(const std::string& name) const;
  std::vector<std::string> parameter_names() const;  // for "did you mean" (diag/suggest.h)
  std::vector<DomainCheck> domain_checks() const;
  const CostEquation* equation(const std::string& name) const;
};

// Prints parameters and equations in Pamela syntax. `all` adds phi_, delta_, omega_ and the
// equations of processes and numerics that are not top level.
std::string print_cost_model(const CostModel& model, bool all);

}  // namespace pamc
