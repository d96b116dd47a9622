// normalize: substitutes every non-parameter equation into its uses, with its actual
// arguments, giving the seed's normal form (seed 002, section 2.1). Substitution is
// capture-avoiding: loop indices and formals are bound names, renamed (i -> i_1) when an
// inserted expression mentions a free name they would capture.
//
// In a normalized body:
//   - a Name is a numeric parameter or a loop index bound by an enclosing seq/par/sum/max/min;
//   - a Call is a builtin function (max, min, sqrt, log, log2, exp, ceil, floor, abs,
//     unitvec) or the resource `fcfs(index, multiplicity)`;
//   - `use(r, t)` always has r = Call fcfs(a, b);
//   - no process call, numeric equation or resource name is left.
#pragma once
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/check/check.h"
#include "compiler/diag/diag.h"

namespace pamc {

struct NormalEquation {
  std::string name;
  ast::Type type = ast::Type::Numeric;  // Numeric or Process
  ast::NodeP body;                      // normalized
  Loc loc;
  bool top_level = false;  // declared in the main file and used by no other equation
};

struct NormalParameter {
  std::string name;
  ast::NodeP default_value;        // normalized, may be null
  std::vector<ast::Bound> bounds;  // normalized values
  Loc loc;
};

struct NormalModel {
  std::string name;                        // the main file's stem
  std::vector<NormalParameter> parameters; // numeric parameters, in declaration order
  std::vector<NormalEquation> equations;   // numeric then process equations without formals, in declaration order
};

NormalModel normalize(const Program& program, Diagnostics& diags);

// `--stage normalized`: parameters and the equations in Pamela syntax.
std::string print_normalized(const NormalModel& model);

}  // namespace pamc
