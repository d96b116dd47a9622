// The C++ emitter: a header that needs only <algorithm> and <cmath>, warning-free under
// -Wall -Wextra -Wpedantic -Werror (g++ and clang++).
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "compiler/emit/code_printer.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/emit/emit.h"
#include "compiler/symbolic/model_facts.h"
#include "compiler/symbolic/symbolic.h"

using pamc::sym::is_class;

namespace pamc::emit {
namespace {

const std::set<std::string>& cpp_reserved() {
  static const std::set<std::string> words{
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // names the header itself uses, and lower-case macros of common C/C++ platforms
      "std", "Results", "evaluate", "assumptions_hold", "in_domain", "detail", "acc", "v", "r", "no_value", "main", "linux", "unix", "i386", "errno", "assert",
      "alloca", "stdin", "stdout", "stderr", "offsetof", "setjmp", "va_arg", "va_start", "va_end", "va_copy",
      "math_errhandling", "issubnormal", "signbit", "isnan", "isinf", "isfinite", "isnormal", "fpclassify"};
  return words;
}

// Upper-case macros that <cmath>, <algorithm> or the platform may define: M_PI, FP_NAN,
// HUGE_VAL, INFINITY, EDOM, INT_MAX, ... (a macro would rewrite a name before C++ sees it).
bool cpp_macro_like(const std::string& n) {
  static const std::set<std::string> exact{"INFINITY", "NAN", "NULL", "EOF", "RAND_MAX", "MB_CUR_MAX", "MAXFLOAT",
                                           "BIG_ENDIAN", "LITTLE_ENDIAN", "PDP_ENDIAN", "BYTE_ORDER", "NFDBITS",
                                           "BUFSIZ", "FILENAME_MAX", "CHAR_BIT", "WCONTINUED", "WEXITED",
                                           "WEXITSTATUS", "WIFCONTINUED", "WIFEXITED", "WIFSIGNALED", "WIFSTOPPED",
                                           "WNOHANG", "WNOWAIT", "WSTOPPED", "WSTOPSIG", "WTERMSIG", "WUNTRACED",
                                           "min", "max", "TRUE", "FALSE", "DOMAIN", "OVERFLOW", "UNDERFLOW"};
  if (exact.count(n)) return true;
  static const char* prefixes[] = {"M_", "FP_", "HUGE_VAL", "SNAN", "EXIT_", "FD_", "MATH_ERR", "INT", "UINT",
                                   "LONG_", "ULONG_", "LLONG_", "ULLONG_", "SHRT_", "USHRT_", "SCHAR_", "UCHAR_",
                                   "CHAR_", "FLT_", "DBL_", "LDBL_", "SIZE_", "PTRDIFF_", "WCHAR_", "WINT_", "SIG",
                                   "htobe", "htole", "be16", "be32", "be64", "le16", "le32", "le64"};
  for (const char* p : prefixes)
    if (n.rfind(p, 0) == 0) return true;
  // errno codes: E followed by two or more capitals or digits (EDOM, ERANGE, EILSEQ, E2BIG)
  if (n.size() >= 3 && n[0] == 'E') {
    bool caps = true;
    for (char c : n.substr(1)) caps = caps && (std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)));
    if (caps) return true;
  }
  return false;
}


class CppPrinter : public CodePrinter {
 public:
  using CodePrinter::CodePrinter;
  // Whether the code printed since the last reset has a loop, which may set no_value.
  bool loops = false;

 protected:
  std::string number(const GiNaC::numeric& x) override {
    double d = x.to_double();
    if (std::isinf(d)) return d < 0 ? "(-HUGE_VAL)" : "HUGE_VAL";  // beyond double range
    std::string t = shortest(d);
    if (t.find_first_of(".eE") == std::string::npos) t += ".0";
    return d < 0 ? "(" + t + ")" : t;
  }
  std::string product(const std::vector<std::string>& fs) override {
    std::string out = "detail::mul({";
    for (std::size_t i = 0; i < fs.size(); ++i) out += (i ? ", " : "") + fs[i];
    return out + "})";
  }
  std::string quotient(const std::string& n, const std::string& d) override { return "detail::div(" + n + ", " + d + ")"; }
  std::string power(const std::string& b, const std::string& e) override { return "detail::pow(" + b + ", " + e + ")"; }
  std::string sqrt(const std::string& x) override { return "std::sqrt(" + x + ")"; }
  std::string call(const std::string& fn, const std::vector<std::string>& a) override {
    if (fn == "log" || fn == "log2") return "detail::" + fn + "(" + a[0] + ")";
    if (fn == "gcd") return "detail::gcd(" + a[0] + ", " + a[1] + ")";
    return "std::" + std::string(fn == "abs" ? "fabs" : fn) + "(" + a[0] + ")";
  }
  std::string mod(const std::string& a, const std::string& b) override { return "detail::mod(" + a + ", " + b + ")"; }
  std::string idiv(const std::string& a, const std::string& b) override { return "detail::idiv(" + a + ", " + b + ")"; }
  std::string compare(const std::string& op, const std::string& a, const std::string& b) override {
    static const std::map<std::string, std::string> fn{{"==", "eq"}, {"!=", "ne"}, {"<", "lt"}, {"<=", "le"}};
    return "detail::" + fn.at(op) + "(" + a + ", " + b + ")";
  }
  std::string extremum(bool is_max, const std::vector<std::string>& args) override {
    // (std::max) stays a call even where a platform header defines a max() macro.
    std::string out = std::string(is_max ? "detail::max" : "detail::min") + "({";
    for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + "})";
  }
  // A loop's bounds: lb_name and ub_name are fresh names, so that a parameter or an outer index
  // named like them (a parameter p_lb beside a loop over p) is not shadowed. A bound that is
  // not an integer, and a max or min over no terms, leave the whole point without a value
  // whatever multiplies them (pamc eval reports them where a zero factor covers a division
  // by zero): they set the function's no_value, and the function returns NaN. A bound
  // without a value (N / P at P = 0, log2(0)) is NaN as any other term.
  std::string bounds(const std::string& lb, const std::string& ub, const std::string& lb_name,
                     const std::string& ub_name) {
    loops = true;
    // An infinite bound (an overflow, log2(0)) has no value either; a bound past 2^53 could
    // not be counted in doubles (i += 1 stops moving) and is past every work limit.
    return "const double " + lb_name + " = " + lb + ", " + ub_name + " = " + ub + "; if (!std::isfinite(" + lb_name +
           ") || !std::isfinite(" + ub_name + ")) return std::nan(\"\"); if (!detail::is_integer(" + lb_name +
           ") || !detail::is_integer(" + ub_name + ") || std::fabs(" + lb_name + ") > 9.0e15 || std::fabs(" + ub_name +
           ") > 9.0e15) { no_value = true; return std::nan(\"\"); }";
  }
  std::string reduction(int kind, bool empty_is_zero, const std::string& i, const std::string& lb,
                        const std::string& ub, const std::string& body) override {
    // kind: 0 sum, 1 max, 2 min (sym::ReduceKind). An empty max/min has no value, a par's
    // max is 0 there (empty_is_zero); a NaN term is kept.
    const std::string i_lb = names_.make(i + "_lb"), i_ub = names_.make(i + "_ub"), any = names_.make(i + "_any");
    std::string init = kind == 0 ? "0.0" : kind == 1 ? "-HUGE_VAL" : "HUGE_VAL";
    std::string step = kind == 0 ? "acc += v;" : kind == 1 ? "acc = detail::max({acc, v});" : "acc = detail::min({acc, v});";
    std::string out = "[&]() { double acc = " + init + ";" + (kind != 0 ? " bool " + any + " = false; " : " ") +
                      bounds(lb, ub, i_lb, i_ub) + " for (double " + i + " = " + i_lb + "; " + i + " <= " + i_ub + "; " +
                      i + " += 1.0) { const double v = " + body + "; " + step + (kind != 0 ? " " + any + " = true;" : "") + " }";
    if (kind == 0) out += " return acc; }()";
    else if (empty_is_zero) out += " return " + any + " ? acc : 0.0; }()";
    else out += " if (!" + any + ") no_value = true; return " + any + " ? acc : std::nan(\"\"); }()";
    for (const std::string& n : {i_lb, i_ub, any}) names_.release(n);
    return out;
  }
  // Resource vectors: a dense std::vector<double> acc, grown as positions appear.
  std::string vector_add(const std::string& pos, const std::string& value) override {
    return " detail::vadd(acc, " + pos + ", " + value + ");";
  }
  std::string vector_loop(const std::string& i, const std::string& lb, const std::string& ub,
                          const std::string& body) override {
    const std::string i_lb = names_.make(i + "_lb"), i_ub = names_.make(i + "_ub");
    std::string out = " { " + bounds(lb, ub, i_lb, i_ub) + " for (double " + i + " = " + i_lb + "; " + i + " <= " +
                      i_ub + "; " + i + " += 1.0) {" + body + " } }";
    names_.release(i_lb);
    names_.release(i_ub);
    return out;
  }
  std::string vector_max(const std::string& statements, const std::vector<std::string>&) override {
    return "[&]() { std::vector<double> acc;" + statements + " return detail::vmax(acc); }()";
  }
};

}  // namespace

std::string emit_cpp(const CostModel& model, bool all) {
  // Names: the namespace, then the equations (they keep their names unless reserved), then
  // the parameters; all distinct, none reserved or macro-like.
  NameTable names(cpp_reserved(), cpp_macro_like);
  const std::string ns = names.make(model.name);
  auto equations = emitted_equations(model, all);
  std::vector<std::string> eq_names, param_names;
  for (const CostEquation* e : equations) eq_names.push_back(names.make(e->name));
  CppPrinter printer(names);
  for (const CostParameter& p : model.parameters) {
    param_names.push_back(names.make(p.name));
    printer.bind(p.symbol, param_names.back());
  }
  std::ostringstream out;
  // Model text reaches comments only through names (identifiers) and assumptions, which
  // are printed expressions: one line each, never a newline.
  auto comment = [](std::string s) {
    for (char& c : s)
      if (c == '\n' || c == '\r' || c == '\\') c = ' ';
    return s;
  };
  out << "// Generated by pamc from " << comment(model.name) << ".pam: the cost model as inline functions.\n"
      << "// Each function takes the model's parameters, in their order of declaration:\n//  ";
  for (std::size_t i = 0; i < model.parameters.size(); ++i)
    out << " " << param_names[i] << (param_names[i] == model.parameters[i].name ? "" : " (" + model.parameters[i].name + ")");
  if (model.parameters.empty()) out << " (none)";
  out << "\n";
  if (!model.assumptions.from_model.empty()) {
    out << "// from the model:";
    for (std::size_t i = 0; i < model.assumptions.from_model.size(); ++i)
      out << (i ? ", " : " ") << comment(model.assumptions.from_model[i]);
    out << "\n";
  }
  for (const std::string& a : sym::assumption_lines(model.assumptions)) out << "// assumes " << comment(a) << "\n";
  out << "#pragma once\n#include <algorithm>\n#include <cmath>\n#include <cstddef>\n#include <initializer_list>\n#include <vector>\n\nnamespace " << ns << " {\n\n"
      << "namespace detail {\n"
      << "// Pamela's mod: floor semantics, also for negative operands.\n"
      << "inline double mod(double a, double b) { return a - b * std::floor(a / b); }\n"
      << "inline bool is_integer(double x) { return std::isfinite(x) && std::floor(x) == x; }\n"
      << "// Products and quotients as pamc eval reads them: a zero factor makes a product 0 even\n"
      << "// where another factor has no value (a branch not taken); x / 0, 0 ^ -1 and log(0) have\n"
      << "// no value: NaN, never an infinity.\n"
      << "inline double mul(std::initializer_list<double> xs) {\n"
      << "  double p = 1.0;\n"
      << "  for (double x : xs) { if (x == 0.0) return 0.0; p *= x; }\n"
      << "  return p;\n"
      << "}\n"
      << "inline double div(double a, double b) { return b != 0.0 ? a / b : a == 0.0 ? 0.0 : std::nan(\"\"); }\n"
      << "// A comparison is 1 or 0, and has no value where an operand has none.\n"
      << "inline double truth(bool c, double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan(\"\") : c ? 1.0 : 0.0; }\n"
      << "inline double eq(double a, double b) { return truth(a == b, a, b); }\n"
      << "inline double ne(double a, double b) { return truth(a != b, a, b); }\n"
      << "inline double lt(double a, double b) { return truth(a < b, a, b); }\n"
      << "inline double le(double a, double b) { return truth(a <= b, a, b); }\n"
      << "inline double idiv(double a, double b) { return b != 0.0 ? std::floor(a / b) : std::nan(\"\"); }\n"
      << "inline double pow(double x, double y) { return x == 0.0 && y < 0.0 ? std::nan(\"\") : std::pow(x, y); }\n"
      << "inline double log(double x) { return x == 0.0 ? std::nan(\"\") : std::log(x); }\n"
      << "inline double log2(double x) { return x == 0.0 ? std::nan(\"\") : std::log2(x); }\n"
      << "// gcd of two integers, >= 0; no value (NaN) for a number that is not an integer.\n"
      << "inline double gcd(double a, double b) {\n"
      << "  if (!is_integer(a) || !is_integer(b) || std::fabs(a) > 9.0e15 || std::fabs(b) > 9.0e15) return std::nan(\"\");\n"
      << "  long long x = static_cast<long long>(std::fabs(a)), y = static_cast<long long>(std::fabs(b));\n"
      << "  while (y != 0) { const long long r = x % y; x = y; y = r; }\n"
      << "  return static_cast<double>(x);\n"
      << "}\n"
      << "// max and min that keep a NaN (where the model has no value) instead of dropping it.\n"
      << "inline double max(std::initializer_list<double> xs) {\n"
      << "  double m = -HUGE_VAL;\n"
      << "  for (double x : xs) { if (std::isnan(x)) return x; m = (std::max)(m, x); }\n"
      << "  return m;\n"
      << "}\n"
      << "inline double min(std::initializer_list<double> xs) {\n"
      << "  double m = HUGE_VAL;\n"
      << "  for (double x : xs) { if (std::isnan(x)) return x; m = (std::min)(m, x); }\n"
      << "  return m;\n"
      << "}\n"
      << "// Adds x at position k of a resource vector (a NaN entry where k is not a position);\n"
      << "// x = 0 adds nothing anywhere (a branch not taken: if (p > 0) use(r(p - 1), t) at p = 0).\n"
      << "inline void vadd(std::vector<double>& v, double k, double x) {\n"
      << "  if (x == 0.0) return;\n"
      << "  if (!(k >= 0.0) || !is_integer(k) || k > 1e9) { v.assign(1, std::nan(\"\")); return; }\n"
      << "  std::size_t i = static_cast<std::size_t>(k);\n"
      << "  if (i >= v.size()) v.resize(i + 1, 0.0);\n"
      << "  v[i] += x;\n"
      << "}\n"
      << "// max of a resource vector: its elements run from 0 to the highest nonzero one.\n"
      << "inline double vmax(const std::vector<double>& v) {\n"
      << "  std::size_t n = v.size();\n"
      << "  while (n > 0 && v[n - 1] == 0.0) --n;\n"
      << "  if (n == 0) return 0.0;\n"
      << "  double m = v[0];\n"
      << "  for (std::size_t i = 1; i < n; ++i) m = (std::max)(m, v[i]);\n"
      << "  for (std::size_t i = 0; i < n; ++i) if (std::isnan(v[i])) return v[i];\n"
      << "  return m;\n"
      << "}\n"
      << "}  // namespace detail\n\n";

  // Defaults become default arguments for the trailing run of parameters whose default is
  // a number (C++ allows defaults only at the end of the list).
  std::vector<std::string> defaults(model.parameters.size());
  for (std::size_t i = model.parameters.size(); i-- > 0;) {
    const CostParameter& p = model.parameters[i];
    if (!p.default_value || !is_class<GiNaC::numeric>(*p.default_value)) break;
    defaults[i] = " = " + printer.print(*p.default_value);
  }
  std::string params, args;
  for (std::size_t i = 0; i < model.parameters.size(); ++i) {
    params += (i ? ", " : "") + std::string("[[maybe_unused]] double ") + param_names[i] + defaults[i];
    args += (i ? ", " : "") + param_names[i];
  }
  // A function whose code has loops declares no_value, which a loop sets where its bound is
  // not an integer or its max has no terms: then the point has no value, whatever the loop's
  // NaN was multiplied by (CppPrinter::bounds).
  const std::string flag = "  bool no_value = false;\n";
  // The closed forms hold where the facts and assumptions recorded above do; elsewhere each
  // function evaluates the unsimplified model, as `pamc eval` does (docs/emit.md).
  {
    printer.loops = false;
    std::string conds;
    for (const GiNaC::ex& e : model.assumptions.nonneg) conds += "\n      && " + printer.print(e) + " >= 0.0";
    for (const GiNaC::ex& e : model.assumptions.integer) conds += "\n      && detail::is_integer(" + printer.print(e) + ")";
    out << "// True where the facts from the model and the assumptions listed at the top hold; there\n"
        << "// the functions below use their closed forms, elsewhere the unsimplified model.\n"
        << "inline bool assumptions_hold(" << params << ") {\n" << (printer.loops ? flag : "") << "  return true" << conds
        << (printer.loops ? "\n      && !no_value" : "") << ";\n}\n\n";
  }
  const std::vector<DomainCheck> domain = model.domain_checks();
  if (!domain.empty()) {
    // A check without a value (a loop's bound) does not fail: pamc eval leaves it to the evaluation.
    printer.loops = false;
    std::string checks;
    for (const DomainCheck& d : domain)
      checks += "\n      && " + (d.strict ? "!(" + printer.print(d.value) + " <= 0.0)" : "!(" + printer.print(d.value) + " < 0.0)");
    out << "// False outside the model's domain (a declared bound broken, a negative time): there the\n"
        << "// model has no value, and the functions below return NaN.\n"
        << "inline bool in_domain(" << params << ") {\n" << (printer.loops ? flag + "  (void)no_value;\n" : "")
        << "  return true" << checks << ";\n}\n\n";
  }
  // `return e;`, or where e has loops, its value unless a loop left the point without one.
  auto returning = [&](const GiNaC::ex& e, bool& loops) {
    printer.loops = false;
    const std::string x = printer.print(e);
    loops = loops || printer.loops;
    if (!printer.loops) return "return " + x + ";";
    return "{ const double v = " + x + "; return no_value ? std::nan(\"\") : v; }";
  };
  const bool conditional = !model.assumptions.nonneg.empty() || !model.assumptions.integer.empty();
  for (std::size_t k = 0; k < equations.size(); ++k) {
    bool loops = false;
    const std::string closed = returning(equations[k]->value, loops);
    std::string fallback;
    if (conditional && !equations[k]->time_value.is_equal(equations[k]->value))
      fallback = "  if (!assumptions_hold(" + args + ")) " + returning(equations[k]->time_value, loops) + "\n";
    out << "inline double " << eq_names[k] << "(" << params << ") {\n";
    if (!domain.empty()) out << "  if (!in_domain(" << args << ")) return std::nan(\"\");\n";
    out << (loops ? flag : "") << fallback << "  " << closed << "\n}\n\n";
  }
  out << "struct Results {\n";
  for (const std::string& n : eq_names) out << "  double " << n << " = 0.0;\n";
  out << "};\n\n";
  out << "inline Results evaluate(" << params << ") {\n  Results r;\n";
  for (const std::string& n : eq_names) out << "  r." << n << " = " << n << "(" << args << ");\n";
  out << "  return r;\n}\n\n}  // namespace " << ns << "\n";
  return out.str();
}

std::vector<const CostEquation*> emitted_equations(const CostModel& model, bool all) {
  std::vector<const CostEquation*> out;
  for (const CostEquation& e : model.equations)
    if ((all || e.top_level) && !sym::is_vector_valued(e.value)) out.push_back(&e);
  return out;
}

}  // namespace pamc::emit
