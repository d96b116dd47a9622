// Internal to the simulator: numeric expressions compiled once into the evaluation room's
// program (compiler/evaluate/program.h), through the same lowering as `pamc eval`, so that
// simulate and eval agree on every operator (mod and div with floor semantics, vectors,
// reductions as compiled loops).
//
// Loop indices of the enclosing processes (seq and par) live in a chain of Frames; a
// compiled expression reads as many frames up as the deepest index it uses. Parameters
// are fixed at compile time, and an expression that reads no frame is evaluated then, so
// a typical time expression (`10`, `t_s * N`) costs nothing at run time.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "runtime/simulate.h"

namespace pamc::sim {

struct Frame {
  double value;
  const Frame* up;
};

struct SNode {  // a scalar closure
  virtual ~SNode() = default;
  virtual double eval(const Frame* env) const = 0;
};

// A compiled scalar: a constant, or a closure over the frames.
struct Scalar {
  const SNode* node = nullptr;
  double k = 0;
  int frames = 0;  // how many frames up it reads (0: a constant)
  double operator()(const Frame* env) const { return node ? node->eval(env) : k; }
  bool is_const() const { return node == nullptr; }
};

class ExprCompiler {
 public:
  // `params`: values of the numeric parameters (a Name that is neither a parameter nor a
  // loop index in scope is an UnboundParameter error).
  explicit ExprCompiler(std::map<std::string, double> params);
  ~ExprCompiler();
  ExprCompiler(const ExprCompiler&) = delete;
  ExprCompiler& operator=(const ExprCompiler&) = delete;

  // Loop indices in scope, innermost last (the process compiler pushes them).
  void push_index(const std::string& name) { scope_.push_back(name); }
  void pop_index() { scope_.pop_back(); }

  // Compiles a scalar expression; `what` says what it is for in errors ("a delay time").
  Scalar scalar(const ast::NodeP& e, const char* what);

  // The loop steps one evaluation of an expression may take (sum (i = 1, 1e18) { i } would
  // run for years): past it, a located WorkLimit. 0: no limit. simulate sets a hundredth
  // of --max-events.
  void set_max_loop_steps(std::uint64_t n) { max_loop_steps_ = n; }

  struct Impl;

 private:
  std::map<std::string, double> params_;
  std::vector<std::string> scope_;
  std::uint64_t max_loop_steps_ = 10000000ULL;  // as simulate's default (a hundredth of 10^9 events)
  std::unique_ptr<Impl> impl_;
};

// A time written with no loop index once lowered (`delay(N - 5)`; not `delay(i - i + 1)`,
// nor a time with a sum inside), the indices in scope being `scope`: its value at `params`
// and its text. nullopt where it reads an index, or has no value here (the simulation
// reports that when it reaches it). The evaluators check such times at every point.
struct IndexFreeTime {
  double value;
  std::string text;
};
std::optional<IndexFreeTime> index_free_time(const ast::NodeP& e, const std::vector<std::string>& scope,
                                             const std::map<std::string, double>& params);

// Checks that a loop bound is an integer (within 1e-9 relative) and returns it.
std::int64_t integer_bound(double v, const Loc& loc, const char* what);

[[noreturn]] void fail(const Loc& loc, DiagKind kind, const std::string& message);
std::string fmt_num(double v);  // shortest round-trip text; whole numbers in full (100000)

}  // namespace pamc::sim
