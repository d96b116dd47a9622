// Why a reduction stayed open: see open_reason.h.
#include "compiler/symbolic/open_reason.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

using namespace GiNaC;

namespace {

// The first subexpression of e that depends on i through a function with no closed sum:
// sqrt, log, exp, a power with i in the exponent or a non-integer exponent.
std::optional<ex> transcendental_in(const ex& e, const ex& i) {
  if (!e.has(i)) return std::nullopt;
  if (is_class<power>(e)) {
    if (e.op(1).has(i)) return e;
    if (e.op(0).has(i) && !(is_class<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_integer())) return e;
  }
  if (is_class<function>(e) && pamela_function(e) == Fn::None) return e;
  if (pamela_function(e) == Fn::Log2) return e;
  for (size_t k = 0; k < e.nops(); ++k)
    if (auto x = transcendental_in(e.op(k), i)) return x;
  return std::nullopt;
}

// The unitvec positions in e that depend on i.
void positions_in(const ex& e, const ex& i, std::vector<ex>& out) {
  if (pamela_function(e) == Fn::Unitvec) {
    if (e.op(0).has(i)) out.push_back(e.op(0));
    return;
  }
  for (size_t k = 0; k < e.nops(); ++k) positions_in(e.op(k), i, out);
}

// The first of them in printed-text order (GiNaC's operand order follows the executable's
// layout, and the note must not).
std::optional<ex> position_in(const ex& e, const ex& i) {
  std::vector<ex> all;
  positions_in(e, i, all);
  std::optional<ex> best;
  for (const ex& x : all)
    if (!best || to_pamela(x) < to_pamela(*best)) best = x;
  return best;
}

bool has_predicate(const ex& e, const ex& i) {
  if (is_comparison(e) && e.has(i)) return true;
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_predicate(e.op(k), i)) return true;
  return false;
}

// The outermost reductions inside e.
void inner_reductions(const ex& e, std::vector<ex>& out) {
  for (size_t k = 0; k < e.nops(); ++k) {
    if (is_class<reduction>(e.op(k))) out.push_back(e.op(k));
    else inner_reductions(e.op(k), out);
  }
}

// The first of them in printed-text order (not GiNaC's operand order, which follows the
// executable's layout).
std::optional<ex> inner_reduction(const ex& e) {
  std::vector<ex> all;
  inner_reductions(e, all);
  std::optional<ex> best;
  for (const ex& x : all)
    if (!best || to_pamela(x) < to_pamela(*best)) best = x;
  return best;
}

}  // namespace

std::string why_open(const ex& e, const Facts& facts) {
  const reduction& r = ex_to<reduction>(e);
  const ex& i = r.index_ex();
  const std::string name = r.index().get_name();
  const ex& body = r.body();
  std::optional<ex> inner = is_class<reduction>(body) ? std::optional<ex>(body) : inner_reduction(body);
  if (inner) {
    const reduction& q = ex_to<reduction>(*inner);
    std::string kind = q.kind() == ReduceKind::Sum ? "sum" : q.kind() == ReduceKind::Max ? "max" : "min";
    Facts in = facts;
    in.declare_index(r.index(), r.lb(), r.ub());
    return "its inner " + kind + " over " + q.index().get_name() + " stays open: " + why_open(*inner, in);
  }
  if (auto t = transcendental_in(body, i))
    return "the weight depends on " + name + " through " + to_pamela(*t) + ", which has no closed sum";
  if (!facts.provably_integer(r.lb()) || !facts.provably_integer(r.ub()))
    return "its bounds are not known to be integers";
  if (auto pos = position_in(body, i))
    return "the resource position " + to_pamela(*pos) + " is not an index map pamc closes for this weight (" + name +
           " + c, " + name + " mod P, " + name + " div B, (" + name + " div B) mod P, grids; weights monotone in " + name +
           ")";
  if (has_predicate(body, i)) return "the condition on " + name + " is not a residue or linear test pamc counts";
  if (r.kind() != ReduceKind::Sum)
    return std::string("the body is neither monotone nor convex in ") + name + ", so the " +
           (r.kind() == ReduceKind::Max ? "max" : "min") + " is not at an end of the range";
  return "no rule applies to its body " + to_pamela(body);
}

}  // namespace pamc::sym
