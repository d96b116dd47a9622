#include "compiler/symbolic/normal_memo.h"

#include "compiler/symbolic/expr_key.h"

#include <unordered_map>

namespace pamc::sym {

GiNaC::ex numer_denom_of(const GiNaC::ex& x) {
  // Bounded, for long-lived hosts (the language server, the Python module): a full table is
  // dropped, which costs only recomputation.
  static thread_local std::unordered_map<GiNaC::ex, GiNaC::ex, ExprHash, ExprEq> memo;
  auto it = memo.find(x);
  if (it != memo.end()) return it->second;
  GiNaC::ex nd = x.normal().numer_denom();
  if (memo.size() >= 4096) memo.clear();
  memo.emplace(x, nd);
  return nd;
}

}  // namespace pamc::sym
