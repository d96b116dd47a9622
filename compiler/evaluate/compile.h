// Flattens a simplified GiNaC cost expression into a Program (compiler/evaluate/program.h).
#pragma once
#include <map>
#include <string>

#include "compiler/symbolic/ginac_headers.h"

#include "compiler/evaluate/program.h"

namespace pamc::eval {

// `params` maps each parameter symbol to its argument position. Throws CompileFailure
// naming the construct when the expression has no scalar program (a vector, an unbound
// symbol, an unknown function).
struct CompileFailure {
  std::string message;
};
Program compile_expression(const GiNaC::ex& e, const std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less>& params);

}  // namespace pamc::eval
