// Exact class tests for expression nodes.
//
// GiNaC's is_a<T> is a dynamic_cast. With libstdc++ on ELF, type_info equality falls back to
// strcmp of the mangled names, so a failed test walks the class hierarchy comparing strings;
// the simplifier and printer test every node against several classes, and those tests were
// a quarter of compile time. The node classes used here (numeric, symbol, constant, add, mul,
// power, function, and pamc's reduction and extremum) are leaves of GiNaC's hierarchy as far
// as pamc is concerned (it creates no subclasses of them), so comparing the registered class
// information by address -- one virtual call -- answers the same question.
#pragma once

#include "compiler/symbolic/ginac_headers.h"

namespace pamc::sym {

template <class T>
inline bool is_class(const GiNaC::ex& e) {
  return &GiNaC::ex_to<GiNaC::basic>(e).get_class_info() == &T::get_class_info_static();
}

}  // namespace pamc::sym
