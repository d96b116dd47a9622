#include "compiler/passes/pipeline.h"

#include "compiler/passes/lower.h"

namespace pamc {

void simplify_model(CostModel& model) {
  // sym::simplify overwrites stats.residual_reductions with its own result's count, so the
  // totals are summed here after each call. The headline figure counts the cost model's
  // equations (those printed by default: T_ of top-level processes, top-level numerics);
  // the intermediate phi_/delta_/omega_ equations are counted separately (a delta_ is a
  // symbolic vector such as sum (p = 0, P - 1) { unitvec(p) }, which has no closed form).
  long top = 0, all = 0;
  sym::SimplifyCache cache;  // shared work across the equations; output unchanged
  for (CostEquation& e : model.equations) {
    e.value = sym::simplify(e.value, model.facts, model.assumptions, model.stats, cache);
    long n = sym::count_reductions(e.value);
    all += n;
    if (e.top_level) top += n;
  }
  model.stats.residual_reductions = top;
  model.stats.residual_reductions_all = all;
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
    Diagnostic d = e.diag;
    if (d.severity == Severity::Error) diags.error(d.loc, d.kind, d.message);
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
