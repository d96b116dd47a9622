// Numeric expressions of the simulator: AST -> closures (see sim_expr.h).
#include "runtime/sim_expr.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

namespace pamc {

static std::string loc_prefix(const Loc& loc) {
  if (!loc.valid()) return {};
  return loc.file->path + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": ";
}

SimError::SimError(Loc loc, DiagKind kind, const std::string& message)
    : std::runtime_error(loc_prefix(loc) + message) {
  diag.severity = Severity::Error;
  diag.kind = kind;
  diag.loc = loc;
  diag.message = message;
}

namespace sim {

void fail(const Loc& loc, DiagKind kind, const std::string& message) {
  throw SimError(loc, kind, message);
}

std::string fmt_num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  return s;
}

std::int64_t integer_bound(double v, const Loc& loc, const char* what) {
  if (!std::isfinite(v)) fail(loc, DiagKind::EvaluationError, std::string(what) + " is " + fmt_num(v));
  double r = std::nearbyint(v);
  if (std::fabs(v - r) > 1e-9 * std::max(1.0, std::fabs(v)))
    fail(loc, DiagKind::EvaluationError,
         std::string(what) + " is " + fmt_num(v) + ", not an integer (loop bounds must be integers)");
  if (std::fabs(r) > 9.0e18) fail(loc, DiagKind::EvaluationError, std::string(what) + " is out of range");
  return static_cast<std::int64_t>(r);
}

namespace {

using F1 = double (*)(double);
using F2 = double (*)(double, double);

struct VNode {
  virtual ~VNode() = default;
  virtual void eval(const Frame* env, std::vector<double>& out) const = 0;
};

// A compiled operand: scalar or vector; `need` = how many enclosing frames it reads.
struct C {
  bool vec = false;
  Scalar s;
  const VNode* v = nullptr;
  int need = 0;
};

double truth(double c, const Loc& loc) {
  if (!(c >= 0 && c <= 1))
    fail(loc, DiagKind::EvaluationError,
         "condition is " + fmt_num(c) + ", not a truth value in [0, 1]");
  return c;
}

// ---- scalar closures
struct SIndex : SNode {
  int hops;
  explicit SIndex(int h) : hops(h) {}
  double eval(const Frame* env) const override {
    for (int h = hops; h > 0; --h) env = env->up;
    return env->value;
  }
};
struct SIndex0 : SNode {
  double eval(const Frame* env) const override { return env->value; }
};
struct SUn : SNode {
  Scalar x;
  F1 f;
  SUn(Scalar x_, F1 f_) : x(x_), f(f_) {}
  double eval(const Frame* env) const override { return f(x(env)); }
};
struct SBin : SNode {
  Scalar x, y;
  F2 f;
  SBin(Scalar x_, Scalar y_, F2 f_) : x(x_), y(y_), f(f_) {}
  double eval(const Frame* env) const override { return f(x(env), y(env)); }
};
struct SNary : SNode {
  std::vector<Scalar> xs;
  bool is_max;
  double eval(const Frame* env) const override {
    double r = xs[0](env);
    for (std::size_t i = 1; i < xs.size(); ++i) {
      double v = xs[i](env);
      r = is_max ? std::max(r, v) : std::min(r, v);
    }
    return r;
  }
};
struct SIf : SNode {
  Scalar c, a, b;
  Loc loc;
  double eval(const Frame* env) const override {
    double p = truth(c(env), loc);
    if (p == 1) return a(env);
    if (p == 0) return b(env);
    return p * a(env) + (1 - p) * b(env);
  }
};
struct SReduce : SNode {
  ast::Op op;
  Scalar lb, ub, body;
  Loc loc;
  double eval(const Frame* env) const override {
    std::int64_t l = integer_bound(lb(env), loc, "the lower bound");
    std::int64_t u = integer_bound(ub(env), loc, "the upper bound");
    if (l > u) {
      if (op == ast::Op::Sum) return 0;
      fail(loc, DiagKind::EvaluationError,
           std::string(ast::op_spelling(op)) + " over an empty range (" + std::to_string(l) + " > " +
               std::to_string(u) + ")");
    }
    Frame f{0, env};
    double r = 0;
    for (std::int64_t i = l; i <= u; ++i) {
      f.value = static_cast<double>(i);
      double v = body(&f);
      if (op == ast::Op::Sum) r += v;
      else if (i == l) r = v;
      else r = op == ast::Op::Max ? std::max(r, v) : std::min(r, v);
    }
    return r;
  }
};
struct SVecExtreme : SNode {  // max(v) / min(v) of one vector
  const VNode* v;
  bool is_max;
  Loc loc;
  double eval(const Frame* env) const override {
    std::vector<double> xs;
    v->eval(env, xs);
    if (xs.empty()) fail(loc, DiagKind::EvaluationError, "max/min of an empty vector");
    return is_max ? *std::max_element(xs.begin(), xs.end()) : *std::min_element(xs.begin(), xs.end());
  }
};

// ---- vector closures (rare in process bodies: only inside max(v) and friends)
struct VConst : VNode {
  std::vector<double> xs;
  void eval(const Frame*, std::vector<double>& out) const override { out = xs; }
};
struct VLit : VNode {
  std::vector<Scalar> xs;
  void eval(const Frame* env, std::vector<double>& out) const override {
    out.resize(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) out[i] = xs[i](env);
  }
};
struct VUnit : VNode {
  Scalar k;
  Loc loc;
  void eval(const Frame* env, std::vector<double>& out) const override {
    std::int64_t i = integer_bound(k(env), loc, "the unitvec index");
    if (i < 0 || i > 100000000)
      fail(loc, DiagKind::EvaluationError, "unitvec index " + std::to_string(i) + " out of range");
    out.assign(static_cast<std::size_t>(i) + 1, 0.0);
    out.back() = 1;
  }
};
// Elementwise combination of operands, scalars broadcast, vectors padded with zeros.
struct VMap : VNode {
  std::vector<C> xs;
  std::function<double(const double*)> f;  // gets one value per operand
  void eval(const Frame* env, std::vector<double>& out) const override {
    std::vector<std::vector<double>> vals(xs.size());
    std::vector<double> sc(xs.size());
    std::size_t n = 0;
    for (std::size_t j = 0; j < xs.size(); ++j) {
      if (xs[j].vec) {
        xs[j].v->eval(env, vals[j]);
        n = std::max(n, vals[j].size());
      } else {
        sc[j] = xs[j].s(env);
      }
    }
    out.assign(n, 0.0);
    std::vector<double> args(xs.size());
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < xs.size(); ++j)
        args[j] = xs[j].vec ? (i < vals[j].size() ? vals[j][i] : 0.0) : sc[j];
      out[i] = f(args.data());
    }
  }
};
struct VIf : VNode {
  Scalar c;
  C a, b;
  Loc loc;
  void eval(const Frame* env, std::vector<double>& out) const override {
    double p = truth(c(env), loc);
    std::vector<double> va, vb;
    auto get = [&](const C& x, std::vector<double>& v) {
      if (x.vec) x.v->eval(env, v);
      else v.assign(1, x.s(env));  // a scalar branch of a vector if: element 0
    };
    if (p == 1) return get(a, out);
    if (p == 0) return get(b, out);
    get(a, va);
    get(b, vb);
    out.assign(std::max(va.size(), vb.size()), 0.0);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = p * (i < va.size() ? va[i] : 0) + (1 - p) * (i < vb.size() ? vb[i] : 0);
  }
};
struct VReduce : VNode {
  ast::Op op;
  Scalar lb, ub;
  C body;  // vector
  Loc loc;
  void eval(const Frame* env, std::vector<double>& out) const override {
    std::int64_t l = integer_bound(lb(env), loc, "the lower bound");
    std::int64_t u = integer_bound(ub(env), loc, "the upper bound");
    out.clear();
    if (l > u) {
      if (op == ast::Op::Sum) return;
      fail(loc, DiagKind::EvaluationError, std::string(ast::op_spelling(op)) + " over an empty range");
    }
    Frame f{0, env};
    std::vector<double> v;
    for (std::int64_t i = l; i <= u; ++i) {
      f.value = static_cast<double>(i);
      body.v->eval(&f, v);
      if (v.size() > out.size()) out.resize(v.size(), 0.0);
      for (std::size_t j = 0; j < out.size(); ++j) {
        double x = j < v.size() ? v[j] : 0.0;
        if (op == ast::Op::Sum || i == l) out[j] = (op == ast::Op::Sum ? out[j] : 0) + x;
        else out[j] = op == ast::Op::Max ? std::max(out[j], x) : std::min(out[j], x);
      }
    }
  }
};

double op_add(double a, double b) { return a + b; }
double op_sub(double a, double b) { return a - b; }
double op_mul(double a, double b) { return a * b; }
double op_div(double a, double b) { return a / b; }
double op_pow(double a, double b) { return std::pow(a, b); }
double op_mod(double a, double b) { return a - b * std::floor(a / b); }
double op_idiv(double a, double b) { return std::floor(a / b); }
double op_eq(double a, double b) { return a == b ? 1 : 0; }
double op_ne(double a, double b) { return a != b ? 1 : 0; }
double op_lt(double a, double b) { return a < b ? 1 : 0; }
double op_le(double a, double b) { return a <= b ? 1 : 0; }
double op_gt(double a, double b) { return a > b ? 1 : 0; }
double op_ge(double a, double b) { return a >= b ? 1 : 0; }
double op_and(double a, double b) { return a * b; }
double op_or(double a, double b) { return a + b - a * b; }
double op_neg(double a) { return -a; }
double op_not(double a) { return 1 - a; }
double fn_sqrt(double a) { return std::sqrt(a); }
double fn_log(double a) { return std::log(a); }
double fn_log2(double a) { return std::log2(a); }
double fn_exp(double a) { return std::exp(a); }
double fn_ceil(double a) { return std::ceil(a); }
double fn_floor(double a) { return std::floor(a); }
double fn_abs(double a) { return std::fabs(a); }

F2 binary_fn(ast::Op op) {
  switch (op) {
    case ast::Op::Add: return op_add;
    case ast::Op::Sub: return op_sub;
    case ast::Op::Mul: return op_mul;
    case ast::Op::Div: return op_div;
    case ast::Op::Pow: return op_pow;
    case ast::Op::Mod: return op_mod;
    case ast::Op::IDiv: return op_idiv;
    case ast::Op::Eq: return op_eq;
    case ast::Op::Ne: return op_ne;
    case ast::Op::Lt: return op_lt;
    case ast::Op::Le: return op_le;
    case ast::Op::Gt: return op_gt;
    case ast::Op::Ge: return op_ge;
    case ast::Op::And: return op_and;
    case ast::Op::Or: return op_or;
    default: return nullptr;
  }
}

F1 function_fn(const std::string& name) {
  if (name == "sqrt") return fn_sqrt;
  if (name == "log") return fn_log;
  if (name == "log2") return fn_log2;
  if (name == "exp") return fn_exp;
  if (name == "ceil") return fn_ceil;
  if (name == "floor") return fn_floor;
  if (name == "abs") return fn_abs;
  return nullptr;
}

}  // namespace

struct ExprCompiler::Impl {
  ExprCompiler& self;
  std::vector<std::unique_ptr<SNode>> snodes;
  std::vector<std::unique_ptr<VNode>> vnodes;

  explicit Impl(ExprCompiler& s) : self(s) {}

  template <class T>
  T* snew(T* p) {
    snodes.emplace_back(p);
    return p;
  }
  template <class T>
  T* vnew(T* p) {
    vnodes.emplace_back(p);
    return p;
  }

  // Folds what reads no frame.
  C scalar_c(SNode* n, int need) {
    C c;
    c.need = need;
    if (need <= 0) {
      try {
        c.s.k = n->eval(nullptr);
        c.need = 0;
        return c;
      } catch (const SimError&) {
        // e.g. max over an empty range in a branch that may never run: keep it lazy
      }
    }
    c.s.node = n;
    return c;
  }
  C vector_c(VNode* n, int need) {
    C c;
    c.vec = true;
    c.need = need;
    if (need <= 0) {
      try {
        auto* k = vnew(new VConst);
        n->eval(nullptr, k->xs);
        c.v = k;
        c.need = 0;
        return c;
      } catch (const SimError&) {
      }
    }
    c.v = n;
    return c;
  }
  C konst(double v) {
    C c;
    c.s.k = v;
    return c;
  }

  Scalar need_scalar(const C& c, const Loc& loc, const char* what) {
    if (c.vec) fail(loc, DiagKind::TypeMismatch, std::string("a vector where a scalar is needed (") + what + ")");
    return c.s;
  }

  C elementwise(std::vector<C> xs, std::function<double(const double*)> f) {
    int need = 0;
    for (auto& x : xs) need = std::max(need, x.need);
    auto* m = vnew(new VMap);
    m->xs = std::move(xs);
    m->f = std::move(f);
    return vector_c(m, need);
  }

  C compile(const ast::NodeP& e) {
    using ast::Kind;
    switch (e->kind) {
      case Kind::Number: {
        const char* s = e->text.c_str();
        char* end = nullptr;
        double v = std::strtod(s, &end);
        if (end == s || *end != '\0')
          fail(e->loc, DiagKind::EvaluationError, "cannot read the number '" + e->text + "'");
        return konst(v);
      }
      case Kind::Name: {
        auto& scope = self.scope_;
        for (std::size_t i = scope.size(); i-- > 0;) {
          if (scope[i] == e->name) {
            int hops = static_cast<int>(scope.size() - 1 - i);
            SNode* n = hops == 0 ? static_cast<SNode*>(snew(new SIndex0)) : snew(new SIndex(hops));
            C c;
            c.s.node = n;
            c.need = hops + 1;
            return c;
          }
        }
        auto it = self.params_.find(e->name);
        if (it != self.params_.end()) return konst(it->second);
        fail(e->loc, DiagKind::UnboundParameter,
             "no value for '" + e->name + "' (bind the parameter with -D " + e->name + "=VALUE)");
      }
      case Kind::Group:
        return compile(e->kids.at(0));
      case Kind::Unary: {
        C x = compile(e->kids.at(0));
        F1 f = e->op == ast::Op::Neg ? op_neg : op_not;
        if (x.vec) return elementwise({x}, [f](const double* a) { return f(a[0]); });
        return scalar_c(snew(new SUn(x.s, f)), x.need);
      }
      case Kind::Binary: {
        C x = compile(e->kids.at(0));
        C y = compile(e->kids.at(1));
        F2 f = binary_fn(e->op);
        if (!f) fail(e->loc, DiagKind::EvaluationError, "unsupported operator in a numeric expression");
        if (x.vec || y.vec) return elementwise({x, y}, [f](const double* a) { return f(a[0], a[1]); });
        return scalar_c(snew(new SBin(x.s, y.s, f)), std::max(x.need, y.need));
      }
      case Kind::IfExpr: {
        C c = compile(e->kids.at(0));
        Scalar cs = need_scalar(c, e->loc, "a condition");
        C a = compile(e->kids.at(1));
        C b = compile(e->kids.at(2));
        int need = std::max({c.need, a.need, b.need});
        if (a.vec || b.vec) {
          auto* n = vnew(new VIf);
          n->c = cs;
          n->a = a;
          n->b = b;
          n->loc = e->loc;
          return vector_c(n, need);
        }
        auto* n = snew(new SIf);
        n->c = cs;
        n->a = a.s;
        n->b = b.s;
        n->loc = e->loc;
        return scalar_c(n, need);
      }
      case Kind::Reduce: {
        C lb = compile(e->kids.at(0));
        C ub = compile(e->kids.at(1));
        Scalar l = need_scalar(lb, e->loc, "a bound");
        Scalar u = need_scalar(ub, e->loc, "a bound");
        self.push_index(e->name);
        C body = compile(e->kids.at(2));
        self.pop_index();
        int need = std::max({lb.need, ub.need, body.need - 1});
        if (body.vec) {
          auto* n = vnew(new VReduce);
          n->op = e->op;
          n->lb = l;
          n->ub = u;
          n->body = body;
          n->loc = e->loc;
          return vector_c(n, need);
        }
        auto* n = snew(new SReduce);
        n->op = e->op;
        n->lb = l;
        n->ub = u;
        n->body = body.s;
        n->loc = e->loc;
        return scalar_c(n, need);
      }
      case Kind::Vector: {
        auto* n = vnew(new VLit);
        int need = 0;
        for (auto& k : e->kids) {
          C x = compile(k);
          n->xs.push_back(need_scalar(x, k->loc, "a vector element"));
          need = std::max(need, x.need);
        }
        return vector_c(n, need);
      }
      case Kind::Call:
        return call(e);
      default:
        fail(e->loc, DiagKind::TypeMismatch, "a process where a numeric expression is needed");
    }
  }

  C call(const ast::NodeP& e) {
    const std::string& name = e->name;
    std::vector<C> args;
    for (auto& k : e->kids) args.push_back(compile(k));
    int need = 0;
    bool any_vec = false;
    for (auto& a : args) {
      need = std::max(need, a.need);
      any_vec = any_vec || a.vec;
    }
    if (name == "max" || name == "min") {
      bool is_max = name == "max";
      if (args.empty()) fail(e->loc, DiagKind::ArityMismatch, name + " needs at least one argument");
      if (args.size() == 1) {
        if (!args[0].vec) return args[0];
        auto* n = snew(new SVecExtreme);
        n->v = args[0].v;
        n->is_max = is_max;
        n->loc = e->loc;
        return scalar_c(n, need);
      }
      if (any_vec) {
        std::size_t k = args.size();
        return elementwise(std::move(args), [k, is_max](const double* a) {
          double r = a[0];
          for (std::size_t i = 1; i < k; ++i) r = is_max ? std::max(r, a[i]) : std::min(r, a[i]);
          return r;
        });
      }
      auto* n = snew(new SNary);
      n->is_max = is_max;
      for (auto& a : args) n->xs.push_back(a.s);
      return scalar_c(n, need);
    }
    if (name == "unitvec") {
      if (args.size() != 1) fail(e->loc, DiagKind::ArityMismatch, "unitvec takes one argument");
      auto* n = vnew(new VUnit);
      n->k = need_scalar(args[0], e->loc, "the unitvec index");
      n->loc = e->loc;
      return vector_c(n, need);
    }
    if (F1 f = function_fn(name)) {
      if (args.size() != 1) fail(e->loc, DiagKind::ArityMismatch, name + " takes one argument");
      if (args[0].vec) return elementwise(std::move(args), [f](const double* a) { return f(a[0]); });
      return scalar_c(snew(new SUn(args[0].s, f)), need);
    }
    if (name == "fcfs")
      fail(e->loc, DiagKind::TypeMismatch, "a resource where a numeric expression is needed");
    fail(e->loc, DiagKind::UndefinedName,
         "'" + name + "' is not a builtin function (the model must be normalized)");
  }
};

ExprCompiler::ExprCompiler(std::map<std::string, double> params)
    : params_(std::move(params)), impl_(std::make_unique<Impl>(*this)) {}
ExprCompiler::~ExprCompiler() = default;

Scalar ExprCompiler::scalar(const ast::NodeP& e, const char* what) {
  C c = impl_->compile(e);
  return impl_->need_scalar(c, e->loc, what);
}

}  // namespace sim

double sim_eval(const ast::NodeP& expr, const std::map<std::string, double>& params) {
  sim::ExprCompiler ec(params);
  sim::Scalar s = ec.scalar(expr, "the value");
  return s(nullptr);
}

}  // namespace pamc
