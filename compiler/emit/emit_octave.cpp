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
      "max", "min", "floor", "ceil", "mod", "abs", "log", "log2", "exp", "sqrt", "double", "sum", "arrayfun",
      "zeros", "size", "Inf", "NaN", "pi", "e", "i", "j", "ans", "z", "disp", "ones", "error", "printf",
      "fprintf", "exist", "path", "addpath", "load", "save", "eval", "feval", "numel", "length", "isempty",
      "any", "all", "find", "round", "fix", "rem", "sign", "eps", "true", "false", "inf", "nan", "NA",
      "realmax", "realmin", "class", "isa", "cellfun", "struct", "cell", "num2str", "str2func", "func2str",
      "value", "nargin", "nargout", "varargin", "varargout", "exit", "quit", "clear", "who", "whos", "format", "more"};
  return words;
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
  std::vector<std::string> subfunctions;  // one per resource-vector max, after the main function

 protected:
  std::string number(const GiNaC::numeric& x) override {
    double d = x.to_double();
    if (std::isinf(d)) return d < 0 ? "(-Inf)" : "Inf";
    std::string t = shortest(d);
    return d < 0 ? "(" + t + ")" : t;
  }
  std::string mul_op() override { return " .* "; }
  std::string div_op() override { return " ./ "; }
  std::string power(const std::string& b, const std::string& e) override { return "(" + b + " .^ " + e + ")"; }
  std::string sqrt(const std::string& x) override { return "sqrt(" + x + ")"; }
  std::string call(const std::string& fn, const std::vector<std::string>& a) override { return fn + "(" + a[0] + ")"; }
  std::string mod(const std::string& a, const std::string& b) override { return "mod(" + a + ", " + b + ")"; }
  std::string idiv(const std::string& a, const std::string& b) override { return "floor(" + a + " ./ " + b + ")"; }
  std::string compare(const std::string& op, const std::string& a, const std::string& b) override {
    return "double(" + a + " " + (op == "!=" ? "~=" : op) + " " + b + ")";
  }
  std::string extremum(bool is_max, const std::vector<std::string>& args) override {
    // Octave's max(a, b) is element-wise and binary: nest it.
    std::string out = args.back();
    for (std::size_t i = args.size() - 1; i-- > 0;) out = std::string(is_max ? "max(" : "min(") + args[i] + ", " + out + ")";
    return out;
  }
  std::string reduction(int kind, bool empty_is_zero, const std::string& i, const std::string& lb,
                        const std::string& ub, const std::string& body) override {
    saw_reduction = true;
    std::string values = "arrayfun(@(" + i + ") " + body + ", " + lb + ":" + ub + ")";
    if (kind == 0) return "sum(" + values + ")";
    std::string m = std::string(kind == 1 ? "max([-Inf, " : "min([Inf, ") + values + "])";
    // A par's max is 0 on an empty range: pick it by indexing (Octave indexes a literal).
    if (empty_is_zero) return "[0, " + m + "](1 + (" + lb + " <= " + ub + "))";
    return m;
  }
  // Resource vectors: statements in a subfunction of the file, called with the values it
  // needs; positions that are not nonnegative integers, or a non-integer loop bound, give NaN.
  std::string vector_add(const std::string& pos, const std::string& value) override {
    return "  acc = pamc_vadd(acc, " + pos + ", " + value + ");\n";
  }
  std::string vector_loop(const std::string& i, const std::string& lb, const std::string& ub,
                          const std::string& body) override {
    return "  if " + lb + " ~= floor(" + lb + ") || " + ub + " ~= floor(" + ub + ")\n    acc = NaN;\n  else\n  for " + i +
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
    std::string body = printer.print(e->value);
    // Outside the facts and assumptions, the unsimplified model (as pamc eval does).
    const bool conditional = (!model.assumptions.nonneg.empty() || !model.assumptions.integer.empty()) &&
                             !e->time_value.is_equal(e->value);
    std::string time_body, conds;
    if (conditional) {
      time_body = printer.print(e->time_value);
      for (const GiNaC::ex& c : model.assumptions.nonneg) conds += (conds.empty() ? "" : " && ") + ("(" + printer.print(c) + " >= 0)");
      for (const GiNaC::ex& c : model.assumptions.integer) {
        std::string x = printer.print(c);
        conds += (conds.empty() ? "" : " && ") + ("(" + x + " == floor(" + x + "))");
      }
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
    if (conditional) {
      // One point at a time: the closed form where its conditions hold, else the model.
      std::string call = "pamc_point(" + params + ")";
      if (!pnames.empty()) {
        out << "  z = zeros(size(" << sum << "));\n";
        for (const std::string& p : pnames) out << "  " << p << " = " << p << " + z;\n";
        out << "  value = arrayfun(@(" << params << ") " << call << ", " << params << ");\n";
      } else {
        out << "  value = " << call << ";\n";
      }
      out << "end\n\nfunction v = pamc_point(" << params << ")\n"
          << "  if " << conds << "\n    v = " << body << ";\n  else\n    v = " << time_body << ";\n  end\n";
    } else if (printer.saw_reduction && !pnames.empty()) {
      // Loops inside: broadcast the parameters and evaluate element by element.
      out << "  z = zeros(size(" << sum << "));\n";
      for (const std::string& p : pnames) out << "  " << p << " = " << p << " + z;\n";
      out << "  value = arrayfun(@(" << params << ") " << body << ", " << params << ");\n";
    } else {
      // "+ zeros(size(P + N))" gives even a constant result the parameters' shape.
      std::string shape = sum.empty() ? "" : " + zeros(size(" + sum + "))";
      out << "  value = " << body << shape << ";\n";
    }
    out << "end\n";
    for (const std::string& f : printer.subfunctions) out << "\n" << f;
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
