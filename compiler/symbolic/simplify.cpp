// Simplifier driver: see simplify.h.
//
// Bottom-up: a node's children (a reduction's bounds, then its body under the facts
// extended with the index's range) are simplified first; then the rules are tried at the
// node in all_rules() order; when one fires, its result is simplified again (its new nodes
// may enable more rules). A firing limit guards against a rule pair that undoes each other.
//
// Memo (SimplifyCache): the result of simplifying a node depends only on the node, the facts
// it is simplified under and (through the firing limit) the firings left, so it is cached
// per (facts context, node). A context is the model's facts (context 0) or a parent context
// extended with one reduction index and its range; contexts are interned, so the same
// reduction seen again (in a T_ equation that repeats its phi_ and omega_, in another
// equation, or after a rule rebuilt its parent) finds its body's results. Keys compare with
// is_equal plus equal index names in reductions (is_equal identifies alpha-equivalent
// reductions, which print differently), and hash with gethash(). Assumptions are not recorded per entry: the cache lives with one Assumptions
// object, which only grows, so whatever the cached computation assumed is already there
// and recomputing would add nothing.
//
// --stats: a hit counts the rule firings of the computation it replaces, so the counts are
// exactly those of the uncached driver ("how often each rule fired" while simplifying the
// model's equations as written, shared subexpressions counted every time they occur).
// Every firing is appended to a log of rule indices; an entry remembers its slice of the
// log and a hit appends that slice again. tidy() (tidy.h) counts tidy_factor the same way.
#include "compiler/symbolic/simplify.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/evaluate.h"
#include "compiler/symbolic/exact_size.h"
#include "compiler/symbolic/expr_key.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/index_dependent_bounds.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/tidy.h"

#include <algorithm>
#include <stdexcept>
#include <functional>
#include <iostream>
#include <cstdlib>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {

inline size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

using DeepHash = ExprHash;  // expr_key.h
using DeepEq = ExprEq;

}  // namespace

namespace {

// A comparison factor g of a product g * y read as facts: y matters only where g is 1, so y
// may be simplified under them ((2 <= W) * floor(-2 / W) is (2 <= W) * -1). Bounds: (a <= b)
// is b - a >= 0, (a < b) > 0, (a == b) both ways; for each declared symbol s with b - a =
// c s + d, c a nonzero number: s >= -d / c (c > 0) or s <= -d / c (c < 0). Integers: x mod k
// == r says (x - r) / k is an integer (the mod has a value, so k != 0), and x / m too for a
// number m > 1 dividing the numbers k and r (P mod 4 == 2: P / 2). Sound: where g is 0 the
// product is 0 whatever y is (the zero-factor rule; a loop bound in y, which must keep its
// value there since a zero factor does not cover a non-integer bound, is simplified without
// these facts: Context::bounds). != gives nothing.
struct GuardFacts {
  std::vector<std::tuple<symbol, ex, bool, bool>> bounds;  // symbol, bound, lower, strict
  exvector integers;
  bool empty() const { return bounds.empty() && integers.empty(); }
  void add(const GuardFacts& o) {
    bounds.insert(bounds.end(), o.bounds.begin(), o.bounds.end());
    integers.insert(integers.end(), o.integers.begin(), o.integers.end());
  }
};
GuardFacts guard_facts(const ex& g, const Facts& f) {
  GuardFacts out;
  Fn k = pamela_function(g);
  if (k != Fn::Le && k != Fn::Lt && k != Fn::Eq) return out;
  if (k == Fn::Eq) {
    for (int side = 0; side < 2; ++side) {
      const ex &m = g.op(side), &r = g.op(1 - side);
      if (pamela_function(m) != Fn::Mod || r.has(m.op(0))) continue;
      const ex &x = m.op(0), &q = m.op(1);
      if (q.is_zero()) continue;  // p mod 0: no value, so nothing follows (and no 1 / 0)
      out.integers.push_back((x - r) / q);
      if (is_a<numeric>(q) && is_a<numeric>(r) && ex_to<numeric>(q).is_pos_integer() &&
          ex_to<numeric>(r).is_integer() && ex_to<numeric>(q) <= 64) {
        long qn = ex_to<numeric>(q).to_long(), rn = ex_to<numeric>(r).to_long();
        for (long d = 2; d <= qn; ++d)
          if (qn % d == 0 && rn % d == 0) out.integers.push_back(x / d);
      }
    }
  }
  for (const LinearBound& b : linear_bounds(g.op(1) - g.op(0), f, k == Fn::Lt)) {
    out.bounds.emplace_back(b.s, b.bound, b.lower, b.strict);
    if (k == Fn::Eq) out.bounds.emplace_back(b.s, b.bound, !b.lower, false);
  }
  return out;
}

}  // namespace

struct SimplifyCache::Impl {
  const Facts* facts = nullptr;
  const Assumptions* assumed = nullptr;
  struct Entry {
    ex result;
    size_t log_begin, log_end;  // the firings of the computation, in `log`
  };
  struct Context {
    std::unique_ptr<Facts> own;  // null for context 0 (the model's facts)
    const Facts* facts;
    std::unordered_map<ex, Entry, DeepHash, DeepEq> memo;
    // Children, by hash of (index, lb, ub): (index, lb, ub, context id).
    std::unordered_multimap<size_t, std::tuple<ex, ex, ex, size_t>> children;
    // The context a reduction's bounds are simplified in: this one without the facts of
    // the guards around it. A loop bound is evaluated even where a guard around it is 0 (a
    // zero factor does not cover a non-integer bound), so it must keep its value there:
    // under (P mod 2 == 0), floor(P / 2) as a bound stays floor(P / 2), not P / 2.
    size_t bounds = 0;
  };
  std::vector<std::unique_ptr<Context>> ctx;
  // Which nodes hold a loop whose bound is an integer at some indices of a loop around it
  // only (index_dependent_bounds.h): read under the model's facts alone, so one memo serves
  // every context and a node is looked at once however deep it sits.
  std::unique_ptr<IndexDependentBounds> pairs;
  std::vector<unsigned char> log;  // rule index of every firing, in order
  TidyMemo tidy;
  // What simplify() returned for an expression it was called with, keyed by the node (kept
  // alive here): lowering shares the expression of equal equations, so a model's repeated
  // equations are answered without walking them again (see simplify()).
  struct TopEntry {
    ex expr, result;
    std::vector<std::pair<std::size_t, long>> fired;  // rule (all_rules() index), firings
    long tidy_fired, residual;
  };
  std::unordered_map<const basic*, TopEntry> top;

  void reset(const Facts& f, const Assumptions& a) {
    facts = &f;
    assumed = &a;
    ctx.clear();
    auto c = std::make_unique<Context>();
    c->facts = &f;
    c->bounds = 0;
    ctx.push_back(std::move(c));
    pairs = std::make_unique<IndexDependentBounds>(f);
    log.clear();
    tidy.clear();
    top.clear();
  }

  // The context of the other factors of a product whose factor `guard` is a comparison
  // (guard_facts): the parent's facts with the guard's added.
  size_t guard_child(size_t parent, const ex& guard, const GuardFacts& facts) {
    size_t h = mix(guard.gethash(), 0x5bd1e995u);
    auto range = ctx[parent]->children.equal_range(h);
    for (auto it = range.first; it != range.second; ++it) {
      const auto& [i, l, u, id] = it->second;
      if (i.is_zero() && DeepEq{}(l, guard)) return id;
    }
    auto c = std::make_unique<Context>();
    c->own = std::make_unique<Facts>(*ctx[parent]->facts);
    for (const auto& [sym, bound, lower, strict] : facts.bounds) {
      if (lower) c->own->add_lower(sym, bound, strict);
      else c->own->add_upper(sym, bound, strict);
    }
    for (const ex& x : facts.integers) c->own->declare_integer_expr(x);
    c->facts = c->own.get();
    c->bounds = ctx[parent]->bounds;  // a guard's facts never reach a bound
    size_t id = ctx.size();
    ctx[parent]->children.emplace(h, std::make_tuple(ex(0), guard, ex(0), id));
    ctx.push_back(std::move(c));
    return id;
  }

  size_t child(size_t parent, const reduction& r, const ex& lb, const ex& ub) {
    size_t h = mix(mix(r.index().gethash(), lb.gethash()), ub.gethash());
    auto range = ctx[parent]->children.equal_range(h);
    for (auto it = range.first; it != range.second; ++it) {
      const auto& [i, l, u, id] = it->second;
      if (i.is_equal(r.index()) && DeepEq{}(l, lb) && DeepEq{}(u, ub)) return id;
    }
    auto c = std::make_unique<Context>();
    c->own = std::make_unique<Facts>(*ctx[parent]->facts);
    c->own->declare_index(r.index(), lb, ub);
    c->facts = c->own.get();
    size_t id = ctx.size();
    ctx[parent]->children.emplace(h, std::make_tuple(ex(r.index()), lb, ub, id));
    ctx.push_back(std::move(c));
    // Inside the loop, a bound knows the loop's range but still none of the guards outside it.
    const size_t pb = ctx[parent]->bounds;
    const size_t b = pb == parent ? id : child(pb, r, lb, ub);
    ctx[id]->bounds = b;
    return id;
  }
};

SimplifyCache::SimplifyCache() : impl_(std::make_unique<Impl>()) {}
SimplifyCache::~SimplifyCache() = default;

namespace {

// Does a reduction bound in e mention x? (A bound is checked for being an integer even under
// a zero factor, so it keeps its own value.)
bool in_some_bound(const ex& e, const ex& x) {
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    if (r.lb().has(x) || r.ub().has(x)) return true;
    return in_some_bound(r.body(), x);
  }
  for (size_t k = 0; k < e.nops(); ++k)
    if (in_some_bound(e.op(k), x)) return true;
  return false;
}

// Every reduction bound in e, outermost first.
void collect_bounds(const ex& e, exvector& out) {
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    out.push_back(r.lb());
    out.push_back(r.ub());
    collect_bounds(r.body(), out);
    return;
  }
  for (size_t k = 0; k < e.nops(); ++k) collect_bounds(e.op(k), out);
}

// What a branch not taken still asks of the model: its loops, each with nothing to add (a
// 0 body, inner loops kept). Brute force evaluates such a branch's loops (only a division by
// zero or a domain error is covered by the zero factor), so a bound that is not an integer
// there leaves the model without a value; these zero-body loops close to 0 where their
// bounds are integers (sum_zero, proved or assumed) and keep that check otherwise.
ex dead_loops(const ex& e) {
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    return rebuild_reduction(r, r.kind(), r.lb(), r.ub(), dead_loops(r.body())) + dead_loops(r.lb()) + dead_loops(r.ub());
  }
  ex out = 0;
  for (size_t k = 0; k < e.nops(); ++k) out += dead_loops(e.op(k));
  return out;
}

// A product of guards without those another of them implies: (1 <= P) (2 <= P) is (2 <= P).
// For 0/1 values, g_j implies g_i where g_i - g_j >= 0, which the prover shows for two
// linear tests by their slacks (P - 1 >= P - 2). The product is the same at every point.
ex without_implied_guards(const ex& g, const Facts& f) {
  if (!is_class<mul>(g)) return g;
  exvector fs(g.begin(), g.end());
  std::vector<bool> dropped(fs.size(), false);
  auto test = [](const ex& x) { Fn fn = pamela_function(x); return fn == Fn::Le || fn == Fn::Lt; };
  for (size_t i = 0; i < fs.size(); ++i) {
    if (!test(fs[i])) continue;
    for (size_t j = 0; j < fs.size() && !dropped[i]; ++j)
      if (i != j && !dropped[j] && test(fs[j]) && f.provably_nonneg(fs[i] - fs[j])) dropped[i] = true;
  }
  ex out = 1;
  for (size_t i = 0; i < fs.size(); ++i)
    if (!dropped[i]) out *= fs[i];
  return out;
}

// y with each residue x mod k that a guard (x mod k == r) fixes replaced by r: where the
// guard is 1 they are equal, and where it is 0 the product is 0 (zero-factor rule).
// (i mod 2 == 0) * (i mod 2 + 1) is (i mod 2 == 0) * 1. Not where the residue sits in a
// loop bound, which keeps its own value.
ex with_guard_residues(const ex& guards, const ex& y) {
  ex out = y;
  for (const ex& g : is_class<mul>(guards) ? exvector(guards.begin(), guards.end()) : exvector{guards}) {
    if (pamela_function(g) != Fn::Eq) continue;
    for (int side = 0; side < 2; ++side) {
      const ex &m = g.op(side), &r = g.op(1 - side);
      if (pamela_function(m) != Fn::Mod || !is_class<numeric>(r) || !out.has(m) || in_some_bound(out, m)) continue;
      out = out.subs(exmap{{m, r}}, subs_options::no_pattern);
    }
  }
  return out;
}

// Nodes no rule rewrites: every rule of all_rules() starts by requiring a reduction, an
// extremum or a Pamela function (vector max, floor, ceil) at the node, so sums, products and
// powers skip the rule loop (28 failed class tests each). A rule
// that rewrites one of these node types must be let through here.
// Sums, products and powers are rewritten through their operands (but cmp_power's case).
bool no_rule_applies(const ex& e) {
  return is_class<add>(e) || is_class<mul>(e) || (is_class<power>(e) && !is_comparison(e.op(0)));
}

// PAMC_TRACE_RULES=1 in the environment prints each rule firing to stderr (for whoever
// writes a rule; not part of the CLI contract).
bool trace_rules() {
  static const bool on = std::getenv("PAMC_TRACE_RULES") != nullptr;
  return on;
}

// PAMC_DISABLE_RULES=name,name,... leaves those rules out (for the ablation test, which
// checks that no rule is needed for a right value; not part of the CLI contract), and so
// does set_disabled_rules() (the lemma-versus-general property test).
std::set<std::string>& disabled_rules() {
  static std::set<std::string> off = [] {
    std::set<std::string> names;
    if (const char* v = std::getenv("PAMC_DISABLE_RULES")) {
      std::string all(v), cur;
      for (char ch : all + ",") {
        if (ch == ',') {
          if (!cur.empty()) names.insert(cur);
          cur.clear();
        } else {
          cur += ch;
        }
      }
    }
    return names;
  }();
  return off;
}

bool rule_disabled(const char* name) {
  const std::set<std::string>& off = disabled_rules();
  return !off.empty() && off.count(name);
}

size_t rule_index(const char* name) {
  const auto& rules = all_rules();
  for (size_t k = 0; k < rules.size(); ++k)
    if (std::string(rules[k].name) == name) return k;
  throw std::logic_error(std::string("no rule ") + name);
}

struct Driver {
  SimplifyCache::Impl& c;
  Assumptions& assumed;
  long firings_left = 100000;
  long exhausted = 0;  // times the limit stopped the rules (results then not cached)

  ex run(const ex& e, size_t cx) {
    if (e.nops() == 0) return e;
    auto& memo = c.ctx[cx]->memo;
    auto it = memo.find(e);
    if (it != memo.end()) {
      size_t n = it->second.log_end - it->second.log_begin;
      if (static_cast<long>(n) <= firings_left) {  // else recompute: the limit cuts it short
        firings_left -= static_cast<long>(n);
        size_t b = it->second.log_begin;
        // Geometric growth: reserving the exact size reallocated the whole log on every hit,
        // quadratic in a model's firings (a third of compiling 3 x 10^4 equations).
        if (c.log.capacity() < c.log.size() + n) c.log.reserve(std::max(c.log.size() + n, 2 * c.log.capacity()));
        for (size_t k = 0; k < n; ++k) c.log.push_back(c.log[b + k]);
        return it->second.result;
      }
    }
    size_t begin = c.log.size();
    long ex0 = exhausted;
    ex x = compute(e, cx);
    if (exhausted == ex0) {
      // The log slice of this computation was appended contiguously (hits inside copy theirs).
      c.ctx[cx]->memo.insert_or_assign(e, SimplifyCache::Impl::Entry{x, begin, c.log.size()});
    }
    return x;
  }

  // Whether x holds a loop whose bound reads the index of a loop of x around it and is an
  // integer at some of its indices only (`par (i = 0, N - 1) seq (j = 0, i / 2)`: no value
  // at i = 1). The rules that read a loop at chosen indices (a max at its busiest index, a
  // cyclic map's busiest class) would give a value where the model has none, so no rule
  // fires at x and it keeps the model's value. Only those nodes are asked: a loop, a vector
  // max, a max or min of several.
  bool frozen(const ex& x) {
    if (!is_class<reduction>(x) && !is_class<extremum>(x) && pamela_function(x) != Fn::VectorMax) return false;
    return c.pairs->holds_pair(x);
  }

  ex compute(const ex& e, size_t cx) {
    const Facts& f = *c.ctx[cx]->facts;
    const bool unsure = frozen(e);  // then no rule here, top-down or after
    // Top-down at a vector max: loads are read as families before any child is simplified
    // (load_families.h), so no scalar rule has split a family's sum first (docs/simplifier.md).
    if (!unsure && pamela_function(e) == Fn::VectorMax) {
      static const size_t top_down[] = {rule_index("vmax_disjoint"), rule_index("vmax_disjoint_assumed"),
          rule_index("vmax_offset"), rule_index("vmax_collapse"), rule_index("vmax_distinct"),
          rule_index("vmax_all_but_diagonal"), rule_index("vmax_block_concave"), rule_index("vmax_grid_column"),
          rule_index("vmax_crossing"), rule_index("vmax_rescale"), rule_index("vmax_cyclic_weighted"),
          rule_index("vmax_cyclic_periodic"), rule_index("vmax_block_ends")};
      for (size_t k : top_down)
        if (auto y = fire_top_down(k, e, f)) return run(*y, cx);
    }
    // Top-down at a max: a par's branch load beside the loads of all branches is dropped
    // before either is simplified, while the two are still written alike (load_families.h).
    if (!unsure && is_class<extremum>(e)) {
      static const size_t inner_load = rule_index("max_inner_load");
      if (auto y = fire_top_down(inner_load, e, f)) return run(*y, cx);
    }
    // Top-down at a max over w of sums over j of a fiber test g(j) == w: read as the vector
    // of those fibers (ext_fiber_vector) before the sums are closed per w, which leaves a
    // max over w of floors that no extremum rule reads.
    if (!unsure && is_class<reduction>(e) && ex_to<reduction>(e).kind() == ReduceKind::Max) {
      static const size_t fiber = rule_index("ext_fiber_vector");
      if (auto y = fire_top_down(fiber, e, f)) return run(*y, cx);
    }
    ex x;
    if (auto guarded = guarded_product(e, cx)) {
      x = *guarded;
    } else if (is_class<reduction>(e)) {
      const auto& r = ex_to<reduction>(e);
      // The bounds without the facts of the guards around the loop (Context::bounds).
      const size_t bx = c.ctx[cx]->bounds;
      ex lb = run(r.lb(), bx), ub = run(r.ub(), bx);
      size_t inner = c.child(cx, r, lb, ub);
      x = rebuild_reduction(r, r.kind(), lb, ub, run(r.body(), inner));
    } else {
      struct Child : map_function {
        Driver& d;
        size_t cx;
        Child(Driver& d_, size_t cx_) : d(d_), cx(cx_) {}
        ex operator()(const ex& ch) override { return d.run(ch, cx); }
      } child(*this, cx);
      x = e.map(child);
    }
    check_numbers(x);
    // A product that a factor made 0 (a guard decided under the facts, `if (k == 0)` at k =
    // 1) drops its loops with it; their bounds are still checked (dead_loops).
    if (x.is_zero() && is_class<mul>(e) && count_reductions(e) > 0) {
      ex dead = dead_loops(e);
      if (!dead.is_zero()) return run(dead, cx);
    }
    if (no_rule_applies(x)) return x;
    if (unsure && frozen(x)) return x;
    if (firings_left <= 0) {
      ++exhausted;
      return x;
    }
    const auto& rules = all_rules();
    for (size_t k = 0; k < rules.size(); ++k) {
      if (auto y = try_rule(rules[k], x, f)) {
        if (trace_rules()) std::cerr << "rule " << rules[k].name << ": " << to_pamela(x) << "  ->  " << to_pamela(*y) << "\n";
        c.log.push_back(static_cast<unsigned char>(k));
        --firings_left;
        check_numbers(*y);
        return run(*y, cx);
      }
    }
    return x;
  }

  // Rule k tried at e before its children are simplified; a firing is counted and traced
  // as in the bottom-up loop.
  std::optional<ex> fire_top_down(size_t k, const ex& e, const Facts& f) {
    if (firings_left <= 0) return std::nullopt;
    auto y = try_rule(all_rules()[k], e, f);
    if (!y) return std::nullopt;
    if (trace_rules()) std::cerr << "rule " << all_rules()[k].name << " (top-down): " << to_pamela(e) << "  ->  " << to_pamela(*y) << "\n";
    c.log.push_back(static_cast<unsigned char>(k));
    --firings_left;
    return y;
  }

  // The rest of a guarded product, y, simplified from `rest` under the guards' facts (context
  // cx): do its loop bounds keep their values where a guard is 0? Bounds are simplified
  // without the guards' facts (Context::bounds), but a rule that rewrote a loop under them
  // may have written a new bound that is an integer by those facts alone (a split at
  // N - P / 2 under P mod 2 == 0). Such a bound, left in y, is refused: an integer under the
  // guards' facts, not under the facts outside them (every loop index of y an integer in
  // both). A rule's loop that closes leaves no bound and is not looked at.
  bool bounds_keep_values(const ex& rest, const ex& y, size_t cx) {
    const size_t bx = c.ctx[cx]->bounds;
    if (bx == cx || count_reductions(y) == 0) return true;
    exvector before, after;
    collect_bounds(rest, before);
    collect_bounds(y, after);
    std::vector<ex> fresh;
    for (const ex& b : after)
      if (std::none_of(before.begin(), before.end(), [&](const ex& a) { return a.is_equal(b); })) fresh.push_back(b);
    if (fresh.empty()) return true;
    Facts guarded = *c.ctx[cx]->facts, outside = *c.ctx[bx]->facts;
    struct Indices : map_function {
      Facts &g, &o;
      Indices(Facts& g_, Facts& o_) : g(g_), o(o_) {}
      ex operator()(const ex& e) override {
        if (is_class<reduction>(e)) {
          const auto& r = ex_to<reduction>(e);
          g.declare_integer(r.index());
          o.declare_integer(r.index());
          (*this)(r.body());
          return e;
        }
        return e.map(*this);
      }
    } indices(guarded, outside);
    indices(y);
    for (const ex& b : fresh)
      if (guarded.provably_integer(b) && !outside.provably_integer(b)) return false;
    return true;
  }

  // A product with comparison factors (guard_facts): the comparisons are simplified in
  // this context, the other factors in one with their bounds added. nullopt when e is not
  // such a product.
  std::optional<ex> guarded_product(const ex& e, size_t cx) {
    if (!is_class<mul>(e)) return std::nullopt;
    const Facts& f = *c.ctx[cx]->facts;
    exvector guard_list, rest_list;
    std::vector<GuardFacts> guard_facts_of;
    for (const ex& x : e) {
      GuardFacts b = guard_facts(x, f);
      if (b.empty()) {
        rest_list.push_back(x);
      } else {
        guard_list.push_back(x);
        guard_facts_of.push_back(std::move(b));
      }
    }
    ex rest = 1;
    for (const ex& x : rest_list) rest *= x;
    if (guard_list.empty() || (is_class<numeric>(rest) && guard_list.size() < 2)) return std::nullopt;
    // Each guard is simplified under the guards before it, shortest printed first (then by
    // text, so the result does not depend on GiNaC's factor order): (1 <= P) * (0 <=
    // log2(P)) is (1 <= P). Never each under all the others: two equal guards would both
    // become 1.
    std::vector<size_t> order(guard_list.size());
    std::vector<std::string> text(guard_list.size());
    for (size_t k = 0; k < order.size(); ++k) {
      order[k] = k;
      text[k] = to_pamela(guard_list[k]);
    }
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return text[x].size() != text[y].size() ? text[x].size() < text[y].size() : text[x] < text[y];
    });
    ex g = 1, before = 1;
    GuardFacts so_far;
    for (size_t k : order) {
      g *= run(guard_list[k], before.is_equal(1) ? cx : c.guard_child(cx, before, so_far));
      before *= guard_list[k];
      so_far.add(guard_facts_of[k]);
    }
    g = without_implied_guards(g, f);
    // The other factors under all the guards (before is now their whole product).
    const size_t inner = c.guard_child(cx, before, so_far);
    ex y = 1;
    for (const ex& x : detail::operands_of(with_guard_residues(before, rest), false)) y *= run(x, inner);
    if (!bounds_keep_values(rest, y, inner)) {  // simplified without the guards' facts
      y = 1;
      for (const ex& x : detail::operands_of(rest, false)) y *= run(x, cx);
    }
    return g * y;
  }

  // The budget on exact numbers (exact_size.h). GiNaC folds the numbers of a node as the
  // node is built, so the simplifier checks what it built: the number itself or a node's
  // numeric coefficient or constant term. A closed form whose number doubles per equation
  // (d1 = sum (i = 1, d0) { d0 + 1 }, ...) stops one step past the budget, not minutes later.
  static void check_numbers(const ex& x) {
    auto too_large = [](const ex& n) { return is_class<numeric>(n) && exact_bits(ex_to<numeric>(n)) > kMaxExactBits; };
    bool large = too_large(x);
    for (size_t k = 0; !large && k < x.nops(); ++k) large = too_large(x.op(k));
    if (large)
      throw EvalError(DiagKind::ValueTooLarge,
                      "the exact value of a number in its closed form has more than 300,000 digits; pamc keeps "
                      "numbers exact, so a number this large has no value");
  }

  // A rule whose rewrite GiNaC refuses (substituting i = 0 into 0 ^ i is pow(0, 0), which
  // GiNaC leaves undefined; a division by zero in a branch the range never reaches) does not
  // apply: the expression stays as it is and the evaluators, which define 0 ^ 0 = 1, see it.
  //
  // A parameter's default lower bound (>= 0) is a convenience of the language, not a fact of
  // the model (an empty loop 1..N at N = -3 has a value, 0): where a firing rule's proofs
  // needed it, the rule's result holds only there, so `N >= 0` is recorded as an assumption
  // and checked like any other (the evaluators fall back to the unsimplified model).
  template <class Rule>
  std::optional<ex> try_rule(const Rule& rule, const ex& x, const Facts& f) {
    if (rule_disabled(rule.name)) return std::nullopt;
    auto& log = DefaultBoundLog::used();
    log.clear();
    DefaultBoundLog::recording() = true;
    std::optional<ex> y;
    const size_t assumed_before = assumed.items.size();
    try {
      y = rule.fn(x, f, assumed);
    } catch (const std::logic_error&) {
    } catch (const std::runtime_error&) {
    }
    DefaultBoundLog::recording() = false;
    if (y) {
      for (const symbol& s : log)
        if (assumed.items.insert(s.get_name() + " >= 0").second) assumed.nonneg.push_back(s);
      if (assumed.items.size() != assumed_before && trace_rules())
        std::cerr << "rule " << rule.name << " assumed: " << to_pamela(x) << "\n";
    }
    log.clear();
    return y;
  }
};

}  // namespace

ex simplify(const ex& e, const Facts& facts, Assumptions& assumed, RuleStats& stats, SimplifyCache& cache) {
  SimplifyCache::Impl& c = *cache.impl_;
  if (c.facts != &facts || c.assumed != &assumed) c.reset(facts, assumed);
  const auto& rules = all_rules();
  if (stats.by_rule.size() < rules.size()) stats.by_rule.resize(rules.size(), 0);
  // The same node again: the driver would find it in its memo (context 0, a fresh firing
  // limit above any cached computation's firings), add the same firings, and Tidy and
  // count_reductions would find the same result; all that is replayed.
  const basic* node = e.nops() == 0 ? nullptr : &ex_to<basic>(e);
  if (node) {
    auto it = c.top.find(node);
    if (it != c.top.end()) {
      const SimplifyCache::Impl::TopEntry& t = it->second;
      for (const auto& [k, n] : t.fired) stats.by_rule[k] += n;
      if (t.tidy_fired) stats.fired["tidy_factor"] += t.tidy_fired;
      stats.residual_reductions = t.residual;
      return t.result;
    }
  }
  size_t log0 = c.log.size();
  Driver d{c, assumed};
  ex out = d.run(e, 0);
  std::vector<long> n(rules.size(), 0);
  for (size_t k = log0; k < c.log.size(); ++k) ++n[c.log[k]];
  std::vector<std::pair<std::size_t, long>> fired;
  for (size_t k = 0; k < rules.size(); ++k)
    if (n[k]) {
      stats.by_rule[k] += n[k];
      fired.emplace_back(k, n[k]);
    }
  long tidy_fired = 0;
  out = tidy(out, c.tidy, tidy_fired);
  if (tidy_fired) stats.fired["tidy_factor"] += tidy_fired;
  stats.residual_reductions = count_reductions(out);
  // Replayable only where the driver's memo holds e (a computation the firing limit cut
  // short is not cached, and a second call would compute again).
  if (node && c.ctx[0]->memo.count(e))
    c.top.emplace(node, SimplifyCache::Impl::TopEntry{e, out, std::move(fired), tidy_fired, stats.residual_reductions});
  return out;
}

ex simplify(const ex& e, const Facts& facts, Assumptions& assumed, RuleStats& stats) {
  SimplifyCache cache;
  ex out = simplify(e, facts, assumed, stats, cache);
  stats.flush();
  return out;
}

void RuleStats::flush() {
  const auto& rules = all_rules();
  for (size_t k = 0; k < by_rule.size() && k < rules.size(); ++k)
    if (by_rule[k]) fired[rules[k].name] += by_rule[k];
  by_rule.clear();
}

void set_disabled_rules(const std::set<std::string>& names) { disabled_rules() = names; }

}  // namespace pamc::sym
