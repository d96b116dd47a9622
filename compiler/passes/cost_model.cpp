#include "compiler/passes/cost_model.h"

namespace pamc {

const CostParameter* CostModel::parameter(const std::string& n) const {
  for (const CostParameter& p : parameters)
    if (p.name == n) return &p;
  return nullptr;
}

const CostEquation* CostModel::equation(const std::string& n) const {
  for (const CostEquation& e : equations)
    if (e.name == n) return &e;
  return nullptr;
}

std::string print_cost_model(const CostModel& model, bool all) {
  std::string out;
  for (const std::string& a : model.assumptions.items) out += "% assumes " + a + "\n";
  for (const CostParameter& p : model.parameters) {
    out += "numeric parameter " + p.name;
    if (p.default_value) out += " = " + sym::to_pamela(*p.default_value);
    for (const CostParameter::Bound& b : p.bounds) out += " " + b.op + " " + sym::to_pamela(b.value);
    out += "\n";
  }
  for (const CostEquation& e : model.equations) {
    if (!all && !e.top_level) continue;
    out += "numeric " + e.name + " = " + sym::to_pamela(e.value) + "\n";
  }
  return out;
}

}  // namespace pamc
