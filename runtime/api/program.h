// The compiled evaluator: a cost expression flattened once into a stack program over
// doubles. Instructions are 12 bytes, constants live in a pool, reductions left in the
// closed form are loops (LoopInit/LoopNext jump within the same code), so evaluation is
// one switch per instruction with no allocation (the stack lives on the C++ stack when the
// program is small, which every closed form we have seen is).
//
// Semantics follow the emitted C++ (compiler/emit/emit_cpp.cpp): Pamela's mod has floor
// semantics, div is floor(a / b), comparisons give 1 or 0, an empty max/min reduction gives
// -inf/+inf, and a reduction index runs lb, lb + 1, ... while <= ub.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pamela::detail {

enum class Op : std::uint8_t {
  Const,     // push consts[a]
  Param,     // push args[a]
  Local,     // push locals[a] (a reduction index)
  Add,       // pop a values, push their sum
  Mul,       // pop a values, push their product
  Sub,       // x y -> x - y
  Div,       // x y -> x / y
  Neg,
  Square,
  Pow,       // x y -> pow(x, y)
  Sqrt,
  Floor,
  Ceil,
  Abs,
  Log,
  Log2,
  Exp,
  Mod,       // x y -> x - y * floor(x / y)
  IDiv,      // x y -> floor(x / y)
  Eq, Ne, Lt, Le,
  Max,       // pop a values, push the largest
  Min,
  // lb ub -> acc. locals[a] = lb, locals[a + 1] = ub; acc = 0 / -inf / +inf (kind); when
  // lb > ub jumps to b (just past the matching LoopNext).
  LoopInit,
  // acc v -> acc'. Combines v into acc (kind); locals[a] += 1; jumps to b (the body's
  // first instruction) while locals[a] <= locals[a + 1].
  LoopNext,
};

constexpr std::uint8_t kEmptyIsZero = 0x10;

struct Instr {
  Op op;
  std::uint8_t kind = 0;  // loops: 0 sum, 1 max, 2 min; | kEmptyIsZero: a par's max (0 when empty)
  std::uint32_t a = 0;
  std::uint32_t b = 0;
};

struct Program {
  std::vector<Instr> code;
  std::vector<double> consts;
  std::uint32_t max_stack = 0;
  std::uint32_t locals = 0;

  double run(const double* args) const;
};

}  // namespace pamela::detail
