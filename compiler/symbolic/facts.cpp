// Interval/sign analysis: see facts.h.
#include "compiler/symbolic/facts.h"

#include <functional>
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

namespace pamc::sym {

using namespace GiNaC;

std::optional<ex> merge_powers_of_two(const ex& e);

namespace {

const numeric zero(0);

// Order of ends as values (ignoring openness).
int cmp_end(const End& a, const End& b) {
  if (a.inf != b.inf) return a.inf < b.inf ? -1 : 1;
  if (a.inf) return 0;
  return a.v < b.v ? -1 : (a.v > b.v ? 1 : 0);
}

End add_end(const End& a, const End& b) {
  if (a.inf || b.inf) return End{a.inf ? a.inf : b.inf, 0, true};
  return End{0, a.v + b.v, a.open || b.open};
}

Interval add_iv(const Interval& a, const Interval& b) { return {add_end(a.lo, b.lo), add_end(a.hi, b.hi)}; }

Interval neg_iv(const Interval& a) {
  return {End{-a.hi.inf, -a.hi.v, a.hi.open}, End{-a.lo.inf, -a.lo.v, a.lo.open}};
}

End mul_end(const End& a, const End& b) {
  if ((!a.inf && a.v.is_zero()) || (!b.inf && b.v.is_zero())) {
    // 0 * x: exactly 0 when the zero end is attained; else a limit.
    bool open = (!a.inf && a.v.is_zero() ? a.open : b.open);
    return End{0, 0, open};
  }
  int sa = a.inf ? a.inf : (a.v.is_positive() ? 1 : -1);
  int sb = b.inf ? b.inf : (b.v.is_positive() ? 1 : -1);
  if (a.inf || b.inf) return End{sa * sb, 0, true};
  return End{0, a.v * b.v, a.open || b.open};
}

// A closed point [c, c]?
bool is_point(const Interval& a) {
  return !a.lo.inf && !a.hi.inf && !a.lo.open && !a.hi.open && a.lo.v == a.hi.v;
}

// c * [lo, hi] for a point c: the two ends scaled (swapped for c < 0); what the four
// corners below give for a point, with half the products and no comparisons. Products
// mostly multiply by a coefficient, so this is the common case.
Interval scale_iv(const End& c, const Interval& b) {
  if (c.v == 1) return b;
  if (c.v.is_zero()) return Interval::point(0);
  if (c.v.is_positive()) return {mul_end(c, b.lo), mul_end(c, b.hi)};
  return {mul_end(c, b.hi), mul_end(c, b.lo)};
}

Interval mul_iv(const Interval& a, const Interval& b) {
  if (is_point(a)) return scale_iv(a.lo, b);
  if (is_point(b)) return scale_iv(b.lo, a);
  End c[4] = {mul_end(a.lo, b.lo), mul_end(a.lo, b.hi), mul_end(a.hi, b.lo), mul_end(a.hi, b.hi)};
  End lo = c[0], hi = c[0];
  for (int i = 1; i < 4; ++i) {
    int l = cmp_end(c[i], lo);
    if (l < 0 || (l == 0 && !c[i].open)) lo = c[i];
    int h = cmp_end(c[i], hi);
    if (h > 0 || (h == 0 && !c[i].open)) hi = c[i];
  }
  return {lo, hi};
}

End max_end(const End& a, const End& b) {
  int c = cmp_end(a, b);
  if (c) return c > 0 ? a : b;
  return End{a.inf, a.v, a.open && b.open};
}
End min_end(const End& a, const End& b) {
  int c = cmp_end(a, b);
  if (c) return c < 0 ? a : b;
  return End{a.inf, a.v, a.open && b.open};
}

Interval intersect(const Interval& a, const Interval& b) {
  End lo = cmp_end(a.lo, b.lo) > 0 ? a.lo : b.lo;
  if (cmp_end(a.lo, b.lo) == 0) lo.open = a.lo.open || b.lo.open;
  End hi = cmp_end(a.hi, b.hi) < 0 ? a.hi : b.hi;
  if (cmp_end(a.hi, b.hi) == 0) hi.open = a.hi.open || b.hi.open;
  return {lo, hi};
}

Interval nonneg_iv() { return {End{0, 0, false}, End{1, 0, true}}; }
Interval positive_iv() { return {End{0, 0, true}, End{1, 0, true}}; }

// x^n for a positive integer n.
Interval pow_iv(const Interval& b, long n) {
  if (n == 1) return b;
  Interval r = b;
  for (long k = 1; k < n; ++k) r = mul_iv(r, b);
  if (n % 2 == 0) {  // even power: also nonnegative
    r = intersect(r, nonneg_iv());
    if (b.positive() || b.negative()) r = intersect(r, positive_iv());
  }
  return r;
}

Interval reciprocal_iv(const Interval& b) {
  // An empty interval ("positive" with upper end 0) comes from contradictory facts, such as
  // an index of par (p = 0, -P): nothing is known (found by tests/cli/run_hostile.py).
  // ([-2, 0), open at 0, is negative and not empty: its reciprocal is (-inf, -1 / 2].)
  if (!b.hi.inf && b.hi.v.is_zero() && !b.negative()) return Interval::all();
  if (b.positive()) {
    End lo = b.hi.inf ? End{0, 0, true} : End{0, numeric(1) / b.hi.v, b.hi.open};
    End hi = (b.lo.v.is_zero()) ? End{1, 0, true} : End{0, numeric(1) / b.lo.v, b.lo.open};
    return {lo, hi};
  }
  if (b.negative()) return neg_iv(reciprocal_iv(neg_iv(b)));
  return Interval::all();
}

numeric floor_n(const numeric& x) {
  return x.is_rational() ? floor_num(x) : numeric(std::floor(x.to_double()));
}

}  // namespace

bool Interval::nonneg() const { return lo.inf == 0 ? !lo.v.is_negative() : lo.inf > 0; }
bool Interval::positive() const {
  return lo.inf == 0 ? (lo.v.is_positive() || (lo.v.is_zero() && lo.open)) : lo.inf > 0;
}
bool Interval::nonpos() const { return hi.inf == 0 ? !hi.v.is_positive() : hi.inf < 0; }
bool Interval::negative() const {
  return hi.inf == 0 ? (hi.v.is_negative() || (hi.v.is_zero() && hi.open)) : hi.inf < 0;
}

void Facts::declare(const symbol& s, const std::string& name) {
  forget_proofs();
  Info& i = info_[s];
  i.name = name;
  i.iv = nonneg_iv();
}

void Facts::declare_parameter(const symbol& s, const std::string& name) {
  forget_proofs();
  declare(s, name);
  Info& i = info_[s];
  i.default_lower = true;
  i.iv_declared = Interval::all();
}

std::vector<symbol>& DefaultBoundLog::used() {
  static thread_local std::vector<symbol> log;
  return log;
}
bool& DefaultBoundLog::recording() {
  static thread_local bool on = false;
  return on;
}

void Facts::declare_unbounded(const symbol& s, const std::string& name) {
  forget_proofs();
  Info& i = info_[s];
  i.name = name;
  i.iv = Interval::all();
}

void Facts::declare_integer(const symbol& s) {
  forget_proofs();
  auto it = info_.find(s);
  if (it == info_.end()) {
    declare(s, s.get_name());
    it = info_.find(s);
  }
  it->second.integer = true;
}

namespace {
// Numbers and symbols under +, * and integer powers only.
bool rational_in_symbols(const ex& e) {
  if (is_class<numeric>(e) || is_class<symbol>(e)) return true;
  if (is_class<power>(e)) return is_class<numeric>(e.op(1)) && rational_in_symbols(e.op(0));
  if (!is_class<add>(e) && !is_class<mul>(e)) return false;
  for (size_t k = 0; k < e.nops(); ++k)
    if (!rational_in_symbols(e.op(k))) return false;
  return true;
}
}  // namespace

void Facts::declare_integer_expr(const ex& e) {
  forget_proofs();
  ex x = e.expand();
  if (!rational_in_symbols(x)) return;  // the registry's quotients must stay plain
  for (const ex& g : integer_exprs_)
    if (g.is_equal(x)) return;
  integer_exprs_.push_back(x);
}

bool Facts::is_integer_symbol(const symbol& s) const {
  auto it = info_.find(s);
  return it != info_.end() && it->second.integer;
}

void Facts::declare_index(const symbol& i, const ex& lb, const ex& ub) {
  forget_proofs();
  declare_unbounded(i, i.get_name());
  declare_integer(i);
  info_[i].index = true;
  add_lower(i, lb, false);
  add_upper(i, ub, false);
  // Whatever holds for every i in lb..ub holds vacuously when the range is empty, so a
  // proof about the index may also use lb <= ub: with ub - lb = c s + k linear in a symbol
  // s (c = +-1, or k, c numbers), that bounds s (par (p = 0, P - 1) gives P >= 1 inside).
  ex d = (ub - lb).expand();
  // The declared symbols of d, found in one walk of d (not a walk per declared symbol).
  std::set<ex, ex_is_less> in_d;
  for (const_preorder_iterator it = d.preorder_begin(); it != d.preorder_end(); ++it)
    if (is_a<symbol>(*it) && !it->is_equal(i) && info_.count(*it)) in_d.insert(*it);
  for (const ex& s : in_d) {
    if (!d.is_polynomial(s) || d.degree(s) != 1) continue;
    ex c = d.coeff(s, 1), k = d.coeff(s, 0);
    if (!is_a<numeric>(c) || c.is_zero()) continue;
    if (!is_a<numeric>(k) && c != 1 && c != -1) continue;
    // d is expanded, so k is, and so is -k: the quotient by a unit needs no expansion.
    ex bound = c.is_equal(1) ? -k : c.is_equal(-1) ? k : (-k / c).expand();
    if (ex_to<numeric>(c).is_positive()) add_lower(ex_to<symbol>(s), bound, false);
    else add_upper(ex_to<symbol>(s), bound, false);
  }
}

void Facts::add_lower(const symbol& s, const ex& bound, bool strict) {
  forget_proofs();
  // s >= max(a, b) is s >= a and s >= b: each argument a bound the prover can substitute.
  if (is_class<extremum>(bound) && ex_to<extremum>(bound).is_max()) {
    for (const ex& arg : ex_to<extremum>(bound).args()) add_lower(s, arg, strict);
    return;
  }
  if (!info_.count(s)) declare(s, s.get_name());
  Info& i = info_[s];
  if (is_class<numeric>(bound) && ex_to<numeric>(bound).is_real()) {
    Interval b{End{0, ex_to<numeric>(bound), strict}, End{1, 0, true}};
    i.iv = intersect(i.iv, b);
    i.iv_declared = intersect(i.iv_declared, b);
    if (!ex_to<numeric>(bound).is_negative()) i.default_lower = false;  // a fact covers it
  } else {
    i.lower.emplace_back(bound, strict);
  }
}

void Facts::add_upper(const symbol& s, const ex& bound, bool strict) {
  forget_proofs();
  // s <= min(a, b) is s <= a and s <= b.
  if (is_class<extremum>(bound) && !ex_to<extremum>(bound).is_max()) {
    for (const ex& arg : ex_to<extremum>(bound).args()) add_upper(s, arg, strict);
    return;
  }
  if (!info_.count(s)) declare(s, s.get_name());
  Info& i = info_[s];
  if (is_class<numeric>(bound) && ex_to<numeric>(bound).is_real()) {
    Interval b{End{-1, 0, true}, End{0, ex_to<numeric>(bound), strict}};
    i.iv = intersect(i.iv, b);
    i.iv_declared = intersect(i.iv_declared, b);
  } else
    i.upper.emplace_back(bound, strict);
}

namespace {
bool same_end(const End& a, const End& b) {
  return a.inf == b.inf && (a.inf != 0 || (a.v == b.v && a.open == b.open));
}
}  // namespace

struct Facts::RangeMemo {
  std::vector<std::tuple<const void*, int, Interval>> known;
};

Interval Facts::symbol_range(const symbol& s, int depth) const {
  auto it = info_.find(s);
  if (it == info_.end()) return Interval::all();
  const Info& info = it->second;
  // Only symbols with symbolic bounds: a numeric range costs less than the look-up.
  RangeMemo* memo = info.lower.empty() && info.upper.empty() ? nullptr : range_memo_.memo;
  if (memo) {
    for (const auto& [who, d, r] : memo->known)
      if (who == &info && d == depth) return r;
  }
  // The symbolic bounds' interval, once (the bounds recurse: computing it twice per level
  // would double the work at every level of a chain of bounds).
  Interval bounds = Interval::all();
  if (depth < 8) {
    for (const auto& [b, strict] : info.lower) {
      End lo = range_rec(b, depth + 1).lo;
      lo.open = lo.open || strict;
      bounds = intersect(bounds, Interval{lo, End{1, 0, true}});
    }
    for (const auto& [b, strict] : info.upper) {
      End hi = range_rec(b, depth + 1).hi;
      hi.open = hi.open || strict;
      bounds = intersect(bounds, Interval{End{-1, 0, true}, hi});
    }
  }
  auto narrow = [&](Interval r) {
    r = intersect(r, bounds);
    if (info.integer) {  // an integer strictly above 0 is >= 1, etc.
      if (!r.lo.inf) r.lo = End{0, r.lo.open && r.lo.v.is_integer() ? r.lo.v + 1 : -floor_n(-r.lo.v), false};
      if (!r.hi.inf) r.hi = End{0, r.hi.open && r.hi.v.is_integer() ? r.hi.v - 1 : floor_n(r.hi.v), false};
    }
    return r;
  };
  Interval r = narrow(info.iv);
  // The default lower bound used: the range is narrower with it than without it.
  if (info.default_lower && DefaultBoundLog::recording() && !same_end(r.lo, narrow(info.iv_declared).lo)) {
    auto& log = DefaultBoundLog::used();
    if (log.empty() || !log.back().is_equal(s)) log.push_back(s);
  }
  // Remembered within this range() call only (a repeat needs no second log entry: the
  // rule that asked records each symbol once).
  if (memo) memo->known.emplace_back(&info, depth, r);
  return r;
}

Interval Facts::range(const ex& e) const {
  if (range_memo_.memo) return range_rec(e, 0);
  RangeMemo memo;
  range_memo_.memo = &memo;
  struct Reset {
    RangeMemoSlot& slot;
    ~Reset() { slot.memo = nullptr; }
  } reset{range_memo_};
  return range_rec(e, 0);
}

namespace {
// The range of a node that holds whatever the facts: [0, 1] for a unit vector's entries or a
// 0/1 test; else Interval::all(), which says nothing.
Interval fixed_range(const ex& e) {
  switch (pamela_function(e)) {
    case Fn::Unitvec:
    case Fn::Eq:
    case Fn::Ne:
    case Fn::Lt:
    case Fn::Le: return {End{0, 0, false}, End{0, 1, false}};
    default: return Interval::all();
  }
}
}  // namespace

Interval Facts::range_rec(const ex& e, int depth) const {
  if (!ProofWork::spend()) return Interval::all();  // says nothing: the claim stays unproved
  if (!signed_atoms_.empty() && !is_class<numeric>(e) && !is_class<symbol>(e))
    for (const SignedAtom& a : signed_atoms_)
      if (e.is_equal(a.e)) {
        Interval r = range_of_node(e, depth);
        if (a.nonpos) {
          if (r.hi.inf != 0 || r.hi.v.is_positive()) r.hi = End{0, 0, false};
        } else if (r.lo.inf != 0 || r.lo.v.is_negative()) {
          r.lo = End{0, 0, false};
        }
        return r;
      }
  return range_of_node(e, depth);
}

void Facts::declare_nonneg_atom(const ex& e) {
  forget_proofs();
  // -y >= 0 is y <= 0: the node that stands in a product is y.
  if (is_class<mul>(e) && e.nops() == 2 && e.op(1).is_equal(-1)) signed_atoms_.push_back({e.op(0), true});
  else if (is_class<mul>(e) && e.nops() == 2 && e.op(0).is_equal(-1)) signed_atoms_.push_back({e.op(1), true});
  else signed_atoms_.push_back({e, false});
}

Interval Facts::range_of_node(const ex& e, int depth) const {
  if (is_class<numeric>(e)) {
    const numeric& n = ex_to<numeric>(e);
    if (n.is_real()) return Interval::point(n);
    return Interval::all();
  }
  if (is_class<symbol>(e)) return symbol_range(ex_to<symbol>(e), depth);
  if (is_class<constant>(e)) {
    ex v = e.evalf();
    if (is_class<numeric>(v)) return Interval::point(ex_to<numeric>(v));
    return Interval::all();
  }
  if (is_class<add>(e)) {
    Interval r = Interval::point(0);
    for (size_t i = 0; i < e.nops(); ++i) r = add_iv(r, range_rec(e.op(i), depth));
    return r;
  }
  if (is_class<mul>(e)) {
    if (auto merged = merge_powers_of_two(e)) return range_rec(*merged, depth);
    Interval r = Interval::point(1);
    for (size_t i = 0; i < e.nops(); ++i) r = mul_iv(r, range_rec(e.op(i), depth));
    return r;
  }
  if (is_class<power>(e)) {
    Interval b = range_rec(e.op(0), depth);
    const ex& x = e.op(1);
    if (is_class<numeric>(x) && ex_to<numeric>(x).is_integer()) {
      long n = ex_to<numeric>(x).to_long();
      if (n > 0 && n <= 64) return pow_iv(b, n);
      if (n < 0 && n >= -64) return reciprocal_iv(pow_iv(b, -n));
      return Interval::all();
    }
    if (is_class<numeric>(x) && ex_to<numeric>(x).is_positive() && b.nonneg())
      return b.positive() ? positive_iv() : nonneg_iv();
    // c ^ x for a number c > 1 grows with x: c ^ x >= 1 where x >= 0 (2 ^ (L - l), l <= L).
    if (is_class<numeric>(e.op(0)) && ex_to<numeric>(e.op(0)) > 1) {
      if (depth < 2 && prove_at(x, false, 2)) return Interval{End{0, 1, false}, End{+1, 0, true}};
      return positive_iv();
    }
    if (b.positive()) return positive_iv();
    return Interval::all();
  }
  if (is_class<extremum>(e)) {
    const auto& m = ex_to<extremum>(e);
    Interval r = range_rec(m.args()[0], depth);
    for (size_t i = 1; i < m.args().size(); ++i) {
      Interval a = range_rec(m.args()[i], depth);
      r = m.is_max() ? Interval{max_end(r.lo, a.lo), max_end(r.hi, a.hi)}
                     : Interval{min_end(r.lo, a.lo), min_end(r.hi, a.hi)};
    }
    return r;
  }
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    // A body whose range no fact changes (a unit vector or a 0/1 test, as a vector of loads
    // holds by the dozen) needs no copy of the facts with the index declared.
    Interval b = fixed_range(r.body());
    if (b.lo.inf != 0) {
      Facts inner = *this;
      inner.declare_index(r.index(), r.lb(), r.ub());
      b = inner.range_rec(r.body(), depth + 1);
    }
    if (r.kind() != ReduceKind::Sum) {
      // A par's max is 0 on an empty range: widen to 0 unless the range is non-empty.
      bool lo_above = b.lo.inf == 0 && b.lo.v.is_positive(), hi_below = b.hi.inf == 0 && b.hi.v.is_negative();
      if (r.empty_is_zero() && (lo_above || hi_below) && !prove_at(r.ub() - r.lb(), false, 2)) {
        if (lo_above) b.lo = End{0, 0, false};
        if (hi_below) b.hi = End{0, 0, false};
      }
      return b;
    }
    Interval out = Interval::all();
    if (b.nonneg()) out.lo = End{0, 0, false};
    if (b.nonpos()) out.hi = End{0, 0, false};
    return out;
  }
  if (Interval f = fixed_range(e); f.lo.inf == 0) return f;
  switch (pamela_function(e)) {
    case Fn::VectorMax: {
      Interval v = range_rec(e.op(0), depth);
      return v;  // elementwise bounds (implicit zeros included via unitvec's [0, 1])
    }
    case Fn::Floor:
    case Fn::Ceil: {
      Interval x = range_rec(e.op(0), depth);
      bool fl = pamela_function(e) == Fn::Floor;
      Interval r = Interval::all();
      if (!x.lo.inf) r.lo = End{0, fl ? floor_n(x.lo.v) : -floor_n(-x.lo.v), false};
      if (!x.hi.inf) r.hi = End{0, fl ? floor_n(x.hi.v) : -floor_n(-x.hi.v), false};
      // An open integer end moves by one: x > 0 gives ceil(x) >= 1, x < 3 gives floor(x) <= 2.
      if (!fl && !x.lo.inf && x.lo.open && x.lo.v.is_integer()) r.lo.v = x.lo.v + 1;
      if (fl && !x.hi.inf && x.hi.open && x.hi.v.is_integer()) r.hi.v = x.hi.v - 1;
      return r;
    }
    case Fn::Mod: {
      Interval b = range_rec(e.op(1), depth);
      if (b.positive()) {
        Interval r = nonneg_iv();
        if (!b.hi.inf) r.hi = End{0, b.hi.v, true};
        // An integer mod an integer m is an integer below m: at most m - 1 <= hi - 1.
        if (!b.hi.inf && b.hi.v.is_integer() && provably_integer(e.op(1)) && provably_integer(e.op(0)))
          r.hi = End{0, b.hi.v - 1, false};
        return r;
      }
      if (b.negative()) {
        Interval r{End{-1, 0, true}, End{0, 0, false}};
        if (!b.lo.inf) r.lo = End{0, b.lo.v, true};
        return r;
      }
      return Interval::all();
    }
    case Fn::Div:
      if (e.op(1).is_zero()) return Interval::all();  // x div 0: no value (and no 1 / 0)
      return range_rec(floor_of(e.op(0) * GiNaC::pow(e.op(1), -1)), depth);
    case Fn::Gcd: {
      // gcd(a, b) >= 0; it divides a b >= 1, so 1 <= gcd(a, b) <= b (also for a).
      Interval r = nonneg_iv();
      for (size_t k : {1u, 0u}) {
        Interval x = range_rec(e.op(k), depth);
        if (!x.positive()) continue;
        r.lo = End{0, 1, false};
        if (!x.hi.inf) r.hi = End{0, x.hi.v, x.hi.open};
        break;
      }
      return r;
    }
    case Fn::Log2: {
      Interval x = range_rec(e.op(0), depth);
      Interval r = Interval::all();
      if (!x.lo.inf && x.lo.v >= 1) r.lo = End{0, 0, !(x.lo.v == 1) || x.lo.open};
      if (!x.hi.inf && x.hi.v <= 1 && x.hi.v.is_positive()) r.hi = End{0, 0, !(x.hi.v == 1) || x.hi.open};
      return r;
    }
    default: break;
  }
  if (is_class<function>(e)) {
    const std::string name = ex_to<function>(e).get_name();
    if (name == "exp") return positive_iv();
    if (name == "abs") return nonneg_iv();
    if (name == "log") {
      Interval x = range_rec(e.op(0), depth);
      Interval r = Interval::all();
      if (!x.lo.inf && x.lo.v >= 1) r.lo = End{0, 0, !(x.lo.v == 1) || x.lo.open};
      return r;
    }
  }
  return Interval::all();
}

bool has_negative_power(const ex& e) {
  if (is_class<power>(e) && is_class<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_negative()) return true;
  for (size_t i = 0; i < e.nops(); ++i)
    if (has_negative_power(e.op(i))) return true;
  return false;
}


// Does e mention every symbol of g?
bool has_all_symbols_of(const ex& e, const ex& g) {
  if (is_class<symbol>(g)) return e.has(g);
  for (size_t k = 0; k < g.nops(); ++k)
    if (!has_all_symbols_of(e, g.op(k))) return false;
  return true;
}

bool Facts::provably_integer(const ex& e) const { return integer_rec(e, true); }

namespace {
// m where x = 2 ^ m for a whole m with |m| <= 62 (1 / 2 is 2 ^ -1); nullopt for any other
// number. Read from one machine word: a model's numbers may have a million digits.
std::optional<long> exponent_of_two(const numeric& x) {
  if (!x.is_rational() || !x.is_positive() || x.is_equal(1)) return std::nullopt;
  const numeric num = x.numer(), den = x.denom();
  if (!num.is_equal(1) && !den.is_equal(1)) return std::nullopt;
  const numeric n = num.is_equal(1) ? den : num;
  static const numeric kWord = numeric(1L << 62);
  if (n > kWord) return std::nullopt;
  const unsigned long v = static_cast<unsigned long>(n.to_long());
  if ((v & (v - 1)) != 0) return std::nullopt;
  const long m = __builtin_ctzl(v);
  return num.is_equal(1) ? -m : m;
}
}  // namespace

// A product with a factor 2 ^ t (t not a number) beside another such factor or a coefficient
// that is a power of two, as GiNaC's expand() splits 2 ^ (log2(P) - l) into 2 ^ log2(P) *
// 2 ^ (-l) and 2 ^ (s - 1) into 2 ^ s / 2: the same product with one factor 2 ^ (sum of the
// exponents), so that its range and integrality are seen whole. nullopt when there is
// nothing to merge.
std::optional<ex> merge_powers_of_two(const ex& e) {
  if (!is_class<mul>(e)) return std::nullopt;
  // Counted first: the interval analysis asks this of every product it meets, and
  // rebuilding a product that has nothing to merge cost a sixth of a proof. expand() writes
  // 2 ^ (s - 1) as 2 ^ s / 2: a coefficient that is a power of two counts as one more.
  auto power_of_two = [](const ex& f) { return is_class<power>(f) && f.op(0).is_equal(2) && !is_class<numeric>(f.op(1)); };
  int twos = 0;
  for (size_t k = 0; k < e.nops() && twos < 2; ++k)
    twos += power_of_two(e.op(k)) || (is_class<numeric>(e.op(k)) && exponent_of_two(ex_to<numeric>(e.op(k))));
  if (twos < 2) return std::nullopt;
  ex exponent = 0, rest = 1;
  int n = 0;
  bool symbolic = false;
  for (size_t k = 0; k < e.nops(); ++k) {
    const ex& f = e.op(k);
    if (power_of_two(f)) {
      exponent += f.op(1);
      ++n;
      symbolic = true;
    } else if (auto m = is_class<numeric>(f) ? exponent_of_two(ex_to<numeric>(f)) : std::nullopt) {
      exponent += *m;
      ++n;
    } else {
      rest *= f;
    }
  }
  if (n < 2 || !symbolic) return std::nullopt;
  return rest * power(ex(2), exponent).hold();
}

bool Facts::integer_rec(const ex& e, bool registry) const {
  if (is_class<numeric>(e)) return ex_to<numeric>(e).is_integer();
  for (const ex& a : integer_atoms_)
    if (a.is_equal(e)) return true;
  if (is_class<symbol>(e)) {
    if (is_integer_symbol(ex_to<symbol>(e))) return true;
    // s from a known integer g = +-s + rest with rest an integer (N from N + S and S).
    if (registry)
      for (const ex& g : integer_exprs_) {
        if (!is_class<add>(g)) continue;
        ex c = g.coeff(e, 1);
        if (!(c.is_equal(1) || c.is_equal(-1)) || g.degree(e) != 1) continue;
        ex rest = (g - c * e).expand();
        if (!rest.has(e) && integer_rec(rest, false)) return true;
      }
    return false;
  }
  // A known integer expression g (declare_integer_expr): e = g, e = g * (an integer), or
  // e = g + (an integer); the rest is proved without the registry, so this never loops.
  if (registry && !integer_exprs_.empty() && (is_class<mul>(e) || ((is_class<power>(e) || is_class<add>(e)) &&
      rational_in_symbols(e)))) {
    for (const ex& g : integer_exprs_) {
      if (g.is_equal(e)) return true;
      if (is_class<add>(e)) {
        ex rest = (e.expand() - g).expand();
        if (rest.is_zero() || (!rest.is_equal(e) && integer_rec(rest, false))) return true;
        continue;
      }
      // e / g for a monomial g: GiNaC merges the powers itself, no normal() needed.
      if (is_class<add>(g) || !has_all_symbols_of(e, g)) continue;
      ex q = e * pow(g, -1);
      if (is_class<numeric>(q) ? ex_to<numeric>(q).is_integer() : integer_rec(q, false)) return true;
    }
  }
  // x / gcd(a, b) with x a or b, or an integer multiple of one: gcd(a, b) divides both (the
  // period P / gcd(W, P) of a strided deal). Integers a, b (proved); gcd(a, b) >= 1 (proved:
  // gcd(0, 0) = 0 divides nothing).
  if (is_class<mul>(e)) {
    for (size_t k = 0; k < e.nops(); ++k) {
      const ex& fac = e.op(k);
      if (!is_class<power>(fac) || !fac.op(1).is_equal(-1) || pamela_function(fac.op(0)) != Fn::Gcd) continue;
      const ex& g = fac.op(0);
      if (!integer_rec(g.op(0), registry) || !integer_rec(g.op(1), registry) || !provably_positive(g)) continue;
      ex rest = e * g;  // the other factors
      for (size_t arg = 0; arg < 2; ++arg) {
        ex q = rest * pow(g.op(arg), -1);
        if (is_class<numeric>(q) ? ex_to<numeric>(q).is_integer() : integer_rec(q, registry)) return true;
      }
    }
  }
  if (auto merged = merge_powers_of_two(e)) {
    const ex& m = *merged;
    if (is_class<power>(m)) return integer_rec(m, registry);
    for (size_t i = 0; i < m.nops(); ++i)
      if (!integer_rec(m.op(i), registry)) return false;
    return true;
  }
  if (is_class<add>(e) || is_class<mul>(e) || is_class<extremum>(e)) {
    for (size_t i = 0; i < e.nops(); ++i)
      if (!integer_rec(e.op(i), registry)) return false;
    return true;
  }
  if (is_class<power>(e)) {
    if (!integer_rec(e.op(0), registry)) return false;
    if (is_class<numeric>(e.op(1))) return ex_to<numeric>(e.op(1)).is_nonneg_integer();
    // b ^ k for an integer b and an integer k >= 0 (2 ^ (L - l) with l <= L).
    return integer_rec(e.op(1), registry) && provably_nonneg(e.op(1));
  }
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    Facts inner = *this;
    inner.declare_index(r.index(), r.lb(), r.ub());
    return inner.provably_integer(r.body());
  }
  switch (pamela_function(e)) {
    case Fn::Unitvec:
    case Fn::Floor:
    case Fn::Ceil:
    case Fn::Div:
    case Fn::Eq:
    case Fn::Ne:
    case Fn::Lt:
    case Fn::Le:
    case Fn::Gcd: return true;
    case Fn::Mod: return integer_rec(e.op(0), registry) && integer_rec(e.op(1), registry);
    case Fn::VectorMax: return integer_rec(e.op(0), registry);
    default: return false;
  }
}

}  // namespace pamc::sym
