// The limit on loop nesting. Loops nest through the text and through process calls (a
// process whose body is a loop calling one that is a loop, and so on); the simplifier's
// work on reductions grows faster than the depth (comparing nested reductions up to the
// renaming of their indices), so a model whose loops nest more than kMaxLoopNesting deep
// once calls are expanded is refused with a located error instead of running for minutes.
// Real models nest a handful of loops (a time loop, a processor grid, a block loop).
#pragma once

#include "compiler/passes/normalize.h"

namespace pamc {

inline constexpr int kMaxLoopNesting = 32;

// Throws CompileError (NestingTooDeep) at the first loop past the limit. Linear in the
// size of the normalized model (a DAG: each node is measured once).
void check_loop_nesting(const NormalModel& model);

}  // namespace pamc
