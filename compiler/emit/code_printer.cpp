#include "compiler/emit/code_printer.h"
#include "compiler/symbolic/class_test.h"

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <optional>

#include "compiler/diag/diag.h"
#include "compiler/symbolic/symbolic.h"

using pamc::sym::is_class;

namespace pamc::emit {

std::string shortest(double d) {
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream s;
    s.precision(precision);
    s << d;
    if (std::strtod(s.str().c_str(), nullptr) == d) return s.str();
  }
  std::ostringstream s;
  s.precision(17);
  s << d;
  return s.str();
}

using GiNaC::ex;

std::string identifier(const std::string& raw, const std::set<std::string>& reserved) {
  // Keep [A-Za-z0-9_], collapse runs of '_' (a double underscore is reserved in C++), drop
  // leading underscores (_Capital is reserved too), never start with a digit.
  std::string s;
  for (char c : raw) {
    char k = (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (k == '_' && (s.empty() || s.back() == '_')) continue;
    s += k;
  }
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "m_" + s;
  if (reserved.count(s)) s += "_";
  return s;
}

bool NameTable::taken(const std::string& n) const {
  return used_.count(n) || reserved_.count(n) || (also_reserved_ && also_reserved_(n));
}

std::string NameTable::make(const std::string& raw) {
  std::string base = identifier(raw, reserved_);
  if (also_reserved_ && also_reserved_(base)) base = "m_" + base;  // e.g. a macro family: M_PI -> m_M_PI
  std::string n = base;
  const std::string sep = base.back() == '_' ? "" : "_";
  for (int k = 2; taken(n); ++k) n = base + sep + std::to_string(k);
  used_.insert(n);
  return n;
}

[[noreturn]] static void cannot_emit(const std::string& what) {
  throw CompileError{Diagnostic{Severity::Error, DiagKind::CannotEmit, Loc{}, "cannot emit code: " + what, {}}};
}

std::string CodePrinter::print(const ex& e) {
  using namespace GiNaC;
  if (is_class<numeric>(e)) {
    const numeric& x = ex_to<numeric>(e);
    if (!x.is_real()) cannot_emit("a complex number");
    return number(x);
  }
  if (is_class<symbol>(e)) {
    auto it = bound_.find(e);
    if (it == bound_.end()) cannot_emit("the unbound name '" + ex_to<symbol>(e).get_name() + "'");
    return it->second;
  }
  if (is_class<add>(e)) return print_add(e);
  if (is_class<mul>(e)) return print_mul(e);
  if (is_class<GiNaC::power>(e)) {
    ex exponent = e.op(1);
    if (exponent == GiNaC::numeric(1, 2)) return sqrt(print(e.op(0)));
    if (exponent == GiNaC::numeric(-1)) return quotient(number(1), print(e.op(0)));
    return power(print(e.op(0)), print(exponent));
  }
  if (sym::is_extremum(e)) {
    std::vector<std::string> args;
    for (std::size_t i = 0; i < e.nops(); ++i) args.push_back(print(e.op(i)));
    return extremum(sym::is_max(e), args);
  }
  if (sym::is_reduction(e)) return print_reduction(e);
  if (is_class<function>(e)) return print_function(e);
  cannot_emit("an expression of an unsupported kind");
}

// Runs `body` with r's index bound to a fresh name (returned in `i`), then restores what
// the index was bound to before (an outer loop's index of the same symbol).
std::string CodePrinter::in_scope(const sym::reduction& r, std::string& i, const std::function<std::string()>& body) {
  const ex index = r.index_ex();
  i = names_.make(r.index().get_name());
  auto previous = bound_.find(index);
  std::optional<std::string> saved;
  if (previous != bound_.end()) saved = previous->second;
  bound_[index] = i;
  std::string out = body();
  if (saved) bound_[index] = *saved;
  else bound_.erase(index);
  names_.release(i);
  return out;
}

std::string CodePrinter::print_reduction(const ex& e) {
  const sym::reduction& r = sym::as_reduction(e);
  std::string lb = print(r.lb()), ub = print(r.ub()), i;
  std::string body = in_scope(r, i, [&] { return print(r.body()); });
  return reduction(static_cast<int>(r.kind()), r.empty_is_zero(), i, lb, ub, body);
}

std::string CodePrinter::vector_add(const std::string&, const std::string&) {
  cannot_emit("a vector-valued expression (this target has no vectors)");
}
std::string CodePrinter::vector_loop(const std::string&, const std::string&, const std::string&, const std::string&) {
  cannot_emit("a vector-valued expression (this target has no vectors)");
}
std::string CodePrinter::vector_max(const std::string&, const std::vector<std::string>&) {
  cannot_emit("a vector-valued expression (this target has no vectors)");
}

std::string CodePrinter::print_vector_max(const ex& v) {
  if (!sym::is_vector_valued(v)) return print(v);  // a scalar s is the vector [s]
  std::vector<std::string> free;
  for (const auto& [symbol, name] : bound_)
    if (v.has(symbol)) free.push_back(name);
  return vector_max(vector_statements(v.expand(), 1), free);
}

// Statements adding scale * v into the accumulator: a sum term by term, a product's scalar
// factors into the scale, unitvec(k) at position k, a sum reduction as a loop.
std::string CodePrinter::vector_statements(const ex& v, const ex& scale) {
  using namespace GiNaC;
  if (is_class<add>(v)) {
    std::string out;
    for (std::size_t i = 0; i < v.nops(); ++i) out += vector_statements(v.op(i), scale);
    return out;
  }
  if (is_class<mul>(v)) {
    ex vec, s = scale;
    for (std::size_t i = 0; i < v.nops(); ++i) {
      if (sym::is_vector_valued(v.op(i))) {
        if (!vec.is_zero()) cannot_emit("a product of two vectors");
        vec = v.op(i);
      } else {
        s *= v.op(i);
      }
    }
    if (vec.is_zero()) return vector_add(number(0), print(s));
    return vector_statements(vec, s);
  }
  if (sym::pamela_function(v) == sym::Fn::Unitvec) return vector_add(print(v.op(0)), print(scale));
  if (sym::is_reduction(v)) {
    const sym::reduction& r = sym::as_reduction(v);
    if (r.kind() != sym::ReduceKind::Sum) cannot_emit("a max or min of vectors");
    std::string lb = print(r.lb()), ub = print(r.ub()), i;
    std::string body = in_scope(r, i, [&] { return vector_statements(r.body().expand(), scale); });
    return vector_loop(i, lb, ub, body);
  }
  if (!sym::is_vector_valued(v)) return vector_add(number(0), print(scale * v));
  cannot_emit("a vector expression of an unsupported kind");
}

std::string CodePrinter::print_add(const ex& e) {
  std::string out = "(";
  for (std::size_t i = 0; i < e.nops(); ++i) out += (i ? " + " : "") + print(e.op(i));
  return out + ")";
}

// Factors with negative integer exponents go to a denominator: a*b^-1 prints as a/b.
std::string CodePrinter::print_mul(const ex& e) {
  using namespace GiNaC;
  std::vector<std::string> num, den;
  for (std::size_t i = 0; i < e.nops(); ++i) {
    ex f = e.op(i);
    if (is_class<GiNaC::power>(f) && is_class<numeric>(f.op(1)) && ex_to<numeric>(f.op(1)).is_integer() &&
        ex_to<numeric>(f.op(1)).is_negative()) {
      den.push_back(print(GiNaC::pow(f.op(0), -f.op(1))));
    } else {
      num.push_back(print(f));
    }
  }
  std::string n = num.empty() ? number(1) : num.size() == 1 ? num[0] : product(num);
  if (den.empty()) return num.size() == 1 ? "(" + n + ")" : n;
  return quotient(n, den.size() == 1 ? den[0] : product(den));
}

std::string CodePrinter::print_function(const ex& e) {
  using sym::Fn;
  auto arg = [&](std::size_t i) { return print(e.op(i)); };
  switch (sym::pamela_function(e)) {
    case Fn::Floor:
    case Fn::Ceil: {
      // floor(N / 3 - 2/3) as floor((N - 2) / 3): one rounding (the quotient), which cannot
      // cross an integer for integer operands below 2^53; N * 0.333.. - 0.666.. can (0.99..
      // at N = 5). As the compiled program does (evaluate/compile.cpp).
      const char* name = sym::pamela_function(e) == Fn::Floor ? "floor" : "ceil";
      auto q = sym::as_quotient(e.op(0));
      if (!q) return call(name, {arg(0)});
      return call(name, {quotient(print(q->first), print(q->second))});
    }
    case Fn::Log2: return call("log2", {arg(0)});
    case Fn::Gcd: return call("gcd", {arg(0), arg(1)});
    case Fn::Mod: return mod(arg(0), arg(1));
    case Fn::Div: return idiv(arg(0), arg(1));
    case Fn::Eq: return compare("==", arg(0), arg(1));
    case Fn::Ne: return compare("!=", arg(0), arg(1));
    case Fn::Lt: return compare("<", arg(0), arg(1));
    case Fn::Le: return compare("<=", arg(0), arg(1));
    case Fn::VectorMax: return print_vector_max(e.op(0));
    case Fn::Unitvec: cannot_emit("a vector-valued expression (only scalar equations can be emitted)");
    case Fn::None: break;
  }
  std::string fname = GiNaC::ex_to<GiNaC::function>(e).get_name();
  // Cost expressions are real: GiNaC writes abs(x)^2 as x * conjugate(x).
  if ((fname == "conjugate" || fname == "real_part") && e.nops() == 1) return print(e.op(0));
  if ((fname == "abs" || fname == "log" || fname == "exp") && e.nops() == 1) return call(fname, {arg(0)});
  cannot_emit("the function '" + fname + "'");
}

}  // namespace pamc::emit
