#include "compiler/symbolic/position_domain.h"
#include "compiler/symbolic/stored_pairs.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/simplify.h"

#include <map>
#include <set>
#include <string>
#include <unordered_set>

namespace pamc::sym {

using namespace GiNaC;

namespace {

using detail::Loop;

// A guard factor of a use, read as a bound on one loop index where it is one: (1 <= p)
// gives p >= 1, (p + 1 <= P - 1) gives p <= P - 2, 1 - (p <= 0) gives p > 0. A guard of
// another form is left out, which only makes the position's condition stronger.
void add_guard(const ex& factor, const std::vector<Loop>& loops, Facts& in) {
  ex x = factor.expand();
  bool negated = false;
  ex test = x;
  if (is_class<add>(x) && x.nops() == 2) {  // 1 - (a <= b): not taken where a <= b
    ex t0 = x.op(0), t1 = x.op(1);
    if (is_class<numeric>(t0)) std::swap(t0, t1);
    if (t1.is_equal(1) && is_class<mul>(t0) && t0.nops() == 2 && t0.op(1).is_equal(-1) && is_comparison(t0.op(0))) {
      test = t0.op(0);
      negated = true;
    }
  }
  if (!is_comparison(test)) return;
  Fn k = pamela_function(test);
  // d >= 0 (strict: d > 0) where the use runs.
  ex d;
  bool strict = false;
  if (k == Fn::Le || k == Fn::Lt) {
    d = negated ? test.op(0) - test.op(1) : test.op(1) - test.op(0);
    strict = (k == Fn::Lt) != negated;
  } else if (k == Fn::Eq && !negated) {
    for (const Loop& l : loops) {
      auto lin = detail::linear_in(test.op(0) - test.op(1), l.index);
      if (!lin || (lin->first != 1 && lin->first != -1)) continue;
      ex at = (-lin->second / lin->first).expand();
      in.add_lower(l.index, at, false);
      in.add_upper(l.index, at, false);
      return;
    }
    return;
  } else {
    return;
  }
  for (const Loop& l : loops) {
    auto lin = detail::linear_in(d.expand(), l.index);
    if (!lin) continue;
    ex bound = (-lin->second / lin->first).expand();
    if (lin->first.is_positive()) in.add_lower(l.index, bound, strict);
    else in.add_upper(l.index, bound, strict);
    return;
  }
}

struct PairLess {
  bool operator()(const std::pair<int, ex>& x, const std::pair<int, ex>& y) const {
    if (x.first != y.first) return x.first < y.first;
    return x.second.compare(y.second) < 0;
  }
};

struct Checker {
  const Facts& facts;  // the model's, without loop indices
  Assumptions& a;
  std::set<std::string> done;  // positions already checked, with their loops
  // Lowered equations share subexpressions (phi_, T_ and omega_ of one process, a process
  // used twice, `c1 = c0 || c0`): a node is walked once per context, the loops and guards
  // around it. A context is numbered by its parent's number and the node that opened it.
  std::map<std::pair<int, ex>, int, PairLess> contexts;
  // Hashed: a node is seen again where it is equal (is_equal, as the ordered set's compare()
  // found it), the same nodes as before, in O(1) (the set's compares were most of this walk
  // on 10^4 generated equations).
  struct SeenHash {
    size_t operator()(const std::pair<int, ex>& x) const { return x.second.gethash() ^ (static_cast<size_t>(x.first) * 0x9e3779b97f4a7c15ULL); }
  };
  struct SeenEq {
    bool operator()(const std::pair<int, ex>& x, const std::pair<int, ex>& y) const {
      return x.first == y.first && x.second.is_equal(y.second);
    }
  };
  std::unordered_set<std::pair<int, ex>, SeenHash, SeenEq> seen;

  // A condition the closed forms can never use: recorded so that every evaluator falls back
  // to the unsimplified model, which says where the model has no value.
  void never(const ex& pos) {
    std::string text = "resource position " + to_pamela(pos) + " >= 0 and an integer wherever it is used";
    if (a.items.insert(text).second) a.nonneg.push_back(-1);
  }

  // A proof that may lean on a parameter's default sign (B >= 0 for i + B), which the model
  // does not imply: what it leaned on is recorded with it, as the rules' proofs are.
  template <class Proof>
  bool signed_proof(Assumptions& into, Proof&& proof) {
    auto& log = DefaultBoundLog::used();
    log.clear();
    DefaultBoundLog::recording() = true;
    bool ok = proof();
    DefaultBoundLog::recording() = false;
    if (ok)
      for (const symbol& s : log)
        if (into.items.insert(s.get_name() + " >= 0").second) into.nonneg.push_back(s);
    log.clear();
    return ok;
  }

  // GiNaC's expand() splits a power of a sum of exponents, so 0 ^ (s - 1/2) (a position the
  // model reads only at s >= 1) throws for its 0 ^ (-1/2): such a position is not proved.
  void check(const ex& pos, const std::vector<Loop>& loops, const Facts& in) {
    try {
      check_position(pos, loops, in);
    } catch (const std::exception&) {
      never(pos);
    }
  }

  void check_position(const ex& pos, const std::vector<Loop>& loops, const Facts& in) {
    std::string key = to_pamela(pos);
    for (const Loop& l : loops) key += "|" + l.index.get_name() + "=" + to_pamela(l.lb) + ".." + to_pamela(l.ub);
    if (!done.insert(key).second) return;
    Assumptions tmp = a;
    // Terms that are integers by themselves (i div B, a floor) need nothing; the rest must
    // sum to an integer.
    // x mod K (K a proved integer >= 1) is an integer where x is: its argument takes its place,
    // so (i + B) mod P needs only "B is an integer" (assumed and checked), not "never".
    ex rest = 0, todo = pos.expand();
    for (int pass = 0; pass < 4 && !todo.is_zero(); ++pass) {
      ex next = 0;
      for (const ex& t : detail::operands_of(todo, true)) {
        if (in.provably_integer(t)) continue;
        if (pamela_function(t) == Fn::Mod && in.provably_integer(t.op(1)) && in.provably_positive(t.op(1))) next += t.op(0);
        else rest += t;
      }
      todo = next.expand();
    }
    rest += todo;
    if (!signed_proof(tmp, [&] { return detail::require({{true, rest}}, in, tmp); })) return never(pos);
    for (const ex& k : tmp.integer)  // i / 2: "1/2 is an integer" is plainly never so
      if (is_class<numeric>(k)) return never(pos);
    if (in.mentions_index(pos) && !signed_proof(tmp, [&] { return in.provably_nonneg(pos); })) {
      // The least position over the loops (an empty loop has none: 0 stands for it), closed
      // by the simplifier with its own assumptions.
      ex least = pos;
      for (auto l = loops.rbegin(); l != loops.rend(); ++l)
        if (least.has(l->index)) least = make_reduction(ReduceKind::Min, l->index, l->lb, l->ub, least, true);
      RuleStats stats;
      ex closed = simplify(least, facts, tmp, stats);
      if (count_reductions(closed) != 0) return never(pos);
      if (!signed_proof(tmp, [&] { return detail::require({{false, closed}}, facts, tmp); })) return never(pos);
    } else if (!in.mentions_index(pos) && !signed_proof(tmp, [&] { return detail::require({{false, pos}}, in, tmp); })) {
      return never(pos);
    }
    a = std::move(tmp);
  }

  int context(int parent, const ex& opener) {
    auto it = contexts.emplace(std::make_pair(parent, opener), static_cast<int>(contexts.size()) + 1).first;
    return it->second;
  }

  void walk(const ex& e, std::vector<Loop>& loops, const Facts& in, int ctx) {
    if (is_class<numeric>(e) || is_class<symbol>(e)) return;
    if (!seen.insert({ctx, e}).second) return;
    if (is_class<reduction>(e)) {
      const auto& r = ex_to<reduction>(e);
      const Facts inner = in.with_indices({{r.index(), r.lb(), r.ub()}});
      loops.push_back({r.index(), r.lb(), r.ub()});
      walk(r.body(), loops, inner, context(ctx, e));
      loops.pop_back();
      return;
    }
    if (pamela_function(e) == Fn::Unitvec) {
      for (const symbol& s : free_symbols(e.op(0)))
        if (!in.is_declared(s)) return;  // a formal parameter: checked where it is bound
      check(e.op(0), loops, in);
      return;
    }
    if (is_class<mul>(e) && !loops.empty()) {
      Facts guarded = in;
      bool any = false;
      for (size_t k = 0; k < e.nops(); ++k)
        if (has_comparison(e.op(k)) && !is_vector_valued(e.op(k))) {
          add_guard(e.op(k), loops, guarded);
          any = true;
        }
      int inner = any ? context(ctx, e) : ctx;
      for (size_t k = 0; k < e.nops(); ++k) walk(e.op(k), loops, any ? guarded : in, inner);
      return;
    }
    if (is_class<add>(e)) {
      // A sum's terms as stored, not through op(), which builds term * coefficient anew per
      // term of a long load vector. The same checks: the coefficient is a number, so the
      // product op() builds has the term's own factors (a mul's guards are its factors')
      // or the term beside a number, where a guard has no position to constrain (a factor
      // with a comparison and no vector holds no unitvec).
      for (const expair& p : StoredPairs::pairs(ex_to<add>(e))) walk(p.rest, loops, in, ctx);
      return;
    }
    for (size_t k = 0; k < e.nops(); ++k) walk(e.op(k), loops, in, ctx);
  }

  static std::set<symbol, ex_is_less> free_symbols(const ex& e) {
    std::set<symbol, ex_is_less> out;
    for (const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it)
      if (is_class<symbol>(*it)) out.insert(ex_to<symbol>(*it));
    return out;
  }
};

}  // namespace

void assume_valid_positions(const std::vector<ex>& equations, const Facts& facts, Assumptions& a) {
  Checker c{facts, a, {}, {}, {}};
  std::vector<Loop> loops;
  for (const ex& e : equations) c.walk(e, loops, facts, 0);
}

}  // namespace pamc::sym
