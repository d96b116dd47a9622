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

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
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
  for (const SignedAtom& g : signed_atoms_) {
    auto v = exact_at(g.e, env);
    if (!v || (g.nonpos ? v->is_positive() : v->is_negative())) return false;
  }
  return true;
}

namespace {

// A candidate point of a set of facts before the claim's own free symbols are set: every
// declared symbol at `scale`, or `big` (a declared symbol) at scale and the others at 1,
// then moved inside the symbolic bounds. It depends on the facts alone, so it is built once
// per set of facts and plan (the facts' proof memo, dropped on any change, stands for the
// set); a claim asks at 3 to 5 of them.
struct Point {
  bool ok = false;  // every symbol found a value inside its interval
  exmap env;
  int allowed = -1;  // allows(env): -1 not asked yet
};
struct FactsPoints {
  std::weak_ptr<void> owner;  // the proof memo these points belong to (expired: stale)
  Point fixed[3];             // scales 1, 2, 1000, every symbol
  std::map<ex, Point, ex_is_less> big;  // scale 1000 for one symbol, 1 for the others
  bool built[3] = {false, false, false};
};

// The symbols of e (reduction indices not included: a claim with a reduction is not tried).
bool symbols_without_reductions(const ex& e, std::set<ex, ex_is_less>& out) {
  if (is_class<reduction>(e)) return false;
  if (is_class<symbol>(e)) {
    out.insert(e);
    return true;
  }
  for (size_t k = 0; k < e.nops(); ++k)
    if (!symbols_without_reductions(e.op(k), out)) return false;
  return true;
}

}  // namespace

bool Facts::refuted(const ex& e, bool strict) const {
  // A reduction (a vector's loads above all) costs its terms at every point: not tried.
  std::set<ex, ex_is_less> symbols;
  if (!symbols_without_reductions(e, symbols)) return false;
  return visit_points(symbols, [&](const exmap& env) {
    auto v = exact_at(e, env);
    return v && (v->is_negative() || (strict && v->is_zero()));
  });
}

bool Facts::visit_values(const exvector& xs, const std::function<bool(const std::vector<std::optional<numeric>>&)>& visit) const {
  std::set<ex, ex_is_less> symbols;
  for (const ex& x : xs)
    if (!symbols_without_reductions(x, symbols)) return false;
  ensure_memo();  // the points are kept with it
  std::vector<std::optional<numeric>> row;
  return visit_points(symbols, [&](const exmap& env) {
    row.clear();
    for (const ex& x : xs) row.push_back(exact_at(x, env));
    return visit(row);
  });
}

bool Facts::visit_points(const std::set<ex, ex_is_less>& symbols, const std::function<bool(const exmap&)>& visit) const {
  // The symbols the facts do not know are unconstrained reals.
  exvector free;
  for (const ex& s : symbols)
    if (!info_.count(s)) free.push_back(s);
  // The points of these facts, kept with their proof memo (memo_prove made it before asking).
  auto build_point = [this](Point& pt, const numeric& scale, const ex* big) {
    exmap env;
    for (const auto& [s, inf] : info_) {
      numeric want = big ? (s.is_equal(*big) ? scale : numeric(1)) : scale;
      auto v = clamp(want, inf.iv.lo, inf.iv.hi, inf.integer);
      if (!v) return;  // pt.ok stays false
      env[s] = *v;
    }
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
    pt.ok = true;
    pt.env = std::move(env);
  };
  static thread_local std::unordered_map<const void*, FactsPoints> cache;
  FactsPoints* points = nullptr;
  if (memo_) {
    auto [it, fresh] = cache.try_emplace(memo_.get());
    if (!fresh && it->second.owner.expired()) {  // another memo at a freed one's address
      it->second = FactsPoints{};
      fresh = true;
    }
    if (fresh) {
      if (cache.size() > 4096) {  // bounded: expired sets of facts dropped, all if none is
        for (auto c = cache.begin(); c != cache.end();) c = c->second.owner.expired() ? cache.erase(c) : std::next(c);
        if (cache.size() > 2048) cache.clear();
        it = cache.try_emplace(memo_.get()).first;
      }
      it->second.owner = std::static_pointer_cast<void>(memo_);
    }
    points = &it->second;
  }
  FactsPoints local;
  if (!points) points = &local;
  // Candidate points: every symbol small, every symbol large, and each symbol large with the
  // others small (which of two terms is larger usually turns on one ratio).
  auto at = [&](int k, const ex* big) -> Point& {
    static const numeric scales[3] = {1, 2, 1000};
    if (!big) {
      if (!points->built[k]) {
        build_point(points->fixed[k], scales[k], nullptr);
        points->built[k] = true;
      }
      return points->fixed[k];
    }
    auto [it, fresh] = points->big.try_emplace(*big);
    if (fresh) build_point(it->second, scales[2], big);
    return it->second;
  };
  std::vector<std::pair<int, const ex*>> plans = {{0, nullptr}, {1, nullptr}, {2, nullptr}};
  for (const auto& [s, inf] : info_)
    if (!inf.index && symbols.count(s)) plans.push_back({2, &s});
  for (const auto& [k, big] : plans) {
    Point& pt = at(k, big);
    if (!pt.ok) continue;
    bool allowed;
    exmap with_free;
    if (free.empty()) {
      if (pt.allowed < 0) pt.allowed = allows(pt.env) ? 1 : 0;
      allowed = pt.allowed == 1;
    } else {
      with_free = pt.env;
      for (const ex& s : free) with_free[s] = big ? numeric(1) : (k == 0 ? numeric(1) : k == 1 ? numeric(2) : numeric(1000));
      allowed = allows(with_free);
    }
    if (!allowed) continue;
    if (visit(free.empty() ? pt.env : with_free)) return true;
  }
  return false;
}

}  // namespace pamc::sym
