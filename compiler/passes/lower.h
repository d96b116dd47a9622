// lower: each process equation L (without formals) of the normalized model becomes four
// numeric equations by the rules of SPEC section 3 (seed 002, section 2.2):
//   phi_L   condition-synchronization delay (critical path)
//   delta_L aggregate workload per resource: a vector over resource indices
//   omega_L = max(delta_L), the mutual-exclusion delay
//   T_L     execution time: a lower bound on the simulated time.
// Numeric equations are lowered to their value. The result is the time-domain model.
#pragma once
#include "compiler/diag/diag.h"
#include "compiler/passes/cost_model.h"
#include "compiler/passes/normalize.h"

namespace pamc {

// Throws CompileError for values that cannot be represented (e.g. a literal too large).
CostModel lower(const NormalModel& model);

// Converts one normalized numeric expression; `scope` maps parameter and index names to
// their symbols.
GiNaC::ex lower_numeric(const ast::NodeP& e, const std::map<std::string, GiNaC::ex>& scope);

// Parses a numeric literal exactly: "10.1" is 101/10, "1e6" is 1000000. Returns false if the
// text is not a number.
bool parse_exact_number(const std::string& text, GiNaC::numeric& out);

}  // namespace pamc
