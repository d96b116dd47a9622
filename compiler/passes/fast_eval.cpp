#include "compiler/passes/fast_eval.h"
#include "compiler/symbolic/class_test.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "compiler/symbolic/symbolic.h"

using pamc::sym::is_class;

namespace pamc {
namespace {

using GiNaC::ex;
using Op = FastExpr::Op;

struct NotCompilable {
  std::string why;
};

struct Compiler {
  std::vector<FastExpr::Instr> tape;
  std::vector<double> regs;
  std::map<GiNaC::symbol, std::uint32_t, GiNaC::ex_is_less> var_slot;
  std::map<double, std::uint32_t> const_slot;

  std::uint32_t constant(double v) {
    auto it = const_slot.find(v);
    if (it != const_slot.end()) return it->second;
    regs.push_back(v);
    auto slot = static_cast<std::uint32_t>(regs.size() - 1);
    const_slot.emplace(v, slot);
    return slot;
  }
  std::uint32_t emit(Op op, std::uint32_t a, std::uint32_t b = 0, long k = 0) {
    regs.push_back(0);
    auto dst = static_cast<std::uint32_t>(regs.size() - 1);
    tape.push_back({op, dst, a, b, k});
    return dst;
  }
  std::uint32_t fold(Op op, const ex& e) {
    std::uint32_t r = go(e.op(0));
    for (std::size_t i = 1; i < e.nops(); ++i) r = emit(op, r, go(e.op(i)));
    return r;
  }

  std::uint32_t go(const ex& e) {
    using namespace GiNaC;
    if (is_class<numeric>(e)) {
      const numeric& n = ex_to<numeric>(e);
      if (!n.is_real()) throw NotCompilable{"a complex number"};
      return constant(n.to_double());
    }
    if (is_class<symbol>(e)) {
      auto it = var_slot.find(ex_to<symbol>(e));
      if (it == var_slot.end()) throw NotCompilable{"unbound symbol " + ex_to<symbol>(e).get_name()};
      return it->second;
    }
    if (is_class<GiNaC::constant>(e)) {
      ex v = e.evalf();
      if (!is_class<numeric>(v)) throw NotCompilable{"a constant without a value"};
      return constant(ex_to<numeric>(v).to_double());
    }
    if (is_class<add>(e)) return fold(Op::Add, e);
    if (is_class<mul>(e)) return fold(Op::Mul, e);
    if (is_class<power>(e)) {
      std::uint32_t base = go(e.op(0));
      if (is_class<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_integer()) {
        const numeric& n = ex_to<numeric>(e.op(1));
        if (n == -1) return emit(Op::Recip, base);
        if (n == 2) return emit(Op::Square, base);
        if (n == -2) return emit(Op::Recip, emit(Op::Square, base));
        if (n.is_pos_integer() && n <= 64) return emit(Op::PowInt, base, 0, n.to_long());
      }
      return emit(Op::Pow, base, go(e.op(1)));
    }
    if (sym::is_extremum(e)) return fold(sym::is_max(e) ? Op::Max : Op::Min, e);
    if (sym::is_reduction(e)) throw NotCompilable{"a residual reduction"};
    switch (sym::pamela_function(e)) {
      case sym::Fn::Floor: return emit(Op::Floor, go(e.op(0)));
      case sym::Fn::Ceil: return emit(Op::Ceil, go(e.op(0)));
      case sym::Fn::Mod: return emit(Op::Mod, go(e.op(0)), go(e.op(1)));
      case sym::Fn::Div: return emit(Op::Div, go(e.op(0)), go(e.op(1)));
      case sym::Fn::Eq: return emit(Op::Eq, go(e.op(0)), go(e.op(1)));
      case sym::Fn::Ne: return emit(Op::Ne, go(e.op(0)), go(e.op(1)));
      case sym::Fn::Lt: return emit(Op::Lt, go(e.op(0)), go(e.op(1)));
      case sym::Fn::Le: return emit(Op::Le, go(e.op(0)), go(e.op(1)));
      case sym::Fn::Log2: return emit(Op::Log2, go(e.op(0)));
      case sym::Fn::Unitvec:
      case sym::Fn::VectorMax: throw NotCompilable{"a vector"};
      case sym::Fn::None: break;
    }
    if (is_class<function>(e) && e.nops() == 1) {
      static const std::map<std::string, Op> known{{"log", Op::Log}, {"exp", Op::Exp}, {"abs", Op::Abs},
                                                   {"sin", Op::Sin}, {"cos", Op::Cos}, {"tan", Op::Tan},
                                                   {"atan", Op::Atan}};
      auto it = known.find(ex_to<function>(e).get_name());
      if (it != known.end()) return emit(it->second, go(e.op(0)));
    }
    throw NotCompilable{"cannot compile " + sym::to_pamela(e)};
  }
};

inline double floor_div(double a, double b) { return std::floor(a / b); }

}  // namespace

std::optional<FastExpr> FastExpr::compile(const GiNaC::ex& e, const std::vector<GiNaC::symbol>& vars,
                                          std::string* why_not) {
  Compiler c;
  for (const GiNaC::symbol& v : vars) {
    c.regs.push_back(0);
    c.var_slot.emplace(v, static_cast<std::uint32_t>(c.regs.size() - 1));
  }
  FastExpr f;
  try {
    f.result_ = c.go(e);
  } catch (const NotCompilable& n) {
    if (why_not) *why_not = n.why;
    return std::nullopt;
  }
  f.nvars_ = vars.size();
  f.tape_ = std::move(c.tape);
  f.regs_ = std::move(c.regs);
  f.batch_.resize(f.regs_.size() * kBatch);
  for (std::size_t r = 0; r < f.regs_.size(); ++r)
    std::fill(f.batch_.begin() + r * kBatch, f.batch_.begin() + (r + 1) * kBatch, f.regs_[r]);
  return f;
}

void FastExpr::apply(const Instr& in, double* r) {
  double a = r[in.a], b = r[in.b];
  double& d = r[in.dst];
  switch (in.op) {
    case Op::Add: d = a + b; break;
    case Op::Mul: d = a * b; break;
    case Op::Recip: d = 1.0 / a; break;
    case Op::Square: d = a * a; break;
    case Op::PowInt: {
      double x = 1;
      for (long k = 0; k < in.k; ++k) x *= a;
      d = x;
      break;
    }
    case Op::Pow: d = std::pow(a, b); break;
    case Op::Max: d = a < b ? b : a; break;
    case Op::Min: d = b < a ? b : a; break;
    case Op::Floor: d = std::floor(a); break;
    case Op::Ceil: d = std::ceil(a); break;
    case Op::Mod: d = b == 0 ? NAN : a - b * floor_div(a, b); break;
    case Op::Div: d = b == 0 ? NAN : floor_div(a, b); break;
    case Op::Eq: d = a == b; break;
    case Op::Ne: d = a != b; break;
    case Op::Lt: d = a < b; break;
    case Op::Le: d = a <= b; break;
    case Op::Log2: d = a > 0 ? std::log2(a) : NAN; break;
    case Op::Log: d = a > 0 ? std::log(a) : NAN; break;
    case Op::Exp: d = std::exp(a); break;
    case Op::Abs: d = std::fabs(a); break;
    case Op::Sin: d = std::sin(a); break;
    case Op::Cos: d = std::cos(a); break;
    case Op::Tan: d = std::tan(a); break;
    case Op::Atan: d = std::atan(a); break;
  }
}

double FastExpr::eval(const double* vars) const {
  double* r = regs_.data();
  for (std::size_t i = 0; i < nvars_; ++i) r[i] = vars[i];
  for (const Instr& in : tape_) apply(in, r);
  return r[result_];
}

void FastExpr::eval_batch(const double* const* vars, std::size_t n, double* out) const {
  double* R = batch_.data();
  for (std::size_t v = 0; v < nvars_; ++v) std::copy(vars[v], vars[v] + n, R + v * kBatch);
  for (const Instr& in : tape_) {
    const double* A = R + in.a * kBatch;
    const double* B = R + in.b * kBatch;
    double* D = R + in.dst * kBatch;
    switch (in.op) {
      case Op::Add: for (std::size_t j = 0; j < n; ++j) D[j] = A[j] + B[j]; break;
      case Op::Mul: for (std::size_t j = 0; j < n; ++j) D[j] = A[j] * B[j]; break;
      case Op::Square: for (std::size_t j = 0; j < n; ++j) D[j] = A[j] * A[j]; break;
      case Op::Recip: for (std::size_t j = 0; j < n; ++j) D[j] = 1.0 / A[j]; break;
      case Op::Max: for (std::size_t j = 0; j < n; ++j) D[j] = A[j] < B[j] ? B[j] : A[j]; break;
      case Op::Min: for (std::size_t j = 0; j < n; ++j) D[j] = B[j] < A[j] ? B[j] : A[j]; break;
      default: {
        // The rest, one point at a time with the scalar semantics.
        Instr one{in.op, 2, 0, 1, in.k};
        double t[3];
        for (std::size_t j = 0; j < n; ++j) {
          t[0] = A[j];
          t[1] = B[j];
          apply(one, t);
          D[j] = t[2];
        }
      }
    }
  }
  std::copy(R + result_ * kBatch, R + result_ * kBatch + n, out);
}

}  // namespace pamc
