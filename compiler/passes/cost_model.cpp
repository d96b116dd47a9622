#include "compiler/passes/cost_model.h"

#include "compiler/ast/ast.h"

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
  if (!model.assumptions.from_model.empty()) {
    out += "% from the model:";
    for (std::size_t k = 0; k < model.assumptions.from_model.size(); ++k)
      out += (k ? ", " : " ") + model.assumptions.from_model[k];
    out += "\n";
  }
  for (const std::string& a : model.assumptions.items) out += "% assumes " + a + "\n";
  for (const CostParameter& p : model.parameters) {
    out += "numeric parameter " + p.name;
    if (p.default_value) out += " = " + sym::to_pamela(*p.default_value);
    for (const CostParameter::Bound& b : p.bounds) out += " " + b.op + " " + sym::to_pamela(b.value);
    out += "\n";
  }
  // Region counters (tzetar.vector_flops) print inside their region's block, as written.
  std::string open;
  for (const CostEquation& e : model.equations) {
    if (!all && !e.top_level) continue;
    auto [region, counter] = ast::split_counter_name(e.name);
    if (region != open) {
      if (!open.empty()) out += "}\n";
      if (!region.empty()) out += "region " + region + " {\n";
      open = region;
    }
    out += std::string(region.empty() ? "" : "  ") + "numeric " + counter + " = " + sym::to_pamela(e.value) + "\n";
  }
  if (!open.empty()) out += "}\n";
  return out;
}

}  // namespace pamc
