#include "compiler/passes/pipeline.h"

#include "compiler/passes/lower.h"
#include "compiler/symbolic/ceil_counts.h"
#include "compiler/symbolic/evaluate.h"
#include "compiler/symbolic/expr_key.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/model_facts.h"
#include "compiler/symbolic/position_domain.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/rules.h"

#include <unordered_map>

namespace pamc {

namespace {

// One simplification of every equation from its time-domain form under `facts`.
struct Round {
  std::vector<GiNaC::ex> values;
  std::vector<long> open;  // residual reductions of each equation
  sym::Assumptions assumptions;
  sym::RuleStats stats;
  long top = 0, all = 0;  // residual reductions: top-level equations, all equations
};

// With `keep`, an equation `keep` closed keeps its value (under keep's assumptions, which
// the round starts from) and only the others are simplified again.
Round simplify_round(const CostModel& model, const std::vector<GiNaC::ex>& inputs, const sym::Facts& facts,
                     const sym::Assumptions& start, const Round* keep = nullptr) {
  Round r;
  r.assumptions = keep ? keep->assumptions : start;
  sym::SimplifyCache cache;  // shared work across the equations; output unchanged
  for (std::size_t k = 0; k < model.equations.size(); ++k) {
    const CostEquation& e = model.equations[k];
    long n = 0;
    if (keep && keep->open[k] == 0) {
      r.values.push_back(keep->values[k]);
    } else {
      try {
        r.values.push_back(sym::simplify(inputs[k], facts, r.assumptions, r.stats, cache));
      } catch (const sym::EvalError& err) {  // the exact-number budget: located at the equation
        throw CompileError{Diagnostic{Severity::Error, err.diag.kind, e.loc, e.name + ": " + err.message, {}}};
      }
      n = r.stats.residual_reductions;  // simplify's count of the value it returned
    }
    r.open.push_back(n);
    r.all += n;
    if (e.top_level) r.top += n;
  }
  r.stats.flush();
  return r;
}

bool has_extremum(const GiNaC::ex& e) {
  for (GiNaC::const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (GiNaC::is_a<sym::extremum>(*it)) return true;
  return false;
}

}  // namespace

void simplify_model(CostModel& model) {
  // Facts from the model itself (model_facts.h): inferred once, printed, checked like
  // assumptions.
  std::vector<GiNaC::ex> time_values;
  for (const CostEquation& e : model.equations) time_values.push_back(e.time_value);
  sym::infer_model_facts(time_values, model.facts, model.assumptions);
  // An integrality the position check assumes (B for cpu((i + B) mod P)) counts as one the
  // first round assumed: the second round takes it as a fact.
  const std::size_t integers_from_model = model.assumptions.integer.size();
  sym::assume_valid_positions(time_values, model.facts, model.assumptions);
  for (GiNaC::ex& v : time_values) v = sym::powers_of_two(v, model.facts);
  const long stops_before = sym::ProofWork::stops();
  Round best = simplify_round(model, time_values, model.facts, model.assumptions);
  // A closed form is used only where every recorded assumption holds (the evaluators check
  // them all together), so the rules may take them as facts. When the first round leaves
  // reductions open and assumed something, the model is simplified again from its time
  // domain with those assumptions as facts; the new round is kept if it closes more, or as
  // much and prints shorter. A closed model gets that round when it keeps a guard or a
  // max/min (with PX >= 1 and PY >= 1 a sweep's guards and max(0, PX - 1) fold away) or
  // assumed an integrality (N is an integer turns floor(N) back into N).
  auto printed_size = [&](const Round& r) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < r.values.size(); ++k)
      if (model.equations[k].top_level) n += sym::to_pamela(r.values[k]).size();
    return n;
  };
  for (int round = 0; round < 2; ++round) {
    bool more_integers = best.assumptions.integer.size() > (round == 0 ? integers_from_model : model.assumptions.integer.size());
    if (best.assumptions.items.size() <= model.assumptions.items.size() && !more_integers) break;
    // A guard such as (1 <= PX), or a max/min whose arms the assumptions may order
    // (max(1, ceil(N / P)) under N >= 1).
    bool guarded = false;
    for (std::size_t k = 0; k < best.values.size() && !guarded; ++k)
      guarded = model.equations[k].top_level && (sym::has_comparison(best.values[k]) || has_extremum(best.values[k]));
    if (best.top == 0 && !more_integers && !guarded) break;
    sym::Facts more = model.facts;
    sym::Assumptions start = best.assumptions;  // a promotion may add a sign it relies on
    sym::promote_assumptions(start, more);
    Round next = simplify_round(model, time_values, more, start);
    bool better = next.top < best.top || (next.top == best.top && printed_size(next) < printed_size(best));
    if (!better) break;
    best = std::move(next);
  }
  // A model still open gets one more round with the rules that assume what its layout
  // implies (LastResortRules: families kept apart, `cpu(i div B)` below `link(P + p)`), of
  // its open equations only (the closed ones keep their values and assumptions); it is
  // kept only if it closes more equations, so a model that closes without them never
  // carries their assumptions, nor one they leave open (an equation with one sum fewer
  // still open would print "assumes 2 >= P" beside the sum). Its rule counts are the
  // round's own added to those of the round before.
  if (best.top > 0) {
    sym::LastResortRules scope;
    Round next = simplify_round(model, time_values, model.facts, model.assumptions, &best);
    auto closed = [&](const Round& r) {
      long n = 0;
      for (std::size_t k = 0; k < r.open.size(); ++k) n += model.equations[k].top_level && r.open[k] == 0;
      return n;
    };
    if (closed(next) > closed(best)) {
      for (const auto& [name, n] : best.stats.fired) next.stats.fired[name] += n;
      best = std::move(next);
    }
  }
  // Counts as ceilings (ceil_counts.h), for the equations a reader sees; a delta_ (a load
  // vector, often long) is left as it is. Processes written alike have equal values: each
  // value is rewritten once.
  std::unordered_map<GiNaC::ex, GiNaC::ex, sym::ExprHash, sym::ExprEq> as_ceilings;
  for (std::size_t k = 0; k < model.equations.size(); ++k) {
    if (model.equations[k].role == EquationRole::Delta) {
      model.equations[k].value = best.values[k];
      continue;
    }
    auto [it, fresh] = as_ceilings.try_emplace(best.values[k]);
    if (fresh) it->second = sym::ceil_counts(best.values[k], model.facts);
    model.equations[k].value = it->second;
  }
  model.assumptions = best.assumptions;
  sym::drop_implied_nonneg(model.assumptions);
  sym::drop_redundant_assumptions(model.assumptions, model.facts);
  model.simplified = true;
  model.proofs_stopped = sym::ProofWork::stops() - stops_before;
  for (const auto& [name, n] : best.stats.fired) model.stats.fired[name] += n;
  // sym::simplify overwrites stats.residual_reductions with its own result's count, so the
  // totals are the rounds' own. The headline figure counts the cost model's equations
  // (those printed by default: T_ of top-level processes, top-level numerics); the
  // intermediate phi_/delta_/omega_ equations are counted separately (a delta_ is a
  // symbolic vector such as sum (p = 0, P - 1) { unitvec(p) }, which has no closed form).
  model.stats.residual_reductions = best.top;
  model.stats.residual_reductions_all = best.all;
}

static std::unique_ptr<Compilation> run_stages(std::unique_ptr<Program> program, Stage last, Diagnostics& diags) {
  if (!program) return nullptr;
  auto c = std::make_unique<Compilation>();
  c->program = std::move(program);
  if (last == Stage::Parsed) return c;
  c->normal = normalize(*c->program, diags);
  c->reached = Stage::Normalized;
  if (diags.has_errors()) return nullptr;
  if (last == Stage::Normalized) return c;
  try {
    c->model = lower(c->normal);
    c->reached = Stage::Time;
    if (last == Stage::Time) return c;
    simplify_model(c->model);
    c->reached = Stage::Simplified;
  } catch (const CompileError& e) {
    diags.add(e.diag);  // whatever its severity: a thrown diagnostic is never dropped
    return nullptr;
  }
  return c;
}

std::unique_ptr<Compilation> compile_file(const std::string& path, const LoadOptions& opts, Stage last,
                                          Diagnostics& diags) {
  return run_stages(load_program(path, opts, diags), last, diags);
}

std::unique_ptr<Compilation> compile_text(const std::string& name, const std::string& text,
                                          const LoadOptions& opts, Stage last, Diagnostics& diags) {
  return run_stages(load_program_text(name, text, opts, diags), last, diags);
}

}  // namespace pamc
