// Flattens a simplified GiNaC cost expression into a Program (runtime/api/program.h).
#pragma once
#include <map>
#include <string>

#include <ginac/ginac.h>

#include "runtime/api/program.h"

namespace pamela::detail {

// `params` maps each parameter symbol to its argument position. Throws CompileFailure
// naming the construct when the expression has no scalar program (a vector, an unbound
// symbol, an unknown function).
struct CompileFailure {
  std::string message;
};
Program compile_expression(const GiNaC::ex& e, const std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less>& params);

}  // namespace pamela::detail
