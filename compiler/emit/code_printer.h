// Prints a simplified cost expression as code in a C-like language. The base class holds
// the traversal; each target language overrides only what differs (as SymEngine's code
// printers do): C++ (emit_cpp.cpp) and Octave (emit_octave.cpp).
#pragma once
#include <functional>
#include <map>
#include <set>
#include <vector>
#include <string>

#include "compiler/symbolic/ginac_headers.h"

namespace pamc::sym {
class reduction;
}

namespace pamc::emit {

// Makes a name a valid identifier of the target: keeps [A-Za-z0-9_], replaces anything
// else by '_', prefixes a leading digit, and appends '_' to a reserved word.
std::string identifier(const std::string& name, const std::set<std::string>& reserved);

// Allocates distinct identifiers: each name is made valid (identifier above), then given a
// numeric suffix (_2, _3, ...) while it collides with a reserved word or a name already
// given, so model text can never produce two equal names or a reserved one.
class NameTable {
 public:
  explicit NameTable(const std::set<std::string>& reserved, bool (*also_reserved)(const std::string&) = nullptr)
      : reserved_(reserved), also_reserved_(also_reserved) {}
  std::string make(const std::string& raw);
  bool taken(const std::string& n) const;
  void release(const std::string& n) { used_.erase(n); }

 private:
  const std::set<std::string>& reserved_;
  bool (*also_reserved_)(const std::string&);
  std::set<std::string> used_;
};

// The shortest decimal that reads back as the same double (0.1, not 0.10000000000000001).
std::string shortest(double d);

class CodePrinter {
 public:
  explicit CodePrinter(NameTable& names) : names_(names) {}
  virtual ~CodePrinter() = default;
  // Symbols print by identity: parameters are bound to their emitted names before printing;
  // a reduction's index gets a fresh name from the table for the span of its body (so two
  // distinct symbols that share a name, or an index named like a parameter, never mix).
  void bind(const GiNaC::ex& symbol, const std::string& name) { bound_[symbol] = name; }
  // Throws CompileError (with a message naming the construct) when the expression has no
  // scalar code form, e.g. a residual vector expression.
  std::string print(const GiNaC::ex& e);

 protected:
  virtual std::string number(const GiNaC::numeric& x) = 0;
  // A product and a quotient, as pamc eval reads them (docs/semantics.md, "Points without a
  // value"): a zero factor makes a product 0 even where another factor has no value, x / 0
  // has no value (NaN, not an infinity) unless x is 0.
  virtual std::string product(const std::vector<std::string>& factors) = 0;
  virtual std::string quotient(const std::string& num, const std::string& den) = 0;
  virtual std::string power(const std::string& base, const std::string& exponent) = 0;
  virtual std::string sqrt(const std::string& x) = 0;
  virtual std::string call(const std::string& fn, const std::vector<std::string>& args) = 0;  // fn: floor, ceil, abs, log, log2, exp
  virtual std::string mod(const std::string& a, const std::string& b) = 0;
  virtual std::string idiv(const std::string& a, const std::string& b) = 0;
  virtual std::string compare(const std::string& op, const std::string& a, const std::string& b) = 0;
  virtual std::string extremum(bool is_max, const std::vector<std::string>& args) = 0;
  // A reduction that stayed in the closed form: printed as a loop.
  // empty_is_zero: a par's max, 0 when the range is empty (docs/semantics.md).
  virtual std::string reduction(int kind, bool empty_is_zero, const std::string& index, const std::string& lb,
                                const std::string& ub, const std::string& body) = 0;

  // max(v) of a resource vector: the target accumulates v's terms into a dense array
  // (vector_add at a position, vector_loop over a reduction's index) and takes the max
  // of positions 0 .. the highest nonzero one, as the exact evaluator does. Targets without
  // these hooks cannot emit vectors.
  virtual std::string vector_add(const std::string& pos, const std::string& value);
  virtual std::string vector_loop(const std::string& index, const std::string& lb, const std::string& ub,
                                  const std::string& body);
  // free: the emitted names of the parameters and loop indices the vector depends on (for
  // targets that put the statements into a function of their own).
  virtual std::string vector_max(const std::string& statements, const std::vector<std::string>& free);
  std::string print_vector_max(const GiNaC::ex& v);
  std::string in_scope(const sym::reduction& r, std::string& i, const std::function<std::string()>& body);
  std::string vector_statements(const GiNaC::ex& v, const GiNaC::ex& scale);

  std::string print_mul(const GiNaC::ex& e);
  std::string print_add(const GiNaC::ex& e);
  std::string print_function(const GiNaC::ex& e);
  std::string print_reduction(const GiNaC::ex& e);

  NameTable& names_;
  std::map<GiNaC::ex, std::string, GiNaC::ex_is_less> bound_;
};

}  // namespace pamc::emit
