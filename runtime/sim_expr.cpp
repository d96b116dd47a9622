// Numeric expressions of the simulator: AST -> the evaluation room's program (see sim_expr.h).
#include "runtime/sim_expr.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "compiler/evaluate/compile.h"
#include "compiler/passes/lower.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/symbolic.h"

namespace pamc {

namespace sim {

void fail(const Loc& loc, DiagKind kind, const std::string& message) {
  throw SimError(loc, kind, message);
}

std::string fmt_num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  // A whole number in full, as pamc eval prints it (100000, not 1e+05).
  if (std::fabs(v) < 1e16 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  return s;
}

std::int64_t integer_bound(double v, const Loc& loc, const char* what) {
  if (!std::isfinite(v)) fail(loc, DiagKind::NonIntegerBound, std::string(what) + " is " + fmt_num(v));
  double r = std::nearbyint(v);
  if (std::fabs(v - r) > 1e-9 * std::max(1.0, std::fabs(v)))
    fail(loc, DiagKind::NonIntegerBound,
         std::string(what) + " is " + fmt_num(v) + ", not an integer (loop bounds must be integers)");
  if (std::fabs(r) > 9.0e18) fail(loc, DiagKind::ValueTooLarge, std::string(what) + " is out of range");
  return static_cast<std::int64_t>(r);
}

namespace {

// An expression whose folding at these parameter values failed (a division by zero, a
// function outside its domain): the error, when the simulation reaches it.
struct SFailure : SNode {
  explicit SFailure(CompileError e) : error(std::move(e)) {}
  CompileError error;
  double eval(const Frame*) const override { throw error; }
};

// A compiled scalar: the evaluation room's program over the parameters (values fixed at
// compile time) and the loop indices in scope (read from the frames at run time).
struct SProgram : SNode {
  eval::Program program;
  std::vector<double> base;  // parameter values, then one slot per index in scope
  std::size_t params = 0;    // how many of base's slots are parameters
  int need = 0;              // frames read, innermost first (the last slots)
  Loc loc;
  std::string what;
  std::optional<CompileError> folding;  // why folding the parameters' values in failed, if it did
  // Called every 2^20 loop steps of a looping program: stops it past the limit.
  std::function<void(long long)> tick;
  eval::StepLimit ahead;  // the same budget, refused as soon as a loop shows it will pass it
  double eval(const Frame* env) const override {
    constexpr std::size_t kSmall = 32;
    double small[kSmall];
    std::vector<double> big;
    double* args = small;
    if (base.size() > kSmall) {
      big.resize(base.size());
      args = big.data();
    }
    // Parameters without an exact value are read from base; the index slots the program
    // reads are the last `need` ones, filled from the frames (the others it never reads).
    std::copy(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(params), args);
    for (int h = 0; h < need; ++h, env = env->up) args[base.size() - 1 - h] = env->value;
    double v = program.straight() ? program.run(args) : program.run_checked(args, tick ? &tick : nullptr, ahead.max ? &ahead : nullptr);
    if (!std::isfinite(v) && folding) throw *folding;  // the reason, where it is known
    // The program gives NaN where the model has no value; an infinity is a finite value
    // past a double's range (2 ^ 10000), which the model has but no simulation can run.
    if (std::isinf(v))
      fail(loc, DiagKind::ValueTooLarge, what + " is " + fmt_num(v) + " here, past the range of the simulator's numbers");
    if (!std::isfinite(v))
      fail(loc, DiagKind::EvaluationError,
           what + " has no value here (" + fmt_num(v) +
               ": a division by zero, a loop bound that is not an integer, or a max/min over an empty range)");
    return v;
  }
};

// Names the model text uses: each must be a loop index in scope or a parameter with a
// value (the lowering would only say "not a parameter or loop index").
// The model is a DAG (normalization shares an equation's body among its uses): a node is
// checked once per scope it is seen in (`seen`), not once per path to it.
using Checked = std::set<std::pair<const ast::Node*, std::vector<std::string>>>;
void check_names(const ast::NodeP& e, std::vector<std::string>& scope, const std::map<std::string, double>& params,
                 Checked& seen) {
  if (!e->kids.empty() && !seen.emplace(e.get(), scope).second) return;
  if (e->kind == ast::Kind::Name) {
    if (std::find(scope.begin(), scope.end(), e->name) == scope.end() && !params.count(e->name))
      fail(e->loc, DiagKind::UnboundParameter,
           "no value for '" + e->name + "' (bind the parameter with -D " + e->name + "=VALUE)");
    return;
  }
  if (e->kind == ast::Kind::Reduce) {
    check_names(e->kids.at(0), scope, params, seen);
    check_names(e->kids.at(1), scope, params, seen);
    scope.push_back(e->name);
    check_names(e->kids.at(2), scope, params, seen);
    scope.pop_back();
    return;
  }
  if (e->kind == ast::Kind::Call && e->name == "fcfs")
    fail(e->loc, DiagKind::TypeMismatch, "a resource where a numeric expression is needed");
  for (const ast::NodeP& k : e->kids)
    if (k) check_names(k, scope, params, seen);
}

// x written out as a tree: a shared node counted once per use, each computed once (linear
// in the DAG), saturating far above any limit. The compiled program writes x out so. The
// memo holds each node: a sum's op() builds its terms afresh, and a freed term's address
// would be taken by the next.
using WrittenMemo = std::unordered_map<const GiNaC::basic*, std::pair<GiNaC::ex, double>>;
double written_nodes(const GiNaC::ex& x, WrittenMemo& size) {
  auto [it, fresh] = size.try_emplace(&GiNaC::ex_to<GiNaC::basic>(x), x, 1.0);
  if (!fresh) return it->second.second;
  double n = 1;
  for (std::size_t k = 0; k < x.nops(); ++k) n = std::min(1e18, n + written_nodes(x.op(k), size));
  size.at(&GiNaC::ex_to<GiNaC::basic>(x)).second = n;
  return n;
}

// As lowering refuses an equation past it (compiler/passes/lower.cpp): half a million nodes,
// here only where sharing makes it (more than 8 times the distinct nodes): a long vector
// literal is as large written out as it is held, and the simulator takes it in linear time.
constexpr double kMaxWrittenNodes = 5e5;
constexpr double kMaxWrittenPerNode = 8;

}  // namespace

// A parameter's value as an exact number: the shortest decimal that reads back as the same
// double (0.1 is 1/10, as in the model text), so that constant parts fold exactly, as in
// `pamc eval`. nullopt for a value no decimal holds (inf, NaN).
std::optional<GiNaC::numeric> exact_value(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  GiNaC::numeric x;
  if (!parse_exact_number(std::string(buf, res.ptr), x)) return std::nullopt;
  return v < 0 ? -x : x;
}

struct ExprCompiler::Impl {
  std::vector<std::unique_ptr<SNode>> nodes;
  std::map<std::string, GiNaC::ex> param_values;  // exact, or a symbol read from base
  std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less> param_slots;
  std::vector<double> param_base;
};

ExprCompiler::ExprCompiler(std::map<std::string, double> params)
    : params_(std::move(params)), impl_(std::make_unique<Impl>()) {
  for (const auto& [name, value] : params_) {
    if (auto x = exact_value(value)) {
      impl_->param_values[name] = *x;
    } else {
      GiNaC::symbol s(name);
      impl_->param_values[name] = s;
      impl_->param_slots[s] = static_cast<unsigned>(impl_->param_base.size());
      impl_->param_base.push_back(value);
    }
  }
}
ExprCompiler::~ExprCompiler() = default;

// The expression as pamc eval sees it (lower_numeric: the same lowering, with the
// parameters' values substituted exactly, so simulate and eval agree on every operator),
// compiled once into a program over the loop indices in scope; what reads no index is
// evaluated here, once.
Scalar ExprCompiler::scalar(const ast::NodeP& e, const char* what) {
  {
    std::vector<std::string> scope = scope_;
    Checked seen;
    check_names(e, scope, params_, seen);
  }
  // Names and argument slots: the parameters (each an exact value, or a symbol read from
  // an argument where `symbolic` or no decimal holds it), then one symbol per index in scope,
  // outermost first; an inner index hides an outer one.
  std::map<std::string, GiNaC::ex> names;
  std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less> slots;
  std::vector<double> base;
  std::size_t param_slots = 0;
  std::vector<GiNaC::symbol> index_symbols;
  auto bind = [&](bool symbolic) {
    names = impl_->param_values;
    slots = impl_->param_slots;
    base = impl_->param_base;
    if (symbolic)
      for (const auto& [name, value] : params_)
        if (!GiNaC::is_a<GiNaC::symbol>(names[name])) {
          GiNaC::symbol s(name);
          names[name] = s;
          slots[s] = static_cast<unsigned>(base.size());
          base.push_back(value);
        }
    param_slots = base.size();
    index_symbols.clear();
    for (const std::string& name : scope_) {
      index_symbols.emplace_back(name);
      names[name] = index_symbols.back();
      slots[index_symbols.back()] = static_cast<unsigned>(base.size());
      base.push_back(0.0);
    }
  };
  bind(false);
  GiNaC::ex x;
  // Where folding the values in fails (`1 / (N - 3)` at N = 3, or `N * log2(N)` at N = 0),
  // the error, kept for when the simulation reaches the expression: whether the point has a
  // value depends on that (a loop never entered, a branch not taken: docs/semantics.md).
  std::optional<CompileError> folding;
  try {
    x = lower_numeric(e, names);
  } catch (const CompileError& err) {
    const DiagKind k = err.diag.kind;
    if (k != DiagKind::DivisionByZero && k != DiagKind::DomainError && k != DiagKind::ValueTooLarge) throw;
    folding = err;
    // Folded exactly, a factor without a value fails before the zero beside it is seen (a
    // product with a zero factor is zero): lowered over the parameters as symbols, the
    // program follows the evaluators' rule.
    bind(true);
    try {
      x = lower_numeric(e, names);
    } catch (const CompileError&) {
      auto node = std::make_unique<SFailure>(err);
      Scalar out;
      out.node = node.get();
      impl_->nodes.push_back(std::move(node));
      return out;
    }
  }
  // A definition used twice per line (d1 = sum (i = 1, d0) { d0 + 1 }, d2 = ...) doubles
  // the program per line: 24 lines took 15 s and 2.9 GB before the step budget stopped it.
  {
    WrittenMemo size;
    double n = written_nodes(x, size);
    if (n > kMaxWrittenNodes && n > kMaxWrittenPerNode * static_cast<double>(size.size())) {
      char count[32];
      std::snprintf(count, sizeof count, "%.2g", n);
      fail(e->loc, DiagKind::ModelTooLarge,
           std::string(what) + ": written out, its expression has about " + count +
               " nodes (more than 500,000): it uses a definition that holds a loop several times, and each line "
               "that does so doubles it (d1 = sum (i = 1, d0) { d0 + 1 }, d2 = sum (i = 1, d1) { d1 + 1 }, ...); "
               "write the repetition as a loop");
    }
  }
  if (sym::is_vector_valued(x))
    fail(e->loc, DiagKind::TypeMismatch, std::string("a vector where a scalar is needed (") + what + ")");
  auto node = std::make_unique<SProgram>();
  try {
    node->program = eval::compile_expression(x, slots);
  } catch (const eval::CompileFailure& failure) {
    fail(e->loc, DiagKind::CannotEmit, "cannot simulate " + std::string(what) + ": " + failure.message);
  }
  node->params = param_slots;
  node->base = std::move(base);
  node->folding = folding;
  node->loc = e->loc;
  node->what = what;
  if (max_loop_steps_ && !node->program.straight()) {
    const std::uint64_t limit = max_loop_steps_;
    SProgram* self = node.get();
    self->tick = [self, limit](long long done) {
      if (static_cast<std::uint64_t>(done) > limit)
        fail(self->loc, DiagKind::WorkLimit,
             self->what + ": its evaluation stopped after " + std::to_string(done) +
                 " loop steps (a hundredth of the --max-events limit; raise it to simulate further)");
    };
    self->ahead.max = static_cast<long long>(std::min<std::uint64_t>(limit, 9000000000000000000ULL));
    self->ahead.over = [self, limit](long long need) {
      fail(self->loc, DiagKind::WorkLimit,
           self->what + ": its evaluation would take at least " + fmt_num(static_cast<double>(need)) +
               " loop steps, more than " + std::to_string(limit) +
               " (a hundredth of the --max-events limit; raise it to simulate further)");
    };
  }
  for (std::size_t i = 0; i < index_symbols.size(); ++i)
    if (x.has(index_symbols[i])) {
      node->need = static_cast<int>(index_symbols.size() - i);
      break;
    }
  Scalar out;
  if (node->need == 0) {
    try {
      out.k = node->eval(nullptr);
      return out;
    } catch (const SimError&) {
      // e.g. a max over an empty range in a branch that may never run: evaluated when it does
      if (folding) {
        auto failure = std::make_unique<SFailure>(*folding);
        out.node = failure.get();
        impl_->nodes.push_back(std::move(failure));
        return out;
      }
    }
  }
  out.node = node.get();
  out.frames = node->need;
  impl_->nodes.push_back(std::move(node));
  return out;
}

std::optional<IndexFreeTime> index_free_time(const ast::NodeP& e, const std::vector<std::string>& scope,
                                             const std::map<std::string, double>& params) {
  std::map<std::string, GiNaC::ex> names;
  GiNaC::exmap env;
  for (const auto& [name, value] : params) {
    GiNaC::symbol s(name);
    names[name] = s;
    if (auto x = exact_value(value)) env[s] = *x;
  }
  for (const std::string& name : scope) names[name] = GiNaC::symbol(name);  // an inner index hides
  GiNaC::ex x;
  try {
    x = lower_numeric(e, names);
  } catch (const CompileError&) {
    return std::nullopt;  // e.g. a name without a value: the simulation says so
  }
  // Any symbol that is not a parameter with a value is an index: of the loops in scope, or
  // of a reduction inside the time. The lowered time is a DAG: each shared node is looked at
  // once, and its size written out is counted, as lowering counts it (a time past 500,000
  // nodes written out is a model pamc eval refuses: left to the simulation).
  std::map<const GiNaC::basic*, double> size;
  bool indexed = false;
  std::function<double(const GiNaC::ex&)> written = [&](const GiNaC::ex& y) {
    auto [it, fresh] = size.emplace(&GiNaC::ex_to<GiNaC::basic>(y), 1.0);
    if (!fresh) return it->second;
    if (GiNaC::is_a<GiNaC::symbol>(y) && !env.count(y)) indexed = true;
    double n = 1;
    for (std::size_t k = 0; k < y.nops() && !indexed; ++k) n += written(y.op(k));
    size[&GiNaC::ex_to<GiNaC::basic>(y)] = n;
    return n;
  };
  if (written(x) > 5e5 || indexed) return std::nullopt;
  // Its value through the compiled program (a product with a zero factor is zero, as in
  // every evaluator); a time that needs more than about 10^6 loop steps, as pamc eval leaves
  // one, is left to the simulation.
  std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less> slots;
  std::vector<double> args;
  for (const auto& [name, value] : params) {
    slots[names[name]] = static_cast<unsigned>(args.size());
    args.push_back(value);
  }
  struct TooLong {};
  const std::function<void(long long)> tick = [](long long) { throw TooLong{}; };
  double v;
  try {
    v = eval::compile_expression(x, slots).run_checked(args.empty() ? nullptr : args.data(), &tick);
  } catch (const eval::CompileFailure&) {
    return std::nullopt;
  } catch (const TooLong&) {
    return std::nullopt;
  }
  if (!std::isfinite(v)) return std::nullopt;
  return IndexFreeTime{v, sym::to_pamela(x)};
}

}  // namespace sim

double sim_eval(const ast::NodeP& expr, const std::map<std::string, double>& params) {
  sim::ExprCompiler ec(params);
  sim::Scalar s = ec.scalar(expr, "the value");
  return s(nullptr);
}

}  // namespace pamc
