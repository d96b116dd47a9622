#include "compiler/passes/pipeline.h"

#include "compiler/passes/lower.h"

namespace pamc {

void simplify_model(CostModel& model) {
  model.stats.residual_reductions = 0;
  for (CostEquation& e : model.equations) {
    e.value = sym::simplify(e.value, model.facts, model.assumptions, model.stats);
    model.stats.residual_reductions += sym::count_reductions(e.value);
  }
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
