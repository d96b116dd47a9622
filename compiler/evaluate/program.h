// The compiled evaluator: a cost expression flattened once into a stack program over
// doubles. Instructions are 12 bytes, constants live in a pool, reductions left in the
// closed form are loops (LoopInit/LoopNext jump within the same code), so evaluation is
// one switch per instruction with no allocation (the stack lives on the C++ stack when the
// program is small, which every closed form we have seen is).
//
// Semantics follow the emitted C++ (compiler/emit/emit_cpp.cpp): Pamela's mod has floor
// semantics, div is floor(a / b), comparisons give 1 or 0, an empty max/min reduction gives
// -inf/+inf, and a reduction index runs lb, lb + 1, ... while <= ub. Where the model has no
// value the result is NaN: a loop bound that is not an integer, a resource position that is
// not a nonnegative integer (below 2^31).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pamc::eval {

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
  Gcd,       // x y -> gcd(x, y) >= 0 for integers (below 2^53), else NaN (no value)
  Eq, Ne, Lt, Le,
  Max,       // pop a values, push the largest
  Min,
  // lb ub -> acc. locals[a] = lb, locals[a + 1] = ub; acc = 0 / -inf / +inf (kind); when
  // lb > ub jumps to b (just past the matching LoopNext).
  LoopInit,
  // acc v -> acc'. Combines v into acc (kind); locals[a] += 1; jumps to b (the body's
  // first instruction) while locals[a] <= locals[a + 1].
  LoopNext,
  // Resource vectors (vmax(sum ... c * unitvec(k))): an accumulator array per vector slot.
  VecNew,    // clear vector slot a
  VecAdd,    // pos v -> . vectors[a][pos] += v (NaN-poisons slot a if pos is not a position)
  VecMax,    // push the largest of elements 0 .. the highest nonzero one (0 for none)
  // lb ub -> . locals[a] = lb, locals[a + 1] = ub; jumps to b when lb > ub. A loop that
  // adds into vector slot `kind` and keeps no accumulator on the stack.
  VLoopInit,
  VLoopNext,  // locals[a] += 1; jumps to b while locals[a] <= locals[a + 1]
  // Fused by the peephole pass (fuse() in compile.cpp), for the inner loops of open forms:
  AddLocals,  // push locals[a] + locals[b]
  ModConst,   // x -> x mod consts[a]; b > 0: divisors[b - 1] holds its reciprocal (see Divisor)
  VecAddConst,  // pos -> . vectors[a][pos] += consts[b]
  VecAddMod,    // x -> . vectors[kind][x mod divisors[a].d] += consts[b]
};

constexpr std::uint8_t kEmptyIsZero = 0x10;

struct Instr {
  Op op;
  std::uint8_t kind = 0;  // loops: 0 sum, 1 max, 2 min; | kEmptyIsZero: a par's max (0 when empty)
  std::uint32_t a = 0;
  std::uint32_t b = 0;
};

// A constant divisor d (an integer, 1 <= d < 2^31) with its 64-bit reciprocal
// m = floor((2^64 - 1) / d) + 1: then for every integer 0 <= x < 2^32,
// x mod d = ((m * x mod 2^64) * d) >> 64 (Lemire, Kaser and Kurz, "Faster remainder by
// direct computation", 2019), two multiplications instead of a division.
struct Divisor {
  std::uint64_t m;
  std::uint32_t d;
};

// A budget on the loop steps of one evaluation, checked ahead of the work: a loop whose body
// does not read its own index costs the same steps every iteration, so once its first
// iteration has run, the steps of the whole loop are known (sum (i = 1, 10^17) { d } is
// refused after one iteration, not after the budget is spent). Past `max`, `over` is called
// with the steps the evaluation would take at least (it throws).
struct StepLimit {
  long long max = 0;
  std::function<void(long long)> over;
};

struct Program {
  std::vector<Instr> code;
  std::vector<double> consts;
  std::vector<Divisor> divisors;  // for ModConst
  std::uint32_t max_stack = 0;
  std::uint32_t locals = 0;
  std::uint32_t vectors = 0;  // vector slots (resource vectors left open)

  double run(const double* args) const;
  // The same, and whether every value on the way was an integer of magnitude <= 2^53, so
  // that the result is exact (pamc eval's answer for large open loops); NaN wherever the
  // model has no value (an empty max or min reduction included, which run() gives as
  // -inf/+inf).
  // `tick`, when set, is called every 2^20 loop steps with the steps so far (a progress
  // line; it may throw to stop the run).
  double run_tracked(const double* args, bool& exact, const std::function<void(long long)>& tick = {}) const;
  // run_tracked's value (NaN wherever the model has no value) without the exactness, and
  // without allocating for small programs: the simulator's per-event expressions. `tick`
  // as in run_tracked (the simulator's budget on loop steps).
  // `limit`, when set, refuses ahead a loop that will pass it (StepLimit).
  double run_checked(const double* args, const std::function<void(long long)>* tick = nullptr,
                     const StepLimit* limit = nullptr) const;

  // n points at once: cols[k][j] is argument k at point j, out[j] the value. A program
  // without loops or vectors (every closed form) runs one instruction over all n points
  // at a time (a column stack: the switch is paid once per instruction, not per point);
  // others run point by point. Values are run()'s, bit for bit.
  void run_batch(const double* const* cols, std::size_t n, double* out) const;
  // No loops and no resource vectors: run_batch's column path applies, and nothing in
  // the program can hide a missing value. Set once by compile_expression.
  bool straight() const { return straight_; }
  bool straight_ = true;
  // By loop slot (LoopInit's a): 1 where the body does not read the loop's index, so every
  // iteration runs the same instructions (StepLimit). Set by compile_expression.
  std::vector<std::uint8_t> same_cost;
};

}  // namespace pamc::eval
