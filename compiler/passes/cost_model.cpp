#include "compiler/passes/cost_model.h"

#include "compiler/ast/ast.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/model_facts.h"
#include "compiler/symbolic/open_reason.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <map>

#include <set>
#include <unordered_set>
#include <unordered_map>

namespace pamc {

const CostParameter* CostModel::parameter(const std::string& n) const {
  for (const CostParameter& p : parameters)
    if (p.name == n) return &p;
  return nullptr;
}

std::vector<std::string> CostModel::parameter_names() const {
  std::vector<std::string> names;
  for (const CostParameter& p : parameters) names.push_back(p.name);
  return names;
}

std::vector<DomainCheck> CostModel::domain_checks() const {
  std::vector<DomainCheck> out;
  for (const CostParameter& p : parameters)
    for (const CostParameter::Bound& b : p.bounds) {
      const bool below = b.op[0] == '<';  // P <= v: v - P >= 0
      out.push_back({below ? b.value - p.symbol : p.symbol - b.value, b.op.size() == 1});
    }
  for (const TimeSite& t : times) out.push_back({t.time, false});
  return out;
}

const CostEquation* CostModel::equation(const std::string& n) const {
  for (const CostEquation& e : equations)
    if (e.name == n) return &e;
  return nullptr;
}

namespace {

// The outermost reductions of e (an open inner loop is reported through its outer one's
// "an inner loop stays open" only when the outer one has nothing else to say), each with
// whether a negative number multiplies it where it stands (-sum { ... }).
void outer_reductions(const GiNaC::ex& e, std::vector<std::pair<GiNaC::ex, bool>>& out, bool negated = false) {
  if (sym::is_class<sym::reduction>(e)) {
    out.emplace_back(e, negated);
    return;
  }
  const bool flip = sym::negative_number_in_front(e);
  for (std::size_t k = 0; k < e.nops(); ++k) outer_reductions(e.op(k), out, flip != negated);
}

}  // namespace

std::vector<std::string> CostModel::open_notes() const {
  std::vector<std::string> notes;
  std::set<std::string> seen;
  // Equations equal in value share one tree (lower.cpp): its notes are the same text again,
  // which `seen` would drop, so it is walked once.
  std::unordered_set<const GiNaC::basic*> walked;
  for (const CostEquation& e : equations) {
    if (!e.top_level || !walked.insert(&GiNaC::ex_to<GiNaC::basic>(e.value)).second) continue;
    std::vector<std::pair<GiNaC::ex, bool>> reds;
    outer_reductions(e.value, reds);
    for (const auto& [x, negated] : reds) {
      const auto& r = GiNaC::ex_to<sym::reduction>(x);
      std::string kind = r.kind() == sym::ReduceKind::Sum ? "sum" : r.kind() == sym::ReduceKind::Max ? "max" : "min";
      // The loop's place: its own site, else (alike sums over loops of one name are merged,
      // and which index survives follows GiNaC's term order) the first loop of that name.
      std::string where;
      const LoopSite* site = nullptr;
      for (const LoopSite& l : loops)
        if (l.index.is_equal(r.index()) && l.loc.valid()) site = &l;
      if (!site)
        for (const LoopSite& l : loops)
          if (GiNaC::is_a<GiNaC::symbol>(l.index) && GiNaC::ex_to<GiNaC::symbol>(l.index).get_name() == r.index().get_name() &&
              l.loc.valid() && (!site || std::make_pair(l.loc.line, l.loc.col) < std::make_pair(site->loc.line, site->loc.col)))
            site = &l;
      if (site) {
        std::string path = site->loc.file->path;  // the file's name: stable wherever the model lives
        path = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
        where = " (" + path + ":" + std::to_string(site->loc.line) + ":" + std::to_string(site->loc.col) + ")";
      }
      std::string note = kind + " over " + r.index().get_name() + where + ": " + sym::why_open(x, facts, negated);
      if (seen.insert(note).second) notes.push_back(note);
    }
  }
  std::sort(notes.begin(), notes.end());  // one order, whatever GiNaC's operand order
  return notes;
}

namespace {

// Readable output: a floor, ceil, div, mod, max or min that a printed equation repeats
// (three times, or twice when long) is printed once as `numeric a = ...` above the
// equation and named in it, as a person would write `where m = ceil(N / P)`. The named
// equations are ordinary numerics: read back as a model, they substitute to the same value.
// Subterms are keyed by their text, so the choice does not follow GiNaC's term order.
bool is_candidate(const GiNaC::ex& e) {
  sym::Fn fn = sym::pamela_function(e);
  return fn == sym::Fn::Floor || fn == sym::Fn::Ceil || fn == sym::Fn::Div || fn == sym::Fn::Mod ||
         sym::is_class<sym::extremum>(e);
}

// How many subterms count_subterms would count, stopping at `enough`: with fewer than two
// none repeats, and printing each (as count_subterms must) was a tenth of compiling a model
// of 10^4 equations that each hold one max or rounding.
int count_candidates(const GiNaC::ex& e, bool in_reduction, int enough) {
  if (sym::is_class<sym::reduction>(e)) in_reduction = true;
  int n = !in_reduction && is_candidate(e) ? 1 : 0;
  for (std::size_t i = 0; i < e.nops() && n < enough; ++i) n += count_candidates(e.op(i), in_reduction, enough - n);
  return n;
}

void count_subterms(const GiNaC::ex& e, std::map<std::string, std::pair<GiNaC::ex, int>>& out, bool in_reduction) {
  if (sym::is_class<sym::reduction>(e)) in_reduction = true;
  if (is_candidate(e) && !in_reduction) {
    auto& slot = out[sym::to_pamela(e)];
    slot.first = e;
    ++slot.second;
  }
  for (std::size_t i = 0; i < e.nops(); ++i) count_subterms(e.op(i), out, in_reduction);
}

struct NamedTerms {
  std::set<std::string> taken;  // parameter and equation names, and names given
  // (region, subterm text) -> its name: a later equation repeating a named subterm uses the
  // same name (`a = floor(N / P)` once, not `a` and then `b` for the same floor).
  std::map<std::pair<std::string, std::string>, std::string> given;
  std::string next() {
    for (char c = 'a'; c <= 'z'; ++c) {
      std::string n(1, c);
      if (!taken.count(n)) {
        taken.insert(n);
        return n;
      }
    }
    return "";
  }
};

// e with its repeated subterms named; the definitions, in order, in `defs`.
GiNaC::ex name_repeated(GiNaC::ex e, const std::string& region, NamedTerms& names,
                        std::vector<std::pair<std::string, std::string>>& defs) {
  for (int round = 0; round < 4; ++round) {
    if (count_candidates(e, false, 2) < 2) break;  // nothing can repeat
    std::map<std::string, std::pair<GiNaC::ex, int>> counts;
    count_subterms(e, counts, false);
    const std::pair<GiNaC::ex, int>* best = nullptr;
    std::string best_text;
    for (const auto& [text, entry] : counts) {
      bool worth = text.size() >= 8 && (entry.second >= 3 || (entry.second >= 2 && text.size() >= 16));
      if (worth && (!best || text.size() > best_text.size())) {
        best = &entry;
        best_text = text;
      }
    }
    if (!best) break;
    std::string& n = names.given[{region, best_text}];
    if (n.empty()) {
      n = names.next();
      if (n.empty()) break;
      defs.push_back({n, best_text});
    }
    GiNaC::symbol s(n);
    e = e.subs(GiNaC::exmap{{best->first, s}}, GiNaC::subs_options::no_pattern);
  }
  return e;
}

}  // namespace

std::string print_cost_model(const CostModel& model, bool all) {
  std::string out;
  if (!model.assumptions.from_model.empty()) {
    out += "% from the model:";
    for (std::size_t k = 0; k < model.assumptions.from_model.size(); ++k)
      out += (k ? ", " : " ") + model.assumptions.from_model[k];
    out += "\n";
  }
  for (const std::string& a : sym::assumption_lines(model.assumptions)) out += "% assumes " + a + "\n";
  if (model.simplified)
    for (const std::string& n : model.open_notes()) out += "% open: " + n + "\n";
  if (model.simplified && model.proofs_stopped > 0)
    out += "% note: " + std::to_string(model.proofs_stopped) + (model.proofs_stopped == 1 ? " claim" : " claims") +
           " the simplifier asked took the prover past its budget (" + std::to_string(sym::ProofWork::kSteps) +
           " steps a claim) and counted as unproved, so the rules that asked did not apply\n";
  for (const CostParameter& p : model.parameters) {
    out += "numeric parameter " + p.name;
    if (p.default_value) out += " = " + sym::to_pamela(*p.default_value);
    for (const CostParameter::Bound& b : p.bounds) out += " " + b.op + " " + sym::to_pamela(b.value);
    out += "\n";
  }
  // Region counters (tzetar.vector_flops) print inside their region's block, as written.
  std::string open;
  NamedTerms names;
  // Only one-letter names can clash with a name given (a..z): 4 x 10^4 equation names
  // went into the set before.
  auto take = [&](const std::string& n) {
    if (n.size() == 1) names.taken.insert(n);
  };
  for (const CostParameter& p : model.parameters) take(p.name);
  for (const CostEquation& e : model.equations) take(e.name);
  for (const LoopSite& l : model.loops) take(l.index.get_name());
  // Each expression printed once: equations equal in value share one expression (lower
  // and the simplifier's memo hand back the same tree), so a generated model's thousands
  // of repeats print as lookups. Keyed by the node, which the entry keeps alive.
  std::unordered_map<const GiNaC::basic*, std::pair<GiNaC::ex, std::string>> printed;
  auto text_of = [&](const GiNaC::ex& v) -> const std::string& {
    auto [it, fresh] = printed.try_emplace(&GiNaC::ex_to<GiNaC::basic>(v));
    if (fresh) it->second = {v, sym::to_pamela(v)};
    return it->second.second;
  };
  std::unordered_map<const GiNaC::basic*, bool> few_candidates;  // keyed by the model's own values
  for (const CostEquation& e : model.equations) {
    if (!all && !e.top_level) continue;
    auto [region, counter] = ast::split_counter_name(e.name);
    if (region != open) {
      if (!open.empty()) out += "}\n";
      if (!region.empty()) out += "region " + region + " {\n";
      open = region;
    }
    std::string indent = region.empty() ? "" : "  ";
    GiNaC::ex value = e.value;
    // An expression with fewer than two subterms to name has none repeated (name_repeated
    // leaves it as it is): asked once per shared expression.
    auto few = [&] {
      auto [it, fresh] = few_candidates.try_emplace(&GiNaC::ex_to<GiNaC::basic>(e.value), false);
      if (fresh) it->second = count_candidates(e.value, false, 2) < 2;
      return it->second;
    };
    if (model.simplified && !few()) {
      std::vector<std::pair<std::string, std::string>> defs;
      value = name_repeated(value, region, names, defs);
      for (const auto& [n, text] : defs) out += indent + "numeric " + n + " = " + text + "\n";
    }
    out += indent + "numeric " + counter + " = " + text_of(value) + "\n";
  }
  if (!open.empty()) out += "}\n";
  return out;
}

}  // namespace pamc
