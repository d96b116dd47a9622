#include "compiler/passes/cost_model.h"

#include "compiler/ast/ast.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/open_reason.h"
#include "compiler/symbolic/reduction.h"

#include <set>

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

namespace {

// The outermost reductions of e (an open inner loop is reported through its outer one's
// "an inner loop stays open" only when the outer one has nothing else to say).
void outer_reductions(const GiNaC::ex& e, std::vector<GiNaC::ex>& out) {
  if (sym::is_class<sym::reduction>(e)) {
    out.push_back(e);
    return;
  }
  for (std::size_t k = 0; k < e.nops(); ++k) outer_reductions(e.op(k), out);
}

}  // namespace

std::vector<std::string> CostModel::open_notes() const {
  std::vector<std::string> notes;
  std::set<std::string> seen;
  for (const CostEquation& e : equations) {
    if (!e.top_level) continue;
    std::vector<GiNaC::ex> reds;
    outer_reductions(e.value, reds);
    for (const GiNaC::ex& x : reds) {
      const auto& r = GiNaC::ex_to<sym::reduction>(x);
      std::string kind = r.kind() == sym::ReduceKind::Sum ? "sum" : r.kind() == sym::ReduceKind::Max ? "max" : "min";
      std::string where;
      for (const LoopSite& l : loops)
        if (l.index.is_equal(r.index()) && l.loc.valid()) {
          std::string path = l.loc.file->path;  // the file's name: stable wherever the model lives
          path = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
          where = " (" + path + ":" + std::to_string(l.loc.line) + ":" + std::to_string(l.loc.col) + ")";
          break;
        }
      std::string note = kind + " over " + r.index().get_name() + where + ": " + sym::why_open(x, facts);
      if (seen.insert(note).second) notes.push_back(note);
    }
  }
  return notes;
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
  if (model.simplified)
    for (const std::string& n : model.open_notes()) out += "% open: " + n + "\n";
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
