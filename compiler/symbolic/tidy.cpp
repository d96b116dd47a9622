// Readable forms: see tidy.h.
#include "compiler/symbolic/tidy.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/rules.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {

// A polynomial over the rationals in its symbols (no functions, reductions, max/min)?
bool plain_polynomial(const ex& e) {
  if (is_class<symbol>(e)) return true;
  if (is_class<numeric>(e)) return ex_to<numeric>(e).is_rational();
  if (is_class<add>(e) || is_class<mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i)
      if (!plain_polynomial(e.op(i))) return false;
    return true;
  }
  if (is_class<power>(e))
    return plain_polynomial(e.op(0)) && is_class<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_pos_integer();
  return false;
}

// A sum of terms c * s_1^k_1 * ... with integer k (negative too: N / P^2): a polynomial
// divided by a monomial. The symbols with a negative power go to `denominators`.
bool monomial_quotient(const ex& e, std::set<ex, ex_is_less>& denominators) {
  if (is_class<symbol>(e)) return true;
  if (is_class<numeric>(e)) return ex_to<numeric>(e).is_rational();
  if (is_class<add>(e) || is_class<mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i)
      if (!monomial_quotient(e.op(i), denominators)) return false;
    return true;
  }
  if (is_class<power>(e) && is_class<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_integer()) {
    if (ex_to<numeric>(e.op(1)).is_negative()) {
      if (!is_class<symbol>(e.op(0))) return false;
      denominators.insert(e.op(0));
      return true;
    }
    return monomial_quotient(e.op(0), denominators);
  }
  return false;
}

// Over a common denominator, factored: N * (2 * N * P - N - P) / (2 * P ^ 2) rather than
// 0.5 * N ^ 2 / P ^ 2 - 0.5 * N / P + N ^ 2 * (P - 1) / P ^ 2. Only when every symbol that
// divides in x still divides in the result, so both fail at the same points (no
// cancellation turns a division by zero into a value); nullopt otherwise.
// Only for the small fractions that sums produce (1/2, 1/6, ...): a model's constants
// (2e-6 K N + 5e-9 K N^2 / P) read better as the terms the user wrote.
// Each factor of a product expanded: factor() may nest ((2 p + 1) N - P, or 2 N - P (c - 1)
// for 2 N + P - P c) by GiNaC's term order, which depends on the executable's layout; an
// expanded factor prints in the printer's order.
ex flat_factors(const ex& product) {
  ex out = 1;
  for (const ex& f : is_class<mul>(product) ? exvector(product.begin(), product.end()) : exvector{product})
    out *= is_class<power>(f) ? GiNaC::pow(f.op(0).expand(), f.op(1)) : f.expand();
  return out;
}

std::optional<ex> factor_over_common_denominator(const ex& x) {
  std::set<ex, ex_is_less> den;
  // Three terms at least: two rarely print shorter over one denominator, and every try costs
  // a normal() and two factor() calls.
  if (!is_class<add>(x) || x.nops() < 3 || x.nops() > 8 || !monomial_quotient(x, den) || den.empty())
    return std::nullopt;
  // Few symbols only (N, P and one more): a sum over many machine constants is the user's own
  // breakdown, and factoring it costs more than the rest of the simplification (adi_j).
  std::set<ex, ex_is_less> symbols;
  std::function<void(const ex&)> collect = [&](const ex& e) {
    if (is_class<symbol>(e)) symbols.insert(e);
    for (size_t i = 0; i < e.nops(); ++i) collect(e.op(i));
  };
  collect(x);
  if (symbols.size() > 3) return std::nullopt;
  bool small = true;
  std::function<void(const ex&)> coefficients = [&](const ex& e) {
    if (is_class<numeric>(e)) {
      const numeric& n = ex_to<numeric>(e);
      small = small && n.denom() <= 24 && abs(n.numer()) <= 1000;
      return;
    }
    for (size_t i = 0; i < e.nops(); ++i) coefficients(e.op(i));
  };
  coefficients(x);
  if (!small) return std::nullopt;
  ex nd = x.normal().numer_denom();
  ex d = nd.op(1);
  for (const ex& s : den)
    if (!d.has(s)) return std::nullopt;
  return flat_factors(factor_polynomial(nd.op(0).expand())) / flat_factors(factor_polynomial(d.expand()));
}

// q with t ^ n written t for each t of zero_one (atoms that are 0 or 1) and whole n >= 1.
ex zero_one_powers(const ex& q, const std::set<ex, ex_is_less>& zero_one) {
  if (is_class<power>(q) && zero_one.count(q.op(0)) && is_class<numeric>(q.op(1)) && ex_to<numeric>(q.op(1)).is_pos_integer())
    return q.op(0);
  if (!is_class<add>(q) && !is_class<mul>(q)) return q;
  exvector v;
  for (const ex& o : q) v.push_back(zero_one_powers(o, zero_one));
  return is_class<add>(q) ? ex(add(v)) : ex(mul(v));
}

// A sum holding c (y mod K) and c K floor(y / K) holds c y there: y mod K is y - K floor(y / K)
// for every y and K != 0 (floor semantics), so the pair is the quotient and remainder of y
// put back together (a queue's 0.5 ((N - 1) mod W) + 0.5 W floor((N - 1) / W) + 0.5 is
// 0.5 N). Every pair found is merged; nullopt when there is none. An identity.
std::optional<ex> merge_quotient_remainder(const ex& x) {
  if (!is_class<add>(x)) return std::nullopt;
  exvector terms(x.begin(), x.end());
  bool merged = false;
  for (size_t a = 0; a < terms.size(); ++a) {
    ex m, c = 1;
    for (const ex& u : is_class<mul>(terms[a]) ? exvector(terms[a].begin(), terms[a].end()) : exvector{terms[a]}) {
      if (m.is_zero() && pamela_function(u) == Fn::Mod) m = u;
      else c *= u;
    }
    if (m.is_zero()) continue;
    const ex &y = m.op(0), &K = m.op(1);
    for (size_t b = 0; b < terms.size(); ++b) {
      if (b == a) continue;
      // terms[b] = floor(y / K) * rest with rest = c K (the rounding's argument as written
      // may be y / K expanded)
      ex fl, rest = 1;
      for (const ex& u : is_class<mul>(terms[b]) ? exvector(terms[b].begin(), terms[b].end()) : exvector{terms[b]}) {
        if (fl.is_zero() && pamela_function(u) == Fn::Floor && (u.op(0) * K - y).expand().is_zero()) fl = u;
        else rest *= u;
      }
      if (fl.is_zero() || !(rest - c * K).expand().is_zero()) continue;
      terms[a] = (c * m.op(0)).expand();
      terms[b] = 0;
      merged = true;
      break;
    }
  }
  if (!merged) return std::nullopt;
  ex out = 0;
  for (const ex& t : terms) out += t;
  return out;
}

// x read as a polynomial in its symbols and atoms: every node that is not a symbol, number,
// sum, product or power to a number (floor, ceil, mod, min, max, comparisons, reductions)
// becomes a temporary symbol, the same one for equal nodes, outermost first (a rounding
// inside another stays inside it). `to_atom` reads the symbols back.
struct Atomized {
  exmap to_sym, to_atom;
  std::vector<ex> roundings;          // the symbols of floor and ceil, in order of meeting
  std::set<ex, ex_is_less> zero_one;  // the symbols of comparisons (0 or 1)
  ex poly;
  explicit Atomized(const ex& x) {
    struct Walk : map_function {
      Atomized& a;
      explicit Walk(Atomized& a_) : a(a_) {}
      ex operator()(const ex& e) override {
        if (is_class<symbol>(e) || is_class<numeric>(e)) return e;
        if (is_class<add>(e) || is_class<mul>(e) || (is_class<power>(e) && is_class<numeric>(e.op(1)))) return e.map(*this);
        auto it = a.to_sym.find(e);
        if (it != a.to_sym.end()) return it->second;
        symbol t("_atom" + std::to_string(a.to_sym.size()));
        a.to_sym[e] = t;
        a.to_atom[t] = e;
        Fn fn = pamela_function(e);
        if (fn == Fn::Floor || fn == Fn::Ceil) a.roundings.push_back(t);
        if (is_comparison(e)) a.zero_one.insert(t);
        return t;
      }
    } walk(*this);
    poly = walk(x);
  }
  // y (in x's atoms or not) with x's atoms as symbols, for comparing with poly.
  ex read(const ex& y) {
    struct Walk : map_function {
      const exmap& to_sym;
      explicit Walk(const exmap& m) : to_sym(m) {}
      ex operator()(const ex& e) override {
        if (is_class<symbol>(e) || is_class<numeric>(e)) return e;
        if (is_class<add>(e) || is_class<mul>(e) || (is_class<power>(e) && is_class<numeric>(e.op(1)))) return e.map(*this);
        auto it = to_sym.find(e);
        return it != to_sym.end() ? it->second : e;
      }
    } walk(to_sym);
    return walk(y);
  }
};

// A sum collected over its roundings: x is a polynomial in symbols and atoms (floor, ceil,
// mod, min, max, reductions: each a temporary symbol), and the terms that hold a rounding
// r are gathered as (r + s) * cofactor, s in {-1, 0, 1}, the cofactor written in r again.
// Sums over a count of blocks carry r + 1 everywhere: the wavefront's
// 2 (b + 1) c - (a + 1)^2 P - ... - 2 b - 2 reads (a + 1) (4 N - 2 c - P a) + (b + 1) (2 c - P b - 2).
// Each term goes to the first rounding it holds (roundings in printed order); the shifts
// of up to three roundings are tried and the shortest text kept. nullopt when none is
// shorter than x. An identity of polynomials, so the value never changes (checked).
std::optional<ex> collect_over_roundings(const ex& x) {
  if (!is_class<add>(x) || x.nops() < 4 || x.nops() > 16) return std::nullopt;
  Atomized at(x);
  const exmap& to_atom = at.to_atom;
  std::vector<ex> roundings = at.roundings;
  ex p = at.poly;
  // A comparison is 0 or 1, so its whole powers are itself (cmp_power's theorem): the
  // square a rounding's shift leaves, (2 - (2 <= P)) ^ 2, is gathered as one term.
  if (!at.zero_one.empty()) p = zero_one_powers(p.expand(), at.zero_one);
  if (roundings.empty() || roundings.size() > 3 || !plain_polynomial(p)) return std::nullopt;
  // Gathered first: the roundings of highest degree, then those in the most terms (a count
  // squared in a sum of counts; ceil(N) beside it only multiplies), then printed order.
  ex pe = p.expand();
  auto rank = [&](const ex& r) {
    int terms = 0;
    for (const ex& t : is_class<add>(pe) ? exvector(pe.begin(), pe.end()) : exvector{pe}) terms += t.has(r);
    return std::make_tuple(-pe.degree(r), -terms, to_pamela(to_atom.at(r)));
  };
  std::sort(roundings.begin(), roundings.end(), [&](const ex& a, const ex& b) { return rank(a) < rank(b); });
  std::string best = to_pamela(x);
  std::optional<ex> out;
  const size_t n = roundings.size();
  size_t combos = 1;
  for (size_t k = 0; k < n; ++k) combos *= 3;
  for (size_t c = 0; c < combos; ++c) {
    std::vector<int> shift(n);
    for (size_t k = 0, m = c; k < n; ++k, m /= 3) shift[k] = static_cast<int>(m % 3) - 1;
    // y_k = r_k + s_k: substitute r_k = y_k - s_k, expand, gather by the first y_k.
    exmap down, up;
    std::vector<symbol> ys;
    for (size_t k = 0; k < n; ++k) {
      ys.emplace_back("_y" + std::to_string(k));
      down[roundings[k]] = ys[k] - shift[k];
      up[ys[k]] = roundings[k] + shift[k];
    }
    ex q = p.subs(down, subs_options::no_pattern).expand();
    std::vector<ex> cof(n, 0);
    ex rest = 0;
    for (const ex& t : is_class<add>(q) ? exvector(q.begin(), q.end()) : exvector{q}) {
      size_t k = 0;
      while (k < n && !t.has(ys[k])) ++k;
      if (k == n) rest += t;
      else cof[k] += t;
    }
    ex y = rest.subs(up, subs_options::no_pattern).expand();
    for (size_t k = 0; k < n; ++k) {
      if (cof[k].is_zero()) continue;
      ex inner = (cof[k] / ys[k]).expand().subs(up, subs_options::no_pattern).expand();
      y += (roundings[k] + shift[k]) * inner;
    }
    ex candidate = y.subs(to_atom, subs_options::no_pattern);
    std::string text = to_pamela(candidate);
    if (text.size() < best.size()) {
      best = text;
      out = candidate;
    }
  }
  // Read back into the same atoms (top-down: a rounding inside another stays inside it).
  if (out && !(at.read(*out) - p).expand().is_zero()) return std::nullopt;
  return out;
}

// A sum that holds a product of sums, C + C * (b - 1), expanded where that prints shorter
// (C * b): x is read as a polynomial in its symbols and atoms (floor, ceil, mod, min, max,
// comparisons, reductions: each a temporary symbol). Kept only where every atom of x is
// still in the result, so no term that may have no value cancels away. nullopt otherwise.
std::optional<ex> expand_when_shorter(const ex& x) {
  if (!is_class<add>(x) || x.nops() > 16) return std::nullopt;
  // A guard times a sum (if/else arms, (n < eager) * (...)) keeps its shape: it reads as
  // the model's branches.
  bool product_of_sum = false;
  for (const ex& t : x)
    if (is_class<mul>(t)) {
      bool guarded = false, sum = false;
      for (const ex& f : t) {
        guarded = guarded || is_comparison(f);
        sum = sum || is_class<add>(f);
      }
      if (guarded && sum) return std::nullopt;
      product_of_sum = product_of_sum || sum;
    }
  if (!product_of_sum) return std::nullopt;
  Atomized at(x);
  const ex& p = at.poly;
  if (!plain_polynomial(p)) return std::nullopt;
  ex q = p.expand();
  for (const auto& [atom, t] : at.to_sym)
    if (!q.has(t)) return std::nullopt;
  // The expanded form, or that factored where it prints shorter still; not over more than
  // four symbols and atoms, where a factor would mix machine constants that read better as
  // one term each (N (N - 1) / 2 t_add + ...).
  ex candidate = q.subs(at.to_atom, subs_options::no_pattern);
  std::set<ex, ex_is_less> names;
  for (const_preorder_iterator it = q.preorder_begin(); it != q.preorder_end(); ++it)
    if (is_class<symbol>(*it)) names.insert(*it);
  // A factor worth a look needs three terms and a square: a * (N - P (a - 1) / 2) from a
  // class's rows (a sum of two terms or a multilinear one prints about as short expanded).
  bool square = false;
  for (const ex& n : names) square = square || q.degree(n) >= 2;
  const bool worth = names.size() <= 4 && square && is_class<add>(q) && q.nops() >= 3;
  ex fq = worth ? flat_factors(factor_polynomial(q)) : q;
  if (!fq.is_equal(q) && (fq - q).expand().is_zero()) {
    ex fc = fq.subs(at.to_atom, subs_options::no_pattern);
    if (to_pamela(fc).size() < to_pamela(candidate).size()) candidate = fc;
  }
  if (to_pamela(candidate).size() >= to_pamela(x).size()) return std::nullopt;
  return candidate;
}

// Readable output: a polynomial sum is replaced by its factored form when that prints
// shorter (N * (N + 1) / 2 rather than 0.5 * N + 0.5 * N ^ 2). factor() is exact, so the
// value never changes. Bottom-up, so polynomials inside max, reductions etc. are tidied too.
// Memoized per node (no facts involved); `fired` counts tidy_factor as the uncached walk would.
struct Tidy : map_function {
  TidyMemo& c;
  long fired = 0;
  explicit Tidy(TidyMemo& c_) : c(c_) {}
  ex operator()(const ex& e) override {
    if (e.nops() == 0) return e;
    auto it = c.find(e);
    if (it != c.end()) {
      fired += it->second.fired;
      return it->second.result;
    }
    long f0 = fired;
    ex x = e.map(*this);
    if (auto qr = merge_quotient_remainder(x)) x = *qr;
    bool changed = false;
    if (is_class<add>(x) && plain_polynomial(x)) {
      ex fx = factor_polynomial(x);
      if (!fx.is_equal(x) && to_pamela(fx).size() < to_pamela(x).size() && (fx - x).expand().is_zero()) {
        ++fired;
        x = fx;
        changed = true;
      }
    } else if (auto fx = factor_over_common_denominator(x)) {
      if (!fx->is_equal(x) && to_pamela(*fx).size() < to_pamela(x).size() && (*fx - x).normal().is_zero()) {
        ++fired;
        x = *fx;
        changed = true;
      }
    }
    if (!changed) {
      if (auto cx = collect_over_roundings(x)) {
        ++fired;
        x = *cx;
      } else if (auto ex_ = expand_when_shorter(x)) {
        ++fired;
        x = *ex_;
      }
    }
    if (auto px = sign_canonical(x)) x = *px;
    c.emplace(e, TidyEntry{x, fired - f0});
    return x;
  }
};

}  // namespace

ex tidy(const ex& e, TidyMemo& memo, long& fired) {
  Tidy t(memo);
  ex out = t(e);
  fired += t.fired;
  return out;
}

}  // namespace pamc::sym
