// For the symbolic property tests: do a closed form's recorded assumptions hold at a point?
// A point where one cannot be evaluated counts as outside them (the tests then skip it).
#pragma once

#include "compiler/symbolic/symbolic.h"

namespace pamc::sym {

inline bool assumptions_hold(const Assumptions& a, const GiNaC::exmap& env) {
  try {
    for (const GiNaC::ex& c : a.nonneg) {
      WorkBudget b;
      if (evaluate(c, env, b).scalar.is_negative()) return false;
    }
    for (const GiNaC::ex& c : a.integer) {
      WorkBudget b;
      if (!evaluate(c, env, b).scalar.is_integer()) return false;
    }
  } catch (const EvalError&) {
    return false;
  }
  return true;
}

}  // namespace pamc::sym
