// Refutation before proof: a claim e >= 0 that is false at some point the facts allow has
// no proof, and the prover's retries (expansions, substitutions, common denominators, case
// splits) cost milliseconds on the large rational terms of a max's arguments before they
// give up. Evaluating e exactly at a few such points costs microseconds. Sound as long as
// the prover is: a refuted claim is one it could not have proved.
//
// A point is used only when every fact holds at it, checked exactly: each symbol's numeric
// interval, its symbolic bounds, integrality of the integer symbols, expressions and atoms.
// Only an exact (rational) value refutes; a float, a vector, an error (a division by zero,
// an exhausted budget) says nothing. Claims about reductions are left to the prover.
#include "compiler/symbolic/facts.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/evaluate.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <optional>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {

// The exact rational value of x at env, if it has one within a small budget.
std::optional<numeric> exact_at(const ex& x, const exmap& env) {
  try {
    WorkBudget budget;
    budget.steps_left = 2000;
    Value v = evaluate(x, env, budget);
    if (v.is_vector || !v.scalar.is_rational()) return std::nullopt;
    return v.scalar;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool inside(const End& lo, const End& hi, const numeric& v) {
  if (lo.inf == 0 && (v < lo.v || (lo.open && v == lo.v))) return false;
  if (hi.inf == 0 && (v > hi.v || (hi.open && v == hi.v))) return false;
  return true;
}

// The value nearest to `want` inside [lo, hi] (an integer if `integer`), if there is one.
std::optional<numeric> clamp(numeric want, const End& lo, const End& hi, bool integer) {
  if (lo.inf == 0 && (want < lo.v || (lo.open && want == lo.v))) want = lo.open ? lo.v + numeric(1, 2) : lo.v;
  if (hi.inf == 0 && (want > hi.v || (hi.open && want == hi.v))) want = hi.open ? hi.v - numeric(1, 2) : hi.v;
  if (integer && !want.is_integer()) want = -floor_num(-want);  // ceil
  if (!inside(lo, hi, want)) return std::nullopt;
  return want;
}

}  // namespace

bool Facts::allows(const exmap& env) const {
  for (const auto& [s, inf] : info_) {
    auto it = env.find(s);
    if (it == env.end() || !is_class<numeric>(it->second)) return false;
    const numeric& v = ex_to<numeric>(it->second);
    if (!inside(inf.iv.lo, inf.iv.hi, v) || (inf.integer && !v.is_integer())) return false;
    for (const auto& [b, strict] : inf.lower) {
      auto l = exact_at(b, env);
      if (!l || v < *l || (strict && v == *l)) return false;
    }
    for (const auto& [b, strict] : inf.upper) {
      auto u = exact_at(b, env);
      if (!u || v > *u || (strict && v == *u)) return false;
    }
  }
  for (const ex& g : integer_exprs_) {
    auto v = exact_at(g, env);
    if (!v || !v->is_integer()) return false;
  }
  for (const ex& g : integer_atoms_) {
    auto v = exact_at(g, env);
    if (!v || !v->is_integer()) return false;
  }
  return true;
}

bool Facts::refuted(const ex& e, bool strict) const {
  // A reduction (a vector's loads above all) costs its terms at every point: not tried.
  for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (is_class<reduction>(*it)) return false;
  // The symbols of e the facts do not know are unconstrained reals.
  exvector free;
  for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (is_class<symbol>(*it) && !info_.count(*it)) free.push_back(*it);
  // Candidate points: every symbol small, every symbol large, and each symbol large with the
  // others small (which of two terms is larger usually turns on one ratio).
  std::vector<std::pair<numeric, const ex*>> plans = {{1, nullptr}, {2, nullptr}, {1000, nullptr}};
  for (const auto& [s, inf] : info_)
    if (!inf.index && e.has(s)) plans.push_back({1000, &s});
  for (const auto& [scale, big] : plans) {
    exmap env;
    bool ok = true;
    for (const auto& [s, inf] : info_) {
      numeric want = big ? (s.is_equal(*big) ? scale : numeric(1)) : scale;
      auto v = clamp(want, inf.iv.lo, inf.iv.hi, inf.integer);
      if (!v) {
        ok = false;
        break;
      }
      env[s] = *v;
    }
    if (!ok) continue;
    // Symbolic bounds (an index between 0 and N - 1, N >= P): moved inside, a few rounds, as
    // a bound may depend on a symbol moved in the same round.
    for (int round = 0; round < 3; ++round) {
      bool moved = false;
      for (const auto& [s, inf] : info_) {
        numeric v = ex_to<numeric>(env[s]);
        for (const auto& [b, st] : inf.lower)
          if (auto l = exact_at(b, env); l && (v < *l || (st && v == *l))) {
            v = st ? *l + (inf.integer && l->is_integer() ? numeric(1) : numeric(1, 2)) : *l;
            moved = true;
          }
        for (const auto& [b, st] : inf.upper)
          if (auto u = exact_at(b, env); u && (v > *u || (st && v == *u))) {
            v = st ? *u - (inf.integer && u->is_integer() ? numeric(1) : numeric(1, 2)) : *u;
            moved = true;
          }
        if (inf.integer && !v.is_integer()) v = -floor_num(-v);
        env[s] = v;
      }
      if (!moved) break;
    }
    for (const ex& s : free) env[s] = big ? numeric(1) : scale;
    if (!allows(env)) continue;
    auto v = exact_at(e, env);
    if (v && (v->is_negative() || (strict && v->is_zero()))) return true;
  }
  return false;
}

}  // namespace pamc::sym
