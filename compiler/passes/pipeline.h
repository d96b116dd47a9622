// The pipeline, in order (STYLE.md: Halide's Lower.cpp):
//   load + check (compiler/check) -> normalize -> lower -> simplify
// Each stage's result is kept so `--stage` can print any of them.
#pragma once
#include <memory>

#include "compiler/check/check.h"
#include "compiler/passes/cost_model.h"
#include "compiler/passes/normalize.h"

namespace pamc {

enum class Stage { Parsed, Normalized, Time, Simplified };

struct Compilation {
  std::unique_ptr<Program> program;
  NormalModel normal;
  CostModel model;  // time domain after lowering; simplified in place by the last stage
  Stage reached = Stage::Parsed;
};

// Runs the pipeline up to `last`. Model errors are reported into `diags` (returns null).
std::unique_ptr<Compilation> compile_file(const std::string& path, const LoadOptions& opts, Stage last,
                                          Diagnostics& diags);
std::unique_ptr<Compilation> compile_text(const std::string& name, const std::string& text,
                                          const LoadOptions& opts, Stage last, Diagnostics& diags);

// simplify: every equation to closed form; records assumptions and rule statistics.
void simplify_model(CostModel& model);

}  // namespace pamc
