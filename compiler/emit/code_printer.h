// Prints a simplified cost expression as code in a C-like language. The base class holds
// the traversal; each target language overrides only what differs (as SymEngine's code
// printers do): C++ (emit_cpp.cpp) and Octave (emit_octave.cpp).
#pragma once
#include <map>
#include <set>
#include <vector>
#include <string>

#include <ginac/ginac.h>

namespace pamc::emit {

// Makes a name a valid identifier of the target: keeps [A-Za-z0-9_], replaces anything
// else by '_', prefixes a leading digit, and appends '_' to a reserved word.
std::string identifier(const std::string& name, const std::set<std::string>& reserved);

class CodePrinter {
 public:
  virtual ~CodePrinter() = default;
  // Throws CompileError (with a message naming the construct) when the expression has no
  // scalar code form, e.g. a residual vector expression.
  std::string print(const GiNaC::ex& e);

 protected:
  virtual std::string number(const GiNaC::numeric& x) = 0;
  virtual std::string name(const std::string& n) = 0;
  virtual std::string mul_op() { return "*"; }
  virtual std::string div_op() { return "/"; }
  virtual std::string power(const std::string& base, const std::string& exponent) = 0;
  virtual std::string sqrt(const std::string& x) = 0;
  virtual std::string call(const std::string& fn, const std::vector<std::string>& args) = 0;  // fn: floor, ceil, abs, log, log2, exp
  virtual std::string mod(const std::string& a, const std::string& b) = 0;
  virtual std::string idiv(const std::string& a, const std::string& b) = 0;
  virtual std::string compare(const std::string& op, const std::string& a, const std::string& b) = 0;
  virtual std::string extremum(bool is_max, const std::vector<std::string>& args) = 0;
  // A reduction that stayed in the closed form: printed as a loop.
  virtual std::string reduction(int kind, const std::string& index, const std::string& lb, const std::string& ub,
                                const std::string& body) = 0;

  std::string print_mul(const GiNaC::ex& e);
  std::string print_add(const GiNaC::ex& e);
  std::string print_function(const GiNaC::ex& e);
};

}  // namespace pamc::emit
