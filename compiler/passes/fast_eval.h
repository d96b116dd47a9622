// A compiled double-precision evaluator for closed-form cost expressions (`pamc sweep`).
//
// The exact evaluator (compiler/symbolic/evaluate.h) walks the GiNaC tree with rational
// arithmetic: right for `pamc eval`, far too slow for millions of points. FastExpr compiles
// an expression once into a flat tape of register instructions over doubles (parameters in
// the first registers, constants folded into registers at compile time) and evaluates it
// with one switch per instruction: tens of millions of points per second.
//
// Only scalar closed forms compile: a residual reduction, a vector (unitvec) or a function
// it does not know makes compile() return nullopt, and the caller falls back to the exact
// evaluator. Semantics are the exact evaluator's in IEEE doubles (floor/ceil/mod/div as in
// Pamela, comparisons 1 or 0); a division by zero gives inf/nan, which callers treat as
// "re-evaluate exactly to get the error".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ginac/ginac.h>

namespace pamc {

class FastExpr {
public:
  // vars[i] is read from the i-th double passed to eval(). Any other symbol in e makes
  // compilation fail (bind it first).
  static std::optional<FastExpr> compile(const GiNaC::ex& e, const std::vector<GiNaC::symbol>& vars,
                                         std::string* why_not = nullptr);

  // Not thread-safe (evaluates in place in its registers).
  double eval(const double* vars) const;
  // n <= kBatch points at once: vars[v][j] is variable v at point j; out[j] the value.
  // One pass over the tape per batch, each instruction a tight loop over the points.
  static constexpr std::size_t kBatch = 512;
  void eval_batch(const double* const* vars, std::size_t n, double* out) const;

  std::size_t instructions() const { return tape_.size(); }

  enum class Op : std::uint8_t {
    Add, Mul, Recip, Square, PowInt, Pow, Max, Min, Floor, Ceil, Mod, Div,
    Eq, Ne, Lt, Le, Log2, Log, Exp, Abs, Sin, Cos, Tan, Atan
  };
  struct Instr {
    Op op;
    std::uint32_t dst, a, b;
    long k;  // PowInt exponent
  };

private:
  static void apply(const Instr& in, double* regs);
  std::size_t nvars_ = 0;
  std::uint32_t result_ = 0;
  std::vector<Instr> tape_;
  mutable std::vector<double> regs_;
  mutable std::vector<double> batch_;  // registers x kBatch, constants broadcast
};

}  // namespace pamc
