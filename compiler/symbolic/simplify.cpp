// Simplifier driver: see simplify.h.
//
// Bottom-up: a node's children (a reduction's bounds, then its body under the facts
// extended with the index's range) are simplified first; then the rules are tried at the
// node in all_rules() order; when one fires, its result is simplified again (its new nodes
// may enable more rules). A firing limit guards against a rule pair that undoes each other.
#include "compiler/symbolic/simplify.h"

#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules.h"

namespace pamc::sym {

using namespace GiNaC;

namespace {

struct Driver {
  Assumptions& assumed;
  RuleStats& stats;
  long firings_left = 100000;

  ex run(const ex& e, const Facts& f) {
    ex x;
    if (is_a<reduction>(e)) {
      const auto& r = ex_to<reduction>(e);
      ex lb = run(r.lb(), f), ub = run(r.ub(), f);
      Facts inner = f;
      inner.declare_index(r.index(), lb, ub);
      x = rebuild_reduction(r, r.kind(), lb, ub, run(r.body(), inner));
    } else if (e.nops() > 0) {
      struct Child : map_function {
        Driver& d;
        const Facts& f;
        Child(Driver& d_, const Facts& f_) : d(d_), f(f_) {}
        ex operator()(const ex& c) override { return d.run(c, f); }
      } child(*this, f);
      x = e.map(child);
    } else {
      return e;
    }
    if (firings_left <= 0) return x;
    for (const auto& rule : all_rules()) {
      if (auto y = rule.fn(x, f, assumed)) {
        ++stats.fired[rule.name];
        --firings_left;
        return run(*y, f);
      }
    }
    return x;
  }
};

// A polynomial over the rationals in its symbols (no functions, reductions, max/min)?
bool plain_polynomial(const ex& e) {
  if (is_a<symbol>(e)) return true;
  if (is_a<numeric>(e)) return ex_to<numeric>(e).is_rational();
  if (is_a<add>(e) || is_a<mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i)
      if (!plain_polynomial(e.op(i))) return false;
    return true;
  }
  if (is_a<power>(e))
    return plain_polynomial(e.op(0)) && is_a<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_pos_integer();
  return false;
}

// Readable output: a polynomial sum is replaced by its factored form when that prints
// shorter (N * (N + 1) / 2 rather than 0.5 * N + 0.5 * N ^ 2). factor() is exact, so the
// value never changes. Bottom-up, so polynomials inside max, reductions etc. are tidied too.
struct Tidy : map_function {
  RuleStats& stats;
  explicit Tidy(RuleStats& s) : stats(s) {}
  ex operator()(const ex& e) override {
    ex x = e.nops() > 0 ? e.map(*this) : e;
    if (!is_a<add>(x) || !plain_polynomial(x)) return x;
    ex fx = factor(x);
    if (to_pamela(fx).size() < to_pamela(x).size() && (fx - x).expand().is_zero()) {
      ++stats.fired["tidy_factor"];
      return fx;
    }
    return x;
  }
};

}  // namespace

ex simplify(const ex& e, const Facts& facts, Assumptions& assumed, RuleStats& stats) {
  Driver d{assumed, stats};
  ex out = d.run(e, facts);
  Tidy tidy(stats);
  out = tidy(out);
  stats.residual_reductions = count_reductions(out);
  return out;
}

long count_reductions(const ex& e) {
  long n = is_a<reduction>(e) ? 1 : 0;
  for (size_t i = 0; i < e.nops(); ++i) n += count_reductions(e.op(i));
  return n;
}

}  // namespace pamc::sym
