// simulate() on a normalized model: binds parameters (given values, else defaults) and
// runs the named process equation.
#include <set>

#include "compiler/passes/normalize.h"
#include "runtime/sim_expr.h"
#include "runtime/simulate.h"

namespace pamc {

std::map<std::string, double> sim_parameter_values(const NormalModel& model,
                                                   const std::map<std::string, double>& params) {
  std::map<std::string, double> values;
  std::set<std::string> declared;
  for (const NormalParameter& p : model.parameters) {
    declared.insert(p.name);
    auto it = params.find(p.name);
    if (it != params.end()) {
      values[p.name] = it->second;
    } else if (p.default_value) {
      values[p.name] = sim_eval(p.default_value, values);
    }
  }
  for (const auto& kv : params) {
    if (!declared.count(kv.first))
      sim::fail(Loc{}, DiagKind::UnboundParameter,
                "-D " + kv.first + ": the model has no numeric parameter '" + kv.first + "'");
  }
  return values;
}

SimResult simulate(const NormalModel& model, const std::string& process_name,
                   const std::map<std::string, double>& params, const SimOptions& opts) {
  std::map<std::string, double> values = sim_parameter_values(model, params);
  std::string name = process_name;
  if (name.rfind("T_", 0) == 0) {
    bool exact = false;
    for (const NormalEquation& eq : model.equations) exact = exact || eq.name == name;
    if (!exact) name = name.substr(2);
  }
  for (const NormalEquation& eq : model.equations) {
    if (eq.name == name) {
      if (eq.type != ast::Type::Process)
        sim::fail(eq.loc, DiagKind::UnknownTarget, "'" + name + "' is not a process; only processes can be simulated");
      return simulate_body(eq.body, values, opts);
    }
  }
  sim::fail(Loc{}, DiagKind::UnknownTarget, "the model has no process '" + process_name + "'");
}

}  // namespace pamc
