// The JSON emitter: parameters (defaults, bounds), assumptions, and each equation as
// Pamela text and as an expression tree other tools can walk without a Pamela parser:
//   {"num": "101/10", "value": 10.1} | {"sym": "P"} |
//   {"op": "+"|"*"|"^"|"max"|"min"|"floor"|"ceil"|"mod"|"div"|"=="|"!="|"<"|"<="|"unitvec"|"vmax"|"log2"|"abs"|"log"|"exp", "args": [...]} |
//   {"op": "sum"|"max_over"|"min_over", "index": "i", "lb": ..., "ub": ..., "body": ...}
#include <sstream>

#include "compiler/emit/emit.h"
#include "compiler/ast/ast.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/emit/json_text.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/symbolic/symbolic.h"

using pamc::sym::is_class;

namespace pamc::emit {
namespace {

std::string quote(const std::string& s) { return json_quote(s); }

std::string tree(const GiNaC::ex& e);

std::string node(const std::string& op, const GiNaC::ex& e) {
  std::string out = "{\"op\": " + quote(op) + ", \"args\": [";
  for (std::size_t i = 0; i < e.nops(); ++i) out += (i ? ", " : "") + tree(e.op(i));
  return out + "]}";
}

std::string tree(const GiNaC::ex& e) {
  using namespace GiNaC;
  if (is_class<numeric>(e)) {
    const numeric& x = ex_to<numeric>(e);
    std::ostringstream exact;
    exact << x;
    return "{\"num\": " + quote(exact.str()) + ", \"value\": " + format_number(x) + "}";
  }
  if (is_class<symbol>(e)) return "{\"sym\": " + quote(ex_to<symbol>(e).get_name()) + "}";
  if (is_class<add>(e)) return node("+", e);
  if (is_class<mul>(e)) return node("*", e);
  if (is_class<GiNaC::power>(e)) return node("^", e);
  if (sym::is_extremum(e)) return node(sym::is_max(e) ? "max" : "min", e);
  if (sym::is_reduction(e)) {
    const sym::reduction& r = sym::as_reduction(e);
    const char* op = r.kind() == sym::ReduceKind::Sum ? "sum" : r.kind() == sym::ReduceKind::Max ? "max_over" : "min_over";
    return std::string("{\"op\": \"") + op + "\", \"index\": " + quote(r.index().get_name()) + ", \"lb\": " +
           tree(r.lb()) + ", \"ub\": " + tree(r.ub()) + ", \"body\": " + tree(r.body()) + "}";
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
      case Fn::None: break;
    }
    return node(ex_to<function>(e).get_name(), e);
  }
  return "{\"op\": \"unknown\"}";
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
  std::ostringstream out;
  out << "{\n  \"model\": " << quote(model.name) << ",\n  \"parameters\": [";
  for (std::size_t i = 0; i < model.parameters.size(); ++i) {
    const CostParameter& p = model.parameters[i];
    out << (i ? "," : "") << "\n    {\"name\": " << quote(p.name);
    if (p.default_value) out << ", \"default\": " << quote(sym::to_pamela(*p.default_value));
    out << ", \"bounds\": [";
    for (std::size_t b = 0; b < p.bounds.size(); ++b)
      out << (b ? ", " : "") << "{\"op\": " << quote(p.bounds[b].op) << ", \"value\": " << quote(sym::to_pamela(p.bounds[b].value)) << "}";
    out << "]}";
  }
  out << "\n  ],\n  \"assumptions\": [";
  bool first = true;
  for (const std::string& a : model.assumptions.items) {
    out << (first ? "" : ", ") << quote(a);
    first = false;
  }
  out << "],\n  \"equations\": [";
  first = true;
  for (const CostEquation& e : model.equations) {
    if (!all && !e.top_level) continue;
    out << (first ? "" : ",") << "\n    {\"name\": " << quote(e.name) << ", \"role\": \"" << role_name(e.role) << "\"";
    if (!e.process.empty()) out << ", \"process\": " << quote(e.process);
    auto [region, counter] = ast::split_counter_name(e.name);
    if (!region.empty()) out << ", \"region\": " << quote(region) << ", \"counter\": " << quote(counter);
    out << ", \"vector\": " << (sym::is_vector_valued(e.value) ? "true" : "false")
        << ", \"text\": " << quote(sym::to_pamela(e.value)) << ",\n     \"tree\": " << tree(e.value) << "}";
    first = false;
  }
  out << "\n  ]\n}\n";
  return out.str();
}

}  // namespace pamc::emit
