// The JSON emitter: parameters (defaults, bounds), assumptions, and each equation as
// Pamela text and as an expression tree other tools can walk without a Pamela parser:
//   {"num": "101/10", "value": 10.1} | {"sym": "P"} |
//   {"op": "+"|"*"|"^"|"max"|"min"|"floor"|"ceil"|"mod"|"div"|"=="|"!="|"<"|"<="|"unitvec"|"vmax"|"log2"|"gcd"|"abs"|"log"|"exp", "args": [...]} |
//   {"op": "sum"|"max_over"|"min_over", "index": "i", "lb": ..., "ub": ..., "body": ...}
#include <sstream>

#include "compiler/emit/emit.h"
#include "compiler/ast/ast.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/support/json.h"
#include "compiler/symbolic/symbolic.h"

using pamc::sym::is_class;

namespace pamc::emit {
namespace {

Json tree(const GiNaC::ex& e);

Json node(const std::string& op, const GiNaC::ex& e) {
  Json args = Json::array();
  for (std::size_t i = 0; i < e.nops(); ++i) args.push_back(tree(e.op(i)));
  return {{"op", op}, {"args", std::move(args)}};
}

Json tree(const GiNaC::ex& e) {
  using namespace GiNaC;
  if (is_class<numeric>(e)) {
    const numeric& x = ex_to<numeric>(e);
    std::ostringstream exact;
    exact << x;
    return {{"num", exact.str()}, {"value", json_number_text(format_number(x))}};
  }
  if (is_class<symbol>(e)) return {{"sym", ex_to<symbol>(e).get_name()}};
  if (is_class<add>(e)) return node("+", e);
  if (is_class<mul>(e)) return node("*", e);
  if (is_class<GiNaC::power>(e)) return node("^", e);
  if (sym::is_extremum(e)) return node(sym::is_max(e) ? "max" : "min", e);
  if (sym::is_reduction(e)) {
    const sym::reduction& r = sym::as_reduction(e);
    const char* op = r.kind() == sym::ReduceKind::Sum ? "sum" : r.kind() == sym::ReduceKind::Max ? "max_over" : "min_over";
    return {{"op", op}, {"index", r.index().get_name()}, {"lb", tree(r.lb())}, {"ub", tree(r.ub())}, {"body", tree(r.body())}};
  }
  if (is_class<function>(e)) {
    using sym::Fn;
    switch (sym::pamela_function(e)) {
      case Fn::Unitvec: return node("unitvec", e);
      case Fn::VectorMax: return node("vmax", e);
      case Fn::Floor: return node("floor", e);
      case Fn::Ceil: return node("ceil", e);
      case Fn::Mod: return node("mod", e);
      case Fn::Div: return node("div", e);
      case Fn::Eq: return node("==", e);
      case Fn::Ne: return node("!=", e);
      case Fn::Lt: return node("<", e);
      case Fn::Le: return node("<=", e);
      case Fn::Log2: return node("log2", e);
      case Fn::Gcd: return node("gcd", e);
      case Fn::None: break;
    }
    return node(ex_to<function>(e).get_name(), e);
  }
  return {{"op", "unknown"}};
}

const char* role_name(EquationRole r) {
  switch (r) {
    case EquationRole::Time: return "time";
    case EquationRole::Phi: return "phi";
    case EquationRole::Delta: return "delta";
    case EquationRole::Omega: return "omega";
    case EquationRole::Numeric: return "numeric";
  }
  return "numeric";
}

}  // namespace

std::string emit_json(const CostModel& model, bool all) {
  Json parameters = Json::array();
  for (const CostParameter& p : model.parameters) {
    Json param = {{"name", p.name}};
    if (p.default_value) param["default"] = sym::to_pamela(*p.default_value);
    Json bounds = Json::array();
    for (const auto& b : p.bounds) bounds.push_back({{"op", b.op}, {"value", sym::to_pamela(b.value)}});
    param["bounds"] = std::move(bounds);
    parameters.push_back(std::move(param));
  }
  Json equations = Json::array();
  for (const CostEquation& e : model.equations) {
    if (!all && !e.top_level) continue;
    Json eq = {{"name", e.name}, {"role", role_name(e.role)}};
    if (!e.process.empty()) eq["process"] = e.process;
    auto [region, counter] = ast::split_counter_name(e.name);
    if (!region.empty()) {
      eq["region"] = region;
      eq["counter"] = counter;
    }
    eq["vector"] = sym::is_vector_valued(e.value);
    eq["text"] = sym::to_pamela(e.value);
    eq["tree"] = tree(e.value);
    equations.push_back(std::move(eq));
  }
  Json doc = {{"model", model.name}, {"parameters", std::move(parameters)},
              {"assumptions", model.assumptions.items}, {"equations", std::move(equations)}};
  // One member, parameter and equation a line; an equation's tree on a line of its own.
  return json_text(doc, {{"", JsonLines::Items},
                         {"/parameters", JsonLines::ItemsEvenEmpty},
                         {"/equations", JsonLines::ItemsEvenEmpty},
                         {"/equations/*/tree", JsonLines::Before}}) +
         "\n";
}

}  // namespace pamc::emit
