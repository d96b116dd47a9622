// Loops whose bound is an integer at some indices of a loop around them only (header).
#include "compiler/symbolic/index_dependent_bounds.h"

#include <algorithm>

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/rules_internal.h"

namespace pamc::sym {

using namespace GiNaC;

namespace {

// Whether b may be an integer at some indices only: it holds a number that is not an
// integer or a division (i / 2, i / P). Most bounds (N - 1, i + 1, floor(i / 2) aside) have
// neither and are never looked at again. A cheap over-approximation: decides_pair decides.
// A bound that is a number reads no index.
bool may_depend(const ex& b) {
  if (is_class<numeric>(b)) return false;  // reads no index (par (i = 1, 1 / 3) has its own check)
  for (const_preorder_iterator it = b.preorder_begin(); it != b.preorder_end(); ++it) {
    if (is_class<numeric>(*it) && !ex_to<numeric>(*it).is_integer()) return true;
    if (is_class<power>(*it) && is_class<numeric>(it->op(1)) && ex_to<numeric>(it->op(1)).is_negative()) return true;
  }
  return false;
}

// Whether p, a polynomial with rational coefficients in the symbols it reads, is an integer
// at every integer point. Theorem: it is iff it is one at every point of the grid {0..d_1} x
// ... x {0..d_k}, d_s its degree in s (p is then an integer combination of products of
// binomials C(s, m), m <= d_s, whose values at that grid determine the coefficients by
// unit-triangular solves). Larger grids than 4 symbols or degree 6 are not tried (false:
// the cautious answer, the loop stays as written).
bool integer_valued(const ex& p) {
  std::vector<std::pair<symbol, int>> vars;
  for (const_preorder_iterator it = p.preorder_begin(); it != p.preorder_end(); ++it)
    if (is_class<symbol>(*it) && std::none_of(vars.begin(), vars.end(), [&](const auto& v) { return ex(v.first).is_equal(*it); }))
      vars.emplace_back(ex_to<symbol>(*it), 0);
  if (vars.size() > 4) return false;
  for (auto& [s, d] : vars) {
    d = p.degree(s);
    if (d < 0 || d > 6) return false;
  }
  std::vector<int> at(vars.size(), 0);
  while (true) {
    exmap point;
    for (size_t k = 0; k < vars.size(); ++k) point[vars[k].first] = at[k];
    ex v = p.subs(point, subs_options::no_pattern);
    if (!is_class<numeric>(v) || !ex_to<numeric>(v).is_integer()) return false;
    size_t k = 0;
    while (k < vars.size() && ++at[k] > vars[k].second) at[k++] = 0;
    if (k == vars.size()) return true;
  }
}

}  // namespace

bool index_dependent_bound(const ex& b, const Facts& f) {
  // The loop indices: declared ones, and any symbol the facts do not declare.
  auto is_index = [&](const ex& y) { return f.mentions_index(y) || !detail::reads_only_declared(y, f); };
  auto by_monomial = detail::index_monomials(b, is_index);
  if (!by_monomial) return false;  // another shape: the rules' own conditions decide
  by_monomial->erase("1");         // the constant term reads no index
  // The monomials with number coefficients: a polynomial that may be an integer at every
  // integer index all the same (i * (i + 1) / 2), which integer_valued decides.
  ex numeric_part = 0;
  for (const auto& [key, mc] : *by_monomial)
    if (is_class<numeric>(mc.second)) numeric_part += mc.first * mc.second;
  if (!numeric_part.is_zero() && !integer_valued(numeric_part)) return true;
  for (const auto& [key, mc] : *by_monomial) {
    const ex& c = mc.second;
    if (is_class<numeric>(c) || f.provably_integer(c)) continue;
    if (detail::pins_to_few_values(c, f)) return true;
  }
  return false;
}

// c's bound, with the loops between it and `outer` declared inside `outer`, reads outer's
// index where it is an integer at some indices only. Reads of the facts here decide only
// that no rule fires, so the default signs they use are not logged (LogNothing).
bool IndexDependentBounds::decides_pair(const reduction& outer, const Candidate& c) const {
  LogNothing nothing;
  Facts in = facts_;
  in.declare_index(outer.index(), outer.lb(), outer.ub());
  for (const Link* l = c.between.get(); l; l = l->inner.get()) {
    const auto& r = ex_to<reduction>(l->loop);
    in.declare_index(r.index(), r.lb(), r.ub());
  }
  return !in.provably_integer(c.bound) && index_dependent_bound(c.bound, in);
}

const IndexDependentBounds::Info& IndexDependentBounds::info(const ex& e) {
  static const Info none;
  if (e.nops() == 0) return none;
  const basic* key = &ex_to<basic>(e);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second.info;
  Info out;
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    for (const ex& b : {r.lb(), r.ub()}) {
      const Info& in = info(b);  // a loop inside a bound: its pairs count too
      out.holds = out.holds || in.holds;
      out.open.insert(out.open.end(), in.open.begin(), in.open.end());
      if (may_depend(b)) out.open.push_back(Candidate{b, nullptr});
    }
    const Info& body = info(r.body());
    out.holds = out.holds || body.holds;
    for (const Candidate& c : body.open) {
      if (!out.holds && c.bound.has(r.index_ex()) && decides_pair(r, c)) out.holds = true;
      out.open.push_back(Candidate{c.bound, std::make_shared<const Link>(Link{e, c.between})});
    }
  } else {
    for (size_t k = 0; k < e.nops(); ++k) {
      const Info& in = info(e.op(k));
      out.holds = out.holds || in.holds;
      out.open.insert(out.open.end(), in.open.begin(), in.open.end());
    }
  }
  // Once a pair is there, what else is open no longer matters to any node around this one.
  if (out.holds) out.open.clear();
  return memo_.emplace(key, Entry{e, std::move(out)}).first->second.info;
}

}  // namespace pamc::sym
