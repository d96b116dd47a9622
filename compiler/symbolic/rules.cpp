// The simplifier's rule table (all_rules, in the order the driver tries the rules) and what
// every rule family shares: side conditions proved or assumed (require), failure checks
// (may_fail, denominators), polynomial helpers (factor_polynomial, faulhaber). The rules
// themselves live in rules_*.cpp by family; each states its theorem and side conditions
// above it.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/exact_size.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/load_families.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <cmath>
#include <numeric>
#include <set>
#include <algorithm>
#include <functional>
#include <map>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

void denominators(const ex& e, std::vector<symbol>& out) {
  if (is_class<power>(e) && is_class<symbol>(e.op(0)) && is_class<numeric>(e.op(1)) &&
      ex_to<numeric>(e.op(1)).is_negative())
    out.push_back(ex_to<symbol>(e.op(0)));
  for (size_t k = 0; k < e.nops(); ++k) denominators(e.op(k), out);
}

namespace detail {

std::string nonneg_text(const ex& c) {
  // c >= 0 printed as "positive terms >= negated negative terms", e.g. P - 1 -> "P >= 1".
  ex x = c.expand();
  exvector terms;
  if (is_class<add>(x))
    for (size_t i = 0; i < x.nops(); ++i) terms.push_back(x.op(i));
  else
    terms.push_back(x);
  ex lhs = 0, rhs = 0;
  for (const ex& t : terms) {
    ex coeff = is_class<numeric>(t) ? t : (is_class<mul>(t) ? t.op(t.nops() - 1) : ex(1));
    if (is_class<numeric>(coeff) && ex_to<numeric>(coeff).is_negative())
      rhs -= t;
    else
      lhs += t;
  }
  return to_pamela(lhs) + " >= " + to_pamela(rhs);
}

// What it reads and returns: index_monomials in rules_internal.h.
std::optional<IndexMonomials> index_monomials(const ex& e, const std::function<bool(const ex&)>& is_index) {
  IndexMonomials out;
  for (const ex& t : operands_of(e.expand(), true)) {
    ex mono = 1, coeff = 1;
    for (const ex& y : operands_of(t, false)) {
      if (!is_index(y)) {
        coeff *= y;
        continue;
      }
      bool plain = is_class<symbol>(y) || (is_class<power>(y) && is_class<symbol>(y.op(0)) && is_class<numeric>(y.op(1)) &&
                                           ex_to<numeric>(y.op(1)).is_pos_integer());
      if (!plain) return std::nullopt;
      mono *= y;
    }
    auto [it, fresh] = out.try_emplace(to_pamela(mono), mono, coeff);
    if (!fresh) it->second.second += coeff;
  }
  return out;
}

// An integer condition on e = sum_m c_m m(i, j, ...), a polynomial in loop indices (all
// integers) with index-free coefficients c_m: sufficient that every c_m is an integer. The
// block loop bound p * N / P is an integer wherever N / P is. nullopt when e has another
// shape; the coefficients otherwise (a coefficient may be 0).
std::optional<std::vector<ex>> index_coefficients(const ex& e, const Facts& f) {
  auto monomials = index_monomials(e, [&](const ex& y) { return f.mentions_index(y); });
  if (!monomials) return std::nullopt;
  std::vector<ex> out;
  for (const auto& [key, mc] : *monomials) {
    for (const ex& y : operands_of(mc.first, false))
      if (!f.provably_integer(y)) return std::nullopt;
    out.push_back(mc.second);
  }
  return out;
}

bool reads_only_declared(const ex& e, const Facts& f) {
  for (const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (is_class<symbol>(*it) && !f.is_declared(ex_to<symbol>(*it))) return false;
  return true;
}

}  // namespace detail

namespace detail {

// A sum whose terms share factors, as that product times the sum of what is left: the
// terms (i - 1 <= N) N / x - (i - 1 <= N) i / x + (i - 1 <= N) / x of a guarded count read
// as (i - 1 <= N) / x * (N - i + 1). A factor is shared when every term holds its base to
// the same power (numbers and numeric coefficients are not factors). nullopt when nothing
// is shared. An identity.
std::optional<ex> shared_factors(const ex& h) {
  if (!is_class<add>(h)) return std::nullopt;
  // A term's factors as (base, exponent): x^k with k a positive integer is (x, k), any other
  // factor (x, 1); numbers are left out. N i + i - i^2 shares i, the least power of i.
  auto factors_of = [](const ex& t) {
    std::vector<std::pair<ex, numeric>> out;
    for (const ex& x : operands_of(t, false)) {
      if (is_class<numeric>(x)) continue;
      if (is_class<power>(x) && is_class<numeric>(x.op(1)) && ex_to<numeric>(x.op(1)).is_pos_integer())
        out.emplace_back(x.op(0), ex_to<numeric>(x.op(1)));
      else
        out.emplace_back(x, numeric(1));
    }
    return out;
  };
  auto common = factors_of(h.op(0));
  for (size_t k = 1; k < h.nops() && !common.empty(); ++k) {
    auto here = factors_of(h.op(k));
    std::vector<std::pair<ex, numeric>> kept;
    for (const auto& [x, n] : common)
      for (const auto& [y, m] : here)
        if (y.is_equal(x)) {
          kept.emplace_back(x, n < m ? n : m);
          break;
        }
    common = kept;
  }
  if (common.empty()) return std::nullopt;
  ex c = 1;
  for (const auto& [x, n] : common) c *= pow(x, n);
  ex rest = 0;
  for (const ex& t : h) rest += t / c;
  return c * rest.expand();
}

// Whether "e is an integer" leaves e, under the facts, finitely many values that are also
// few parameter values: e's range is bounded and holds at most one integer, or e reads one
// symbol. 1 / B with B >= 1 lies in (0, 1] (B = 1 only); 2 / B in (0, 2] (B = 1 or 2). A
// closed form under such an assumption is all but never used, so the rule gives up.
// A read of the facts made only to refuse relies on nothing (LogNothing, facts.h).
bool pins_to_few_values(const ex& e, const Facts& f) {
  Interval r = [&] {
    LogNothing nothing;
    return f.range(e);
  }();
  if (r.lo.inf != 0 || r.hi.inf != 0 || !r.lo.v.is_rational() || !r.hi.v.is_rational()) return false;
  numeric lo = -floor_num(-r.lo.v), hi = floor_num(r.hi.v);
  if (r.lo.open && lo == r.lo.v) lo += 1;
  if (r.hi.open && hi == r.hi.v) hi -= 1;
  if (hi - lo < 1) return true;
  int symbols = 0;
  for (GiNaC::const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (is_class<symbol>(*it) && ++symbols > 1) return false;
  return symbols == 1;
}

// Whether e >= 0 holds at most where e = 0 under the facts (-e >= 0 proved: 0 >= K beside
// K >= 0). A rule that gives up on it relies on nothing, so the default signs that proof
// used are taken back from the log.
bool holds_nowhere_or_at_zero(const ex& e, const Facts& f) {
  LogNothing nothing;
  return f.provably_nonneg(-e);
}

// x with every 0 div b and 0 mod b whose b the facts prove nonzero written as 0: a rule that
// substitutes an index's first value into a position (e div B at e = 0) leaves these, and
// an assumption reads "0 div (N / P) + 2 >= P" instead of "2 >= P". Value-preserving
// wherever the facts hold; a b not proved nonzero is kept (0 div 0 has no value).
ex zero_quotients_folded(const ex& x, const Facts& f) {
  struct Fold : map_function {
    const Facts& f;
    explicit Fold(const Facts& facts) : f(facts) {}
    ex operator()(const ex& y) override {
      Fn fn = pamela_function(y);
      if ((fn == Fn::Div || fn == Fn::Mod) && y.op(0).is_zero() &&
          (f.provably_positive(y.op(1)) || f.provably_positive(-y.op(1))))
        return 0;
      return y.map(*this);
    }
  } fold(f);
  return fold(x);
}

// All conditions provable, or (those that are not) assumable: they mention no loop index.
// Only then are the unprovable ones recorded, so a rule that gives up records nothing.
// An assumption that the facts leave true at one value of its expression only (e >= 0
// where e <= 0 is proved: e = 0; an integer e whose range holds one integer) is refused as
// one that holds nowhere is: the closed form would all but never be used.
bool require(const std::vector<Cond>& conds, const Facts& f, Assumptions& a) {
  std::vector<const Cond*> unproved;
  std::vector<Cond> split;  // integer conditions on index polynomials, as their coefficients
  split.reserve(conds.size() * 4);
  for (const Cond& c : conds) {
    bool ok = c.integer ? f.provably_integer(c.e) : f.provably_nonneg(c.e);
    if (ok) continue;
    if (c.integer && f.mentions_index(c.e)) {
      auto coeffs = index_coefficients(c.e, f);
      if (!coeffs) return false;
      for (const ex& k : *coeffs) {
        if (f.provably_integer(k)) continue;
        if (f.mentions_index(k)) return false;
        if (is_class<numeric>(k)) return false;  // "0.5 is an integer": false at every point
        if (pins_to_few_values(k, f)) return false;
        split.push_back({true, k});
      }
      continue;
    }
    if (f.mentions_index(c.e)) return false;
    if (!c.integer && is_class<numeric>(c.e.expand())) return false;  // provably false
    // Negative wherever the facts hold (0 >= 2 ^ ceil(log2(P))): an assumption no point
    // meets leaves a closed form that is never used. The rule gives up instead; also where
    // it is <= 0 wherever they hold (0 >= K beside K >= 0: met at K = 0 alone).
    if (!c.integer && holds_nowhere_or_at_zero(c.e, f)) return false;
    if (c.integer && !is_class<numeric>(c.e) && pins_to_few_values(c.e, f)) return false;
    unproved.push_back(&c);
  }
  for (const Cond& c : split) unproved.push_back(&c);
  for (const Cond* c : unproved) {
    if (c->integer) {
      // "N - 1 is an integer" says no more than "N is an integer": drop integer constants.
      ex base = c->e.expand();
      if (is_class<add>(base)) {
        ex stripped = 0;
        for (size_t k = 0; k < base.nops(); ++k)
          if (!(is_class<numeric>(base.op(k)) && ex_to<numeric>(base.op(k)).is_integer())) stripped += base.op(k);
        base = stripped;
      }
      // -M is an integer iff M is.
      if (is_class<mul>(base) && base.op(base.nops() - 1).is_equal(-1)) base = (-base).expand();
      if (a.items.insert(integer_claim_text(base)).second) a.integer.push_back(base);
    } else {
      ex e = zero_quotients_folded(c->e, f);
      if (a.items.insert(nonneg_text(e)).second) a.nonneg.push_back(e);
    }
  }
  return true;
}

std::optional<WeightSign> nonneg_weight_conds(const ex& w, const symbol& i, const ex& lb, const ex& ub,
                                             const Facts& f, const Facts& in) {
  WeightSign out{{}, {}, w};
  if (in.provably_nonneg(w)) return out;
  if (!w.has(i)) return std::nullopt;
  std::function<void(const ex&)> add_end = [&](const ex& x) {
    if (is_class<extremum>(x) && !ex_to<extremum>(x).is_max()) {
      for (const ex& y : ex_to<extremum>(x).args()) add_end(y);
      return;
    }
    if (!f.provably_nonneg(x)) out.conds.push_back({false, x});
  };
  // A product is >= 0 where each factor is, up to an even number of factors proved <= 0:
  // those not proved either way take the ends (one of them negated where the signs proved
  // leave the product's sign negative). An expanded product (N min(...) - i min(...) +
  // min(...)) is read through its shared factors, whose signs GiNaC's order picks.
  ex product = w;
  if (is_class<add>(w))
    if (auto g = shared_factors(w)) product = out.form = *g;
  // `form` becomes the same product with every factor >= 0 (proved, or taken at its ends):
  // the shape the monotonicity rules read.
  int sign = 1;
  ex known = 1;
  exvector open;
  for (const ex& x : operands_of(product, false)) {
    if (is_class<numeric>(x)) {
      if (!ex_to<numeric>(x).is_real() || ex_to<numeric>(x).is_zero()) return std::nullopt;
      if (ex_to<numeric>(x).is_negative()) sign = -sign;
      known *= abs(ex_to<numeric>(x));
    } else if (in.provably_nonneg(x)) {
      known *= x;
    } else if (in.provably_nonneg(-x)) {
      sign = -sign;
      known *= (-x).expand();
    } else {
      open.push_back(x);
    }
  }
  // Every factor of proved sign and the product <= 0 (a load the equation subtracts, p -
  // N): >= 0 only where it is 0 throughout, an assumption that leaves the closed form unused.
  if (open.empty()) return std::nullopt;
  open = sorted_by_text(open);
  if (sign < 0) open[0] = -open[0];
  for (const ex& x : open) {
    if (!x.has(i) || !structurally_convex(x, i, f, -1)) return std::nullopt;
    add_end(x.subs(exmap{{i, lb}}, subs_options::no_pattern).expand());
    add_end(x.subs(exmap{{i, ub}}, subs_options::no_pattern).expand());
    out.factors.push_back(x);
    known *= x;
  }
  out.form = known;
  return out;
}

// The body of a sum whose range may be empty must not fail where brute force would not
// evaluate it. A quotient by a parameter (N / P, with P >= 0 by default) fails only at
// P = 0: then assume P >= 1 (recorded and checked: where it fails, the unsimplified model
// answers), if that is all that could fail. True when the body cannot fail (then or now).
bool cannot_fail_or_assume(const ex& body, const Facts& f, Assumptions& a) {
  if (!may_fail(body, f)) return true;
  std::vector<symbol> dens;
  denominators(body, dens);
  if (dens.empty()) return false;
  Facts g = f;
  std::vector<Cond> conds;
  for (const symbol& d : dens) {
    if (f.mentions_index(d) || f.provably_positive(d)) continue;
    g.add_lower(d, 1, false);
    conds.push_back({false, d - 1});
  }
  if (conds.empty() || may_fail(body, g)) return false;
  return require(conds, f, a);
}

const reduction* as_red(const ex& e, ReduceKind k) {
  if (!is_class<reduction>(e)) return nullptr;
  const auto& r = ex_to<reduction>(e);
  return r.kind() == k ? &r : nullptr;
}

const reduction* as_ext_red(const ex& e) {
  if (!is_class<reduction>(e)) return nullptr;
  const auto& r = ex_to<reduction>(e);
  return r.kind() == ReduceKind::Sum ? nullptr : &r;
}

exvector operands_of(const ex& e, bool is_add) {
  exvector v;
  if (is_add ? is_class<add>(e) : is_class<mul>(e))
    for (size_t i = 0; i < e.nops(); ++i) v.push_back(e.op(i));
  else
    v.push_back(e);
  return v;
}

ex rebuild(const reduction& r, ReduceKind k, const ex& body) {
  return rebuild_reduction(r, k, r.lb(), r.ub(), body);
}

// Sort by printed text, so a rule's choices do not depend on symbol creation order.
exvector sorted_by_text(const exvector& v) {
  std::vector<std::pair<std::string, ex>> p;
  for (const ex& x : v) p.emplace_back(to_pamela(x), x);
  std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  exvector out;
  for (auto& [t, x] : p) out.push_back(x);
  return out;
}

// The piecewise factor of a sum's closed form: 1 where the range is provably non-empty
// (or exactly one short of it), else the predicate (ub - lb + 1 >= 0), which is 1 on a
// non-empty range and 0 on an empty one. Keeps the closed form exact without assuming.
ex nonempty_guard(const ex& count, const Facts& f) {
  if (f.provably_nonneg(count)) return 1;
  return compare(Cmp::Ge, count, 0);
}

std::optional<ex> nonempty_factor(const reduction& r, const Facts& f, Assumptions& a) {
  const ex span = r.ub() - r.lb();
  if (f.provably_nonneg(span)) return ex(1);
  if (r.empty_is_zero()) return compare(Cmp::Le, 0, span);
  if (!require({{false, span}}, f, a)) return std::nullopt;
  return ex(1);
}

// e = a * i + b with a a nonzero real number and b free of i.
std::optional<std::pair<numeric, ex>> linear_in(const ex& e, const ex& i) {
  ex x = e.expand();
  if (!x.has(i) || !x.is_polynomial(i) || x.degree(i) != 1 || x.ldegree(i) < 0) return std::nullopt;
  ex a = x.coeff(i, 1), b = x.coeff(i, 0);
  if (!is_class<numeric>(a) || !ex_to<numeric>(a).is_real() || a.is_zero() || b.has(i)) return std::nullopt;
  return std::make_pair(ex_to<numeric>(a), b);
}

}  // namespace detail

namespace {

// x = sum_t c_t m_t in expanded form (each term a rational times a product of positive
// integer powers of symbols): the terms as (coefficient, exponent per symbol). nullopt when
// x has another shape.
using Monomial = std::map<ex, long, ex_is_less>;
std::optional<std::vector<std::pair<numeric, Monomial>>> expanded_terms(const ex& x) {
  if (!is_class<add>(x)) return std::nullopt;
  std::vector<std::pair<numeric, Monomial>> out;
  for (size_t i = 0; i < x.nops(); ++i) {
    const ex t = x.op(i);
    numeric c = 1;
    Monomial m;
    auto factor_in = [&](const ex& f) {
      if (is_class<numeric>(f) && ex_to<numeric>(f).is_rational()) {
        c *= ex_to<numeric>(f);
        return true;
      }
      if (is_class<symbol>(f)) return (m[f] += 1), true;
      if (is_class<power>(f) && is_class<symbol>(f.op(0)) && is_class<numeric>(f.op(1)) &&
          ex_to<numeric>(f.op(1)).is_pos_integer())
        return (m[f.op(0)] += ex_to<numeric>(f.op(1)).to_long()), true;
      return false;
    };
    if (is_class<mul>(t)) {
      for (size_t k = 0; k < t.nops(); ++k)
        if (!factor_in(t.op(k))) return std::nullopt;
    } else if (!factor_in(t)) {
      return std::nullopt;
    }
    out.emplace_back(c, std::move(m));
  }
  return out;
}

// Is r = sum_t c_t m_t (expanded, rational coefficients, no monomial common to all terms)
// irreducible over Q because it is of degree 1 in some symbol v, r = a v + b, with
// gcd(a, b) a constant? (A factor of r free of v divides a and b; the other factor has
// degree 1 in v. So with gcd(a, b) constant every factorization has a constant factor.)
// A cheap proof for the common cost polynomial (a constant term beside products of
// parameters), where GiNaC's multivariate factor() costs milliseconds.
bool irreducible_as_linear(const std::vector<std::pair<numeric, Monomial>>& r) {
  std::set<ex, ex_is_less> vars;
  for (const auto& [c, m] : r)
    for (const auto& [v, k] : m) vars.insert(v);
  for (const ex& v : vars) {
    ex a = 0, b = 0;
    bool linear = true;
    for (const auto& [c, m] : r) {
      ex rest = c;
      long kv = 0;
      for (const auto& [s, k] : m) {
        if (s.is_equal(v)) kv = k;
        else rest *= GiNaC::pow(s, k);
      }
      if (kv > 1) {
        linear = false;
        break;
      }
      (kv == 1 ? a : b) += rest;
    }
    if (linear && !a.is_zero() && !b.is_zero() && is_class<numeric>(gcd(a, b))) return true;
  }
  return false;
}

}  // namespace

// Fast path, side conditions: x in expanded form; after dividing out the common monomial g
// (least exponent of each symbol over the terms), the rest r has positive coefficients and
// is of total degree <= 1, or is irreducible by irreducible_as_linear. Then r / content(r)
// is a primitive irreducible polynomial with positive coefficients, which is what factor()
// returns: x = content * g * (r / content). Else factor() itself.
//
// GiNaC's factor() works on dense polynomials: n ^ 1e9 would allocate 10^9 coefficients
// (found by tests/cli/run_hostile.py). Above kMaxFactorDegree in some factor, x is left as
// it is: factoring only gives a shorter printed form of the same value. 64, not 1000: the
// univariate factoring of (n + 1) ^ 1000 * n + n ^ 2 ran past a minute; no cost model
// has a polynomial of degree 64.
constexpr long kMaxFactorDegree = 64;

static bool degree_above(const ex& x, long limit) {
  for (auto it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_class<GiNaC::power>(*it) && is_class<numeric>(it->op(1))) {
      const numeric& k = ex_to<numeric>(it->op(1));
      if (!k.is_integer() || abs(k) > limit) return true;
    }
  return false;
}

// GiNaC's factor() on a polynomial with a coefficient of hundreds of thousands of digits (a
// fuzzed sum chain) runs past a minute in its gcds; above kMaxFactorBits in some number, x is
// left as it is too.
constexpr long kMaxFactorBits = 4096;

static bool coefficient_above(const ex& x, long bits) {
  for (auto it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_class<numeric>(*it) && exact_bits(ex_to<numeric>(*it)) > bits) return true;
  return false;
}

ex factor_polynomial(const ex& x) {
  if (degree_above(x, kMaxFactorDegree) || coefficient_above(x, kMaxFactorBits)) return x;
  auto terms = expanded_terms(x);
  if (!terms || terms->size() < 2) return factor(x);
  Monomial g = terms->front().second;
  for (const auto& [c, m] : *terms) {
    if (!c.is_positive()) return factor(x);
    for (auto it = g.begin(); it != g.end();) {
      auto f = m.find(it->first);
      if (f == m.end()) {
        it = g.erase(it);
        continue;
      }
      it->second = std::min(it->second, f->second);
      ++it;
    }
  }
  numeric num_gcd = 0, den_lcm = 1;
  ex r = 0;
  bool nonlinear = false;
  std::vector<std::pair<numeric, Monomial>> rest_terms;
  for (const auto& [c, m] : *terms) {
    long degree = 0;
    ex rest = c;
    Monomial left_m;
    for (const auto& [s, k] : m) {
      long left = k - (g.count(s) ? g.at(s) : 0);
      degree += left;
      if (left) {
        rest *= GiNaC::pow(s, left);
        left_m[s] = left;
      }
    }
    nonlinear = nonlinear || degree > 1;
    rest_terms.emplace_back(c, std::move(left_m));
    r += rest;
    num_gcd = gcd(num_gcd, c.numer());
    den_lcm = lcm(den_lcm, c.denom());
  }
  if (nonlinear && !irreducible_as_linear(rest_terms)) return factor(x);
  numeric content = num_gcd / den_lcm;
  ex mono = 1;
  for (const auto& [s, k] : g) mono *= GiNaC::pow(s, k);
  return content * mono * (r / content).expand();
}

// Could evaluating e fail (an error where a value is expected) at some point the facts
// allow? Conservative: a max/min reduction whose range is not provably non-empty, division
// (negative power, mod, div) by something not provably nonzero, log/log2 of something not
// provably positive. Brute force never evaluates the body of an empty sum, so a rule must
// not move such a factor out of a sum whose range may be empty.
namespace {
// The condition under which evaluating the node e itself fails (its operands aside), as
// failure_conditions names them; nullopt when it cannot fail under the facts.
std::optional<std::pair<int, ex>> own_failure(const ex& e, const Facts& f) {
  if (is_class<power>(e)) {
    const ex& x = e.op(1);
    bool neg = !(is_class<numeric>(x) && ex_to<numeric>(x).is_nonneg_integer());
    if (neg && !f.provably_positive(e.op(0)) && !f.provably_positive(-e.op(0))) {
      if (is_class<numeric>(x) && ex_to<numeric>(x).is_integer()) return std::make_pair(0, e.op(0));  // base == 0
      return std::make_pair(1, e);
    }
  }
  switch (pamela_function(e)) {
    case Fn::Mod:
    case Fn::Div:
      if (!f.provably_positive(e.op(1)) && !f.provably_positive(-e.op(1))) return std::make_pair(0, e.op(1));
      break;
    case Fn::Unitvec:  // a negative position fails (integrality is the assumptions' business)
      if (!f.provably_nonneg(e.op(0))) return std::make_pair(2, e.op(0));
      break;
    case Fn::Log2:
      if (!f.provably_positive(e.op(0))) return std::make_pair(3, e.op(0));
      break;
    default:
      if (pamela_function(e) == Fn::None && is_class<function>(e) && ex_to<function>(e).get_name() == "log" &&
          !f.provably_positive(e.op(0)))
        return std::make_pair(4, e.op(0));
  }
  return std::nullopt;
}
}  // namespace

namespace detail {
// An integer by its form alone: whole numbers, integer symbols, floors, ceilings and
// remainders of integers, and sums, products and whole powers of these (no prover call,
// which may make symbols and so change GiNaC's term order).
bool integer_by_form(const ex& e, const Facts& f) {
  if (is_class<numeric>(e)) return ex_to<numeric>(e).is_integer();
  if (is_class<symbol>(e)) return f.is_integer_symbol(ex_to<symbol>(e));
  Fn fn = pamela_function(e);
  if (fn == Fn::Floor || fn == Fn::Ceil) return true;
  if (fn == Fn::Mod) return integer_by_form(e.op(0), f) && integer_by_form(e.op(1), f);
  if (is_class<add>(e) || is_class<mul>(e)) {
    for (size_t k = 0; k < e.nops(); ++k)
      if (!integer_by_form(e.op(k), f)) return false;
    return true;
  }
  if (is_class<power>(e))
    return is_class<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_pos_integer() && integer_by_form(e.op(0), f);
  return false;
}
}  // namespace detail

bool may_fail(const ex& e, const Facts& f) {
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    if (may_fail(r.lb(), f) || may_fail(r.ub(), f)) return true;
    if (r.kind() != ReduceKind::Sum && !f.provably_nonneg(r.ub() - r.lb())) return true;
    // A bound that is not an integer leaves the loop without a value, and a zero factor
    // does not cover that (a loop not taken is still checked), so a rule that moves the
    // loop where the model does not evaluate it (a count times a body over a range that
    // may be empty) would give "no value" where the model has one. Asked of bounds the
    // facts can read (parameters, declared indices): one that reads an index of a loop
    // outside e is that loop's caller's to check (index_dependent_bounds.h).
    for (const ex& b : {r.lb(), r.ub()})
      if (!detail::integer_by_form(b, f) && detail::reads_only_declared(b, f) && !f.provably_integer(b)) return true;
    Facts inner = f;
    inner.declare_index(r.index(), r.lb(), r.ub());
    return may_fail(r.body(), inner);
  }
  if (own_failure(e, f)) return true;
  for (size_t k = 0; k < e.nops(); ++k)
    if (may_fail(e.op(k), f)) return true;
  return false;
}

bool failure_conditions(const ex& e, const Facts& f, std::vector<std::pair<int, ex>>& out) {
  if (is_class<reduction>(e)) return !may_fail(e, f);
  if (auto c = own_failure(e, f)) out.push_back(*c);
  for (size_t k = 0; k < e.nops(); ++k)
    if (!failure_conditions(e.op(k), f, out)) return false;
  return true;
}

bool fails_with(const ex& x, const ex& y, const Facts& f) {
  std::vector<std::pair<int, ex>> cx, cy;
  if (!failure_conditions(x, f, cx) || !failure_conditions(y, f, cy)) return false;
  for (const auto& [kind, at] : cx) {
    bool found = false;
    for (const auto& [k2, at2] : cy) found = found || (kind == k2 && at.is_equal(at2));
    if (!found) return false;
  }
  return true;
}

ex faulhaber(unsigned k, const ex& n) {
  // S_k(n) = 1/(k+1) sum_{j=0..k} binomial(k+1, j) B+_j n^(k+1-j), with B+_1 = +1/2.
  // As a polynomial it satisfies S_k(n) - S_k(n-1) = n^k for every n.
  ex s = 0;
  for (unsigned j = 0; j <= k; ++j) {
    numeric b = j == 1 ? numeric(1, 2) : bernoulli(numeric(j));
    s += binomial(numeric(k + 1), numeric(j)) * b * GiNaC::pow(n, k + 1 - j);
  }
  return (s / (k + 1)).expand();
}

ex antiderivative(const ex& h, const ex& j, const ex& m) {
  ex x = h.expand(), out = 0;
  for (int k = 0; k <= x.degree(j); ++k) {
    ex c = x.coeff(j, k);
    if (!c.is_zero()) out += c * faulhaber(static_cast<unsigned>(k), m);
  }
  return out;
}

const std::vector<NamedRule>& all_rules() {
  static const std::vector<NamedRule> rules = {
      {"sum_zero", rule_sum_zero},
      {"sum_split", rule_sum_split},
      {"sum_factor", rule_sum_factor},
      {"sum_const", rule_sum_const},
      {"sum_poly", rule_sum_poly},
      {"strided_residue", rule_strided_residue},
      {"sum_mod_count", rule_sum_mod_count},
      {"sum_mod_select", rule_sum_mod_select},
      {"sum_cmp_count", rule_sum_cmp_count},
      {"sum_cmp_select", rule_sum_cmp_select},
      {"sum_floor_poly", rule_sum_floor_poly},
      {"sum_floor_multiple", rule_sum_floor_multiple},
      {"sum_div_step", rule_sum_div_step},
      {"sum_piecewise", rule_sum_piecewise},
      {"sum_slope_zero_split", rule_sum_slope_zero_split},
      {"sum_geometric", rule_sum_geometric},
      {"sum_short_range", rule_sum_short_range},
      {"sum_full_period", rule_sum_full_period},
      {"sum_swap_triangle", rule_sum_swap_triangle},
      {"sum_residue_split", rule_sum_residue_split},
      {"sum_period_split", rule_sum_period_split},
      {"sum_numeric_period", rule_sum_numeric_period},
      {"sum_floor_ratio", rule_sum_floor_ratio},
      {"sum_rounding_split", rule_sum_rounding_split},
      {"ext_const", rule_ext_const},
      {"ext_shift", rule_ext_shift},
      {"ext_scale", rule_ext_scale},
      {"ext_collect", rule_ext_collect},
      {"ext_monotone", rule_ext_monotone},
      {"ext_convex", rule_ext_convex},
      {"ext_convex_shape", rule_ext_convex_shape},
      {"ext_convex_min", rule_ext_convex_min},
      {"ext_attained", rule_ext_attained},
      {"ext_indicator", rule_ext_indicator},
      {"ext_residue_select", rule_ext_residue_select},
      {"ext_breakpoints", rule_ext_breakpoints},
      {"ext_block_count", rule_ext_block_count},
      {"ext_periodic", rule_ext_periodic},  // before the split: exact on short ranges, no assumption
      {"ext_product_at_end", rule_ext_product_at_end},
      {"ext_residue_split", rule_ext_residue_split},
      {"ext_class_window", rule_ext_class_window},
      {"ext_mod_range", rule_ext_mod_range},
      {"ext_skip_one", rule_ext_skip_one},
      {"unroll", rule_unroll},
      {"sum_power_rounding", rule_sum_power_rounding},
      {"floor_quotient", rule_floor_quotient},
      {"floor_shift", rule_floor_shift},
      {"floor_nested", rule_floor_nested},
      {"floor_window", rule_floor_window},
      {"floor_residue", rule_floor_residue},
      {"mod_window", rule_mod_window},
      {"mod_of_mod", rule_mod_of_mod},
      {"vmax_numeric", rule_vmax_numeric},
      {"vmax_single", rule_vmax_single},
      {"vmax_distinct", rule_vmax_distinct},  // before identity: its guard reads better
      {"vmax_identity", rule_vmax_identity},
      {"vmax_injective", rule_vmax_injective},
      {"vmax_uniform", rule_vmax_uniform},
      {"vmax_boxes", rule_vmax_boxes},
      {"vmax_block_cyclic", rule_vmax_block_cyclic},
      {"vmax_block_weighted", rule_vmax_block_weighted},
      {"vmax_block_periodic", rule_vmax_block_periodic},
      {"vmax_block_ends", rule_vmax_block_ends},
      {"vmax_block_concave", rule_vmax_block_concave},
      {"vmax_grid_column", rule_vmax_grid_column},
      {"vmax_crossing", rule_vmax_crossing},
      {"vmax_block_split", rule_vmax_block_split},
      {"vmax_rescale", rule_vmax_rescale},
      {"vmax_product", rule_vmax_product},
      {"vmax_cyclic", rule_vmax_cyclic},
      {"vmax_collapse", rule_vmax_collapse},
      {"vmax_disjoint", rule_vmax_disjoint},
      {"vmax_disjoint_assumed", rule_vmax_disjoint_assumed},  // LastResortRules only
      {"vmax_offset", rule_vmax_offset},
      {"vmax_index_sum", rule_vmax_index_sum},
      {"vmax_position_weight", rule_vmax_position_weight},
      {"vmax_residue_weight", rule_vmax_residue_weight},
      {"vmax_all_but_diagonal", rule_vmax_all_but_diagonal},
      {"ext_fiber_vector", rule_ext_fiber_vector},
      {"max_inner_load", rule_max_inner_load},
      {"sum_fiber_total", rule_sum_fiber_total},
      {"vmax_cyclic_shifts", rule_vmax_cyclic_shifts},
      {"vmax_cyclic_weighted", rule_vmax_cyclic_weighted},
      {"vmax_cyclic_periodic", rule_vmax_cyclic_periodic},
      {"vmax_cyclic_classes", rule_vmax_cyclic_classes},
      {"vmax_block", rule_vmax_block},
      {"vmax_fibers", rule_vmax_fibers},  // after the one-map rules: their forms are shorter
      {"vmax_block_strided", rule_vmax_block_strided},  // after vmax_block and vmax_fibers
      {"floor_int", rule_floor_int},
      {"cmp_decide", rule_cmp_decide},
      {"cmp_power", rule_cmp_power},
      {"cmp_extremum", rule_cmp_extremum},
      {"cmp_guard_factor", rule_cmp_guard_factor},
      {"cmp_rounding", rule_cmp_rounding},
      {"cmp_power_log", rule_cmp_power_log},
      {"cmp_normal", rule_cmp_normal},
      {"cmp_eq_factor", rule_cmp_eq_factor},
      {"div_rate", rule_div_rate},
      {"max_dominated", rule_max_dominated},
      {"max_vector_bound", rule_max_vector_bound},
      {"max_common_term", rule_max_common_term},
      {"max_factor", rule_max_factor},
      {"max_ratio", rule_max_ratio},
      {"case_lift", rule_case_lift},
  };
  return rules;
}

namespace {
thread_local bool last_resort = false;
}  // namespace
LastResortRules::LastResortRules() { last_resort = true; }
LastResortRules::~LastResortRules() { last_resort = false; }
bool LastResortRules::on() { return last_resort; }

}  // namespace pamc::sym
