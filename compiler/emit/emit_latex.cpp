// The LaTeX emitter: the cost model as amsmath equations for a paper or a notebook. Model
// names become symbols (T_main as T_{\mathrm{main}}, t_s as t_{s}, a longer name upright
// or italic as a word), max and min as \max and \min, floor and ceil as \lfloor \rfloor and
// \lceil \rceil, mod as \bmod, div as the floor of a fraction, a quotient as \frac, a
// comparison as an Iverson bracket [a < b] (1 where it holds, else 0, as Pamela counts),
// a reduction left open as \sum or \max under its range, a resource vector's position k
// as the unit vector \mathbf{e}_{k}. Operands of sums, products and extrema are ordered by
// their printed text, as the Pamela printer orders them (never by GiNaC's order).
#include <algorithm>
#include <sstream>
#include <tuple>

#include "compiler/emit/emit.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/symbolic.h"

namespace pamc::emit {
namespace {

using GiNaC::ex;
using sym::is_class;

enum Prec { kAdd = 1, kMul = 2, kPow = 3, kAtom = 4 };

struct Tex {
  std::string s;
  int prec;
};

const std::set<std::string>& greek() {
  static const std::set<std::string> letters{"alpha", "beta",  "gamma", "delta", "epsilon", "zeta",  "eta",
                                             "theta", "kappa", "lambda", "mu",   "nu",      "xi",    "pi",
                                             "rho",   "sigma", "tau",   "phi",   "chi",     "psi",   "omega",
                                             "Gamma", "Delta", "Theta", "Lambda", "Xi",     "Pi",    "Sigma",
                                             "Phi",   "Psi",   "Omega"};
  return letters;
}

std::string escape_word(const std::string& w) {
  std::string out;
  for (char c : w) out += c == '_' ? std::string("\\_") : std::string(1, c);
  return out;
}

std::string word(const std::string& w) {
  if (w.size() == 1) return w;
  if (greek().count(w)) return "\\" + w;
  return "\\mathit{" + escape_word(w) + "}";
}

std::string wrap(const Tex& t, int prec) { return t.prec < prec ? "\\left(" + t.s + "\\right)" : t.s; }

class LatexPrinter {
 public:
  // A parameter's or loop index's name: its base, and what follows the first '_' as a
  // subscript (upright when it is a word). A region counter keeps its dotted name.
  static std::string name(const std::string& n) {
    if (n.find('.') != std::string::npos) return "\\mathrm{" + escape_word(n) + "}";
    std::size_t u = n.find('_');
    if (u == std::string::npos || u == 0 || u + 1 == n.size()) return word(n);
    std::string sub = n.substr(u + 1);
    return word(n.substr(0, u)) + "_{" + (sub.size() == 1 ? sub : "\\mathrm{" + escape_word(sub) + "}") + "}";
  }

  Tex print(const ex& e) {
    if (is_class<GiNaC::numeric>(e)) return number(GiNaC::ex_to<GiNaC::numeric>(e));
    if (is_class<GiNaC::symbol>(e)) return {name(GiNaC::ex_to<GiNaC::symbol>(e).get_name()), kAtom};
    if (is_class<GiNaC::add>(e)) return add(e);
    if (is_class<GiNaC::mul>(e)) return mul(e);
    if (is_class<GiNaC::power>(e)) return power(e);
    if (sym::is_extremum(e)) {
      std::vector<std::string> args;
      for (std::size_t i = 0; i < e.nops(); ++i) args.push_back(print(e.op(i)).s);
      std::sort(args.begin(), args.end());
      std::string out = sym::is_max(e) ? "\\max\\left(" : "\\min\\left(";
      for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
      return {out + "\\right)", kAtom};
    }
    if (sym::is_reduction(e)) return reduction(e);
    return function(e);
  }

 private:
  static Tex number(const GiNaC::numeric& x) {
    std::string t = sym::number_to_pamela(x);
    bool neg = !t.empty() && t[0] == '-';
    std::string body = neg ? t.substr(1) : t;
    int prec = kAtom;
    if (auto slash = body.find('/'); slash != std::string::npos) {
      body = "\\frac{" + body.substr(0, slash) + "}{" + body.substr(slash + 1) + "}";
    } else if (auto e = body.find_first_of("eE"); e != std::string::npos) {
      std::string exponent = body.substr(e + 1);
      if (!exponent.empty() && exponent[0] == '+') exponent.erase(0, 1);
      while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
      if (exponent.size() > 2 && exponent[0] == '-' && exponent[1] == '0') exponent.erase(1, 1);
      body = body.substr(0, e) + " \\times 10^{" + exponent + "}";
      prec = kMul;
    }
    if (neg) return {"-" + body, kAdd};
    return {body, prec};
  }

  static bool negative(const ex& term) {
    if (is_class<GiNaC::numeric>(term)) return GiNaC::ex_to<GiNaC::numeric>(term).is_negative();
    if (is_class<GiNaC::mul>(term)) {
      for (std::size_t i = 0; i < term.nops(); ++i)
        if (is_class<GiNaC::numeric>(term.op(i))) return GiNaC::ex_to<GiNaC::numeric>(term.op(i)).is_negative();
    }
    return false;
  }

  Tex add(const ex& e) {
    // (text, negative, is a number): numbers last, the rest by text.
    std::vector<std::tuple<bool, std::string, bool>> terms;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      bool neg = negative(e.op(i));
      Tex t = print(neg ? ex(-e.op(i)) : e.op(i));
      terms.emplace_back(is_class<GiNaC::numeric>(e.op(i)), wrap(t, kAdd + 1), neg);
    }
    std::sort(terms.begin(), terms.end());
    std::string out;
    for (const auto& term : terms) {
      const std::string& text = std::get<1>(term);
      const bool neg = std::get<2>(term);
      if (out.empty()) out = neg ? "-" + text : text;
      else out += (neg ? " - " : " + ") + text;
    }
    return {out, kAdd};
  }

  Tex mul(const ex& e) {
    GiNaC::numeric c = 1;
    std::vector<std::string> num, den;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      const ex f = e.op(i);
      if (is_class<GiNaC::numeric>(f)) {
        c *= GiNaC::ex_to<GiNaC::numeric>(f);
      } else if (is_class<GiNaC::power>(f) && is_class<GiNaC::numeric>(f.op(1)) &&
                 GiNaC::ex_to<GiNaC::numeric>(f.op(1)).is_integer() && GiNaC::ex_to<GiNaC::numeric>(f.op(1)).is_negative()) {
        den.push_back(print(GiNaC::pow(f.op(0), -f.op(1))).s);  // a fraction groups its parts
      } else {
        num.push_back(wrap(print(f), kMul + 1));
      }
    }
    std::sort(num.begin(), num.end());
    std::sort(den.begin(), den.end());
    const bool neg = c.is_negative();
    c = abs(c);
    // A rational coefficient p/q: p joins the numerator, q the denominator (N P / 2).
    if (c.is_rational() && !c.is_integer() && !den.empty()) {
      if (c.numer() != 1) num.insert(num.begin(), number(c.numer()).s);
      den.insert(den.begin(), number(c.denom()).s);
    } else if (c != 1) {
      num.insert(num.begin(), wrap(number(c), kMul + 1));
    }
    auto join = [](const std::vector<std::string>& parts) {
      std::string out;
      for (const std::string& p : parts) out += (out.empty() ? "" : " \\cdot ") + p;
      return out;
    };
    std::string body = den.empty() ? join(num) : "\\frac{" + (num.empty() ? std::string("1") : join(num)) + "}{" + join(den) + "}";
    if (body.empty()) body = "1";
    if (neg) return {"-" + body, kAdd};
    return {body, den.empty() && num.size() <= 1 ? kAtom : kMul};
  }

  Tex power(const ex& e) {
    const ex b = e.op(0), x = e.op(1);
    if (x == GiNaC::numeric(1, 2)) return {"\\sqrt{" + print(b).s + "}", kAtom};
    if (is_class<GiNaC::numeric>(x) && GiNaC::ex_to<GiNaC::numeric>(x).is_integer() &&
        GiNaC::ex_to<GiNaC::numeric>(x).is_negative())
      return {"\\frac{1}{" + print(GiNaC::pow(b, -x)).s + "}", kAtom};
    Tex base = print(b);
    std::string bs = base.prec < kAtom || base.s.find('^') != std::string::npos ? "\\left(" + base.s + "\\right)" : base.s;
    return {bs + "^{" + print(x).s + "}", kPow};
  }

  Tex reduction(const ex& e) {
    const sym::reduction& r = sym::as_reduction(e);
    std::string i = name(r.index().get_name()), lb = print(r.lb()).s, ub = print(r.ub()).s;
    std::string body = wrap(print(r.body()), kMul);
    if (r.kind() == sym::ReduceKind::Sum) return {"\\sum_{" + i + " = " + lb + "}^{" + ub + "} " + body, kAdd};
    const char* op = r.kind() == sym::ReduceKind::Max ? "\\max" : "\\min";
    return {std::string(op) + "_{" + lb + " \\le " + i + " \\le " + ub + "} " + body, kAdd};
  }

  Tex floor_like(const ex& arg, const char* open, const char* close) {
    std::string inside;
    if (auto q = sym::as_quotient(arg)) inside = "\\frac{" + print(q->first).s + "}{" + print(q->second).s + "}";
    else inside = print(arg).s;
    return {std::string("\\left") + open + " " + inside + " \\right" + close, kAtom};
  }

  Tex function(const ex& e) {
    using sym::Fn;
    auto arg = [&](std::size_t k) { return print(e.op(k)); };
    auto compare = [&](const char* op) {
      return Tex{"\\left[" + arg(0).s + " " + op + " " + arg(1).s + "\\right]", kAtom};
    };
    switch (sym::pamela_function(e)) {
      case Fn::Floor: return floor_like(e.op(0), "\\lfloor", "\\rfloor");
      case Fn::Ceil: return floor_like(e.op(0), "\\lceil", "\\rceil");
      case Fn::Mod: return {wrap(arg(0), kPow) + " \\bmod " + wrap(arg(1), kPow), kMul};
      case Fn::Div: return {"\\left\\lfloor \\frac{" + arg(0).s + "}{" + arg(1).s + "} \\right\\rfloor", kAtom};
      case Fn::Eq: return compare("=");
      case Fn::Ne: return compare("\\neq");
      case Fn::Lt: return compare("<");
      case Fn::Le: return compare("\\leq");
      case Fn::Log2: return {"\\log_{2}\\left(" + arg(0).s + "\\right)", kAtom};
      case Fn::Gcd: return {"\\gcd\\left(" + arg(0).s + ", " + arg(1).s + "\\right)", kAtom};
      case Fn::Unitvec: return {"\\mathbf{e}_{" + arg(0).s + "}", kAtom};
      case Fn::VectorMax: return {"\\max\\left(" + arg(0).s + "\\right)", kAtom};
      case Fn::None: break;
    }
    if (!is_class<GiNaC::function>(e) || e.nops() != 1)
      throw CompileError{Diagnostic{Severity::Error, DiagKind::CannotEmit, Loc{}, "cannot emit LaTeX: an expression of an unsupported kind", {}}};
    const std::string f = GiNaC::ex_to<GiNaC::function>(e).get_name();
    if (f == "conjugate" || f == "real_part") return arg(0);  // cost expressions are real
    if (f == "abs") return {"\\left|" + arg(0).s + "\\right|", kAtom};
    if (f == "log") return {"\\ln\\left(" + arg(0).s + "\\right)", kAtom};
    if (f == "exp") return {"e^{" + arg(0).s + "}", kPow};
    throw CompileError{Diagnostic{Severity::Error, DiagKind::CannotEmit, Loc{}, "cannot emit LaTeX: the function '" + f + "'", {}}};
  }
};

std::string comment(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return "% " + s + "\n";
}

}  // namespace

std::string latex_name(const std::string& name) { return LatexPrinter::name(name); }

std::string emit_latex(const CostModel& model, bool all) {
  std::ostringstream out;
  out << comment(model.name + ".pam: the cost model, generated by pamc (amsmath; align* needs \\usepackage{amsmath})");
  std::string params;
  for (const CostParameter& p : model.parameters) {
    params += (params.empty() ? "" : ", ") + p.name;
    if (p.default_value) params += " = " + sym::to_pamela(*p.default_value);
  }
  if (!params.empty()) out << comment("parameters: " + params);
  if (!model.assumptions.from_model.empty()) {
    std::string f;
    for (const std::string& s : model.assumptions.from_model) f += (f.empty() ? "" : ", ") + s;
    out << comment("from the model: " + f);
  }
  for (const std::string& a : model.assumptions.items) out << comment("assumes " + a);
  LatexPrinter printer;
  auto equations = emitted_equations(model, all);
  out << "\\begin{align*}\n";
  for (std::size_t k = 0; k < equations.size(); ++k) {
    out << LatexPrinter::name(equations[k]->name) << " &= " << printer.print(equations[k]->value).s
        << (k + 1 < equations.size() ? " \\\\\n" : "\n");
  }
  out << "\\end{align*}\n";
  return out.str();
}

}  // namespace pamc::emit
