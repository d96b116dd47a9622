// Why a reduction stayed open: see open_reason.h.
#include "compiler/symbolic/open_reason.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules_internal.h"

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

// e = a * i + c with a and c free of i (a symbolic slope allowed).
bool affine_in(const ex& e, const ex& i) {
  ex x = e.expand();
  if (!x.is_polynomial(i) || x.degree(i) != 1) return false;
  return !x.coeff(i, 1).has(i) && !x.coeff(i, 0).has(i);
}

// The kind of index map a position is, in words, or "" when it is none that the load
// algebra reads: affine maps, their div and mod, and sums of such (mixed-radix grids).
std::string map_kind(const ex& pos, const ex& i) {
  if (affine_in(pos, i)) return "an affine map";
  Fn k = pamela_function(pos);
  if ((k == Fn::Mod || k == Fn::Div) && !pos.op(1).has(i)) {
    if (affine_in(pos.op(0), i)) return k == Fn::Mod ? "a cyclic map" : "a block map";
    if (k == Fn::Mod && pamela_function(pos.op(0)) == Fn::Div && !pos.op(0).op(1).has(i) &&
        affine_in(pos.op(0).op(0), i))
      return "a block-cyclic map";
  }
  if (is_class<mul>(pos)) {  // c * (i mod P): a map scaled by a factor free of i
    std::string kind;
    for (size_t n = 0; n < pos.nops(); ++n)
      if (pos.op(n).has(i)) {
        if (!kind.empty()) return "";
        kind = map_kind(pos.op(n), i);
      }
    return kind;
  }
  if (is_class<add>(pos)) {  // an offset (P + i mod P), or a grid (Py * (i mod Px) + j mod Py)
    std::vector<std::string> kinds;
    for (size_t n = 0; n < pos.nops(); ++n)
      if (pos.op(n).has(i)) kinds.push_back(map_kind(pos.op(n), i));
    for (const std::string& k : kinds)
      if (k.empty()) return "";
    return kinds.size() == 1 ? kinds[0] : "a grid map";
  }
  return "";
}

// A weight in a note: its text, or "its weight" where the text would bury the sentence.
std::string weight_text(const ex& w) {
  std::string t = to_pamela(w);
  return t.size() <= 60 ? t : "its weight";
}

// Why the busiest position of sum (i) { w(i) * unitvec(pos(i)) } stayed open, by the step of
// the load algebra that failed: the map (no fiber is read), several positions per index
// (loads that add), the weight's sign (the busiest-position rules need w >= 0), or the load
// of a position and its max over the positions.
std::string why_load_open(const reduction& r, const ex& pos, const Facts& facts, bool negated) {
  const ex& i = r.index_ex();
  const std::string name = r.index().get_name();
  const std::string where = "the resource position " + to_pamela(pos);
  const std::string kind = map_kind(pos, i);
  if (kind.empty())
    return where + " is not an index map pamc reads (a * " + name + " + c, its div and mod, and sums of those for grids)";
  std::optional<ex> weight;
  std::vector<ex> others;
  if (auto v = split_vector(r.body()))
    for (const auto& [p, c] : v->terms) {
      if (p.is_equal(pos)) weight = c;
      else if (p.has(i)) others.push_back(p);
    }
  // A body that is one product with the unit vector: its other factors are the weight as
  // the model writes it (split_vector's weight is expanded), times the sign in front of
  // the reduction in its equation.
  if (weight && others.empty() && is_class<mul>(r.body())) {
    ex rest = 1;
    int units = 0;
    for (const ex& x : r.body())
      if (pamela_function(x) == Fn::Unitvec && x.op(0).is_equal(pos)) ++units;
      else rest *= x;
    if (units == 1 && (rest - *weight).expand().is_zero()) weight = rest;
  }
  if (weight && negated) weight = -*weight;
  if (!others.empty())
    return where + " and " + to_pamela(detail::sorted_by_text(others)[0]) + " are used by the same " + name +
           ", so their loads add on the resources they share, and pamc finds no closed busiest position for the two together";
  Facts in = facts;
  in.declare_index(r.index(), r.lb(), r.ub());
  // A sum of a weight <= 0 is a load the equation subtracts or negates (-sum (i) { ... }
  // prints the same as sum (i) { -... }, and GiNaC picks either by the executable's
  // layout): the note reads the weight as the printed form does.
  if (weight && !in.provably_nonneg(*weight) && in.provably_nonneg(-*weight)) weight = -*weight;
  if (weight && !in.provably_nonneg(*weight))
    return where + " is " + kind + ", but " + (weight_text(*weight) == "its weight" ? "its weight" : "its weight " + weight_text(*weight)) +
           " is not proved >= 0, which finding the busiest position needs";
  const std::string w = weight ? weight_text(*weight) : "its weight";
  if (weight && !weight->has(i) && kind != "a grid map")  // a count per position: closed alone
    return where + " is " + kind + " with the same weight for every " + name +
           "; the open step is the busiest position over this range of " + name +
           " (a range that starts a block or a period closes) or beside the other loads of the same resources";
  if (kind == "an affine map")
    return where + " holds one " + name + " each, so the busiest is where " + w +
           " is largest, and pamc finds no closed max of it over " + name;
  return where + " is " + kind + ", but the busiest position's load (" + w + " summed over the " + name +
         " that share a position) has no closed form pamc finds";
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

// Whether target stands in e under an odd number of negative numbers (-sum { ... } in a
// product); nullopt where it is not in e (outside reductions of e).
std::optional<bool> negated_in(const ex& e, const ex& target) {
  if (e.is_equal(target)) return false;
  if (is_class<reduction>(e)) return std::nullopt;
  const bool flip = negative_number_in_front(e);
  for (size_t k = 0; k < e.nops(); ++k)
    if (auto n = negated_in(e.op(k), target)) return *n != flip;
  return std::nullopt;
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

// Two roundings (floor, ceil, div, mod) of arguments linear in i by divisors neither of which
// divides the other: 1 / Px and 1 / Py (not B and B * P). nullopt otherwise.
std::optional<std::pair<ex, ex>> two_divisors(const ex& body, const ex& i) {
  exvector divisors;
  for (const_preorder_iterator it = body.preorder_begin(); it != body.preorder_end(); ++it) {
    Fn fn = pamela_function(*it);
    if (fn != Fn::Floor && fn != Fn::Ceil && fn != Fn::Div && fn != Fn::Mod) continue;
    ex arg = fn == Fn::Floor || fn == Fn::Ceil ? it->op(0) : it->op(0) / it->op(1);
    ex x = arg.expand();
    if (!x.is_polynomial(i) || x.degree(i) != 1) continue;
    ex slope = x.coeff(i, 1);
    if (slope.has(i) || is_class<numeric>(slope)) continue;
    ex d = (1 / slope).normal();
    if (to_pamela(d).rfind("-", 0) == 0) d = -d;  // 1 / (-1 / Py): the divisor Py
    // Not when one divides the other (B and B * P repeat with B * P).
    auto multiple = [](const ex& x, const ex& y) { return (x / y).normal().denom().is_equal(1); };
    for (const ex& o : divisors)
      if (!multiple(d, o) && !multiple(o, d)) {
        exvector two = detail::sorted_by_text({o, d});
        return std::make_pair(two[0], two[1]);
      }
    divisors.push_back(d);
  }
  return std::nullopt;
}

}  // namespace

bool negative_number_in_front(const ex& e) {
  bool negative = false;
  if (is_class<mul>(e))
    for (size_t k = 0; k < e.nops(); ++k)
      if (is_class<numeric>(e.op(k)) && ex_to<numeric>(e.op(k)).is_negative()) negative = !negative;
  return negative;
}

std::string why_open(const ex& e, const Facts& facts, bool negated) {
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
    const bool inner_negated = negated != negated_in(body, *inner).value_or(false);
    return "its inner " + kind + " over " + q.index().get_name() + " stays open: " + why_open(*inner, in, inner_negated);
  }
  if (auto t = transcendental_in(body, i))
    return "the weight depends on " + name + " through " + to_pamela(*t) + ", which has no closed sum";
  if (!facts.provably_integer(r.lb()) || !facts.provably_integer(r.ub()))
    return "its bounds are not known to be integers";
  // GiNaC's expand() splits a power of a sum of exponents: 0 ^ (s - 1/2) throws for its
  // 0 ^ (-1/2) where the map reader expands a position, so such a position is not read.
  if (auto pos = position_in(body, i)) try {
      return why_load_open(r, *pos, facts, negated);
    } catch (const std::exception&) {
      return "no rule applies to its body " + to_pamela(body);
    }
  if (has_predicate(body, i)) return "the condition on " + name + " is not a residue or linear test pamc counts";
  if (auto two = two_divisors(body, i))
    return "the body rounds " + name + " by " + to_pamela(two->first) + " and by " + to_pamela(two->second) +
           ", so its terms repeat only with their least common multiple, which has no closed form in " +
           to_pamela(two->first) + " and " + to_pamela(two->second);
  if (r.kind() != ReduceKind::Sum)
    return std::string("the body is neither monotone nor convex in ") + name + ", so the " +
           (r.kind() == ReduceKind::Max ? "max" : "min") + " is not at an end of the range";
  return "no rule applies to its body " + to_pamela(body);
}

}  // namespace pamc::sym
