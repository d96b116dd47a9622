// The simplifier's rewrite rules: see rules.h. Each rule states its side condition above it.
#include "compiler/symbolic/rules.h"
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
#include <map>

namespace pamc::sym {

using namespace GiNaC;

void denominators(const ex& e, std::vector<symbol>& out) {
  if (is_class<power>(e) && is_class<symbol>(e.op(0)) && is_class<numeric>(e.op(1)) &&
      ex_to<numeric>(e.op(1)).is_negative())
    out.push_back(ex_to<symbol>(e.op(0)));
  for (size_t k = 0; k < e.nops(); ++k) denominators(e.op(k), out);
}

namespace {

// A side condition: `e >= 0`, or `e is an integer`.
struct Cond {
  bool integer;
  ex e;
};

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

// All conditions provable, or (those that are not) assumable: they mention no loop index.
// Only then are the unprovable ones recorded, so a rule that gives up records nothing.
// An integer condition on e = sum_m c_m m(i, j, ...), a polynomial in loop indices (all
// integers) with index-free coefficients c_m: sufficient that every c_m is an integer. The
// block loop bound p * N / P is an integer wherever N / P is. nullopt when e has another
// shape; the coefficients otherwise (a coefficient may be 0).
std::optional<std::vector<ex>> index_coefficients(const ex& e, const Facts& f) {
  ex x = e.expand();
  std::vector<ex> out;
  exvector terms;
  if (is_class<add>(x))
    for (size_t k = 0; k < x.nops(); ++k) terms.push_back(x.op(k));
  else
    terms.push_back(x);
  std::map<std::string, ex> by_monomial;  // index monomial (printed) -> coefficient
  for (const ex& t : terms) {
    ex mono = 1, coeff = 1;
    exvector factors;
    if (is_class<mul>(t))
      for (size_t k = 0; k < t.nops(); ++k) factors.push_back(t.op(k));
    else
      factors.push_back(t);
    for (const ex& y : factors) {
      if (!f.mentions_index(y)) {
        coeff *= y;
        continue;
      }
      bool ok = is_class<symbol>(y) ||
                (is_class<power>(y) && is_class<symbol>(y.op(0)) && is_class<numeric>(y.op(1)) &&
                 ex_to<numeric>(y.op(1)).is_pos_integer());
      if (!ok || !f.provably_integer(y)) return std::nullopt;
      mono *= y;
    }
    by_monomial[to_pamela(mono)] += coeff;
  }
  for (const auto& [m, c] : by_monomial) out.push_back(c);
  return out;
}

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
        split.push_back({true, k});
      }
      continue;
    }
    if (f.mentions_index(c.e)) return false;
    if (!c.integer && is_class<numeric>(c.e.expand())) return false;  // provably false
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
      if (a.items.insert(to_pamela(base) + " is an integer").second) a.integer.push_back(base);
    } else {
      if (a.items.insert(nonneg_text(c->e)).second) a.nonneg.push_back(c->e);
    }
  }
  return true;
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

// v >= 0 elementwise, proved term by term for a sum (each term is smaller than the whole,
// and the proof of a whole sum could follow GiNaC's term order through its retries).
// A term s * sum (i) { c(i) * unitvec(...) } is proved through its coefficients with the
// index's range as a fact (the prover's relaxations of floor and mod work there, interval
// arithmetic over the whole sum does not).
bool terms_nonneg(const ex& v, const Facts& f) {
  auto term_nonneg = [&](const ex& t) {
    if (f.provably_nonneg(t)) return true;
    auto rs = split_factor(t, [](const ex& x) { return is_class<reduction>(x) && is_vector_valued(x); });
    if (!rs || !f.provably_nonneg(rs->second)) return false;
    const auto& r = ex_to<reduction>(rs->first);
    if (r.kind() != ReduceKind::Sum) return false;
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero()) return false;
    Facts in = f;
    in.declare_index(r.index(), r.lb(), r.ub());
    for (const auto& [pos, c] : vt->terms)
      if (!in.provably_nonneg(c)) return false;
    return true;
  };
  if (!is_class<add>(v)) return term_nonneg(v);
  for (size_t k = 0; k < v.nops(); ++k)
    if (!term_nonneg(v.op(k))) return f.provably_nonneg(v);
  return true;
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

ReduceKind flip(ReduceKind k) { return k == ReduceKind::Max ? ReduceKind::Min : ReduceKind::Max; }

// Sort by printed text, so a rule's choices do not depend on symbol creation order.
// For max over the entries c_0..c_{n-1} of a vector: may entries that evaluate to 0 at the
// end (they are then not elements: a vector ends at its highest nonzero entry h) be counted
// as zeros without changing the max? Only a max below 0 changes, so it suffices that an
// entry c_j >= 0 lies at or below h: take j the lowest provably nonnegative entry; h >= j
// holds when j = 0 (h < 0 is the zero vector, whose max is 0 either way), or when some entry
// at or above j is provably nonzero. Also fine: c_{n-1} provably nonzero (h = n - 1).
bool trailing_zeros_harmless(const exvector& c, const Facts& f) {
  long n = static_cast<long>(c.size()), top = -1;  // top: highest provably nonzero entry
  for (long k = n - 1; k >= 0 && top < 0; --k)
    if (f.provably_positive(c[k]) || f.provably_positive(-c[k])) top = k;
  if (top == n - 1) return true;
  for (long j = 0; j < n; ++j)
    if (f.provably_nonneg(c[j])) return j == 0 || top >= j;
  return false;
}

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

}  // namespace

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

}  // namespace

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

// Fast path, side conditions: x in expanded form; after dividing out the common monomial g
// (least exponent of each symbol over the terms), the rest r has positive coefficients and
// is of total degree <= 1, or is irreducible by irreducible_as_linear. Then r / content(r)
// is a primitive irreducible polynomial with positive coefficients, which is what factor()
// returns: x = content * g * (r / content). Else factor() itself.
//
// GiNaC's factor() works on dense polynomials: n ^ 1e9 would allocate 10^9 coefficients
// (found by tests/cli/run_hostile.py). Above kMaxFactorDegree in some factor, x is left as
// it is: factoring only gives a shorter printed form of the same value.
constexpr long kMaxFactorDegree = 1000;

static bool degree_above(const ex& x, long limit) {
  for (auto it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_class<GiNaC::power>(*it) && is_class<numeric>(it->op(1))) {
      const numeric& k = ex_to<numeric>(it->op(1));
      if (!k.is_integer() || abs(k) > limit) return true;
    }
  return false;
}

ex factor_polynomial(const ex& x) {
  if (degree_above(x, kMaxFactorDegree)) return x;
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
bool may_fail(const ex& e, const Facts& f) {
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    if (may_fail(r.lb(), f) || may_fail(r.ub(), f)) return true;
    if (r.kind() != ReduceKind::Sum && !f.provably_nonneg(r.ub() - r.lb())) return true;
    Facts inner = f;
    inner.declare_index(r.index(), r.lb(), r.ub());
    return may_fail(r.body(), inner);
  }
  if (is_class<power>(e)) {
    const ex& x = e.op(1);
    bool neg = !(is_class<numeric>(x) && ex_to<numeric>(x).is_nonneg_integer());
    if (neg && !f.provably_positive(e.op(0)) && !f.provably_positive(-e.op(0))) return true;
  }
  switch (pamela_function(e)) {
    case Fn::Mod:
    case Fn::Div:
      if (!f.provably_positive(e.op(1)) && !f.provably_positive(-e.op(1))) return true;
      break;
    case Fn::Unitvec:  // a negative position fails (integrality is the assumptions' business)
      if (!f.provably_nonneg(e.op(0))) return true;
      break;
    case Fn::Log2:
      if (!f.provably_positive(e.op(0))) return true;
      break;
    default:
      if (pamela_function(e) == Fn::None && is_class<function>(e)) {
        const std::string name = ex_to<function>(e).get_name();
        if (name == "log" && !f.provably_positive(e.op(0))) return true;
      }
  }
  for (size_t k = 0; k < e.nops(); ++k)
    if (may_fail(e.op(k), f)) return true;
  return false;
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

// sum (i = lb, ub) { 0 } = 0. Always.
std::optional<ex> rule_sum_zero(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !r->body().is_zero()) return std::nullopt;
  return ex(0);
}

// Linearity: sum { a + b } = sum { a } + sum { b }, and sum { c * (v_1 + ... + v_m) } =
// sum { c * v_1 } + ... when the sum in the product is a vector (loads on several resource
// families under one guard, `if (p mod 2 == 0) { use(link(p), t) ; use(cpu(p), w) }`), so
// each family's loads form a sum of their own, with one index map, that the vector-max
// rules can read. A scalar product is left to the rules that read it whole. Always (finite
// sums are linear, both sides are 0 on an empty range, and a product with a zero factor is
// zero either way).
std::optional<ex> rule_sum_split(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& body = r->body();
  ex c = 1, parts = body;
  if (is_class<mul>(body)) {
    parts = 0;
    for (size_t k = 0; k < body.nops() && parts.is_zero(); ++k)
      if (is_class<add>(body.op(k)) && is_vector_valued(body.op(k))) parts = body.op(k);
    if (parts.is_zero()) return std::nullopt;
    c = body / parts;
  }
  if (!is_class<add>(parts)) return std::nullopt;
  ex out = 0;
  for (size_t k = 0; k < parts.nops(); ++k) out += rebuild(*r, ReduceKind::Sum, c * parts.op(k));
  return out;
}

// sum { c * b } = c * sum { b } for factors c free of the index (numbers, parameters,
// unitvec(k) with k index-free). Always, except that a factor whose evaluation may fail
// (may_fail) stays inside a sum whose range may be empty.
std::optional<ex> rule_sum_factor(const ex& e, const Facts& f, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_class<mul>(r->body())) return std::nullopt;
  ex out = 1, rest = 1;
  for (size_t i = 0; i < r->body().nops(); ++i) {
    const ex& f = r->body().op(i);
    (f.has(r->index_ex()) ? rest : out) *= f;
  }
  if (out.is_equal(1) || rest.is_equal(1)) return std::nullopt;  // index-free: rule_sum_const
  if (may_fail(out, f) && !f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  return out * rebuild(*r, ReduceKind::Sum, rest);
}

// sum (i = lb, ub) { c } = (ub - lb + 1) * c for c free of i.
// Side conditions: lb, ub integers (proved, else assumed when they mention parameters
// only: a non-integer bound has no brute-force value either); c does not fail (may_fail)
// unless the range is provably non-empty. An empty range gives 0:
// where ub - lb + 1 >= 0 cannot be proved, the result is guarded (see nonempty_guard).
std::optional<ex> rule_sum_const(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || r->body().has(r->index_ex())) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  // A block loop p N / P .. (p + 1) N / P - 1 counts N / P: expanded, the outer index cancels.
  if (f.mentions_index(count)) {
    ex x = count.expand();
    if (!f.mentions_index(x)) count = x;
  }
  if (!f.provably_nonneg(r->ub() - r->lb()) && !cannot_fail_or_assume(r->body(), f, a)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return nonempty_guard(count, f) * count * r->body();
}

// sum (i = lb, ub) { p(i) } for p a polynomial in i with i-free coefficients (Faulhaber):
// sum_k c_k (S_k(ub) - S_k(lb - 1)). Side conditions (may_fail too) and guard as for rule_sum_const
// (on an empty range S(ub) - S(lb - 1) is not 0, so the guard matters).
std::optional<ex> rule_sum_poly(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !r->body().has(r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  ex body = r->body().expand();
  if (!body.is_polynomial(i)) return std::nullopt;
  int deg = body.degree(i);
  if (deg < 0 || deg > 40 || body.ldegree(i) < 0) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  if (!f.provably_nonneg(r->ub() - r->lb()) && !cannot_fail_or_assume(body, f, a)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex out = 0;
  for (int k = 0; k <= deg; ++k) {
    ex c = body.coeff(i, k);
    if (c.is_zero()) continue;
    out += c * (faulhaber(k, r->ub()) - faulhaber(k, r->lb() - 1));
  }
  return nonempty_guard(count, f) * out.expand();
}

// max/min (i = lb, ub) { c } = c for c free of i.
// Side condition: the range is non-empty: ub - lb >= 0 with lb an integer (else assumed,
// e.g. "P >= 1" for p = 1..P; an empty range is an evaluation error, not a value).
std::optional<ex> rule_ext_const(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || r->body().has(r->index_ex())) return std::nullopt;
  if (require({{true, r->lb()}, {false, r->ub() - r->lb()}}, f, a)) return r->body();
  // A par's max over a range that may be empty, inside another loop (the condition
  // mentions its index, so it cannot be assumed): (lb <= ub) c, exact either way.
  if (r->empty_is_zero() && !may_fail(r->body(), f) && require({{true, r->lb()}, {true, r->ub()}}, f, a))
    return compare(Cmp::Le, r->lb(), r->ub()) * r->body();
  return std::nullopt;
}

// max (i) { c + g(i) } = c + max (i) { g(i) } for c free of i (also min). Always for a
// user's max; for a par's max (0 when empty) only on a non-empty range, proved or assumed.
std::optional<ex> rule_ext_shift(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_class<add>(r->body())) return std::nullopt;
  ex c = 0, g = 0;
  for (size_t k = 0; k < r->body().nops(); ++k) {
    const ex& t = r->body().op(k);
    (t.has(r->index_ex()) ? g : c) += t;
  }
  if (c.is_zero() || g.is_zero()) return std::nullopt;
  // A par's max is 0 on an empty range, c + 0 is not: that needs a non-empty range.
  if (r->empty_is_zero() && !require({{true, r->lb()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return c + rebuild(*r, r->kind(), g);
}

// max (i) { c * g(i) } = c * max (i) { g(i) } for c free of i and provably >= 0;
// = c * min (i) { g(i) } when c is provably <= 0 (and symmetrically for min). Scalars only.
std::optional<ex> rule_ext_scale(const ex& e, const Facts& f, Assumptions&) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_class<mul>(r->body()) || is_vector_valued(r->body())) return std::nullopt;
  ex c = 1, g = 1;
  for (size_t k = 0; k < r->body().nops(); ++k) {
    const ex& t = r->body().op(k);
    (t.has(r->index_ex()) ? g : c) *= t;
  }
  if (c.is_equal(1) || g.is_equal(1)) return std::nullopt;
  if (f.provably_nonneg(c)) return c * rebuild(*r, r->kind(), g);
  if (f.provably_nonpos(c)) return c * rebuild(*r, flip(r->kind()), g);
  return std::nullopt;
}

namespace {

// The direction in which g moves with i, by its structure: +1 nondecreasing, -1
// nonincreasing, 0 free of i, nullopt unknown. Linear terms by their coefficient's sign;
// floor, ceil, max, min and sums keep a common direction; a factor free of i of known sign
// keeps or flips it; x^k (k > 0 a number, x >= 0) keeps it. ceil((N - i) / P) falls with i.
std::optional<int> structural_direction(const ex& g, const ex& i, const Facts& f, int depth = 0) {
  if (!g.has(i)) return 0;
  if (depth > 8) return std::nullopt;
  auto join = [](std::optional<int> a, std::optional<int> b) -> std::optional<int> {
    if (!a || !b) return std::nullopt;
    if (*a == 0) return b;
    if (*b == 0 || *a == *b) return a;
    return std::nullopt;
  };
  ex x = g.expand();
  if (x.is_polynomial(i) && x.degree(i) == 1) {
    ex c = x.coeff(i, 1);
    if (c.has(i)) return std::nullopt;
    if (f.provably_nonneg(c)) return 1;
    if (f.provably_nonpos(c)) return -1;
    return std::nullopt;
  }
  Fn fn = pamela_function(g);
  if (fn == Fn::Floor || fn == Fn::Ceil) return structural_direction(g.op(0), i, f, depth + 1);
  if (fn == Fn::Div && !g.op(1).has(i) && f.provably_positive(g.op(1)))  // floor(a / b), b > 0
    return structural_direction(g.op(0), i, f, depth + 1);
  if (is_class<extremum>(g) || is_class<add>(g)) {
    std::optional<int> d = 0;
    exvector args = is_class<extremum>(g) ? ex_to<extremum>(g).args() : operands_of(g, true);
    for (const ex& a : args) d = join(d, structural_direction(a, i, f, depth + 1));
    return d;
  }
  if (is_class<mul>(g)) {
    ex free = 1, dep = 1;
    for (size_t k = 0; k < g.nops(); ++k) (g.op(k).has(i) ? dep : free) *= g.op(k);
    if (is_class<mul>(dep)) return std::nullopt;
    auto d = structural_direction(dep, i, f, depth + 1);
    if (!d) return std::nullopt;
    if (f.provably_nonneg(free)) return d;
    if (f.provably_nonpos(free)) return -*d;
    return std::nullopt;
  }
  if (is_class<power>(g) && is_class<numeric>(g.op(1)) && ex_to<numeric>(g.op(1)).is_positive() &&
      !g.op(1).has(i) && f.provably_nonneg(g.op(0)))
    return structural_direction(g.op(0), i, f, depth + 1);
  return std::nullopt;
}

}  // namespace

// max (i = lb, ub) { g(i) } = g(ub) when g(i+1) - g(i) >= 0 is provable for lb <= i < ub
// or g is nondecreasing by its structure (structural_direction: ceil((N - i) / P) falls), =
// g(lb) when g is nonincreasing; min the other way round. Side conditions: non-empty
// range and integer bounds (proved or assumed); a par's max over a maybe-empty range is
// guarded instead, (lb <= ub) g(end), where g(end) cannot fail.
std::optional<ex> rule_ext_monotone(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub() - 1);
  ex d = (r->body().subs(exmap{{i, i + 1}}) - r->body()).expand();
  bool up = fi.provably_nonneg(d);
  bool down = !up && fi.provably_nonpos(d);
  if (!up && !down) {
    Facts fr = f;
    fr.declare_index(r->index(), r->lb(), r->ub());
    if (auto dir = structural_direction(r->body(), i, fr)) {
      up = *dir > 0;
      down = *dir < 0;
    }
  }
  if (!up && !down) return std::nullopt;
  bool at_ub = up == (r->kind() == ReduceKind::Max);
  ex end = r->body().subs(exmap{{i, at_ub ? r->ub() : r->lb()}});
  // A par's max over a range that may be empty is 0 there: (lb <= ub) g(end), exact, rather
  // than an assumption (as ext_const).
  if (r->empty_is_zero() && !f.provably_nonneg(r->ub() - r->lb()) && !may_fail(end, f) &&
      require({{true, r->lb()}, {true, r->ub()}}, f, a))
    return compare(Cmp::Le, r->lb(), r->ub()) * end;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return end;
}

// max(v) for v = sum_k c_k unitvec(k) with numeric positions: max(c_0, ..., c_{n-1}) with 0
// for the positions not present. A vector's elements end at its highest nonzero one (see
// evaluate.cpp), so when the last entries evaluate to 0 they are not elements; the closed
// form still counts them as zeros. Side condition: trailing_zeros_harmless. Else left alone
// (max([-3, 2 * (N mod 2 == 0)]) is -3 for odd N, where max(-3, 0) would be 0).
std::optional<ex> rule_vmax_numeric(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto vt = split_vector(e.op(0));
  if (!vt || !vt->scalar.is_zero() || vt->terms.empty()) return std::nullopt;
  long n = 0;
  for (const auto& [pos, c] : vt->terms) {
    if (!is_class<numeric>(pos) || !ex_to<numeric>(pos).is_nonneg_integer() || ex_to<numeric>(pos) > 4096)
      return std::nullopt;
    n = std::max(n, ex_to<numeric>(pos).to_long() + 1);
  }
  exvector elems(n, ex(0));
  for (const auto& [pos, c] : vt->terms) elems[ex_to<numeric>(pos).to_long()] += c;
  if (!trailing_zeros_harmless(elems, f)) return std::nullopt;
  return make_max(elems);
}

// max(c * unitvec(k)) for one term with a symbolic position k: = c when c >= 0 is provable
// (the other elements are 0 <= c); = max(c, 0) when k >= 1 is provable (position 0 is a
// zero). Otherwise left alone (k = 0 would give c, k > 0 max(c, 0)).
std::optional<ex> rule_vmax_single(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto vt = split_vector(e.op(0));
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  const auto& [k, c] = vt->terms[0];
  if (is_class<numeric>(k)) return std::nullopt;
  if (f.provably_nonneg(c)) return c;
  if (f.provably_nonneg(k - 1)) return make_max({c, 0});
  return std::nullopt;
}

// Identity mapping: max(s * sum (p = lb, ub) { c(p) * unitvec(p + d) }) with s and d free of p
// and c, s scalars (also a sum of such terms over the same range and d: their weights are
// collected, s c = s_1 c_1 + ... + s_m c_m): the positions are distinct, so the result is
// max (p = lb, ub) { s * c(p) } when s * c(p) >= 0 is provable. Otherwise signs matter: a
// vector ends at its highest nonzero element, so entries s * c(p) = 0 at the top are not
// elements while max (p) counts them (max(sum (p = 0, N) { (p - N) * unitvec(p) }) is -1 at
// N = 1, not 0), and the rule needs one of:
//  - lb + d = 0 and one of s * c(lb) >= 0, s * c(ub) != 0, or s * c(p) = g h(p) with g free
//    of p and h(p) != 0 for all p (as written or factored: the entries are 0 all together
//    or none is; e.g. an index-free body of unknown sign), provable: the result is max (p);
//  - lb + d >= 1 provable (position 0 is a zero below the elements): max(max (p), 0);
//  - s * c(lb) >= 0 and lb + d >= 0 provable (max (p) >= 0): max(max (p), 0), the same
//    value. (lb + d >= 0 because a zero weight at a position below 0 is no element: the
//    term of a guard that is false, `if (p > 0) use(r(p - 1), t)` at p = 0.)
// Else left alone (lb + d = M may be 0, where joining 0 is wrong for negative entries).
// Side conditions always: non-empty range, proved (else the vector is 0 and the max
// reduction an error); integer lb, proved or assumed.
std::optional<ex> rule_vmax_identity(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  // v = s_1 * sum_1 + ... + s_m * sum_m, the sums over one range (lb, ub) with one position
  // p + d each (same d): one sum over p of the collected weights (several operations
  // charged to processor p, e.g. an ownership test and the owned work).
  ex v = e.op(0);
  exvector terms = operands_of(v, true);
  if (terms.size() > 1) terms = sorted_by_text(operands_of(v.expand(), true));  // the first names the index
  const reduction* r = nullptr;
  ex body = 0, d;
  for (const ex& term : terms) {
    auto ds = split_factor(term, [](const ex& t) { return as_red(t, ReduceKind::Sum) != nullptr; });
    if (!ds) return std::nullopt;
    const reduction* rt = as_red(ds->first, ReduceKind::Sum);  // held by `terms`
    const ex& s = ds->second;
    if (r && (!(rt->lb() - r->lb()).expand().is_zero() || !(rt->ub() - r->ub()).expand().is_zero()))
      return std::nullopt;
    auto vt = split_vector(rt->body());
    if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
    const ex& pt = rt->index_ex();
    ex dt = (vt->terms[0].first - pt).expand();
    if (dt.has(pt) || s.has(pt)) return std::nullopt;
    if (r && !(dt - d).expand().is_zero()) return std::nullopt;
    ex c = vt->terms[0].second;
    if (r) c = c.subs(exmap{{pt, r->index_ex()}});
    if (!r) {
      r = rt;
      d = dt;
    }
    body += s * c;
  }
  if (!r) return std::nullopt;
  const ex& p = r->index_ex();
  if (d.has(p)) return std::nullopt;
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub());
  // The positions p + d must exist where a weight may be nonzero: d an integer and the
  // lowest position >= 0, or position lb + d at -1 with a zero weight there (a guard that
  // is false: `if (p > 0) use(link(p - 1), t)`). link(p - 1) unguarded at p = 0 has no value.
  {
    ex start = (r->lb() + d).expand();
    ex w0 = body.subs(exmap{{p, r->lb()}});
    bool zero_at_lb = f.provably_nonneg(w0) && f.provably_nonneg(-w0);
    if (!f.provably_nonneg(start) && !(zero_at_lb && f.provably_nonneg(start + 1)) &&
        !require({{false, start}}, f, a))
      return std::nullopt;
    if (!require({{true, d}}, f, a)) return std::nullopt;
  }
  bool need_zero = false;
  if (!fi.provably_nonneg(body)) {
    ex start = (r->lb() + d).expand();
    // The entry at lb counts only where it is an element: at a position below 0 a zero
    // weight (a guard that is false) adds nothing, it is not a 0 among the elements.
    bool first_nonneg = f.provably_nonneg(start) && f.provably_nonneg(body.subs(exmap{{p, r->lb()}}));
    ex last = body.subs(exmap{{p, r->ub()}});
    // Entries 0 all together or none: the factors of the body that depend on p are nonzero.
    auto zero_together = [&](const ex& b) {
      ex h = 1;
      for (const ex& x : operands_of(b, false))
        if (x.has(p)) h *= x;
      return fi.provably_positive(h) || fi.provably_positive(-h);
    };
    if (start.is_zero()) {
      if (!first_nonneg && !zero_together(body) && !zero_together(factor_polynomial(body)) &&
          !f.provably_positive(last) && !f.provably_positive(-last))
        return std::nullopt;
    } else if (f.provably_nonneg(start - 1) || first_nonneg) {
      need_zero = true;
    } else {
      return std::nullopt;
    }
  }
  // On an empty range the vector is 0 and has a max (0), where a user's max reduction
  // would have none: unless the range is provably non-empty, the result is a max that is 0
  // on an empty range (as a par's), exact either way.
  bool nonempty = f.provably_nonneg(r->ub() - r->lb());
  if (!require({{true, r->lb()}}, f, a)) return std::nullopt;
  ex m = make_reduction(ReduceKind::Max, r->index(), r->lb(), r->ub(), body, !nonempty);
  return need_zero ? make_max({m, 0}) : m;
}

// max(a_1, ..., a_n): drop a_j when another argument a_k has a_k - a_j >= 0 provable
// (for min: a_j - a_k >= 0). Of several such a_j, the first in printed-text order, so the
// result does not depend on GiNaC's argument order (printing is only needed then).
std::optional<ex> rule_max_dominated(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  exvector args = m.args();
  auto dominated = [&](size_t j) {
    for (size_t k = 0; k < args.size(); ++k)
      if (k != j && f.provably_nonneg(m.is_max() ? args[k] - args[j] : args[j] - args[k])) return true;
    return false;
  };
  std::vector<size_t> candidates;
  for (size_t j = 0; j < args.size(); ++j)
    if (dominated(j)) candidates.push_back(j);
  if (candidates.empty()) return std::nullopt;
  size_t drop = candidates[0];
  if (candidates.size() > 1) {
    std::string best = to_pamela(args[drop]);
    for (size_t c = 1; c < candidates.size(); ++c) {
      std::string t = to_pamela(args[candidates[c]]);
      if (t < best) best = std::move(t), drop = candidates[c];
    }
  }
  args.erase(args.begin() + static_cast<long>(drop));
  return m.is_max() ? make_max(args) : make_min(args);
}

namespace {

// An upper bound of the largest element of v, a sum of nonnegative vector terms w * X with w
// a scalar >= 0 and X one unitvec(k) (bound w) or sum (y = lb, ub) { c * unitvec(a y + b) }
// with c >= 0 free of y and a > 0 free of y (distinct y hit distinct entries: bound w c).
// The max element of a sum is at most the sum of the terms' max elements. One term may have
// a weight c(y) that depends on its index (of any sign): its bound is w c(y), to be proved
// for every y of the range, and 0 (the entries it misses): `varying` and `red` say so.
// nullopt for any other term.
struct PeakBound {
  ex fixed = 0;
  ex varying = 0;
  ex red = 0;  // the reduction of `varying` (0: none)
};
std::optional<PeakBound> vector_peak_bound(const ex& v, const Facts& f) {
  PeakBound out;
  exvector terms = operands_of(v.expand(), true);
  for (const ex& t : terms) {
    auto uf = split_factor(t, [](const ex& x) { return pamela_function(x) == Fn::Unitvec; });
    if (uf) {
      if (!f.provably_nonneg(uf->second)) return std::nullopt;
      out.fixed += uf->second;
      continue;
    }
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs || !f.provably_nonneg(rs->second)) return std::nullopt;
    const reduction& r = ex_to<reduction>(rs->first);
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
    const auto& [pos, c] = vt->terms[0];
    const ex& y = r.index_ex();
    ex px = pos.expand();
    if (!px.is_polynomial(y) || px.degree(y) != 1) return std::nullopt;
    ex a = px.coeff(y, 1);
    if (a.has(y) || !f.provably_positive(a)) return std::nullopt;
    if (c.has(y)) {
      if (!out.red.is_zero() || may_fail(c, f)) return std::nullopt;
      out.red = rs->first;
      out.varying = rs->second * c;
      continue;
    }
    if (!f.provably_nonneg(c)) return std::nullopt;
    out.fixed += rs->second * c;
  }
  return out;
}

}  // namespace

// max(a_1, ..., vmax(V), ...) without vmax(V) when another argument a_k is provably at least
// an upper bound of V's elements (vector_peak_bound): a processor's own work against the
// links it shares with its neighbours, each hit at most once per map; or against its own
// processor's growing load (a_k = c(P - 1) >= c(p) for every p). Sound whatever V's
// entries are in between.
std::optional<ex> rule_max_vector_bound(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<extremum>(e) || !ex_to<extremum>(e).is_max()) return std::nullopt;
  exvector args = ex_to<extremum>(e).args();
  for (size_t j = 0; j < args.size(); ++j) {
    if (pamela_function(args[j]) != Fn::VectorMax) continue;
    auto u = vector_peak_bound(args[j].op(0), f);
    if (!u) continue;
    for (size_t k = 0; k < args.size(); ++k) {
      if (k == j || is_vector_valued(args[k]) || !f.provably_nonneg(args[k] - u->fixed)) continue;
      if (!u->red.is_zero()) {
        const reduction& r = ex_to<reduction>(u->red);
        Facts in = f;
        in.declare_index(r.index(), r.lb(), r.ub());
        if (!in.provably_nonneg(args[k] - u->fixed - u->varying)) continue;
      }
      args.erase(args.begin() + static_cast<long>(j));
      return make_max(args);
    }
  }
  return std::nullopt;
}

// max(x^m * a_1, ..., x^m * b_n) = x^m * max(a_1, ..., a_n) for a common factor x^m (m the
// least integer exponent of x over the arguments) with x^m provably >= 0; e.g.
// max(10.1 N, 0.1 P N) = N max(10.1, 0.1 P) when N >= 0. Same for min.
std::optional<ex> rule_max_factor(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  // Each argument's non-numeric factors as (base, exponent).
  auto factors_of = [](const ex& arg) {
    std::vector<std::pair<ex, long>> out;
    for (const ex& t : operands_of(arg, false)) {
      if (is_class<numeric>(t)) continue;
      if (is_class<power>(t) && is_class<numeric>(t.op(1)) && ex_to<numeric>(t.op(1)).is_pos_integer())
        out.emplace_back(t.op(0), ex_to<numeric>(t.op(1)).to_long());
      else
        out.emplace_back(t, 1);
    }
    return out;
  };
  std::vector<std::vector<std::pair<ex, long>>> per_arg;
  for (const ex& arg : m.args()) per_arg.push_back(factors_of(arg));
  // The bases common to all arguments, each with its least exponent.
  std::vector<std::pair<ex, long>> common;
  for (const auto& [base, n] : per_arg[0]) {
    long least = n;
    bool in_all = true;
    for (size_t j = 1; j < per_arg.size() && in_all; ++j) {
      auto it = std::find_if(per_arg[j].begin(), per_arg[j].end(), [&b = base](const auto& p) { return p.first.is_equal(b); });
      if (it == per_arg[j].end()) in_all = false;
      else least = std::min(least, it->second);
    }
    if (in_all) common.emplace_back(base, least);
  }
  if (common.size() > 1)  // the first in text order is taken: independent of GiNaC's order
    std::stable_sort(common.begin(), common.end(),
                     [](const auto& a, const auto& b) { return to_pamela(a.first) < to_pamela(b.first); });
  for (const auto& [base, least] : common) {
    ex x = GiNaC::pow(base, least);
    if (!f.provably_nonneg(x)) continue;
    exvector rest;
    for (const ex& arg : m.args()) rest.push_back(arg / x);
    return x * (m.is_max() ? make_max(rest) : make_min(rest));
  }
  return std::nullopt;
}

// max(c_1 y_1 r_1, ..., c_n y_n r_n) = x * max(c_1 r_1, ..., c_n r_n) where x is one of the
// arguments, a sum (add) provably >= 0, and every argument is x itself or has a factor y_j
// that is a numeric multiple of it, y_j = c_j x (c_j a number; e.g. the same cost written
// 0.25 (12 t_hit + 4 t_add) and 3 t_hit + t_add); same for min. Side condition: x >= 0
// (proved); scalar arguments. The value is unchanged: x max(q_j) = max(x q_j) for x >= 0.
std::optional<ex> rule_max_ratio(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<extremum>(e) || is_vector_valued(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  // c with y = c x, when y - c x expands to 0. c comes from the coefficients of the first
  // symbol whose coefficient in x is a nonzero number (a symbol whose coefficient is not,
  // like t_cmp in ceil(log2(P)) t_cmp + t_hit, is passed over: which symbol comes first
  // follows GiNaC's term order, and the answer must not); once c is fixed the test decides.
  auto multiple = [](const ex& y, const ex& x) -> std::optional<ex> {
    if (!is_class<add>(y)) return std::nullopt;
    ex xe = x.expand(), ye = y.expand();
    for (auto it = xe.preorder_begin(); it != xe.preorder_end(); ++it) {
      if (!is_class<symbol>(*it)) continue;
      ex cx = xe.coeff(*it, 1), cy = ye.coeff(*it, 1);
      if (!is_class<numeric>(cx) || cx.is_zero()) continue;
      if (!is_class<numeric>(cy)) return std::nullopt;
      ex c = cy / cx;
      ex d = (ye - c * xe).expand();
      if (!(d.is_zero() || (is_class<numeric>(d) && ex_to<numeric>(d).is_zero()))) return std::nullopt;
      return c;
    }
    return std::nullopt;
  };
  exvector sums;  // the candidates x; visited in text order (printing only these)
  for (const ex& x : m.args())
    if (is_class<add>(x)) sums.push_back(x);
  for (const ex& x : sums.size() > 1 ? sorted_by_text(sums) : sums) {
    if (!f.provably_nonneg(x)) continue;
    exvector rest;
    bool ok = true, other = false;
    for (const ex& arg : m.args()) {
      if (arg.is_equal(x)) {
        rest.push_back(1);
        continue;
      }
      std::optional<ex> c;
      ex q = 1;
      for (const ex& t : operands_of(arg, false)) {
        if (!c) {
          if (auto cc = multiple(t, x)) {
            c = cc;
            continue;
          }
        }
        q *= t;
      }
      if (!c) {
        ok = false;
        break;
      }
      rest.push_back(*c * q);
      other = true;
    }
    if (!ok || !other) continue;
    return x * (m.is_max() ? make_max(rest) : make_min(rest));
  }
  return std::nullopt;
}

// max(t + a_1, ..., t + a_n) = t + max(a_1, ..., a_n) for a term t common to all arguments.
// Always.
std::optional<ex> rule_max_common_term(const ex& e, const Facts&, Assumptions&) {
  if (!is_class<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  for (const ex& arg : m.args())
    if (!is_class<add>(arg)) return std::nullopt;
  exvector commons;  // terms of every argument; the first in text order is taken
  for (const ex& t : operands_of(m.args()[0], true)) {
    bool common = true;
    for (size_t j = 1; j < m.args().size() && common; ++j) {
      common = false;
      for (const ex& u : operands_of(m.args()[j], true))
        if (u.is_equal(t)) common = true;
    }
    if (common) commons.push_back(t);
  }
  if (commons.size() > 1) commons = sorted_by_text(commons);
  for (const ex& t : commons) {
    exvector rest;
    for (const ex& arg : m.args()) rest.push_back(arg - t);
    return t + (m.is_max() ? make_max(rest) : make_min(rest));
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Closed forms for data-parallel models: unrolling, index predicates, convex bodies,
// cyclic/block/injective resource maps, disjoint vector parts, integer floor/ceil.

namespace {

constexpr long kUnrollLimit = 64;

// e = a * i + b with a a nonzero real number and b free of i.
std::optional<std::pair<numeric, ex>> linear_in(const ex& e, const ex& i) {
  ex x = e.expand();
  if (!x.has(i) || !x.is_polynomial(i) || x.degree(i) != 1 || x.ldegree(i) < 0) return std::nullopt;
  ex a = x.coeff(i, 1), b = x.coeff(i, 0);
  if (!is_class<numeric>(a) || !ex_to<numeric>(a).is_real() || a.is_zero() || b.has(i)) return std::nullopt;
  return std::make_pair(ex_to<numeric>(a), b);
}

bool all_positions_numeric(const ex& e) {
  if (pamela_function(e) == Fn::Unitvec) return is_class<numeric>(e.op(0));
  for (size_t k = 0; k < e.nops(); ++k)
    if (!all_positions_numeric(e.op(k))) return false;
  return true;
}

// A vector w * sum (i = lb, ub) { c * unitvec(pos) } (w, c scalars; w free of i), read from
// the argument of max(v): every term of v must be (scalar) * the same sum reduction.
struct MapSum {
  ex w = 0;  // the total scalar factor outside the reduction
  ex red;    // the reduction
  ex pos, c;
};
std::optional<MapSum> single_map(const ex& v) {
  MapSum m;
  bool have = false;
  for (const ex& t : operands_of(v.expand(), true)) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) return std::nullopt;
    if (have && !rs->first.is_equal(m.red)) return std::nullopt;
    m.red = rs->first;
    m.w += rs->second;
    have = true;
  }
  if (!have) return std::nullopt;
  const reduction& r = ex_to<reduction>(m.red);
  auto vt = split_vector(r.body());
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  m.pos = vt->terms[0].first;
  m.c = vt->terms[0].second;
  if (m.w.has(r.index_ex())) return std::nullopt;
  return m;
}

// pos = F(s i + e0, k) + d for F = mod or div, with e0, k, d free of i and s = 1 (or -1
// when allow_neg). Returns (e0, k, d, s).
struct ModDivPos {
  ex e0, k, d;
  int s = 1;
};
std::optional<ModDivPos> mod_div_position(const ex& pos, const ex& i, Fn which, bool allow_neg = false) {
  ex fn, d = 0;
  bool found = false;
  for (const ex& t : operands_of(pos.expand(), true)) {
    if (pamela_function(t) == which && t.op(0).has(i) && !found) {
      fn = t;
      found = true;
    } else {
      d += t;
    }
  }
  if (!found || d.has(i) || fn.op(1).has(i)) return std::nullopt;
  auto lin = linear_in(fn.op(0), i);
  if (!lin || (lin->first != 1 && !(allow_neg && lin->first == -1))) return std::nullopt;
  return ModDivPos{lin->second, fn.op(1), d, lin->first == 1 ? 1 : -1};
}

// The busiest-position factor is applied to w * c; it must be index-free, >= 0, and (unless
// the range is provably non-empty) never fail, as brute force does not evaluate it then.
// A weight that divides by parameters (w / (X Y) over X Y items) may fail only where the
// range is empty: then X >= 1 and Y >= 1 are assumed, as for a sum (cannot_fail_or_assume).
std::optional<ex> map_weight(const MapSum& m, const Facts& f, Assumptions& a) {
  const reduction& r = ex_to<reduction>(m.red);
  ex wc = m.w * m.c;
  if (m.c.has(r.index_ex())) return std::nullopt;
  Facts g = f;  // with the denominators >= 1 where they are assumed
  std::vector<Cond> conds;
  if (may_fail(wc, f) && !f.provably_nonneg(r.ub() - r.lb())) {
    std::vector<symbol> dens;
    denominators(wc, dens);
    for (const symbol& d : dens) {
      if (f.mentions_index(d) || f.provably_positive(d)) continue;
      g.add_lower(d, 1, false);
      conds.push_back({false, d - 1});
    }
    if (may_fail(wc, g)) return std::nullopt;
  }
  if (!g.provably_nonneg(wc) || !require(conds, f, a)) return std::nullopt;
  return wc;
}

}  // namespace

// sum/max/min (i = lb, ub) { g(i) } with integer numeric bounds and at most 64 iterations:
// unrolled into g(lb) + ... + g(ub) (max(...), min(...)). An empty sum is 0; an empty
// max/min is left alone (it has no value). A vector body is unrolled only when its
// positions become numbers (otherwise the vector-max rules see the reduction). Always.
// Would substituting m into e make GiNaC evaluate 0 ^ 0? GiNaC refuses it by throwing from
// the middle of building the power (which also leaks it): sum (i = 0, 0) { 0 ^ i } is left
// to the evaluators, which define 0 ^ 0 = 1. Children first, so no inner power throws.
static bool makes_zero_pow_zero(const ex& e, const exmap& m) {
  for (auto it = e.postorder_begin(); it != e.postorder_end(); ++it)
    if (is_class<power>(*it) && it->op(0).subs(m).is_zero() && it->op(1).subs(m).is_zero()) return true;
  return false;
}

std::optional<ex> rule_unroll(const ex& e, const Facts&, Assumptions&) {
  if (!is_class<reduction>(e)) return std::nullopt;
  const auto& r = ex_to<reduction>(e);
  if (!is_class<numeric>(r.lb()) || !is_class<numeric>(r.ub())) return std::nullopt;
  const numeric &lb = ex_to<numeric>(r.lb()), &ub = ex_to<numeric>(r.ub());
  if (!lb.is_integer() || !ub.is_integer()) return std::nullopt;
  numeric n = ub - lb + 1;
  if (n > kUnrollLimit) return std::nullopt;
  if (!n.is_positive())
    return r.kind() == ReduceKind::Sum || r.empty_is_zero() ? std::optional<ex>(ex(0)) : std::nullopt;
  if (is_vector_valued(r.body()) && !all_positions_numeric(r.body().subs(exmap{{r.index_ex(), lb}})))
    return std::nullopt;
  exvector terms;
  for (numeric k = lb; k <= ub; k += 1) {
    exmap at{{r.index_ex(), k}};
    if (makes_zero_pow_zero(r.body(), at)) return std::nullopt;
    terms.push_back(r.body().subs(at));
  }
  if (r.kind() == ReduceKind::Sum) return ex(add(terms));
  return r.kind() == ReduceKind::Max ? make_max(terms) : make_min(terms);
}

namespace {

// A residue test on the index: (i + e) mod k == r (either side), with k > 0 an integer and e
// an integer (proved). `none`: r is a number outside 0..k-1, so no i matches; else r is
// proved an integer in 0..k-1. nullopt when pred is not such a test or a proof fails.
struct Residue {
  ex e, k, r;
  bool none = false;
};
std::optional<Residue> residue_test(const ex& pred, const ex& i, const Facts& f) {
  if (pamela_function(pred) != Fn::Eq && pamela_function(pred) != Fn::Ne) return std::nullopt;
  ex m = pred.op(0), rr = pred.op(1);
  if (pamela_function(m) != Fn::Mod) std::swap(m, rr);
  if (pamela_function(m) != Fn::Mod || rr.has(i)) return std::nullopt;
  auto lin = linear_in(m.op(0), i);
  const ex& k = m.op(1);
  if (!lin || lin->first != 1 || k.has(i)) return std::nullopt;
  Residue out{lin->second, k, rr};
  if (!f.provably_positive(k) || !f.provably_integer(k) || !f.provably_integer(out.e)) return std::nullopt;
  if (is_class<numeric>(rr) && is_class<numeric>(k) &&
      (!ex_to<numeric>(rr).is_integer() || ex_to<numeric>(rr).is_negative() || ex_to<numeric>(rr) >= ex_to<numeric>(k))) {
    out.none = true;
    return out;
  }
  if (!f.provably_integer(rr) || !f.provably_nonneg(rr) || !f.provably_nonneg(k - 1 - rr)) return std::nullopt;
  return out;
}

}  // namespace

// sum (i = lb, ub) { (i + e) mod k == r } = floor((ub + e - r) / k) - floor((lb - 1 + e - r) / k),
// the number of j = i + e - r divisible by k (!= : the range's count minus that).
// Side conditions (residue_test): k > 0 and an integer, e an integer, r an integer with
// 0 <= r <= k - 1 (all proved: with a real k brute force has values and the count differs); r a number
// outside 0..k-1 gives 0 matches. lb, ub integers (proved or assumed); guarded where the
// range may be empty.
std::optional<ex> rule_sum_mod_count(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  auto t = residue_test(r->body(), r->index_ex(), f);
  if (!t) return std::nullopt;
  ex matches = t->none ? ex(0) : floor_of((r->ub() + t->e - t->r) / t->k) - floor_of((r->lb() - 1 + t->e - t->r) / t->k);
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  return nonempty_guard(count, f) * (pamela_function(r->body()) == Fn::Eq ? matches : count - matches);
}

// sum (i = lb, ub) { ((i + e) mod k == r) * g(i) } = sum (i = L, U) { g(k i + r - e) } with
// L = ceil((lb - r + e) / k), U = floor((ub - r + e) / k): the matching i are exactly
// k j + r - e for integer j in [L, U] (sum over the even i: sum (i = 1, floor(N / 2)) { 2 i }).
// Side conditions as sum_mod_count (residue_test; a number r outside 0..k-1 matches no i:
// 0); lb, ub integers (proved or assumed); g does not fail (may_fail) at the i skipped.
// Both sums are 0 on an empty range, so no guard is needed.
std::optional<ex> rule_sum_mod_select(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_class<mul>(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex pred, g = 1;
  for (size_t t = 0; t < r->body().nops(); ++t) {
    const ex& x = r->body().op(t);
    if (pred.is_zero() && pamela_function(x) == Fn::Eq && x.has(i)) pred = x;
    else g *= x;
  }
  if (pred.is_zero()) return std::nullopt;
  auto t = residue_test(pred, i, f);
  if (!t || may_fail(g, f)) return std::nullopt;
  if (t->none) return ex(0);
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex lo = ceil_of((r->lb() - t->r + t->e) / t->k), hi = floor_of((r->ub() - t->r + t->e) / t->k);
  return rebuild_reduction(*r, ReduceKind::Sum, lo, hi, g.subs(exmap{{i, t->k * i + t->r - t->e}}));
}

// sum (i = lb, ub) { x < y } (also <=; > and >= are stored swapped) where y - x = a i + b
// is linear in i (a a nonzero number): the matches form a ray i >= L or i <= U, so the
// count is max(0, ub - max(lb, L) + 1), resp. max(0, min(ub, U) - lb + 1), with
// a > 0: L = ceil(-b / a) (<=), floor(-b / a) + 1 (<); a < 0: U = floor(b / -a) (<=),
// ceil(b / -a) - 1 (<). Exact for an empty range too. x == y / x != y: with a = +-1 and
// s = -b / a an integer (proved), the one match is counted by (lb <= s) (s <= ub).
// Side conditions: lb, ub integers (proved or assumed); b does not fail (may_fail) unless
// the range is provably non-empty.
namespace {

// The number of i in lb..ub where x < y (also <=; > and >= are stored swapped), x == y or
// x != y holds, for y - x = a i + b linear in i (a a nonzero number). Le/Lt: the matches form
// a ray i >= L or i <= U, so the count is max(0, ub - max(lb, L) + 1), resp.
// max(0, min(ub, U) - lb + 1), with a > 0: L = ceil(-b / a) (<=), floor(-b / a) + 1 (<);
// a < 0: U = floor(b / -a) (<=), ceil(b / -a) - 1 (<); exact for an empty range too
// (`any_range`). Eq/Ne: with a = +-1 and s = -b / a an integer (proved), the one match is
// (lb <= s) (s <= ub); right where lb <= ub + 1. Needs lb, ub integers (the caller's require).
struct MatchCount {
  ex count;
  bool any_range;  // exact on an empty range too, not only where lb <= ub + 1
};
std::optional<MatchCount> linear_match_count(const ex& pred, const reduction& r, const Facts& f) {
  Fn fn = pamela_function(pred);
  if (!is_comparison(pred)) return std::nullopt;
  const ex& i = r.index_ex();
  auto lin = linear_in(pred.op(1) - pred.op(0), i);
  if (!lin) return std::nullopt;
  const numeric& ca = lin->first;
  const ex& b = lin->second;
  if (fn == Fn::Eq || fn == Fn::Ne) {
    if (ca != 1 && ca != -1) return std::nullopt;
    ex s = (-b / ca).expand();
    if (!f.provably_integer(s)) return std::nullopt;
    ex one = compare(Cmp::Le, r.lb(), s) * compare(Cmp::Le, s, r.ub());
    return MatchCount{fn == Fn::Eq ? one : r.ub() - r.lb() + 1 - one, fn == Fn::Eq};
  }
  bool strict = fn == Fn::Lt;
  if (ca.is_positive()) {
    ex t = (-b / ca).expand();
    ex L = strict ? floor_of(t) + 1 : ceil_of(t);
    return MatchCount{make_max({ex(0), r.ub() - make_max({r.lb(), L}) + 1}), true};
  }
  ex t = (b / -ca).expand();
  ex U = strict ? ceil_of(t) - 1 : floor_of(t);
  return MatchCount{make_max({ex(0), make_min({r.ub(), U}) - r.lb() + 1}), true};
}

// The number of i in lb..ub matching a residue test (residue_test), right where
// lb <= ub + 1.
std::optional<ex> residue_match_count(const ex& pred, const reduction& r, const Facts& f) {
  auto t = residue_test(pred, r.index_ex(), f);
  if (!t) return std::nullopt;
  ex eq = t->none ? ex(0) : floor_of((r.ub() + t->e - t->r) / t->k) - floor_of((r.lb() - 1 + t->e - t->r) / t->k);
  return pamela_function(pred) == Fn::Eq ? eq : r.ub() - r.lb() + 1 - eq;
}

}  // namespace

// sum (i = lb, ub) { x < y } (also <=, ==, !=): linear_match_count. Side conditions: lb, ub
// integers (proved or assumed); b does not fail (may_fail) unless the range is provably
// non-empty; guarded for an empty range where the count is not exact there.
std::optional<ex> rule_sum_cmp_count(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& body = r->body();
  if (!is_comparison(body)) return std::nullopt;
  if (may_fail(body.op(1) - body.op(0), f) && !f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  auto m = linear_match_count(body, *r, f);
  if (!m || !require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return m->any_range ? m->count : nonempty_guard(r->ub() - r->lb() + 1, f) * m->count;
}

// sum (i = lb, ub) { (x < y) * g(i) } (also <=, ==) for y - x = a i + b linear in i: the
// matching i are a ray, so the sum runs over the part of the range on the ray: a > 0:
// sum (i = max(lb, L), ub) { g(i) }; a < 0: sum (i = lb, min(ub, U)) { g(i) }, with L, U as
// in linear_match_count (a boundary process, if (p > 0) use(link(p - 1), t)); ==, a = +-1
// and s = -b / a an integer (proved): g(s) (lb <= s) (s <= ub); != the whole sum minus that
// (all but the sender, if (q != p)), where g(s) must not fail. Both sides are 0 on an empty
// range. Side conditions: lb, ub integers (proved or assumed); g does not fail (may_fail)
// at the i skipped; b does not fail unless the range is provably non-empty.
std::optional<ex> rule_sum_cmp_select(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_class<mul>(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex pred, g = 1;
  for (size_t t = 0; t < r->body().nops(); ++t) {
    const ex& x = r->body().op(t);
    if (pred.is_zero() && is_comparison(x) && x.has(i)) pred = x;
    else g *= x;
  }
  if (pred.is_zero() || !g.has(i)) return std::nullopt;
  auto lin = linear_in(pred.op(1) - pred.op(0), i);
  if (!lin) return std::nullopt;
  Facts fi = f;  // the skipped i lie in lb..ub
  fi.declare_index(r->index(), r->lb(), r->ub());
  if (may_fail(g, fi)) return std::nullopt;
  if (may_fail(lin->second, f) && !f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  const numeric& ca = lin->first;
  const ex& b = lin->second;
  Fn fn = pamela_function(pred);
  if (fn == Fn::Eq || fn == Fn::Ne) {
    if (ca != 1 && ca != -1) return std::nullopt;
    ex s0 = (-b / ca).expand();
    ex at = g.subs(exmap{{i, s0}});
    if (!f.provably_integer(s0) || may_fail(at, f) || !require({{true, r->lb()}, {true, r->ub()}}, f, a))
      return std::nullopt;
    ex one = at * compare(Cmp::Le, r->lb(), s0) * compare(Cmp::Le, s0, r->ub());
    return fn == Fn::Eq ? one : rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(), g) - one;
  }
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  bool strict = fn == Fn::Lt;
  if (ca.is_positive()) {
    ex t = (-b / ca).expand();
    ex L = strict ? floor_of(t) + 1 : ceil_of(t);
    return rebuild_reduction(*r, ReduceKind::Sum, make_max({r->lb(), L}), r->ub(), g);
  }
  ex t = (b / -ca).expand();
  ex U = strict ? ceil_of(t) - 1 : floor_of(t);
  return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), make_min({r->ub(), U}), g);
}

// max (i = lb, ub) { g(i) } = max(g(lb), g(ub)) when g is convex on the integers:
// g(i+2) - 2 g(i+1) + g(i) >= 0 provable for lb <= i <= ub - 2 (e.g. a polynomial of degree
// 2 with a leading coefficient of known sign); min of a concave g likewise. Side
// conditions: non-empty range and integer bounds (proved or assumed, as for ext_const).
std::optional<ex> rule_ext_convex(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  const ex& g = r->body();
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub() - 2);
  ex d2 = (g.subs(exmap{{i, i + 2}}) - 2 * g.subs(exmap{{i, i + 1}}) + g).expand();
  bool ok = r->kind() == ReduceKind::Max ? fi.provably_nonneg(d2) : fi.provably_nonpos(d2);
  if (!ok) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  exvector ends{g.subs(exmap{{i, r->lb()}}), g.subs(exmap{{i, r->ub()}})};
  return r->kind() == ReduceKind::Max ? make_max(ends) : make_min(ends);
}

// Several cyclic maps of one loop range with consecutive offsets and one weight: v = w *
// sum_t sum (i = lb, ub) { unitvec((i + e_t) mod k + d) }, e_t = e + t for t = 0..m-1 in any
// order, m >= 2 (a ring neighbour's uses of cpu(i mod P) and cpu((i + 1) mod P)). Each map
// gives every residue q = floor(n / k) items plus one more to the n mod k residues of a
// cyclic block E; position r receives m q + #{t : r - e_t in E}, and a window of m
// consecutive residues meets the block in at most min(n mod k, m) places (attained), so the
// max is w (m q + min(n mod k, m)). Two maps may weigh differently (w0, w1): (w0 + w1) q +
// (n mod k >= 1) max(w0, w1) + (n mod k >= 2) min(w0, w1). Side conditions: k a positive
// integer and the offsets integers whose differences are the numbers 0..m-1 (proved); m <= k
// (proved or assumed: a window longer than the cycle wraps onto itself); w >= 0 and free of
// i (proved); lb, ub integers (proved or assumed); an empty range gives 0 (guarded).
std::optional<ex> rule_vmax_cyclic_shifts(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  exvector terms = operands_of(e.op(0).expand(), true);
  if (terms.size() < 2 || terms.size() > 16) return std::nullopt;
  ex lb, ub, k, d, w;
  std::vector<ex> offsets, weights;
  for (const ex& t : terms) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) return std::nullopt;
    const reduction& r = ex_to<reduction>(rs->first);
    const ex& i = r.index_ex();
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
    const auto& [pos, c] = vt->terms[0];
    if (c.has(i) || rs->second.has(i)) return std::nullopt;
    auto p = mod_div_position(pos, i, Fn::Mod);
    if (!p) return std::nullopt;
    ex wt = rs->second * c;
    if (offsets.empty()) {
      lb = r.lb(), ub = r.ub(), k = p->k, d = p->d, w = wt;
    } else if (!(r.lb() - lb).expand().is_zero() || !(r.ub() - ub).expand().is_zero() || !(p->k - k).expand().is_zero() ||
               !(p->d - d).expand().is_zero()) {
      return std::nullopt;
    }
    offsets.push_back(p->e0);
    weights.push_back(wt);
  }
  // The offsets, less the first, must be the numbers 0..m-1 shifted by one common number.
  // An offset is only known modulo k: (i + P - 1) mod P is (i - 1) mod P.
  std::vector<std::pair<long, ex>> shifts;  // (offset less the first, weight)
  for (std::size_t t = 0; t < offsets.size(); ++t) {
    ex diff = (offsets[t] - offsets[0]).expand();
    for (const ex& alt : {(diff - k).expand(), (diff + k).expand()})
      if (!is_class<numeric>(diff) && is_class<numeric>(alt)) diff = alt;
    if (!is_class<numeric>(diff) || !ex_to<numeric>(diff).is_integer()) return std::nullopt;
    shifts.emplace_back(ex_to<numeric>(diff).to_long(), weights[t]);
  }
  std::sort(shifts.begin(), shifts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (std::size_t t = 1; t < shifts.size(); ++t)
    if (shifts[t].first != shifts[t - 1].first + 1) return std::nullopt;
  const long m = static_cast<long>(shifts.size());
  bool equal = true;
  for (const auto& [sh, wt] : shifts) {
    equal = equal && (wt - w).expand().is_zero();
    if (!f.provably_nonneg(wt) || may_fail(wt, f)) return std::nullopt;
  }
  // Different weights only for two maps: with more, the residues a position meets in the
  // block need not be consecutive shifts, and the heaviest window is no bound.
  if (!equal && m != 2) return std::nullopt;
  if (!f.provably_positive(k) || !f.provably_integer(k) || !f.provably_integer(offsets[0])) return std::nullopt;
  if (!require({{true, lb}, {true, ub}, {false, k - m}}, f, a)) return std::nullopt;
  ex n = ub - lb + 1;
  ex q = floor_of(n / k);
  ex e_rest = mod_of(n, k);
  if (equal) return nonempty_guard(n, f) * w * (m * q + make_min({e_rest, ex(m)}));
  // Two maps, weights w0, w1: a position gets both extra items when the block holds two
  // consecutive residues (n mod k >= 2), else the heavier one when it holds one.
  const ex& w0 = shifts[0].second;
  const ex& w1 = shifts[1].second;
  return nonempty_guard(n, f) * ((w0 + w1) * q + compare(Cmp::Le, 1, e_rest) * make_max({w0, w1}) +
                                 compare(Cmp::Le, 2, e_rest) * make_min({w0, w1}));
}

// Cyclic map: max(w * sum (i = lb, ub) { c * unitvec((i + e) mod k + d) }) with w c free of i
// and >= 0: the busiest position gets ceil(n / k) of the n = ub - lb + 1 items (n
// consecutive integers spread over k residues), so the result is ceil(n / k) w c.
// Side conditions: k > 0 (proved), e an integer (proved), lb, ub integers (proved or
// assumed); w c >= 0 (proved). When k is not provably an integer the result uses ceil(k):
// with a real k brute force has a value only when all i + e lie in one block of length k
// (then n <= ceil(k) distinct positions, ceil(n / ceil(k)) = 1), and ceil(k) = k otherwise;
// k itself is kept when 1 <= lb + e < 2 k is proved (e.g. i = 1..N with k >= 1).
// Guarded where the range may be empty (then the vector is 0 and so is its max).
// gcd(a, k) for a positive integer a and an integer k >= 1, as a formula in k: the sum of
// phi(d) over the divisors d of a that divide k (gcd(a, k) = sum of phi(d), d | gcd(a, k)).
// A number when k is one: gcd(2, P) = 1 + (P mod 2 == 0).
ex gcd_with(long a, const ex& k) {
  if (is_class<numeric>(k) && ex_to<numeric>(k).is_integer())
    return GiNaC::gcd(numeric(a), ex_to<numeric>(k));
  ex g = 0;
  for (long d = 1; d <= a; ++d) {
    if (a % d) continue;
    long phi = 0;
    for (long x = 1; x <= d; ++x) phi += std::gcd(x, d) == 1;
    g += d == 1 ? ex(phi) : phi * compare(Cmp::Eq, mod_of(k, d), 0);
  }
  return g;
}

// Strided cyclic map: max(w * sum (i = lb, ub) { c * unitvec((a i + e) mod k + d) }) with a
// a nonzero integer constant (|a| <= 64), k an integer >= 1 (the model's fact for a mod),
// w c free of i and >= 0. Over n consecutive i the positions repeat with period k / g,
// g = gcd(a, k), and within a period hit k / g distinct positions once each; so the busiest
// position holds ceil(n / (k / g)) = ceil(n g / k) items. The shift e and the offset d move
// positions, not counts: they must make positions that exist (e an integer, d an integer
// >= 0: proved, or assumed and checked, as a fractional or negative position has no value).
std::optional<ex> vmax_strided(const MapSum& m, const Facts& f, Assumptions& a) {
  const reduction& r = ex_to<reduction>(m.red);
  const ex& i = r.index_ex();
  ex fn, d = 0;
  for (const ex& t : operands_of(m.pos.expand(), true)) {
    if (pamela_function(t) == Fn::Mod && t.op(0).has(i) && fn.is_zero()) fn = t;
    else d += t;
  }
  if (fn.is_zero() || d.has(i) || fn.op(1).has(i)) return std::nullopt;
  auto lin = linear_in(fn.op(0), i);
  if (!lin || !lin->first.is_integer() || abs(lin->first) > 64 || abs(lin->first) == 1) return std::nullopt;
  const ex& k = fn.op(1);
  if (!f.provably_positive(k) || !f.provably_integer(k)) return std::nullopt;
  auto wc = map_weight(m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}, {true, lin->second}, {true, d}, {false, d}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  ex g = gcd_with(abs(lin->first).to_long(), k);
  return nonempty_guard(n, f) * ceil_of(n * g / k) * *wc;
}

std::optional<ex> rule_vmax_cyclic(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  if (auto strided = vmax_strided(*m, f, a)) return strided;
  auto p = mod_div_position(m->pos, r.index_ex(), Fn::Mod);
  if (!p || !f.provably_positive(p->k)) return std::nullopt;
  // The shift and the offset must give positions that exist (integers, offset >= 0).
  if (!f.provably_integer(p->e0) && !(f.provably_integer(p->k) && require({{true, p->e0}}, f, a))) return std::nullopt;
  if (!require({{true, p->d}, {false, p->d}}, f, a)) return std::nullopt;
  auto wc = map_weight(*m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  // A real k is as good as an integer when 1 <= lb + e < 2 k: the one-block case then has
  // n <= ub + e < k items, and a block q >= 1 with q k an integer would need 2 k <= lb + e.
  ex start = r.lb() + p->e0;
  bool k_integer = f.provably_integer(p->k);  // else ask for real_ok (whose proof may need a sign)
  bool real_ok = !k_integer && f.provably_nonneg(start - 1) && f.provably_positive(2 * p->k - start);
  ex k = k_integer || real_ok ? p->k : ceil_of(p->k);
  return nonempty_guard(n, f) * ceil_of(n / k) * *wc;
}

// Block map: max(w * sum (i = lb, ub) { c * unitvec((s i + e) div k + d) }), s = +-1, w c free
// of i and >= 0. Blocks hold the j = s i + e with q k <= j < (q + 1) k; the j form the
// consecutive run from lb + e (s = 1), e - ub (s = -1: blocks numbered from the top, the
// same set of j read backwards), n of them. With j starting at 0 (lb + e = 0, resp. e = ub)
// the first block is the busiest: min(n, ceil(k)) items (min(n, k) for an integer k; a
// half-open interval of length k holds at most ceil(k) integers). Otherwise, for k a proved
// integer and o = (lb + e) mod k, the first block holds min(n, k - o) and the second
// min(k, n - k + o), and every later one at most as many as the second: the busiest is
// max(min(n, k - o), min(k, n - k + o)). Side conditions: k > 0, e an integer (proved,
// or implied by start 0 and the integer bounds);
// lb, ub integers (proved or assumed); w c >= 0; guarded for a possibly empty range.
std::optional<ex> rule_vmax_block(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  auto p = mod_div_position(m->pos, r.index_ex(), Fn::Div, true);
  if (!p || !f.provably_positive(p->k)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1, busiest;
  ex start = (p->s > 0 ? r.lb() + p->e0 : p->e0 - r.ub()).expand();
  // start = 0 makes e = -lb (resp. ub) an integer with the bounds (required below).
  if (!start.is_zero() && !f.provably_integer(p->e0)) return std::nullopt;
  auto wc = map_weight(*m, f, a);
  if (!wc) return std::nullopt;
  bool int_k = f.provably_integer(p->k);
  if (start.is_zero()) {
    busiest = make_min({n, int_k ? p->k : ceil_of(p->k)});
  } else if (int_k) {
    ex o = mod_of(start, p->k);
    busiest = make_max({make_min({n, p->k - o}), make_min({p->k, n - p->k + o})});
  } else {
    return std::nullopt;
  }
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  return nonempty_guard(n, f) * busiest * *wc;
}

// max(v_1 + ... + v_m) = max(max(v_1), ..., max(v_m)) when the parts occupy disjoint sets of
// positions and v is elementwise >= 0 (each max(v_j) then also sees only zeros elsewhere).
// A part is all the terms on one sum reduction, or all terms outside reductions; its
// positions are bounded by interval analysis (the reduction's index over its range), and
// the parts' intervals must be pairwise disjoint. Side conditions: v >= 0 elementwise
// (proved), disjointness (proved).
std::optional<ex> rule_vmax_split(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  if (!is_class<add>(v)) return std::nullopt;
  struct Part {
    ex red;  // 0 for the part outside reductions
    exvector terms;  // summed once at the end: adding one by one is quadratic in a long literal
    Interval pos;
    bool have_pos = false;
  };
  std::vector<Part> parts;
  auto widen = [](Part& p, const Interval& iv) {
    if (!p.have_pos) {
      p.pos = iv;
      p.have_pos = true;
      return;
    }
    auto lower = [](const End& x, const End& y) {  // smaller lo
      if (x.inf != y.inf) return x.inf < y.inf;
      return x.inf == 0 && x.v < y.v;
    };
    if (lower(iv.lo, p.pos.lo)) p.pos.lo = iv.lo;
    if (lower(p.pos.hi, iv.hi)) p.pos.hi = iv.hi;
  };
  for (const ex& t : operands_of(v, true)) {
    ex red = 0;
    for (const ex& x : operands_of(t, false))
      if (as_red(x, ReduceKind::Sum) && is_vector_valued(x)) {
        if (!red.is_zero()) return std::nullopt;
        red = x;
      }
    Part* part = nullptr;
    for (Part& p : parts)
      if (p.red.is_equal(red)) part = &p;
    if (!part) {
      parts.emplace_back();
      parts.back().red = red;
      part = &parts.back();
    }
    part->terms.push_back(t);
    // positions of this term
    Facts fi = f;
    ex body = t;
    if (!red.is_zero()) {
      const reduction& r = ex_to<reduction>(red);
      fi.declare_index(r.index(), r.lb(), r.ub());
      body = r.body();
    }
    auto vt = split_vector(body);
    if (!vt || !vt->scalar.is_zero()) return std::nullopt;
    for (const auto& [pos, c] : vt->terms) widen(*part, fi.range(pos));
  }
  if (parts.size() < 2) return std::nullopt;
  auto before = [](const Interval& x, const Interval& y) {  // every position of x < every one of y
    if (x.hi.inf || y.lo.inf) return x.hi.inf < 0 || y.lo.inf > 0;
    return x.hi.v < y.lo.v || (x.hi.v == y.lo.v && (x.hi.open || y.lo.open));
  };
  for (size_t j = 0; j < parts.size(); ++j)
    for (size_t k = j + 1; k < parts.size(); ++k)
      if (!before(parts[j].pos, parts[k].pos) && !before(parts[k].pos, parts[j].pos)) return std::nullopt;
  if (!terms_nonneg(v, f)) return std::nullopt;  // last: the expensive proof
  exvector maxes;
  for (const Part& p : parts) maxes.push_back(vector_max(add(p.terms)));
  return make_max(maxes);
}

// floor(x) = ceil(x) = x for x a proved integer. Always.
std::optional<ex> rule_floor_int(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if ((fn != Fn::Floor && fn != Fn::Ceil) || !f.provably_integer(e.op(0))) return std::nullopt;
  return e.op(0);
}

// floor(x + k) = floor(x) + k and ceil(x + k) = ceil(x) + k for an integer k; a div b =
// (a - b k) div b + k when a / b expands to x + k. The terms of the expanded argument that
// are integers (proved) come out, so a sum over i of (N - P i - 1) div P sees a polynomial
// in i. Exact for every value (b != 0 is div's own condition, unchanged).
std::optional<ex> rule_floor_shift(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Floor && fn != Fn::Ceil && fn != Fn::Div) return std::nullopt;
  ex x = fn == Fn::Div ? (e.op(0) / e.op(1)).expand() : e.op(0).expand();
  if (!is_class<add>(x)) return std::nullopt;
  ex k = 0;
  for (const ex& t : operands_of(x, true))
    if (f.provably_integer(t)) k += t;
  if (k.is_zero() || (x - k).expand().is_zero()) return std::nullopt;
  if (fn == Fn::Floor) return floor_of((x - k).expand()) + k;
  if (fn == Fn::Ceil) return ceil_of((x - k).expand()) + k;
  return idiv_of((e.op(0) - e.op(1) * k).expand(), e.op(1)) + k;
}

// floor(x) and ceil(x) of an x confined to a window of width one about an integer n
// (proved): floor(x) = n where n <= x < n + 1 and n - (x < n) where n - 1 < x <= n; ceil(x) =
// n where n - 1 < x <= n and n + (n < x) where n <= x < n + 1. The candidates n: the integer
// ends of x's interval (which give one side of the window), and, for an x about a loop index
// (where the prover knows the index's range but intervals are too coarse), the integers
// -2..1 for a constant. For p = 0..P - 1: floor(-1 / P) = -1, floor(-p / P) = -(0 < p) (the
// step an owner test i mod P == p leaves, which the breakpoint rules split), and
// floor(-(p + 1) / P) = -1 (its count over i = 0..N - 1). Exact on the window, which is
// proved for every value of the facts.
std::optional<ex> rule_floor_window(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Floor && fn != Fn::Ceil) return std::nullopt;
  const ex& x = e.op(0);
  if (is_class<numeric>(x)) return std::nullopt;
  const bool fl = fn == Fn::Floor;
  // The value n when the window where it is constant holds: [n, n + 1) or (n - 1, n].
  auto constant_at = [&](const numeric& n) {
    return fl ? f.provably_nonneg(x - n) && f.provably_positive(n + 1 - x)
              : f.provably_positive(x - n + 1) && f.provably_nonneg(n - x);
  };
  Interval iv = f.range(x);
  auto closed_int = [](const End& end) { return !end.inf && !end.open && end.v.is_integer(); };
  const End& near = fl ? iv.lo : iv.hi;  // the end where the function is constant
  const End& far = fl ? iv.hi : iv.lo;   // the end where it steps
  if (closed_int(near) && constant_at(near.v)) return near.v;
  if (closed_int(far)) {
    const numeric& n = far.v;
    if (fl && f.provably_nonneg(n - x) && f.provably_positive(x - n + 1)) return n - compare(Cmp::Lt, x, n);
    if (!fl && f.provably_nonneg(x - n) && f.provably_positive(n + 1 - x)) return n + compare(Cmp::Lt, n, x);
  }
  if (!f.mentions_index(x)) return std::nullopt;
  for (int n = -2; n <= 1; ++n)
    if (constant_at(n)) return ex(n);
  return std::nullopt;
}

namespace {

// sum_{j = lo..hi} h(j) as S(hi) - S(lo - 1), S a polynomial antiderivative of the
// polynomial h (S(m) - S(m - 1) = h(m) for every integer m). Exact when hi >= lo - 1.
ex antiderivative(const ex& h, const ex& j, const ex& m) {
  ex x = h.expand(), out = 0;
  for (int k = 0; k <= x.degree(j); ++k) {
    ex c = x.coeff(j, k);
    if (!c.is_zero()) out += c * faulhaber(static_cast<unsigned>(k), m);
  }
  return out;
}

}  // namespace

// sum (i = lb, ub) { g(i) * F(x) } for F = floor or ceil, x = (s i + e) / Q with s = +-1,
// Q free of i, and g a polynomial in i with i-free coefficients. With j = s i + e (ceil:
// ceil(j / Q) = floor((j + Q - 1) / Q), shift j by Q - 1) and h(j) = g(i), the sum is
// F(J1) - F(J0 - 1) over the j range, where F(n) = T(A - 1) + A (G(n) - G(A Q - 1)),
// A = floor((n + 1) / Q), G an antiderivative of h and T one of t (G(t Q + Q - 1) - G(t Q - 1))
// (full blocks t = 0..A-1 of Q values of j, each with floor(j / Q) = t, then the partial
// block): F(n) - F(n - 1) = h(n) floor(n / Q) holds for every integer n, negative too.
// Side conditions: Q a positive integer (proved, or assumed where Q is one parameter the
// model leaves unbounded: with a real Q the blocks are uneven);
// e an integer (proved, or proved to differ from lb or ub by an integer); lb, ub integers
// (proved or assumed); guarded for a possibly empty range.
std::optional<ex> rule_sum_floor_poly(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  ex fl, g = 1;
  for (const ex& t : operands_of(r->body(), false)) {
    Fn fn = pamela_function(t);
    if ((fn == Fn::Floor || fn == Fn::Ceil) && t.has(i) && fl.is_zero()) {
      fl = t;
    } else {
      g *= t;
    }
  }
  if (fl.is_zero()) return std::nullopt;
  ex gx = g.expand();
  if (!gx.is_polynomial(i) || gx.ldegree(i) < 0 || gx.degree(i) > 8) return std::nullopt;
  // The coefficients of g must not hide another index-dependent function.
  for (int k = 0; k <= gx.degree(i); ++k)
    if (gx.coeff(i, k).has(i)) return std::nullopt;
  ex x = fl.op(0).expand();
  if (!x.is_polynomial(i) || x.degree(i) != 1 || x.ldegree(i) < 0) return std::nullopt;
  ex c = x.coeff(i, 1), x0 = x.coeff(i, 0);
  if (c.has(i) || x0.has(i)) return std::nullopt;
  ex Q = normal(1 / c);
  int s = 1;
  // The sign of i: Q as written when positive, or when it is the parameter to assume
  // positive; else -Q (floor((N - k) / P): Q = -P).
  if (!f.provably_positive(Q) && (f.provably_positive(-Q) || !is_class<symbol>(Q))) {
    Q = -Q;
    s = -1;
  }
  // A divisor that is one parameter the model does not bound (ceil(j / P) with a plain
  // `numeric parameter P`) is assumed a positive integer, P >= 1 and integer: recorded and
  // checked by every evaluator (where it fails, the unsimplified model answers).
  std::vector<Cond> conds{{true, r->lb()}, {true, r->ub()}};
  if (!f.provably_positive(Q) || !f.provably_integer(Q)) {
    if (!is_class<symbol>(Q) || f.mentions_index(Q)) return std::nullopt;
    if (!f.provably_positive(Q)) conds.push_back({false, Q - 1});
    if (!f.provably_integer(Q)) conds.push_back({true, Q});
  }
  Facts fq = f;  // with Q >= 1 as proved or assumed
  if (!f.provably_positive(Q)) fq.add_lower(ex_to<symbol>(Q), 1, false);
  ex e0 = normal(x0 * Q).expand();
  if (!f.provably_integer(e0) && !f.provably_integer((e0 - r->ub()).expand()) &&
      !f.provably_integer((e0 - r->lb()).expand()))
    return std::nullopt;
  if (may_fail(fl, fq) && !f.provably_nonneg(r->ub() - r->lb()) && !cannot_fail_or_assume(fl, fq, a))
    return std::nullopt;
  if (!require(conds, f, a)) return std::nullopt;
  symbol j("_j"), t("_t");
  // i = s (j - e0); the j range and h(j).
  ex J0 = s > 0 ? r->lb() + e0 : e0 - r->ub(), J1 = s > 0 ? r->ub() + e0 : e0 - r->lb();
  ex h = gx.subs(exmap{{i, s * (j - e0)}});
  if (pamela_function(fl) == Fn::Ceil) {  // ceil(j / Q) = floor((j + Q - 1) / Q), j -> j + Q - 1
    h = h.subs(exmap{{j, j - Q + 1}});
    J0 += Q - 1;
    J1 += Q - 1;
  }
  h = h.expand();
  auto G = [&](const ex& m) { return antiderivative(h, j, m); };
  ex T = antiderivative((t * (G(t * Q + Q - 1) - G(t * Q - 1))).expand(), t, t);
  auto F = [&](const ex& n) {
    ex A = floor_of((n + 1) / Q);
    return T.subs(exmap{{t, A - 1}}) + A * (G(n) - G(A * Q - 1));
  };
  ex count = r->ub() - r->lb() + 1;
  return nonempty_guard(count, f) * (F(J1.expand()) - F((J0 - 1).expand())).expand();
}

// sum (i = lb, ub) { f(i) * min(g(i), C) } with g(i) = a i + b linear (a a nonzero number,
// b free of i) and C free of i: g(i) <= C exactly for i <= U = floor((C - b) / a) (a > 0),
// resp. i >= L = ceil((C - b) / a) (a < 0), so the range splits there into a part where
// the min is g and one where it is C, each clamped to the original range:
//   a > 0: sum (i = lb, min(ub, U)) { f g } + sum (i = max(lb, U + 1), ub) { f C },
//   a < 0: sum (i = lb, min(ub, L - 1)) { f C } + sum (i = max(lb, L), ub) { f g }.
// Each part covers a subset of the range (empty where the split lies outside it), together
// every i exactly once, so the value is unchanged for any f; the parts are closed by the
// other rules (sum_poly guards a part that may be empty). Side conditions: lb, ub integers
// (proved or assumed; the split bounds are then integers); C and b do not fail (may_fail)
// unless the range is provably non-empty (the bounds evaluate them, brute force would not).
std::optional<ex> rule_sum_min_split(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  ex mn, rest = 1;
  for (const ex& t : operands_of(r->body(), false)) {
    if (mn.is_zero() && is_class<extremum>(t) && !ex_to<extremum>(t).is_max() &&
        ex_to<extremum>(t).args().size() == 2 && t.has(i))
      mn = t;
    else
      rest *= t;
  }
  if (mn.is_zero()) return std::nullopt;
  ex g = ex_to<extremum>(mn).args()[0], C = ex_to<extremum>(mn).args()[1];
  if (g.has(i) == C.has(i)) return std::nullopt;
  if (C.has(i)) std::swap(g, C);
  auto lin = linear_in(g, i);
  if (!lin) return std::nullopt;
  bool nonempty = f.provably_nonneg(r->ub() - r->lb());
  if ((may_fail(C, f) || may_fail(lin->second, f)) && !nonempty) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  const numeric& ca = lin->first;
  ex t = ((C - lin->second) / ex(ca)).expand();
  // With a = +-1 and b - ub an integer (proved), t = (C - b) / a is an integer (ub is) plus
  // C / a: take the integer part out of floor/ceil so the bounds stay readable.
  ex int_part = 0, frac = t;
  if ((ca == 1 || ca == -1) && f.provably_integer((lin->second - r->ub()).expand())) {
    int_part = (-lin->second / ex(ca)).expand();
    frac = (C / ex(ca)).expand();
  }
  auto fl = [&](const ex& x) { return f.provably_integer(x) ? x : floor_of(x); };
  auto cl = [&](const ex& x) { return f.provably_integer(x) ? x : ceil_of(x); };
  // A part: closed here when its body is a polynomial in i with i-free coefficients (its
  // bounds are integers with lb and ub, so nothing more is required or assumed), else a sum.
  auto part = [&](const ex& lo, const ex& hi, const ex& body) -> ex {
    ex b = body.expand();
    bool poly = b.is_polynomial(i) && b.ldegree(i) >= 0 && b.degree(i) <= 40;
    for (int k = 0; poly && k <= b.degree(i); ++k) poly = !b.coeff(i, k).has(i);
    if (!poly || (may_fail(b, f) && !nonempty)) return rebuild_reduction(*r, ReduceKind::Sum, lo, hi, body);
    ex out = 0;
    for (int k = 0; k <= b.degree(i); ++k) {
      ex c = b.coeff(i, k);
      if (!c.is_zero()) out += c * (faulhaber(static_cast<unsigned>(k), hi) - faulhaber(static_cast<unsigned>(k), lo - 1));
    }
    return nonempty_guard(hi - lo + 1, f) * out.expand();
  };
  ex fg = rest * g, fC = rest * C;
  if (ca.is_positive()) {
    ex U = int_part + fl(frac);
    return part(r->lb(), make_min({r->ub(), U}), fg) + part(make_max({r->lb(), U + 1}), r->ub(), fC);
  }
  ex L = int_part + cl(frac);
  return part(r->lb(), make_min({r->ub(), L - 1}), fC) + part(make_max({r->lb(), L}), r->ub(), fg);
}

namespace {

// A two-way extremum of B that depends on the index i through g1 - g2 = a i + b (a a nonzero
// number, b free of i): max(g1, g2), min(g1, g2), or abs(g) read as max(g, -g); also a
// comparison x <= y with y - x = a i + b, which is 1 where a i + b >= 0 and 0 elsewhere. Searched
// outside inner reductions' bodies (their bounds included), first in printed-text order.
struct LinearChoice {
  ex node;      // the subexpression to replace
  ex g1, g2;    // its two candidates
  bool is_max;  // the node is max(g1, g2) (else min)
  numeric a;
  ex b;
  bool strict = false;  // x < y: g1 (= 1) only where a i + b > 0
};
void find_linear_choices(const ex& x, const ex& i, std::vector<LinearChoice>& out) {
  if (!x.has(i)) return;
  if (is_class<reduction>(x)) {
    const auto& r = ex_to<reduction>(x);
    find_linear_choices(r.lb(), i, out);
    find_linear_choices(r.ub(), i, out);
    return;
  }
  if (is_class<extremum>(x) && ex_to<extremum>(x).args().size() == 2) {
    const auto& m = ex_to<extremum>(x);
    // The two sides in printed-text order, so the split is the same whatever order GiNaC
    // holds them in.
    ex g1 = m.args()[0], g2 = m.args()[1];
    if (to_pamela(g2) < to_pamela(g1)) std::swap(g1, g2);
    if (auto lin = linear_in(g1 - g2, i)) out.push_back({x, g1, g2, m.is_max(), lin->first, lin->second});
  } else if (is_ex_the_function(x, abs)) {
    if (auto lin = linear_in(2 * x.op(0), i)) out.push_back({x, x.op(0), -x.op(0), true, lin->first, lin->second});
  } else if (pamela_function(x) == Fn::Le) {
    // (a <= b) is max-like: 1 where d = b - a >= 0, else 0.
    if (auto lin = linear_in(x.op(1) - x.op(0), i)) out.push_back({x, 1, 0, true, lin->first, lin->second});
  } else if (pamela_function(x) == Fn::Lt) {
    // (a < b): 1 where d = b - a > 0, else 0.
    if (auto lin = linear_in(x.op(1) - x.op(0), i)) out.push_back({x, 1, 0, true, lin->first, lin->second, true});
  }
  for (size_t k = 0; k < x.nops(); ++k) find_linear_choices(x.op(k), i, out);
}

}  // namespace

namespace {
ex decide_all(const ex& e, const Facts& f);  // below, with the comparison rules
}  // namespace

// max/min (i = lb, ub) { g * t(i) } for t a residue test ((i + e) mod k == r, or !=) or a
// comparison linear in i (p > 0, p != q), and g free of i: t is 1 on m of the
// n = ub - lb + 1 indices (m counted as sum_mod_count or sum_cmp_count do),
// so the max is g when some index matches (m >= 1) and 0 otherwise, for g >= 0; for
// g <= 0, g when all match (m == n); min the other way round. A phase run only by the
// even-numbered processes, if (i mod 2 == 0) delay(t). Side conditions: residue_test's;
// the sign of g (proved); non-empty range and integer bounds (proved or assumed); a
// linear test's offset does not fail (may_fail: it is evaluated on a non-empty range anyway).
std::optional<ex> rule_ext_indicator(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex g = 1, pred;
  for (const ex& x : operands_of(r->body(), false)) {
    if (pred.is_zero() && x.has(i)) pred = x;
    else if (x.has(i)) return std::nullopt;
    else g *= x;
  }
  if (pred.is_zero()) return std::nullopt;
  std::optional<ex> m = residue_match_count(pred, *r, f);
  if (!m) {
    if (auto lin = linear_match_count(pred, *r, f)) m = lin->count;
  }
  if (!m) return std::nullopt;
  bool up = f.provably_nonneg(g);
  if (!up && !f.provably_nonpos(g)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  ex n = r->ub() - r->lb() + 1;
  bool some = up == (r->kind() == ReduceKind::Max);  // else: all must match
  ex holds = some ? compare(Cmp::Le, 1, *m) : compare(Cmp::Eq, *m, n);
  return g * decide_all(holds, f);
}

// Geometric sums: sum (i = lb, ub) { c * b ^ (a i + d) } for a number b > 0, b != 1, a a
// nonzero number and c, d free of i (work doubling at each level of a tree, a multigrid's
// halving grids) = c b ^ (a lb + d) (b ^ (a n) - 1) / (b ^ a - 1), n = ub - lb + 1: the
// sum of n terms of ratio b ^ a. Side conditions: lb, ub integers (proved or assumed); c
// does not fail where the range may be empty; guarded for an empty range (n < 0 would not
// give 0).
// True when base ^ exponent would hold an exact number of more than a million bits once
// GiNaC evaluates or expands it (the limit lowering puts on the model's own powers): the
// constant part of the exponent decides (2 ^ (l + 1e400) expands to 2 ^ l * 2 ^ 1e400).
static bool exact_power_too_large(const numeric& base, const ex& exponent) {
  ex k = exponent.expand();
  numeric c = 0;
  if (is_class<numeric>(k)) {
    c = ex_to<numeric>(k);
  } else if (is_class<add>(k)) {
    for (size_t j = 0; j < k.nops(); ++j)
      if (is_class<numeric>(k.op(j))) c = ex_to<numeric>(k.op(j));
  }
  if (c.is_zero() || !base.is_rational() || base.is_zero()) return false;
  double bits = std::fabs(c.to_double()) *
                std::fabs(std::log2(std::fabs(base.numer().to_double())) + std::log2(base.denom().to_double()));
  return !(bits <= 1e6);  // a NaN or infinite size is too large too
}

std::optional<ex> rule_sum_geometric(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !r->body().has(r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  ex c = 1, pw;
  for (const ex& x0 : operands_of(r->body(), false)) {
    // (2 ^ l) ^ -1, as GiNaC keeps N / 2 ^ l, is 2 ^ (-l)
    ex x = x0;
    if (is_class<power>(x) && is_class<power>(x.op(0)) && is_class<numeric>(x.op(0).op(0)) &&
        is_class<numeric>(x.op(1)) && ex_to<numeric>(x.op(1)).is_integer())
      x = pow(x.op(0).op(0), x.op(0).op(1) * x.op(1));
    if (!x.has(i)) {
      c *= x;
    } else if (pw.is_zero() && is_class<power>(x) && is_class<numeric>(x.op(0))) {
      pw = x;
    } else {
      return std::nullopt;
    }
  }
  if (pw.is_zero()) return std::nullopt;
  const numeric& b = ex_to<numeric>(pw.op(0));
  if (!b.is_real() || !b.is_positive() || b == 1) return std::nullopt;
  auto lin = linear_in(pw.op(1), i);
  if (!lin) return std::nullopt;
  if (!f.provably_nonneg(r->ub() - r->lb()) && may_fail(c, f)) return std::nullopt;
  ex n = r->ub() - r->lb() + 1;
  // sum (l = 1e400, L) { 2 ^ l } has no closed form pamc can hold exactly: left open.
  if (exact_power_too_large(b, lin->first * r->lb() + lin->second) ||
      exact_power_too_large(b, lin->first * r->ub() + lin->second) || exact_power_too_large(b, lin->first * n))
    return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex ratio = pow(pw.op(0), lin->first);
  ex first = pow(pw.op(0), lin->first * r->lb() + lin->second);
  return nonempty_guard(n, f) * c * first * (pow(ratio, n) - 1) / (ratio - 1);
}

// Piecewise split: sum (i = lb, ub) { B(i) } where B holds m = max(g1, g2) or min(g1, g2)
// (abs(g) = max(g, -g)) with d(i) = g1 - g2 = a i + b linear in i (a a nonzero number, b
// free of i). m = g1 exactly where d >= 0 (max) or d <= 0 (min), and that is a ray of i:
// i >= L = ceil(-b / a) or i <= U = floor(-b / a) by the signs of a. So the sum is the sum of
// B with m := g1 over the ray, clamped to [lb, ub], plus B with m := g2 over the rest:
//   ray i <= U: sum (i = lb, min(ub, U)) { B[g1] } + sum (i = max(lb, U + 1), ub) { B[g2] },
//   ray i >= L: sum (i = max(lb, L), ub) { B[g1] } + sum (i = lb, min(ub, L - 1)) { B[g2] }.
// Each i lies in exactly one part (a part is empty where the ray misses the range; at
// d = 0 both candidates are equal), so the value is unchanged for any B. This is the
// general form of sum_min_split: min/max anywhere in the body (inside ceil, a product, an
// inner loop's bound), both sides depending on i (wavefront diagonals min(d, 2 N - d),
// distances abs(i - c)). Side conditions: lb, ub integers (proved or assumed; the split
// bounds are then integers); b does not fail (may_fail) unless the range is provably
// non-empty (the new bounds evaluate it, brute force would not).
std::optional<ex> rule_sum_piecewise(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  std::vector<LinearChoice> found;
  find_linear_choices(r->body(), i, found);
  if (found.empty()) return std::nullopt;
  const LinearChoice* c = &found[0];
  if (found.size() > 1) {  // not GiNaC's operand order: the first in printed-text order
    for (const LinearChoice& x : found)
      if (to_pamela(x.node) < to_pamela(c->node)) c = &x;
  }
  bool nonempty = f.provably_nonneg(r->ub() - r->lb());
  if (may_fail(c->b, f) && !nonempty) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex t = (-c->b / ex(c->a)).expand();
  auto fl = [&](const ex& x) { return f.provably_integer(x) ? x : floor_of(x); };
  auto cl = [&](const ex& x) { return f.provably_integer(x) ? x : ceil_of(x); };
  ex b1 = r->body().subs(exmap{{c->node, c->g1}}, subs_options::no_pattern);
  ex b2 = r->body().subs(exmap{{c->node, c->g2}}, subs_options::no_pattern);
  // g1 on the ray where d >= 0 (max) or d <= 0 (min): i >= L when that ray grows with i.
  bool ray_up = c->a.is_positive() == c->is_max;
  if (c->strict) {  // (x < y): 1 on i > t (a > 0) or i < t (a < 0), 0 elsewhere
    if (c->a.is_positive()) {
      ex L = fl(t) + 1;
      return rebuild_reduction(*r, ReduceKind::Sum, make_max({r->lb(), L}), r->ub(), b1) +
             rebuild_reduction(*r, ReduceKind::Sum, r->lb(), make_min({r->ub(), L - 1}), b2);
    }
    ex U = cl(t) - 1;
    return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), make_min({r->ub(), U}), b1) +
           rebuild_reduction(*r, ReduceKind::Sum, make_max({r->lb(), U + 1}), r->ub(), b2);
  }
  if (ray_up) {
    ex L = cl(t);
    return rebuild_reduction(*r, ReduceKind::Sum, make_max({r->lb(), L}), r->ub(), b1) +
           rebuild_reduction(*r, ReduceKind::Sum, r->lb(), make_min({r->ub(), L - 1}), b2);
  }
  ex U = fl(t);
  return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), make_min({r->ub(), U}), b1) +
         rebuild_reduction(*r, ReduceKind::Sum, make_max({r->lb(), U + 1}), r->ub(), b2);
}

// max/min (i = lb, ub) { B } where B depends on i only through two-way choices that are
// linear in i (find_linear_choices: max/min/abs of sides whose difference is a i + b, and
// comparisons) and is otherwise of degree <= 1 in i: B is linear on each piece between the
// choices' switching points, so its extremes over the integers are at the ends of pieces.
// The candidates are lb, ub and, per choice with switch point t = -b / a, the last index
// before the switch and the first after it (floor(t), ceil(t) for a max/min/abs, which are
// continuous; L - 1, L for a comparison that starts holding at L), each clamped into
// [lb, ub]; the result is the max/min of B at the candidates (a boundary process:
// max (p = 0, P - 1) { (p > 0) t + (p < P - 1) t }; a sum of distances). Side conditions:
// at most 4 choices; every combination of the choices' sides leaves B of degree <= 1 in i
// or monotone in i by its structure (checked); lb, ub integers and a non-empty range (proved or assumed; a par's max over a
// maybe-empty range is guarded as in ext_const); b does not fail.
std::optional<ex> rule_ext_breakpoints(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  std::vector<LinearChoice> found;
  find_linear_choices(r->body(), i, found);
  if (found.empty()) return std::nullopt;
  // Distinct nodes only (a choice found twice is one choice).
  std::vector<LinearChoice> cs;
  for (const auto& c : found) {
    bool seen = false;
    for (const auto& d : cs) seen = seen || d.node.is_equal(c.node);
    if (!seen) cs.push_back(c);
  }
  if (cs.size() > 4) return std::nullopt;  // distinct choices: min(N, i) used three times is one
  for (const auto& c : cs)
    if (may_fail(c.b, f)) return std::nullopt;
  // Linear on every piece: each combination of sides; or monotone by structure (a step
  // (1 <= p) on top of floor((N - p) / P)), whose extremes on a piece are at its ends too.
  Facts fr = f;
  fr.declare_index(r->index(), r->lb(), r->ub());
  for (unsigned mask = 0; mask < (1u << cs.size()); ++mask) {
    exmap m;
    for (size_t k = 0; k < cs.size(); ++k) m[cs[k].node] = (mask >> k) & 1 ? cs[k].g1 : cs[k].g2;
    ex x = r->body().subs(m, subs_options::no_pattern).expand();
    if (x.is_polynomial(i) && x.degree(i) <= 1) continue;
    // A convex quadratic piece has its max at a piece end (a concave one its min): the sum
    // of distances sum (j) { abs(j - i) } closed piecewise.
    if (x.is_polynomial(i) && x.degree(i) == 2) {
      ex lead = x.coeff(i, 2);
      if (!lead.has(i) && (r->kind() == ReduceKind::Max ? fr.provably_nonneg(lead) : fr.provably_nonpos(lead)))
        continue;
    }
    if (!structural_direction(x, i, fr)) return std::nullopt;
  }
  bool nonempty = require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a);
  if (!nonempty && !(r->empty_is_zero() && !may_fail(r->body(), f) &&
                     require({{true, r->lb()}, {true, r->ub()}}, f, a)))
    return std::nullopt;
  auto fl = [&](const ex& x) { return f.provably_integer(x) ? x : floor_of(x); };
  auto cl = [&](const ex& x) { return f.provably_integer(x) ? x : ceil_of(x); };
  exvector points{r->lb(), r->ub()};
  for (const auto& c : cs) {
    ex t = (-c.b / ex(c.a)).expand();
    bool is_cmp = c.g1.is_equal(1) && c.g2.is_zero() && c.is_max;
    if (!is_cmp) {
      points.push_back(fl(t));
      points.push_back(cl(t));
    } else if (c.a.is_positive()) {  // holds from L on
      ex L = c.strict ? fl(t) + 1 : cl(t);
      points.push_back(L - 1);
      points.push_back(L);
    } else {  // holds up to U
      ex U = c.strict ? cl(t) - 1 : fl(t);
      points.push_back(U);
      points.push_back(U + 1);
    }
  }
  exvector values;
  for (const ex& p : points) {
    ex at = p;
    if (!p.is_equal(r->lb()) && !p.is_equal(r->ub())) at = make_min({make_max({p, r->lb()}), r->ub()});
    ex v = r->body().subs(exmap{{i, at}}, subs_options::no_pattern);
    bool dup = false;
    for (const ex& w : values) dup = dup || w.is_equal(v);
    if (!dup) values.push_back(v);
  }
  ex out = r->kind() == ReduceKind::Max ? make_max(values) : make_min(values);
  return nonempty ? out : compare(Cmp::Le, r->lb(), r->ub()) * out;
}

namespace {

// The weight w c(i) of a map sum, when it is >= 0 on the range and monotone in i (proved):
// (w c, true) for nondecreasing, (w c, false) for nonincreasing. It must not fail where the
// range may be empty (brute force would not evaluate it there).
std::optional<std::pair<ex, bool>> monotone_weight(const MapSum& m, const reduction& r, const Facts& f) {
  const ex& i = r.index_ex();
  ex wc = m.w * m.c;
  if (may_fail(wc, f) && !f.provably_nonneg(r.ub() - r.lb())) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  if (!in.provably_nonneg(wc)) return std::nullopt;
  Facts step = f;
  step.declare_index(r.index(), r.lb(), r.ub() - 1);
  ex d = (wc.subs(exmap{{i, i + 1}}) - wc).expand();
  bool up = step.provably_nonneg(d);
  if (!up && !step.provably_nonpos(d)) {
    // By structure where the difference does not simplify: i div P + 1 rises with i.
    auto dir = structural_direction(wc, i, in);
    if (!dir || *dir == 0) return std::nullopt;
    up = *dir > 0;
  }
  return std::make_pair(wc, up);
}

}  // namespace

// Cyclic map with a weight that depends on the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec((i + e) mod k + d) }). The n = ub - lb + 1 items fall into residue classes, each
// an arithmetic progression with step k; with w c(i) >= 0 and nondecreasing in i, the class
// of ub is the busiest: a class with as many items is dominated term by term (its t-th
// largest item is <= ub - t k), and a class with one item fewer is dominated by it without
// its smallest item. It holds the m = ceil(n / k) items ub - t k, t = 0..m-1, so the max is
// sum (t = 0, m - 1) { w c(ub - k t) } (nonincreasing: the class of lb, c(lb + k t)); that
// sum is closed by the sum rules (Faulhaber for a polynomial c) and is 0 on an empty range,
// where the vector is 0. Side conditions: k a positive integer, e an integer (proved; the
// model implies both for i mod P); w c(i) >= 0 on the range and the monotonicity
// (proved); w c does not fail unless the range is provably non-empty; lb, ub integers
// (proved or assumed). An index-free c is vmax_cyclic's case.
std::optional<ex> rule_vmax_cyclic_weighted(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  auto p = mod_div_position(m->pos, i, Fn::Mod);
  if (!p || !f.provably_positive(p->k) || !f.provably_integer(p->k) || !f.provably_integer(p->e0))
    return std::nullopt;
  auto mono = monotone_weight(*m, r, f);
  if (!mono) return std::nullopt;
  const ex& wc = mono->first;
  bool up = mono->second;
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  ex count = ceil_of((r.ub() - r.lb() + 1) / p->k);
  ex item = up ? r.ub() - p->k * i : r.lb() + p->k * i;
  return rebuild_reduction(r, ReduceKind::Sum, 0, count - 1, wc.subs(exmap{{i, item}}));
}

namespace {

bool has_function_or_reduction(const ex& e) {
  if (is_class<function>(e) || is_class<reduction>(e) || is_class<extremum>(e)) return true;
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_function_or_reduction(e.op(k))) return true;
  return false;
}

// The truth value of a comparison when the facts decide it, else nullopt.
std::optional<bool> decide_comparison(const ex& e, const Facts& f) {
  Fn fn = pamela_function(e);
  if (!is_comparison(e)) return std::nullopt;
  ex d = (e.op(1) - e.op(0)).expand();  // b - a
  std::optional<bool> lt, le;           // a < b, a <= b
  if (f.provably_positive(d)) lt = le = true;
  else if (f.provably_nonneg(-d)) lt = false;
  if (!le && f.provably_nonneg(d)) le = true;
  else if (!le && f.provably_positive(-d)) le = false;
  switch (fn) {
    case Fn::Lt: return lt;
    case Fn::Le: return le;
    case Fn::Eq:
    case Fn::Ne: {
      std::optional<bool> eq;
      if (d.is_zero()) eq = true;
      else if (f.provably_positive(d) || f.provably_positive(-d)) eq = false;
      if (!eq) return std::nullopt;
      return fn == Fn::Eq ? *eq : !*eq;
    }
    default: return std::nullopt;
  }
}

// e with the comparisons the facts decide replaced by 1 or 0, and 0 mod k, 0 div k by 0
// for k provably positive.
ex decide_all(const ex& e, const Facts& f) {
  struct Decide : map_function {
    const Facts& f;
    explicit Decide(const Facts& f_) : f(f_) {}
    ex operator()(const ex& x) override {
      if (x.nops() == 0 || is_class<reduction>(x)) return x;
      ex y = x.map(*this);
      Fn fn = pamela_function(y);
      if ((fn == Fn::Mod || fn == Fn::Div) && y.op(0).is_zero() && f.provably_positive(y.op(1))) return 0;
      if (auto t = decide_comparison(y, f)) return *t ? 1 : 0;
      return y;
    }
  } d(f);
  return d(e);
}

}  // namespace

// A comparison (a == b, a != b, a < b, a <= b) whose truth the facts prove is 1 or 0:
// (p != q) with p < q in the context, (0 <= N / P) with N, P >= 0. Always (the value is
// the proved one).
std::optional<ex> rule_cmp_decide(const ex& e, const Facts& f, Assumptions&) {
  // Only differences built from symbols and numbers: an owner test such as
  // (i - 1) div B != i div B is the sum rules' business, and proving it costs.
  if (!is_comparison(e)) return std::nullopt;
  if (has_function_or_reduction(e.op(0)) || has_function_or_reduction(e.op(1))) return std::nullopt;
  if (auto t = decide_comparison(e, f)) return ex(*t ? 1 : 0);
  return std::nullopt;
}

namespace {

// The nodes (s i + e) mod k (s = +-1, e an integer, proved with the facts of the loops
// around the node) through which alone e depends on i; false when i occurs elsewhere, or
// in an inner loop's bounds.
bool i_only_in_mods(const ex& x, const ex& i, const Facts& f, std::vector<std::pair<ex, numeric>>& mods) {
  if (!x.has(i)) return true;
  if (x.is_equal(i)) return false;
  if (is_class<reduction>(x)) {
    const auto& r = ex_to<reduction>(x);
    if (r.lb().has(i) || r.ub().has(i)) return false;
    Facts in = f;
    in.declare_index(r.index(), r.lb(), r.ub());
    return i_only_in_mods(r.body(), i, in, mods);
  }
  if (pamela_function(x) == Fn::Mod && !x.op(1).has(i)) {
    auto lin = linear_in(x.op(0), i);
    if (!lin || (lin->first != 1 && lin->first != -1) || !f.provably_integer(lin->second)) return false;
    mods.push_back({x, lin->first});
    return true;
  }
  for (size_t k = 0; k < x.nops(); ++k)
    if (!i_only_in_mods(x.op(k), i, f, mods)) return false;
  return true;
}

// e a sum whose body depends on its index only through residue nodes (i_only_in_mods)
// that all share one modulus k: the sum, k and the nodes; nullopt otherwise.
struct ResidueSum {
  const reduction* r;
  ex k;
  std::vector<std::pair<ex, numeric>> mods;  // (node (s i + e) mod k, s)
};
std::optional<ResidueSum> residue_sum(const ex& e, const Facts& f) {
  ResidueSum out{as_red(e, ReduceKind::Sum), 0, {}};
  if (!out.r || !i_only_in_mods(out.r->body(), out.r->index_ex(), f, out.mods) || out.mods.empty())
    return std::nullopt;
  out.k = out.mods[0].first.op(1);
  for (const auto& [m, s0] : out.mods)
    if (!m.op(1).is_equal(out.k)) return std::nullopt;
  return out;
}

}  // namespace

// sum (i = lb, ub) { B } over exactly k consecutive integers (ub - lb + 1 = k), where B
// depends on i only through residues (s i + e) mod k (s = +-1, e an integer free of i,
// possibly an inner loop's index): i runs over a complete residue system, so the first
// residue (s0 i + e0) mod k = r runs over 0..k-1 once each, and the others are
// (s s0 (r - e0) + e) mod k: sum (r = 0, k - 1) { B[r] }. With inner loops whose bounds do
// not mention i the sums are exchanged first (finite sums), so an exchange of P messages
// from each p to (p + q) mod P sends P - 1 to every link. Side conditions: k an integer >= 1,
// lb an integer (proved); every offset e an integer (proved). Exact for any B.
std::optional<ex> rule_sum_full_period(const ex& e, const Facts& f, Assumptions&) {
  auto rs = residue_sum(e, f);
  if (!rs) return std::nullopt;
  const reduction* r = rs->r;
  const ex &i = r->index_ex(), &k = rs->k;
  const auto& mods = rs->mods;
  if (!(r->ub() - r->lb() + 1 - k).expand().is_zero()) return std::nullopt;
  if (!f.provably_integer(k) || !f.provably_nonneg(k - 1) || !f.provably_integer(r->lb())) return std::nullopt;
  // The new index: r = (s0 i + e0) mod k, so i = s0 (r - e0) (mod k).
  GiNaC::symbol rr(r->index().get_name());
  const numeric s0 = mods[0].second;
  ex e0 = (mods[0].first.op(0) - s0 * i).expand();
  exmap m;
  for (const auto& [node, s] : mods) {
    ex ei = (node.op(0) - s * i).expand();
    m[node] = node.is_equal(mods[0].first) ? ex(rr) : mod_of((s * s0 * (rr - e0) + ei).expand(), k);
  }
  ex body = r->body().subs(m, subs_options::no_pattern);
  if (body.has(i)) return std::nullopt;
  return make_reduction(ReduceKind::Sum, rr, 0, k - 1, body);
}

// sum (i = lb, ub) { B } where B depends on i only through residues (s i + e) mod k for one
// constant k (2 <= k <= kMaxResidueSplit; s = +-1, e an integer free of i), over any range:
// the i with i mod k = q share the body B[q] (each residue node becomes (s q + e) mod k), and
// there are floor((ub - q) / k) - floor((lb - 1 - q) / k) of them, so the sum is
// sum_q count_q B[q], k terms. Odd-even phases reduce so: the work of phase ph depends on
// ph mod 2 only. Exact for any B; on a range more than one short of non-empty the counts
// would go negative, hence the guard. Side conditions: lb, ub integers (proved or
// assumed); the offsets e integers (proved, as i_only_in_mods requires).
constexpr long kMaxResidueSplit = 16;
bool position_mentions(const ex& e, const ex& i) {
  if (pamela_function(e) == Fn::Unitvec) return e.op(0).has(i);
  for (size_t k = 0; k < e.nops(); ++k)
    if (position_mentions(e.op(k), i)) return true;
  return false;
}
std::optional<ex> rule_sum_residue_split(const ex& e, const Facts& f, Assumptions& asm_) {
  auto rs = residue_sum(e, f);
  if (!rs) return std::nullopt;
  const reduction* r = rs->r;
  const ex &i = r->index_ex(), &k = rs->k;
  const auto& mods = rs->mods;
  if (!is_class<numeric>(k) || !ex_to<numeric>(k).is_integer() || ex_to<numeric>(k) < 2 ||
      ex_to<numeric>(k) > kMaxResidueSplit)
    return std::nullopt;
  // Loads whose position holds the index (unitvec(i mod 16)) are the vector-max rules' to
  // read whole: split, they become a 16-way max of floors (ceil(N / 16) is the answer).
  if (position_mentions(r->body(), i)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, asm_)) return std::nullopt;
  const long kk = ex_to<numeric>(k).to_long();
  ex total = 0;
  for (long q = 0; q < kk; ++q) {
    exmap m;
    for (const auto& [node, s] : mods) m[node] = mod_of((s * q + (node.op(0) - s * i)).expand(), k);
    ex body = r->body().subs(m, subs_options::no_pattern);
    if (body.has(i)) return std::nullopt;
    ex count = floor_of((r->ub() - q) / k) - floor_of((r->lb() - 1 - q) / k);
    total += count * body;
  }
  return nonempty_guard(r->ub() - r->lb() + 1, f) * total;
}

// sum (i = a, b) { sum (j = i + c, d) { g(j) } } with g free of i and vector-valued (loads
// on resources that no rule closes one row at a time) = sum (j = a + c, d) { m(j) g(j) }
// with m(j) = min(b, j - c) - a + 1 rows i that reach j (>= 1 for j >= a + c), the min
// dropped when b + c >= d is provable; likewise sum (j = c, i + d) with m(j) = b - max(a,
// j - d) + 1 over j = c..b + d. Exchanging a triangle's order turns i <= j into a weight
// on j, so `if (i <= j) use(cpu(j mod P))` becomes a cyclic map with a monotone weight.
// Exact (finite sums; each (i, j) is counted once either way; guarded where b < a - 1 is
// possible, which would make m(j) negative). Side conditions: a, b, c, d integers (proved
// or assumed); the inner range's other end free of i.
std::optional<ex> rule_sum_swap_triangle(const ex& e, const Facts& f, Assumptions& asm_) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const reduction* in = as_red(r->body(), ReduceKind::Sum);
  if (!in || !is_vector_valued(in->body()) || in->body().has(r->index_ex())) return std::nullopt;
  const ex& i = r->index_ex();
  const ex &a = r->lb(), &b = r->ub();
  auto lo = linear_in(in->lb(), i), hi = linear_in(in->ub(), i);
  if (!require({{true, a}, {true, b}}, f, asm_)) return std::nullopt;
  GiNaC::symbol j(in->index().get_name());
  ex g = in->body().subs(exmap{{in->index_ex(), j}});
  // An outer range more than one short of non-empty would give negative counts m(j).
  ex guard = nonempty_guard(b - a + 1, f);
  if (lo && lo->first == 1 && !in->ub().has(i)) {
    const ex& c = lo->second;
    const ex& d = in->ub();
    if (!require({{true, c}, {true, d}}, f, asm_)) return std::nullopt;
    ex top = f.provably_nonneg(b + c - d) ? ex(j - c) : make_min({b, j - c});
    return guard * make_reduction(ReduceKind::Sum, j, a + c, d, (top - a + 1) * g);
  }
  if (hi && hi->first == 1 && !in->lb().has(i)) {
    const ex& c = in->lb();
    const ex& d = hi->second;
    if (!require({{true, c}, {true, d}}, f, asm_)) return std::nullopt;
    ex bottom = f.provably_nonneg(c - d - a) ? ex(j - d) : make_max({a, j - d});
    return guard * make_reduction(ReduceKind::Sum, j, c, b + d, (b - bottom + 1) * g);
  }
  return std::nullopt;
}

// A comparison with a max or min as one side is the max or min of the comparisons with
// each argument in its place (monotonicity of <= and < in each side):
//   (a <= max(x, y)) = max((a <= x), (a <= y)),  (a <= min(x, y)) = min((a <= x), (a <= y)),
//   (max(x, y) <= a) = min((x <= a), (y <= a)),  (min(x, y) <= a) = max((x <= a), (y <= a)),
// and the same for <. Exact for any values (each side 0 or 1); the parts then fold or are
// decided by the facts ((0 < max(0, P - 2)) = (0 < P - 2)). Always.
std::optional<ex> rule_cmp_extremum(const ex& e, const Facts&, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Lt && fn != Fn::Le) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    // The side is a max/min, or c + a max/min (c + max(x, y) = max(c + x, c + y)).
    ex x = e.op(side), c = 0;
    if (is_class<add>(x)) {
      for (size_t j = 0; j < x.nops(); ++j)
        if (is_class<extremum>(x.op(j))) {
          c = x - x.op(j);
          x = x.op(j);
          break;
        }
    }
    if (!is_class<extremum>(x)) continue;
    const auto& m = ex_to<extremum>(x);
    exvector parts;
    for (const ex& arg : m.args())
      parts.push_back(side == 0 ? compare(fn == Fn::Lt ? Cmp::Lt : Cmp::Le, c + arg, e.op(1))
                                : compare(fn == Fn::Lt ? Cmp::Lt : Cmp::Le, e.op(0), c + arg));
    // a max on the right, or a min on the left, makes the comparison easier to satisfy.
    bool take_max = (side == 1) == m.is_max();
    return take_max ? make_max(parts) : make_min(parts);
  }
  return std::nullopt;
}

// A comparison of sums written as a person would: the difference d = y - x of (x <= y)
// (also <) split into its number k and its terms, the terms with a positive coefficient on
// the right and the others, negated, on the left with -k: (P <= 2 P - 2) is (2 <= P),
// (0 < P - 1) is (1 < P), (N - P - 1 >= 0) is (P + 1 <= N); with no positive term,
// (2 - P >= 0) is (P <= 2). Exact (the same quantity is added to both sides). Only for
// sides without vectors; fires only when the layout changes.
std::optional<ex> rule_cmp_normal(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Lt && fn != Fn::Le) return std::nullopt;
  if (is_vector_valued(e)) return std::nullopt;
  ex d = (e.op(1) - e.op(0)).expand();
  // Over a common denominator that is positive (proved) only the numerator's sign counts:
  // (0 < p / P) is (0 < p) for P > 0.
  if (!has_function_or_reduction(d) && has_negative_power(d)) {
    ex nd = d.normal().numer_denom();
    if (!nd.op(1).is_equal(1) && f.provably_positive(nd.op(1))) d = nd.op(0).expand();
  }
  // Between integers x < y is x + 1 <= y: one spelling per condition, so equal conditions
  // meet ((1 < P) and (2 <= P)).
  if (fn == Fn::Lt && !is_class<numeric>(d) && f.provably_integer(d)) {
    fn = Fn::Le;
    d = d - 1;
  }
  if (is_class<numeric>(d)) return std::nullopt;  // folds by itself
  ex k = 0, pos = 0, neg = 0;
  for (const ex& t : operands_of(d, true)) {
    if (is_class<numeric>(t)) {
      k += t;
      continue;
    }
    ex c = 1;
    if (is_class<mul>(t) && is_class<numeric>(t.op(t.nops() - 1))) c = t.op(t.nops() - 1);
    for (size_t j = 0; j < (is_class<mul>(t) ? t.nops() : 0); ++j)
      if (is_class<numeric>(t.op(j))) c = t.op(j);
    if (ex_to<numeric>(c).is_negative()) neg -= t;
    else pos += t;
  }
  ex lhs, rhs;
  if (pos.is_zero()) {
    lhs = neg;
    rhs = k;
  } else {
    lhs = neg - k;
    rhs = pos;
  }
  bool same_kind = fn == pamela_function(e);
  if (same_kind && lhs.is_equal(e.op(0)) && rhs.is_equal(e.op(1))) return std::nullopt;
  if (same_kind && to_pamela(lhs).size() + to_pamela(rhs).size() > to_pamela(e.op(0)).size() + to_pamela(e.op(1)).size())
    return std::nullopt;  // only when it reads shorter (or as short)
  ex out = compare(fn == Fn::Lt ? Cmp::Lt : Cmp::Le, lhs, rhs);
  if (out.is_equal(e)) return std::nullopt;
  return out;
}

// max (i = lb, ub) { g(i) } = h where h is an upper bound of g on the range (interval
// analysis with i in [lb, ub]) that g reaches at lb or at ub (g(lb) - h >= 0 proved); min
// with a lower bound likewise. E.g. max (q = 0, P - 1) { q mod 2 ^ l == 0 } = 1 (reached at
// q = 0). Side conditions: non-empty range and integer bounds (proved or assumed).
std::optional<ex> rule_ext_attained(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  Facts in = f;
  in.declare_index(r->index(), r->lb(), r->ub());
  Interval iv = in.range(r->body());
  bool is_max = r->kind() == ReduceKind::Max;
  const End& bound = is_max ? iv.hi : iv.lo;
  if (bound.inf || bound.open) return std::nullopt;
  ex h = bound.v;
  bool reached = false;
  for (const ex& at : {r->lb(), r->ub()}) {
    ex g = decide_all(r->body().subs(exmap{{r->index_ex(), at}}), f);
    if (is_max ? f.provably_nonneg(g - h) : f.provably_nonpos(g - h)) reached = true;
  }
  if (!reached) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return h;
}

namespace {

// Is g convex in i on the integers, by its structure: linear in i, abs of something linear,
// a max of convex terms, a sum of convex terms, or a provably nonnegative factor free of i
// times a convex term (then every chord lies above g, so a max over a range is at an end).
bool structurally_convex(const ex& g, const ex& i, const Facts& f, int depth = 0) {
  if (!g.has(i)) return true;
  if (depth > 8) return false;
  if (linear_in(g, i)) return true;
  if (is_ex_the_function(g, abs)) return static_cast<bool>(linear_in(g.op(0), i));
  if (is_class<extremum>(g) && ex_to<extremum>(g).is_max()) {
    for (const ex& x : ex_to<extremum>(g).args())
      if (!structurally_convex(x, i, f, depth + 1)) return false;
    return true;
  }
  if (is_class<add>(g)) {
    for (size_t k = 0; k < g.nops(); ++k)
      if (!structurally_convex(g.op(k), i, f, depth + 1)) return false;
    return true;
  }
  if (is_class<mul>(g)) {
    ex free = 1, dep = 1;
    for (size_t k = 0; k < g.nops(); ++k) (g.op(k).has(i) ? dep : free) *= g.op(k);
    if (is_class<mul>(dep)) return false;  // more than one factor with i
    if (f.provably_nonneg(free)) return structurally_convex(dep, i, f, depth + 1);
    if (f.provably_nonpos(free)) return false;
  }
  return false;
}

}  // namespace

// max (i = lb, ub) { g(i) } = max(g(lb), g(ub)) for g structurally convex in i (a sum or max
// of terms linear in i or abs of linear, with nonnegative index-free factors: distances
// abs(i - c)); min (i) of a structurally concave g (-g convex) = min(g(lb), g(ub)). The
// second-difference test of ext_convex does not see through abs and max. Side conditions:
// non-empty range and integer bounds (proved or assumed).
std::optional<ex> rule_ext_convex_shape(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  bool is_max = r->kind() == ReduceKind::Max;
  if (!structurally_convex(is_max ? r->body() : ex(-r->body()), i, f)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  exvector ends{r->body().subs(exmap{{i, r->lb()}}), r->body().subs(exmap{{i, r->ub()}})};
  return is_max ? make_max(ends) : make_min(ends);
}

// min (i = lb, ub) { g(i) } for g convex with a known real minimizer m: g = c abs(a i + b)
// (c >= 0 free of i; m = -b / a) or g = a i^2 + b i + c0 with a > 0 a number (m = -b / 2a).
// A convex function of the integers in [lb, ub] is smallest at an integer next to m, moved
// into the range: min(g(clamp(floor(m))), g(clamp(ceil(m)))), clamp(x) = max(lb, min(ub, x));
// g(clamp(m)) when m is a proved integer. max of a concave g (-g of that shape) likewise.
// Side conditions: non-empty range, integer bounds (proved or assumed); b does not fail.
std::optional<ex> rule_ext_convex_min(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  bool is_max = r->kind() == ReduceKind::Max;
  ex g = is_max ? ex(-r->body()) : r->body();
  std::optional<ex> m;
  ex free = 1, dep = 1;
  for (const ex& x : operands_of(g, false)) (x.has(i) ? dep : free) *= x;
  if (is_ex_the_function(dep, abs) && f.provably_nonneg(free)) {
    if (auto lin = linear_in(dep.op(0), i)) m = (-lin->second / ex(lin->first)).expand();
  } else {
    ex x = g.expand();
    if (x.is_polynomial(i) && x.degree(i) == 2 && x.ldegree(i) >= 0 && is_class<numeric>(x.coeff(i, 2)) &&
        ex_to<numeric>(x.coeff(i, 2)).is_positive() && !x.coeff(i, 1).has(i))
      m = (-x.coeff(i, 1) / (2 * x.coeff(i, 2))).expand();
  }
  if (!m || may_fail(*m, f)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  auto clamp = [&](const ex& x) { return make_max({r->lb(), make_min({r->ub(), x})}); };
  auto at = [&](const ex& x) { return r->body().subs(exmap{{i, clamp(x)}}); };
  if (f.provably_integer(*m)) return at(*m);
  exvector cands{at(floor_of(*m)), at(ceil_of(*m))};
  return is_max ? make_max(cands) : make_min(cands);
}

namespace {

// The positions a vector term w * sum (i = lb, ub) { c * unitvec(pos) } can touch, as a
// symbolic interval [lo, hi] (pos = a i + b with a = +-1, or (s i + e) mod k + d), or for a
// term outside reductions unitvec(pos) with pos free of indices: [pos, pos].
std::optional<std::pair<ex, ex>> position_span(const ex& red, const ex& pos, const Facts& f) {
  if (red.is_zero()) return std::make_pair(pos, pos);
  const reduction& r = ex_to<reduction>(red);
  const ex& i = r.index_ex();
  if (!pos.has(i)) return std::make_pair(pos, pos);
  if (auto lin = linear_in(pos, i)) {
    if (lin->first == 1) return std::make_pair(r.lb() + lin->second, r.ub() + lin->second);
    if (lin->first == -1) return std::make_pair(lin->second - r.ub(), lin->second - r.lb());
    return std::nullopt;
  }
  if (auto p = mod_div_position(pos, i, Fn::Mod, true)) {
    if (!f.provably_integer(p->k) || !f.provably_positive(p->k)) return std::nullopt;
    return std::make_pair(p->d, p->d + p->k - 1);
  }
  return std::nullopt;
}

}  // namespace

// max(v_1 + ... + v_m) = max(max(G_1), ..., max(G_g)) where the terms are grouped so that
// the groups' position spans are pairwise disjoint, proved symbolically: a term's span is
// [lb + b, ub + b] for unitvec(i + b) over i = lb..ub, [d, d + k - 1] for unitvec((i + e)
// mod k + d), [p, p] for an index-free position; terms whose spans may overlap share a
// group. With v >= 0 elementwise, each group's max sees only zeros outside its span, so
// the value is unchanged (vmax_split does the same with numeric spans only: cpu(p) and
// link(p) = fcfs(P + p, 1) need P - 1 < P). Side conditions: v >= 0 elementwise and the
// disjointness (proved).
std::optional<ex> rule_vmax_groups(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  // Each term is proved apart from every group, quadratic in the terms: a vector of more
  // than 256 terms (a long literal, which vmax_numeric evaluates) is left alone.
  if (!is_class<add>(v) || v.nops() > 256) return std::nullopt;
  struct Group {
    ex sum = 0;
    std::vector<std::pair<ex, ex>> spans;
  };
  std::vector<Group> groups;
  auto disjoint = [&](const std::pair<ex, ex>& x, const std::pair<ex, ex>& y) {
    return f.provably_positive(y.first - x.second) || f.provably_positive(x.first - y.second);
  };
  for (const ex& t : operands_of(v, true)) {
    ex red = 0;
    for (const ex& x : operands_of(t, false))
      if (as_red(x, ReduceKind::Sum) && is_vector_valued(x)) {
        if (!red.is_zero()) return std::nullopt;
        red = x;
      }
    auto vt = split_vector(red.is_zero() ? t : ex_to<reduction>(red).body());
    if (!vt || !vt->scalar.is_zero()) return std::nullopt;
    Group g;
    g.sum = t;
    for (const auto& [pos, c] : vt->terms) {
      auto span = position_span(red, pos, f);
      if (!span) return std::nullopt;
      g.spans.push_back(*span);
    }
    // Merge with every group it may overlap.
    std::vector<Group> rest;
    for (Group& h : groups) {
      bool apart = true;
      for (const auto& x : g.spans)
        for (const auto& y : h.spans) apart = apart && disjoint(x, y);
      if (apart) {
        rest.push_back(std::move(h));
      } else {
        g.sum += h.sum;
        g.spans.insert(g.spans.end(), h.spans.begin(), h.spans.end());
      }
    }
    rest.push_back(std::move(g));
    groups = std::move(rest);
  }
  // The sign proof last: it is the expensive part, and most vectors fail the spans first.
  if (groups.size() < 2 || !terms_nonneg(v, f)) return std::nullopt;
  exvector maxes;
  for (const Group& g : groups) maxes.push_back(vector_max(g.sum));
  return make_max(maxes);
}

// Identity maps with offsets: max(sum_t w_t * sum (i = lb_t, ub_t) { c_t * unitvec(i + b_t) })
// with w_t c_t >= 0 free of i: position r holds sum_t w_t c_t [lb_t + b_t <= r <= ub_t + b_t],
// a step function of r that only rises at a span's left end, so its max is at one of
// them: max over s of sum_t w_t c_t (a_t <= a_s) (a_s <= z_t) with [a_t, z_t] the spans,
// each comparison decided by the facts where they can (cpu(i) and cpu(i + 1) for i = 0..P - 2:
// 1 + (3 <= P)). An empty span (z_s < a_s) adds nothing at its own left end, so each
// candidate carries its own (a_s <= z_s); the zero vector's max is 0, which the max of the
// candidates (all >= 0) also gives. Side conditions: w_t c_t >= 0 (proved) and not failing
// (may_fail); at most 6 spans (the candidates grow as the square). A term outside the sums
// is a span of one position (cpu(p) for p < P and a bus at position 1000: the bus's load
// plus the cpus' where 1000 <= P - 1).
std::optional<ex> rule_vmax_intervals(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  struct Span {
    ex a, z, load;
  };
  std::vector<Span> spans;
  for (const ex& t : operands_of(v, true)) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) {
      // A term outside reductions (a shared bus at fcfs(1000, 1)): a span of one position.
      if (count_reductions(t) > 0) return std::nullopt;
      auto vt = split_vector(t);
      if (!vt || !vt->scalar.is_zero()) return std::nullopt;
      for (const auto& [pos, c] : vt->terms) {
        if (!f.provably_nonneg(c) || may_fail(c, f)) return std::nullopt;
        spans.push_back({pos, pos, c});
      }
      continue;
    }
    const reduction& r = ex_to<reduction>(rs->first);
    const ex& i = r.index_ex();
    if (rs->second.has(i)) return std::nullopt;
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero()) return std::nullopt;
    for (const auto& [pos, c] : vt->terms) {
      auto lin = linear_in(pos, i);
      if (!lin || lin->first != 1 || c.has(i)) return std::nullopt;
      ex wc = rs->second * c;
      if (!f.provably_nonneg(wc) || may_fail(wc, f)) return std::nullopt;
      spans.push_back({r.lb() + lin->second, r.ub() + lin->second, wc});
    }
  }
  if (spans.size() < 2 || spans.size() > 6) return std::nullopt;
  exvector cands;
  for (const Span& s : spans) {
    ex load = 0;
    for (const Span& t : spans)
      load += t.load * compare(Cmp::Le, t.a, s.a) * compare(Cmp::Le, s.a, t.z);
    cands.push_back(decide_all(compare(Cmp::Le, s.a, s.z) * load, f).expand());
  }
  return make_max(cands);
}

// Scaled positions: max(w * sum (i = lb, ub) { c(i) * unitvec(m * q(i) + d) }) with m, d free
// of i, m a proved integer >= 1, q(i) a proved integer >= 0 = max(w * sum (i) { c(i) *
// unitvec(q(i)) }): q -> m q + d is one-to-one, so the positions receive the same loads,
// only placed elsewhere, and the rest are zeros. A 2-D grid's column owner Px * (j mod Py) +
// a. Also m = -1 when d - q(i) >= 0 on the range (proved): the reflected owner P - 1 - i mod P.
// Side condition: w c(i) >= 0 on the range (proved), so zeros never decide the max.
std::optional<ex> rule_vmax_rescale(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  ex scaled = 0, d = 0;
  for (const ex& t : operands_of(m->pos.expand(), true)) (t.has(i) ? scaled : d) += t;
  if (!is_class<mul>(scaled)) return std::nullopt;
  ex mult = 1, q = 1;
  for (const ex& x : operands_of(scaled, false)) (x.has(i) ? q : mult) *= x;
  if (mult.is_equal(1) && d.is_zero()) return std::nullopt;
  Facts in = f;
  in.declare_index(r.index(), r.lb(), r.ub());
  // Reflected: d - q(i) with d - q >= 0 on the range (owner P - 1 - i mod P) is one-to-one too.
  bool reflected = mult.is_equal(-1) && in.provably_nonneg(d - q);
  if (!reflected && (!f.provably_integer(mult) || !f.provably_nonneg(mult - 1))) return std::nullopt;
  if (!in.provably_integer(q) || !in.provably_nonneg(q) || !in.provably_nonneg(m->w * m->c)) return std::nullopt;
  return vector_max(m->w * rebuild_reduction(r, ReduceKind::Sum, r.lb(), r.ub(), m->c * unitvec(q)));
}

namespace {

// max(w * sum (i = li, ui) { sum (j = lj, uj) { c * unitvec(u + s * q) } }) read as a 2-D
// process grid: one of u, q depends on i only and the other on j only, s is free of both,
// 0 <= u <= s - 1 (proved) and q >= 0 an integer (proved), the j bounds free of i: the
// position u + s q determines the pair (u, q). c, the product of all the other factors,
// may depend on i and j; each rule says what it needs of it.
struct GridMap {
  ex outer, inner;  // the two sums (held here: the rules read them after grid_map returns)
  ex c, u, q;
  bool u_outer;  // u depends on i (else on j)
  const reduction& ri() const { return ex_to<reduction>(outer); }
  const reduction& rj() const { return ex_to<reduction>(inner); }
};
std::optional<GridMap> grid_map(const ex& e, const Facts& f) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  auto outer = split_factor(v, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
  if (!outer) return std::nullopt;
  const reduction& ri = ex_to<reduction>(outer->first);
  const ex& i = ri.index_ex();
  if (outer->second.has(i)) return std::nullopt;
  auto inner = split_factor(ri.body().expand(), [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
  if (!inner) return std::nullopt;
  const reduction& rj = ex_to<reduction>(inner->first);
  const ex& j = rj.index_ex();
  if (rj.lb().has(i) || rj.ub().has(i)) return std::nullopt;
  auto vt = split_vector(rj.body());
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  const auto& [pos, c0] = vt->terms[0];
  ex c = outer->second * inner->second * c0;
  // pos = u + s q: the term with a multiplier s and the other.
  exvector terms = operands_of(pos.expand(), true);
  if (terms.size() != 2) return std::nullopt;
  Facts fij = f;
  fij.declare_index(ri.index(), ri.lb(), ri.ub());
  fij.declare_index(rj.index(), rj.lb(), rj.ub());
  for (int k = 0; k < 2; ++k) {
    const ex& u = terms[k];
    const ex& sq = terms[1 - k];
    if (u.has(i) == u.has(j) || sq.has(i) == sq.has(j) || u.has(i) == sq.has(i)) continue;
    ex s = 1, q = 1;
    for (const ex& x : operands_of(sq, false)) (x.has(i) || x.has(j) ? q : s) *= x;
    if (s.is_equal(1)) continue;
    // u = x mod s is in [0, s - 1] by itself (s >= 1); else prove it.
    bool u_fits = pamela_function(u) == Fn::Mod && (u.op(1) - s).expand().is_zero() && f.provably_positive(s);
    if (!u_fits) u_fits = fij.provably_nonneg(u) && fij.provably_nonneg(s - 1 - u);
    if (!u_fits || !fij.provably_integer(u) ||
        !fij.provably_integer(q) || !fij.provably_nonneg(q) || !f.provably_integer(s))
      continue;
    return GridMap{outer->first, inner->first, c, u, q, u.has(i)};
  }
  return std::nullopt;
}

}  // namespace

// Product map (a 2-D process grid, grid_map) with c free of i and j: the load at (a, b) is
// #{i, j : u = a, q = b} c = (#u = a) (#q = b) c, and the max of these products of
// nonnegative counts is the product of the maxes: c max(sum (i) { unitvec(u or q) })
// max(sum (j) { unitvec(q or u) }). Empty ranges give 0 on both sides. Side conditions:
// c >= 0 and not failing (proved); grid_map's bounds on u and q (proved).
std::optional<ex> rule_vmax_product(const ex& e, const Facts& f, Assumptions&) {
  auto g = grid_map(e, f);
  if (!g) return std::nullopt;
  const reduction &ri = g->ri(), &rj = g->rj();
  const ex &i = ri.index_ex(), &j = rj.index_ex();
  if (g->c.has(i) || g->c.has(j) || !f.provably_nonneg(g->c) || may_fail(g->c, f)) return std::nullopt;
  ex mi = vector_max(rebuild_reduction(ri, ReduceKind::Sum, ri.lb(), ri.ub(), unitvec(g->u_outer ? g->u : g->q)));
  ex mj = vector_max(rebuild_reduction(rj, ReduceKind::Sum, rj.lb(), rj.ub(), unitvec(g->u_outer ? g->q : g->u)));
  return g->c * mi * mj;
}

// Distinct positions: where every point of the index domain has a position of its own, the
// vector holds the weights themselves, and with weights >= 0 its max is their max over the
// domain, 0 on an empty one. The domain is read two ways:
//  - one sum, max(w * sum (i = lb, ub) { c * unitvec(a i + d) }), a a nonzero integer and d
//    free of i: an index-free weight w c gives (ub - lb >= 0) w c (the guard dropped when
//    provable; w c must not fail on a possibly empty range, map_weight), an index-dependent
//    one max (i = lb, ub) { w c };
//  - a 2-D process grid (grid_map) whose u and q are each a nonzero integer times their
//    index plus a term free of it, with a weight c(i, j) (an index-free one is
//    vmax_product's): max (i) { max (j) { c } }. The wavefront over a process grid,
//    if (x + y == d) use(cpu(x * PY + y), t), is one.
// Each max is 0 on its empty range, as the vector's. Side conditions: the weights >= 0 over
// the domain (proved with the indices' ranges); the lower bounds integers, and for an
// index-free weight the upper bound too (proved or assumed).
std::optional<ex> rule_vmax_distinct(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto distinct = [](const ex& x, const ex& idx) {
    auto lin = linear_in(x, idx);  // a nonzero coefficient
    return lin && lin->first.is_integer();
  };
  // max (r) { body }, 0 on an empty range
  auto max_over = [&](const reduction& r, const ex& body) {
    return make_reduction(ReduceKind::Max, r.index(), r.lb(), r.ub(), body, !f.provably_nonneg(r.ub() - r.lb()));
  };
  if (auto m = single_map(e.op(0))) {
    const reduction& r = ex_to<reduction>(m->red);
    if (!distinct(m->pos, r.index_ex())) return std::nullopt;
    // The positions a i + d must exist: d an integer, the lowest one >= 0 (proved, or
    // assumed and checked: cpu(i + B) at B = -3 has no value, and the max of the weights
    // would give one). Over-strict where a guard skips the low positions: then the
    // assumption fails and the unsimplified model answers.
    auto lin = linear_in(m->pos, r.index_ex());
    ex lowest = lin->first.is_positive() ? lin->first * r.lb() + lin->second : lin->first * r.ub() + lin->second;
    if (!require({{true, lin->second}, {false, lowest}}, f, a)) return std::nullopt;
    if (auto wc = map_weight(*m, f, a)) {
      if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
      return nonempty_guard(r.ub() - r.lb(), f) * *wc;
    }
    Facts fi = f;
    fi.declare_index(r.index(), r.lb(), r.ub());
    const ex wc = m->w * m->c;
    if (!m->c.has(r.index_ex()) || !fi.provably_nonneg(wc)) return std::nullopt;
    if (!require({{true, r.lb()}}, f, a)) return std::nullopt;
    return max_over(r, wc);
  }
  auto g = grid_map(e, f);
  if (!g) return std::nullopt;
  const reduction &ri = g->ri(), &rj = g->rj();
  const ex &i = ri.index_ex(), &j = rj.index_ex();
  if (!g->c.has(i) && !g->c.has(j)) return std::nullopt;  // vmax_product's
  if (!distinct(g->u, g->u_outer ? i : j) || !distinct(g->q, g->u_outer ? j : i)) return std::nullopt;
  Facts fij = f;
  fij.declare_index(ri.index(), ri.lb(), ri.ub());
  fij.declare_index(rj.index(), rj.lb(), rj.ub());
  if (!fij.provably_nonneg(g->c)) return std::nullopt;
  if (!require({{true, ri.lb()}, {true, rj.lb()}}, f, a)) return std::nullopt;
  return max_over(ri, max_over(rj, g->c));
}

// (s x) div y = x div (y / s) for a symbol s >= 0 free of loop indices that divides every
// term of s x, where x mentions a loop index: floor(s x / y) and floor(x / (y / s)) are the
// same real number when s > 0 (proved, else s >= 1 assumed). The block owner of row i among P processors,
// (i - 1) * P div N, is then the block map (i - 1) div (N / P) with block size N / P.
std::optional<ex> rule_div_rate(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::Div) return std::nullopt;
  ex x = e.op(0).expand();
  if (!f.mentions_index(x)) return std::nullopt;
  exvector first = operands_of(operands_of(x, true)[0], false);
  std::vector<symbol> cands;
  for (const ex& t : first)
    if (is_class<symbol>(t) && !f.mentions_index(t)) cands.push_back(ex_to<symbol>(t));
  std::sort(cands.begin(), cands.end(), [](const symbol& a, const symbol& b) { return a.get_name() < b.get_name(); });
  for (const symbol& sy : cands) {
    ex q = (x / sy).expand();
    if (!q.is_polynomial(sy) || !f.mentions_index(q)) continue;
    // s > 0: proved, or s >= 1 assumed (a processor count; s = 0 falls back).
    if (!f.provably_positive(sy) && !require({{false, sy - 1}}, f, a)) continue;
    return idiv_of(q, e.op(1) / sy);
  }
  return std::nullopt;
}

// Block map with a weight monotone in the index: max(w * sum (i = lb, ub) { c(i) *
// unitvec((i + e) div k + d) }) with lb + e = 0 (blocks start at lb), k a positive integer,
// w c(i) >= 0. Blocks are [lb + t k, lb + t k + k - 1]; with q = floor(n / k) full blocks
// and a partial one after them. For w c nondecreasing, a later full block dominates an
// earlier one term by term, so the busiest is the last full block or the partial block:
// max((1 <= q) sum (i = lb + (q - 1) k, lb + q k - 1) { w c }, sum (i = lb + q k, ub) { w c });
// for w c nonincreasing, the first block: sum (i = lb, min(ub, lb + k - 1)) { w c }. The sums
// are closed by the sum rules; all are 0 on an empty range (the zero vector). For w c
// nonincreasing k may be any real > 0 (a block owner i * P div N): the first block then
// holds ceil(k) items, the most any block holds. Side conditions: k > 0, an integer for a
// nondecreasing weight, and lb + e = 0 (proved); w c >= 0 and monotone on the range
// (proved); lb, ub integers (proved or assumed).
std::optional<ex> rule_vmax_block_weighted(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  if (!m->c.has(i)) return std::nullopt;
  auto p = mod_div_position(m->pos, i, Fn::Div);
  if (!p || !(r.lb() + p->e0).expand().is_zero()) return std::nullopt;
  if (!f.provably_positive(p->k)) return std::nullopt;
  bool k_integer = f.provably_integer(p->k);
  auto mono = monotone_weight(*m, r, f);
  if (!mono) return std::nullopt;
  const ex& wc = mono->first;
  bool up = mono->second;
  if (up && !k_integer) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  const ex& k = p->k;
  auto part = [&](const ex& lo, const ex& hi) { return rebuild_reduction(r, ReduceKind::Sum, lo, hi, wc); };
  // Nonincreasing: the first block [0, k) holds ceil(k) items, the most any block holds,
  // and the largest weights, so it dominates any other block item by item (any real k > 0).
  if (!up) return part(r.lb(), make_min({r.ub(), r.lb() + (k_integer ? k : ceil_of(k)) - 1}));
  ex n = r.ub() - r.lb() + 1;
  ex q = f.provably_integer(n / k) ? ex(n / k) : floor_of(n / k);
  ex last_full = part(r.lb() + (q - 1) * k, r.lb() + q * k - 1);
  if (f.provably_integer(n / k)) return compare(Cmp::Le, 1, q) * last_full;
  return make_max({compare(Cmp::Le, 1, q) * last_full, part(r.lb() + q * k, r.ub())});
}

// Block-cyclic map: max(w * sum (i = lb, ub) { c * unitvec(((i + e) div B) mod P + d) }) with
// lb + e = 0, B and P positive integers and w c >= 0 free of i: the n = ub - lb + 1 items
// j = i + e = 0..n-1 form blocks of B dealt round-robin to P owners. Every full round of B P
// items gives each owner B; the rest, n mod (B P), goes block by block from owner 0, which
// gets min(n mod (B P), B) of it and is the busiest: (B floor(n / (B P)) + min(n mod (B P),
// B)) w c. Side conditions: B, P positive integers, lb + e = 0 (proved); lb, ub integers
// (proved or assumed); guarded for an empty range.
std::optional<ex> rule_vmax_block_cyclic(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto m = single_map(e.op(0));
  if (!m) return std::nullopt;
  const reduction& r = ex_to<reduction>(m->red);
  const ex& i = r.index_ex();
  ex modt, d = 0;
  for (const ex& t : operands_of(m->pos.expand(), true)) {
    if (modt.is_zero() && pamela_function(t) == Fn::Mod && t.has(i)) modt = t;
    else d += t;
  }
  if (modt.is_zero() || d.has(i)) return std::nullopt;
  ex P = modt.op(1), inner = modt.op(0);
  if (P.has(i) || pamela_function(inner) != Fn::Div) return std::nullopt;
  ex B = inner.op(1);
  auto lin = linear_in(inner.op(0), i);
  if (B.has(i) || !lin || lin->first != 1) return std::nullopt;
  if (!(r.lb() + lin->second).expand().is_zero()) return std::nullopt;
  if (!f.provably_integer(B) || !f.provably_positive(B) || !f.provably_integer(P) || !f.provably_positive(P))
    return std::nullopt;
  auto wc = map_weight(*m, f, a);
  if (!wc) return std::nullopt;
  if (!require({{true, r.lb()}, {true, r.ub()}}, f, a)) return std::nullopt;
  ex n = r.ub() - r.lb() + 1;
  ex busiest = B * floor_of(n / (B * P)) + make_min({mod_of(n, B * P), B});
  return nonempty_guard(n, f) * busiest * *wc;
}

// max(sum_t w_t * sum (i = lb_t, ub_t) { c_t * unitvec(pos_t) }) = (lo <= hi) * sum_t w_t c_t
// when every term is uniform on one common span [lo, hi]: it puts w_t c_t on every position
// of the span and nothing elsewhere. Uniform terms: unitvec(i + b) (the span [lb + b, ub +
// b]) and unitvec((i + e) mod k + d) over exactly k consecutive i (ub - lb + 1 = k: each
// residue once; span [d, d + k - 1]), with c_t, w_t free of i. A halo exchange's send to
// the right neighbour (p + 1) mod P and its own link p. Side conditions: w_t c_t >= 0
// (proved); the spans equal (proved: their difference expands to 0); k a positive integer.
std::optional<ex> rule_vmax_uniform(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0).expand();
  std::optional<std::pair<ex, ex>> common;
  ex total = 0;
  int n = 0;
  for (const ex& t : operands_of(v, true)) {
    auto rs = split_factor(t, [](const ex& x) { return as_red(x, ReduceKind::Sum) && is_vector_valued(x); });
    if (!rs) return std::nullopt;
    const reduction& r = ex_to<reduction>(rs->first);
    const ex& i = r.index_ex();
    if (rs->second.has(i)) return std::nullopt;
    auto vt = split_vector(r.body());
    if (!vt || !vt->scalar.is_zero()) return std::nullopt;
    for (const auto& [pos, c] : vt->terms) {
      if (c.has(i)) return std::nullopt;
      std::optional<std::pair<ex, ex>> span;
      if (auto lin = linear_in(pos, i); lin && lin->first == 1) {
        span = std::make_pair(r.lb() + lin->second, r.ub() + lin->second);
      } else if (auto p = mod_div_position(pos, i, Fn::Mod)) {
        if (!f.provably_integer(p->k) || !f.provably_positive(p->k) || !f.provably_integer(p->e0)) return std::nullopt;
        if (!(r.ub() - r.lb() + 1 - p->k).expand().is_zero()) return std::nullopt;
        span = std::make_pair(p->d, p->d + p->k - 1);
      } else {
        return std::nullopt;
      }
      if (!common) common = span;
      else if (!(common->first - span->first).expand().is_zero() || !(common->second - span->second).expand().is_zero())
        return std::nullopt;
      ex wc = rs->second * c;
      if (!f.provably_nonneg(wc) || may_fail(wc, f)) return std::nullopt;
      total += wc;
      ++n;
    }
  }
  if (n < 2 || !common) return std::nullopt;
  // An empty span is the zero vector: the guard is 1 exactly where lo <= hi.
  return decide_all(compare(Cmp::Le, common->first, common->second), f) * total;
}

// sum (i = lb, ub) { (i + u) div k != (i + u - 1) div k }: is the owner of i + u under a
// block map with block size k not that of its predecessor (a block starts at i + u)? For
// k >= 1 the two floors differ by 0 or 1, so the predicate is their difference and the sum
// telescopes: (ub + u) div k - (lb + u - 1) div k; == counts the rest, (ub - lb + 1) minus
// that. Exact for a real k (no integer block size needed) and any u free of i.
// Side conditions: k >= 1 (proved); lb, ub integers (proved or assumed); guarded for a
// possibly empty range (an over-empty one would telescope to a negative count).
std::optional<ex> rule_sum_div_step(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  Fn fn = pamela_function(r->body());
  if (fn != Fn::Eq && fn != Fn::Ne) return std::nullopt;
  const ex& i = r->index_ex();
  ex d0 = r->body().op(0), d1 = r->body().op(1);
  if (pamela_function(d0) != Fn::Div || pamela_function(d1) != Fn::Div) return std::nullopt;
  const ex& k = d0.op(1);
  if (!k.is_equal(d1.op(1)) || k.has(i)) return std::nullopt;
  auto l0 = linear_in(d0.op(0), i), l1 = linear_in(d1.op(0), i);
  if (!l0 || !l1 || l0->first != 1 || l1->first != 1) return std::nullopt;
  ex gap = (l0->second - l1->second).expand();
  ex u;
  if (gap.is_equal(1))
    u = l0->second;
  else if (gap.is_equal(-1))
    u = l1->second;
  else
    return std::nullopt;
  if (!f.provably_nonneg(k - 1)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  auto dv = [&](const ex& x) { return x.expand().is_zero() ? ex(0) : idiv_of(x.expand(), k); };
  ex starts = dv(r->ub() + u) - dv(r->lb() + u - 1);
  return nonempty_guard(count, f) * (fn == Fn::Ne ? starts : count - starts);
}

// max (p = lo, hi) { sum (j = lb, ub) { (j + e) div k == p + d } }: the most items any block
// p + d of size k receives from the n = ub - lb + 1 consecutive j + e starting at 0
// (lb + e = 0). Every block [q k, (q + 1) k) holds at most ceil(k) integers and at most
// the n items, and block 0 holds min(n, ceil(k)) of them; it is among the p + d when
// lo + d <= 0 <= hi + d. So the max is min(n, ceil(k)) (k for a proved integer), 0 for an
// empty j range. Exact for a real k > 0. Side conditions: k > 0, lb + e = 0,
// lo + d <= 0 <= hi + d (all proved); lb, ub integers (proved or assumed); guarded for a
// possibly empty j range.
std::optional<ex> rule_ext_block_count(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* m = as_red(e, ReduceKind::Max);
  if (!m) return std::nullopt;
  const reduction* r = as_red(m->body(), ReduceKind::Sum);
  if (!r || pamela_function(r->body()) != Fn::Eq) return std::nullopt;
  const ex &p = m->index_ex(), &j = r->index_ex();
  ex dv = r->body().op(0), q = r->body().op(1);
  if (pamela_function(dv) != Fn::Div) std::swap(dv, q);
  if (pamela_function(dv) != Fn::Div || q.has(j)) return std::nullopt;
  const ex& k = dv.op(1);
  auto lj = linear_in(dv.op(0), j);
  auto lp = linear_in(q, p);
  if (!lj || !lp || lj->first != 1 || lp->first != 1 || k.has(j) || k.has(p)) return std::nullopt;
  ex e0 = lj->second, d = lp->second;
  if (r->lb().has(p) || r->ub().has(p) || e0.has(p)) return std::nullopt;
  if (!(r->lb() + e0).expand().is_zero() || !f.provably_positive(k)) return std::nullopt;
  if (!f.provably_nonpos(m->lb() + d) || !f.provably_nonneg(m->ub() + d)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  ex n = r->ub() - r->lb() + 1;
  ex K = f.provably_integer(k) ? k : ceil_of(k);
  return nonempty_guard(n, f) * make_min({n, K});
}

// max/min (i) { c_1 g(i) + ... + c_m g(i) } = max/min (i) { (c_1 + ... + c_m) g(i) } for
// c_j free of i and one common factor g(i) (then ext_scale takes c_1 + ... + c_m out).
// Always: the body's value is unchanged.
std::optional<ex> rule_ext_collect(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_class<add>(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  ex g, c = 0;
  for (const ex& t : operands_of(r->body(), true)) {
    ex ct = 1, gt = 1;
    for (const ex& x : operands_of(t, false)) (x.has(i) ? gt : ct) *= x;
    if (gt.is_equal(1)) return std::nullopt;
    if (g.is_zero())
      g = gt;
    else if (!gt.is_equal(g))
      return std::nullopt;
    c += ct;
  }
  return rebuild(*r, r->kind(), c * g);
}

const std::vector<NamedRule>& all_rules() {
  static const std::vector<NamedRule> rules = {
      {"sum_zero", rule_sum_zero},
      {"sum_split", rule_sum_split},
      {"sum_factor", rule_sum_factor},
      {"sum_const", rule_sum_const},
      {"sum_poly", rule_sum_poly},
      {"sum_mod_count", rule_sum_mod_count},
      {"sum_mod_select", rule_sum_mod_select},
      {"sum_cmp_count", rule_sum_cmp_count},
      {"sum_cmp_select", rule_sum_cmp_select},
      {"sum_floor_poly", rule_sum_floor_poly},
      {"sum_div_step", rule_sum_div_step},
      {"sum_min_split", rule_sum_min_split},
      {"sum_piecewise", rule_sum_piecewise},
      {"sum_geometric", rule_sum_geometric},
      {"sum_full_period", rule_sum_full_period},
      {"sum_swap_triangle", rule_sum_swap_triangle},
      {"sum_residue_split", rule_sum_residue_split},
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
      {"ext_breakpoints", rule_ext_breakpoints},
      {"ext_block_count", rule_ext_block_count},
      {"unroll", rule_unroll},
      {"floor_shift", rule_floor_shift},
      {"floor_window", rule_floor_window},
      {"vmax_numeric", rule_vmax_numeric},
      {"vmax_single", rule_vmax_single},
      {"vmax_distinct", rule_vmax_distinct},  // before identity: its guard reads better
      {"vmax_identity", rule_vmax_identity},
      {"vmax_split", rule_vmax_split},
      {"vmax_groups", rule_vmax_groups},
      {"vmax_uniform", rule_vmax_uniform},
      {"vmax_intervals", rule_vmax_intervals},
      {"vmax_block_cyclic", rule_vmax_block_cyclic},
      {"vmax_block_weighted", rule_vmax_block_weighted},
      {"vmax_rescale", rule_vmax_rescale},
      {"vmax_product", rule_vmax_product},
      {"vmax_cyclic", rule_vmax_cyclic},
      {"vmax_collapse", rule_vmax_collapse},
      {"vmax_cyclic_shifts", rule_vmax_cyclic_shifts},
      {"vmax_cyclic_weighted", rule_vmax_cyclic_weighted},
      {"vmax_block", rule_vmax_block},
      {"floor_int", rule_floor_int},
      {"cmp_decide", rule_cmp_decide},
      {"cmp_extremum", rule_cmp_extremum},
      {"cmp_normal", rule_cmp_normal},
      {"div_rate", rule_div_rate},
      {"max_dominated", rule_max_dominated},
      {"max_vector_bound", rule_max_vector_bound},
      {"max_common_term", rule_max_common_term},
      {"max_factor", rule_max_factor},
      {"max_ratio", rule_max_ratio},
  };
  return rules;
}

}  // namespace pamc::sym
