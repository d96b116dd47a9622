// Emitters: the cost model as code other programs embed (SPEC section 4).
//   C++:    one self-contained header; a namespace named after the model file's stem, an
//           inline function per scalar cost equation taking every parameter (declaration
//           order) as double, a Results struct and evaluate() filling it.
//   Octave: one function file per equation (T_main.m), vectorized over parameter arrays,
//           and the same files in a package folder named after the model (+mrm/T_main.m).
//   JSON:   parameters and equations, as text and as an expression tree.
//   LaTeX:  amsmath equations (align*) for a paper or a notebook (emit_latex.cpp).
//   SymPy:  a Python module of SymPy expressions, with evaluate() (emit_sympy.cpp).
// Vector-valued equations (delta_) have no scalar code form and are listed, not emitted.
#pragma once
#include <map>
#include <string>

#include "compiler/passes/cost_model.h"

namespace pamc::emit {

std::string emit_cpp(const CostModel& model, bool all);
// file name -> contents
std::map<std::string, std::string> emit_octave(const CostModel& model, bool all);
std::string emit_json(const CostModel& model, bool all);
std::string emit_latex(const CostModel& model, bool all);
std::string emit_sympy(const CostModel& model, bool all);
// A model name as a LaTeX symbol: T_main -> T_{\mathrm{main}}, t_s -> t_{s}.
std::string latex_name(const std::string& name);

// The equations an emitter writes: top level (or all), scalar only.
std::vector<const CostEquation*> emitted_equations(const CostModel& model, bool all);

}  // namespace pamc::emit
