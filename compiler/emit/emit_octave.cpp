// The Octave emitter: one function file per equation, vectorized over parameter arrays
// (element-wise operators; scalars broadcast). A reduction left in the closed form makes
// the function evaluate element by element with arrayfun.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "compiler/emit/code_printer.h"
#include "compiler/emit/emit.h"
#include "compiler/symbolic/model_facts.h"
#include "compiler/symbolic/symbolic.h"

namespace pamc::emit {
namespace {

const std::set<std::string>& octave_reserved() {
  static const std::set<std::string> words{
      "__FILE__", "__LINE__", "break", "case", "catch", "classdef", "continue", "do", "else", "elseif", "end",
      "end_try_catch", "end_unwind_protect", "endclassdef", "endenumeration", "endevents", "endfor",
      "endfunction", "endif", "endmethods", "endparfor", "endproperties", "endswitch", "endwhile",
      "enumeration", "events", "for", "function", "global", "if", "methods", "otherwise", "parfor",
      "persistent", "properties", "return", "switch", "try", "until", "unwind_protect",
      "unwind_protect_cleanup", "while",
      // functions the emitted code calls, and common constants it must not shadow
      "max", "min", "floor", "ceil", "mod", "gcd", "abs", "log", "log2", "exp", "sqrt", "double", "sum", "arrayfun",
      "zeros", "size", "Inf", "NaN", "pi", "e", "i", "j", "ans", "z", "disp", "ones", "error", "printf",
      "fprintf", "exist", "path", "addpath", "load", "save", "eval", "feval", "numel", "length", "isempty",
      "any", "all", "find", "round", "fix", "rem", "sign", "eps", "true", "false", "inf", "nan", "NA",
      "realmax", "realmin", "class", "isa", "cellfun", "struct", "cell", "num2str", "str2func", "func2str",
      "value", "bad", "ok", "err", "nargin", "nargout", "varargin", "varargout", "exit", "quit", "clear", "who", "whos", "format", "more"};
  return words;
}



// The pamc_ subfunctions OctavePrinter calls: element-wise, on arrays that broadcast.
std::string octave_helper(const std::string& name) {
  static const std::map<std::string, std::string> text{
      {"pamc_mul", "function p = pamc_mul(a, b)\n  % a zero factor makes the product 0, even where the other has no value\n"
                   "  p = a .* b;\n  p((a == 0) | (b == 0)) = 0;\nend\n"},
      {"pamc_div", "function q = pamc_div(a, b)\n  % a / 0 has no value (NaN, not Inf); 0 / 0 is 0 (a zero factor)\n"
                   "  q = a ./ b;\n  q((b == 0) & (a ~= 0)) = NaN;\n  q((b == 0) & (a == 0)) = 0;\nend\n"},
      {"pamc_idiv", "function q = pamc_idiv(a, b)\n  q = floor(a ./ b);\n  q((b == 0) & true(size(q))) = NaN;\nend\n"},
      {"pamc_mod", "function r = pamc_mod(a, b)\n  % Octave's mod(x, 0) is x: here it has no value\n"
                   "  r = mod(a, b);\n  r((b == 0) & true(size(r))) = NaN;\nend\n"},
      {"pamc_pow", "function v = pamc_pow(b, e)\n  % 0 ^ -1 and a complex power ((-8) ^ 0.5) have no value\n"
                   "  v = b .^ e;\n  bad = ((b == 0) & (e < 0)) | (imag(v) ~= 0);\n  v = real(v);\n  v(bad) = NaN;\nend\n"},
      {"pamc_cmp", "function v = pamc_cmp(op, a, b)\n  % 1 or 0, and no value where an operand has none\n"
                   "  switch op\n    case '=='\n      v = double(a == b);\n    case '~='\n      v = double(a ~= b);\n"
                   "    case '<'\n      v = double(a < b);\n    otherwise\n      v = double(a <= b);\n  end\n"
                   "  v(isnan(a) | isnan(b)) = NaN;\nend\n"},
      {"pamc_sqrt", "function v = pamc_sqrt(x)\n  v = real(sqrt(x));\n  v(x < 0) = NaN;\nend\n"},
      {"pamc_log", "function v = pamc_log(x)\n  v = real(log(x));\n  v(x <= 0) = NaN;\nend\n"},
      {"pamc_gcd", "function g = pamc_gcd(a, b)\n  % gcd of two integers, >= 0; no value for a number that is not an integer\n"
                   "  a = a + zeros(size(b));\n  b = b + zeros(size(a));\n"
                   "  ok = isfinite(a) & isfinite(b) & (a == fix(a)) & (b == fix(b));\n"
                   "  g = NaN(size(a));\n  g(ok) = gcd(a(ok), b(ok));\nend\n"},
      {"pamc_log2", "function v = pamc_log2(x)\n  v = real(log2(x));\n  v(x <= 0) = NaN;\nend\n"},
      {"pamc_max", "function m = pamc_max(a, b)\n  % Octave's max drops a NaN: here it is kept (no value)\n"
                   "  m = max(a, b);\n  m(isnan(a) | isnan(b)) = NaN;\nend\n"},
      {"pamc_min", "function m = pamc_min(a, b)\n  m = min(a, b);\n  m(isnan(a) | isnan(b)) = NaN;\nend\n"},
      {"pamc_reduce",
       "function v = pamc_reduce(kind, empty_is_zero, f, lb, ub)\n"
       "  % kind 0 sum, 1 max, 2 min over the integers lb .. ub; a NaN term or bound, or an\n  % infinite bound, has no value.\n"
       "  % A bound that is not an integer, or a max or min over no terms (but a par's, which is\n"
       "  % 0), leaves the whole point without a value, whatever multiplies it: an error that\n"
       "  % pamc_point turns into NaN (pamc_no_value)\n"
       "  if ~isfinite(lb) || ~isfinite(ub)\n    v = NaN;\n    return;\n  end\n"
       "  if lb ~= floor(lb) || ub ~= floor(ub) || abs(lb) > 9e15 || abs(ub) > 9e15\n"
       "    error('pamc:novalue', 'a loop bound that is not an integer, or past counting');\n  end\n"
       "  xs = arrayfun(f, lb:ub);\n"
       "  if kind == 0\n    v = sum(xs);\n  elseif isempty(xs)\n    if ~empty_is_zero\n"
       "      error('pamc:novalue', 'a max or min over no terms');\n    end\n    v = 0;\n"
       "  elseif any(isnan(xs))\n    v = NaN;\n  elseif kind == 1\n    v = max(xs);\n  else\n    v = min(xs);\n  end\nend\n"},
      {"pamc_no_value",
       "function v = pamc_no_value(err)\n  % pamc_reduce's error: the point has no value (NaN); any other error is Octave's own\n"
       "  if ~strcmp(err.identifier, 'pamc:novalue')\n    rethrow(err);\n  end\n  v = NaN;\nend\n"},
      {"pamc_holds",
       "function h = pamc_holds(f)\n  % a condition whose loop leaves it without a value does not hold\n"
       "  try\n    h = f();\n  catch err\n    pamc_no_value(err);\n    h = false;\n  end\nend\n"}};
  return text.at(name);
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

class OctavePrinter : public CodePrinter {
 public:
  using CodePrinter::CodePrinter;
  bool saw_reduction = false;
  std::set<std::string> helpers;  // the pamc_ subfunctions the printed code calls
  std::vector<std::string> subfunctions;  // one per resource-vector max, after the main function
  // Helpers that read arithmetic as pamc eval does (docs/semantics.md, "Points without a
  // value"): Octave's own max drops a NaN, mod(x, 0) is x, x ./ 0 is Inf, sqrt(-1) and
  // log(-1) are complex, and a:b rounds a fractional bound. Each is a subfunction of the
  // file that uses it.
  std::string helper(const std::string& name, const std::string& call) {
    helpers.insert(name);
    if (name == "pamc_holds") helpers.insert("pamc_no_value");  // which it calls
    return call;
  }

 protected:
  std::string number(const GiNaC::numeric& x) override {
    double d = x.to_double();
    if (std::isinf(d)) return d < 0 ? "(-Inf)" : "Inf";
    std::string t = shortest(d);
    return d < 0 ? "(" + t + ")" : t;
  }
  std::string nest(const std::string& fn, const std::vector<std::string>& args) {
    std::string out = args.back();
    for (std::size_t i = args.size() - 1; i-- > 0;) out = fn + "(" + args[i] + ", " + out + ")";
    return helper(fn, out);
  }
  std::string product(const std::vector<std::string>& fs) override { return nest("pamc_mul", fs); }
  std::string quotient(const std::string& n, const std::string& d) override {
    return helper("pamc_div", "pamc_div(" + n + ", " + d + ")");
  }
  std::string power(const std::string& b, const std::string& e) override {
    return helper("pamc_pow", "pamc_pow(" + b + ", " + e + ")");
  }
  std::string sqrt(const std::string& x) override { return helper("pamc_sqrt", "pamc_sqrt(" + x + ")"); }
  std::string call(const std::string& fn, const std::vector<std::string>& a) override {
    if (fn == "log" || fn == "log2") return helper("pamc_" + fn, "pamc_" + fn + "(" + a[0] + ")");
    if (fn == "gcd") return helper("pamc_gcd", "pamc_gcd(" + a[0] + ", " + a[1] + ")");
    return fn + "(" + a[0] + ")";
  }
  std::string mod(const std::string& a, const std::string& b) override { return helper("pamc_mod", "pamc_mod(" + a + ", " + b + ")"); }
  std::string idiv(const std::string& a, const std::string& b) override { return helper("pamc_idiv", "pamc_idiv(" + a + ", " + b + ")"); }
  std::string compare(const std::string& op, const std::string& a, const std::string& b) override {
    return helper("pamc_cmp", "pamc_cmp('" + (op == "!=" ? std::string("~=") : op) + "', " + a + ", " + b + ")");
  }
  std::string extremum(bool is_max, const std::vector<std::string>& args) override {
    return nest(is_max ? "pamc_max" : "pamc_min", args);
  }
  std::string reduction(int kind, bool empty_is_zero, const std::string& i, const std::string& lb,
                        const std::string& ub, const std::string& body) override {
    saw_reduction = true;
    return helper("pamc_reduce", "pamc_reduce(" + std::to_string(kind) + ", " + (empty_is_zero ? "1" : "0") + ", @(" + i +
                                     ") " + body + ", " + lb + ", " + ub + ")");
  }
  // Resource vectors: statements in a subfunction of the file, called with the values it
  // needs; positions that are not nonnegative integers, or a non-integer loop bound, give NaN.
  std::string vector_add(const std::string& pos, const std::string& value) override {
    return "  acc = pamc_vadd(acc, " + pos + ", " + value + ");\n";
  }
  std::string vector_loop(const std::string& i, const std::string& lb, const std::string& ub,
                          const std::string& body) override {
    // as pamc_reduce: a NaN bound is NaN, one that is not an integer leaves the point without a value
    return "  if ~isfinite(" + lb + ") || ~isfinite(" + ub + ")\n    acc = NaN;\n  elseif " + lb + " ~= floor(" + lb + ") || " + ub +
           " ~= floor(" + ub + ")\n    error('pamc:novalue', 'a loop bound that is not an integer');\n  else\n  for " + i +
           " = " + lb + ":" + ub + "\n" + body + "  end\n  end\n";
  }
  std::string vector_max(const std::string& statements, const std::vector<std::string>& free) override {
    saw_reduction = true;
    std::string args;
    for (const std::string& f : free) args += (args.empty() ? "" : ", ") + f;
    std::string name = "pamc_vmax_" + std::to_string(subfunctions.size() + 1);
    subfunctions.push_back("function m = " + name + "(" + args + ")\n  acc = [];\n" + statements +
                           "  m = pamc_vmax(acc);\nend\n");
    return name + "(" + args + ")";
  }
};

}  // namespace

std::map<std::string, std::string> emit_octave(const CostModel& model, bool all) {
  std::map<std::string, std::string> files;
  // Function (and file) names first, then the parameters; z (the shape helper) is reserved.
  NameTable names(octave_reserved());
  auto equations = emitted_equations(model, all);
  std::vector<std::string> fnames;
  for (const CostEquation* e : equations) fnames.push_back(names.make(e->name));
  std::vector<std::string> pnames;
  for (const CostParameter& p : model.parameters) pnames.push_back(names.make(p.name));
  std::string params, sum;
  for (std::size_t i = 0; i < pnames.size(); ++i) {
    params += (i ? ", " : "") + pnames[i];
    sum += (i ? " + " : "") + pnames[i];
  }
  for (std::size_t k = 0; k < equations.size(); ++k) {
    const CostEquation* e = equations[k];
    OctavePrinter printer(names);
    for (std::size_t i = 0; i < pnames.size(); ++i) printer.bind(model.parameters[i].symbol, pnames[i]);
    // Whether what was printed since the last call has a loop (pamc_reduce, a resource vector).
    auto loops_since = [&printer] {
      const bool saw = printer.saw_reduction;
      printer.saw_reduction = false;
      return saw;
    };
    std::string body = printer.print(e->value);
    bool loops = loops_since();
    // Outside the facts and assumptions, the unsimplified model (as pamc eval does).
    const bool conditional = (!model.assumptions.nonneg.empty() || !model.assumptions.integer.empty()) &&
                             !e->time_value.is_equal(e->value);
    std::string time_body, conds;
    if (conditional) {
      time_body = printer.print(e->time_value);
      loops = loops_since() || loops;
      for (const GiNaC::ex& c : model.assumptions.nonneg) conds += (conds.empty() ? "" : " && ") + ("(" + printer.print(c) + " >= 0)");
      for (const GiNaC::ex& c : model.assumptions.integer) {
        std::string x = printer.print(c);
        conds += (conds.empty() ? "" : " && ") + ("(isfinite(" + x + ") && " + x + " == floor(" + x + "))");
      }
      if (loops_since()) conds = printer.helper("pamc_holds", "pamc_holds(@() " + conds + ")");
    }
    const std::string& fname = fnames[k];
    std::ostringstream out;
    out << "function value = " << fname << "(" << params << ")\n"
        << "  % " << e->name << " of " << one_line(model.name) << ".pam, generated by pamc.\n"
        << "  % Parameters, in declaration order, may be scalars or arrays of one size:\n  % ";
    for (std::size_t i = 0; i < pnames.size(); ++i)
      out << " " << pnames[i] << (pnames[i] == model.parameters[i].name ? "" : " (" + model.parameters[i].name + ")");
    if (pnames.empty()) out << " (none)";
    out << "\n";
    if (!model.assumptions.from_model.empty()) {
      out << "  % from the model:";
      for (std::size_t i = 0; i < model.assumptions.from_model.size(); ++i)
        out << (i ? ", " : " ") << model.assumptions.from_model[i];
      out << "\n";
    }
    for (const std::string& a : sym::assumption_lines(model.assumptions)) out << "  % assumes " << a << "\n";
    // Defaulted parameters at the end may be left out, as in C++ and Python.
    std::size_t first_default = model.parameters.size();
    while (first_default > 0 && model.parameters[first_default - 1].default_value) --first_default;
    for (std::size_t i = first_default; i < model.parameters.size(); ++i)
      out << "  if nargin < " << i + 1 << "\n    " << pnames[i] << " = " << printer.print(*model.parameters[i].default_value)
          << ";\n  end\n";
    // Outside the model's domain (a declared bound broken, a negative time): no value. A check
    // whose loop leaves it without a value does not fail (pamc eval leaves that to the evaluation).
    std::string bad, domain_tail;
    for (const DomainCheck& d : model.domain_checks()) {
      std::string check = "(" + printer.print(d.value) + (d.strict ? " <= 0)" : " < 0)");
      if (loops_since()) check = printer.helper("pamc_holds", "pamc_holds(@() " + check + ")");
      bad += (bad.empty() ? "" : " | ") + check;
    }
    // a point at a time: a check may hold a resource vector's max, which is no array function
    auto bad_at = [&](const std::string& args) { return "arrayfun(@(" + params + ") " + bad + ", " + args + ")"; };
    if (!bad.empty()) {
      std::string spread;
      for (const std::string& p : pnames) spread += (spread.empty() ? "" : ", ") + p + " + zeros(size(value))";
      domain_tail = "  bad = " + bad_at(spread) + ";\n  value(bad) = NaN;\n";
    }
    if (conditional || loops) {
      // One point at a time: the closed form where its conditions hold, else the model. A
      // loop's bound that is not an integer, or a max over no terms, is an error there
      // (pamc_reduce) that leaves the point without a value, whatever multiplied the loop.
      // Points outside the domain are not evaluated (their loops may be long), as in C++.
      std::string call = "pamc_point(" + params + ")";
      if (!pnames.empty()) {
        out << "  z = zeros(size(" << sum << "));\n";
        for (const std::string& p : pnames) out << "  " << p << " = " << p << " + z;\n";
        if (!bad.empty()) {
          std::string inside;
          for (const std::string& p : pnames) inside += (inside.empty() ? "" : ", ") + p + "(ok)";
          out << "  ok = ~" << bad_at(params) << ";\n  value = NaN(size(z));\n"
              << "  value(ok) = arrayfun(@(" << params << ") " << call << ", " << inside << ");\n";
        } else {
          out << "  value = arrayfun(@(" << params << ") " << call << ", " << params << ");\n";
        }
      } else {
        out << "  value = " << call << ";\n" << domain_tail;
      }
      out << "end\n\nfunction v = pamc_point(" << params << ")\n";
      const std::string indent = loops ? "    " : "  ";
      if (loops) out << "  try\n";
      if (conditional)
        out << indent << "if " << conds << "\n" << indent << "  v = " << body << ";\n" << indent << "else\n"
            << indent << "  v = " << time_body << ";\n" << indent << "end\n";
      else
        out << indent << "v = " << body << ";\n";
      if (loops) out << "  catch err\n    v = " << printer.helper("pamc_no_value", "pamc_no_value(err)") << ";\n  end\n";
    } else {
      // "+ zeros(size(P + N))" gives even a constant result the parameters' shape.
      std::string shape = sum.empty() ? "" : " + zeros(size(" + sum + "))";
      out << "  value = " << body << shape << ";\n" << domain_tail;
    }
    out << "end\n";
    for (const std::string& f : printer.subfunctions) out << "\n" << f;
    for (const std::string& h : printer.helpers) out << "\n" << octave_helper(h);
    if (!printer.subfunctions.empty())
      out << "\nfunction acc = pamc_vadd(acc, k, x)\n"
          << "  % x at position k of a resource vector (NaN where k is not a position);\n"
          << "  % x = 0 adds nothing anywhere (a branch not taken)\n"
          << "  if x == 0\n    return;\n  end\n"
          << "  if ~(k >= 0) || k ~= floor(k) || k > 1e9\n    acc = NaN;\n    return;\n  end\n"
          << "  if any(isnan(acc))\n    return;\n  end\n"
          << "  if k + 1 > numel(acc)\n    acc(k + 1) = 0;\n  end\n"
          << "  acc(k + 1) = acc(k + 1) + x;\nend\n"
          << "\nfunction m = pamc_vmax(acc)\n"
          << "  % elements 0 .. the highest nonzero one; the zero vector's max is 0\n"
          << "  n = find(acc ~= 0, 1, 'last');\n"
          << "  if isempty(n)\n    m = 0;\n  elseif any(isnan(acc))\n    m = NaN;\n  else\n    m = max(acc(1:n));\n  end\nend\n";
    files[fname + ".m"] = out.str();
  }
  // The same files again in a package folder named after the model (+mrm/T_main.m, called
  // as mrm.T_main(P, N)), so that the models emitted into one folder keep apart; the files
  // at the top stay for a single model (addpath, then T_main(P, N)).
  const std::string pkg = identifier(model.name, octave_reserved());
  std::map<std::string, std::string> both = files;
  for (const auto& [name, text] : files) both["+" + pkg + "/" + name] = text;
  return both;
}

}  // namespace pamc::emit
