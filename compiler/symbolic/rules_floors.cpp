// Rewrite rules for floor, ceil and div: integer arguments, integer shifts, windows of width
// one, and sums of floors (of a polynomial times a floor, of block starts). See rules.h.
#include "compiler/symbolic/rules.h"

#include <functional>
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

// sum (i) { ... F(x + c i) ... } with F = floor, ceil or div, where c = +-X / Y for X and Y
// distinct integer symbols (a Px x Py grid's Px / Py): with "X / Y is an integer" (Y
// divides X), c i is an integer and F(x + c i) = F(x) + c i, so the sum reads as a
// polynomial one (a 2-D cyclic triangle's busiest rows, floor((N - 1 - Px t) / Py)). For
// unrelated X and Y such a sum has no elementary closed form. The condition is assumed,
// recorded and checked where not proved (the evaluators use the model where it fails), but
// not where X <= Y is a fact (a block owner's P / N for P <= N: then it would almost never
// hold). Tried after the other sum rules, on the first such rounding in the body.
std::optional<ex> rule_sum_floor_ratio(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  Facts in = f;
  in.declare_index(r->index(), r->lb(), r->ub());
  std::optional<ex> found;
  exmap swap;
  for (const_preorder_iterator it = r->body().preorder_begin(); it != r->body().preorder_end() && !found; ++it) {
    Fn fn = pamela_function(*it);
    if ((fn != Fn::Floor && fn != Fn::Ceil && fn != Fn::Div) || !it->has(i)) continue;
    ex x = fn == Fn::Div ? (it->op(0) / it->op(1)).expand() : it->op(0).expand();
    if (!x.is_polynomial(i) || x.degree(i) != 1) continue;
    ex c = x.coeff(i, 1), nd = c.numer_denom(), num = nd.op(0), den = nd.op(1);
    if (is_class<mul>(num) && num.nops() == 2 && num.op(1).is_equal(-1)) num = num.op(0);
    if (!is_class<symbol>(num) || !is_class<symbol>(den) || num.is_equal(den) || in.provably_integer(c)) continue;
    if (!f.provably_integer(num) || !f.provably_integer(den) || f.provably_nonneg(den - num)) continue;
    if (f.mentions_index(num) || f.mentions_index(den)) continue;
    ex k = (c * i).expand(), rest = (x - k).expand();
    swap[*it] = (fn == Fn::Ceil ? ceil_of(rest) : floor_of(rest)) + k;  // div is a floor
    found = num / den;
  }
  if (!found || !require({{true, *found}}, f, a)) return std::nullopt;
  return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(), r->body().subs(swap, subs_options::no_pattern));
}

// Quotient and remainder read together: y mod K = y - K floor(y / K) for every y and K != 0,
// so a rounding whose argument holds +-(y mod K) / K holds +-y / K and the integer
// -+floor(y / K), which comes out: floor(x + s (y mod K) / K) = floor(x + s y / K) -
// s floor(y / K) (s = +-1; ceil alike). floor((N - 1 - (N - 1) mod P) / P) is (N - 1) div P,
// the last index of a residue class counted in blocks. And with
// K > 0 and y an integer (proved), 0 <= y mod K <= K - 1, so floor((y mod K) / K) =
// ceil(-(y mod K) / K) = 0, floor(-(y mod K + 1) / K) = -1 and ceil((y mod K + 1) / K) = 1.
std::optional<ex> rule_floor_quotient(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Floor && fn != Fn::Ceil) return std::nullopt;
  ex x = e.op(0).expand();
  for (const ex& t : operands_of(x, true)) {
    ex r, c = 1;
    for (const ex& u : operands_of(t, false)) {
      if (r.is_zero() && pamela_function(u) == Fn::Mod) r = u;
      else c *= u;
    }
    if (r.is_zero()) continue;
    const ex K = r.op(1), s = (c * K).expand();
    if (!s.is_equal(1) && !s.is_equal(-1)) continue;
    // x = s (r + d) / K with d a number: r + d within [0, K - 1] or [1, K] gives a constant.
    ex d = ((x - t) * K * s).expand();
    if (is_class<numeric>(d) && f.provably_positive(K) && f.provably_integer(r)) {
      bool fl = fn == Fn::Floor;
      if (d.is_zero() && fl == s.is_equal(1)) return ex(0);                  // floor(r / K), ceil(-r / K)
      if (d.is_equal(1) && fl == s.is_equal(-1)) return ex(fl ? -1 : 1);   // floor(-(r + 1) / K), ceil((r + 1) / K)
    }
    // x = rest + s (y mod K) / K = rest + s y / K - s floor(y / K): the whole floor(y / K)
    // comes out of the rounding (floor(z + n) = floor(z) + n), so no remainder stays inside
    // a rounding over its own modulus. floor((N - 1 - k mod Q) / Q) - floor(k / Q), the
    // items of k's residue class in k..N - 1, is floor((N - 1 - k) / Q).
    ex rest = (x - t).expand(), q = (r.op(0) / K).expand();
    // With a number K only where y / K - (y mod K) / K cancels to floor(y / K): elsewhere
    // the residue rules read floor((P - ph mod 2) / 2) by the period 2 of ph mod 2.
    if (is_class<numeric>(K)) {
      exvector have = operands_of(rest, true);
      bool all = s.is_equal(-1);
      for (const ex& u : operands_of(q, true))
        all = all && std::any_of(have.begin(), have.end(), [&](const ex& h) { return h.is_equal(u); });
      if (!all) continue;
    }
    ex arg = (rest + s * q).expand();
    ex whole = s * floor_of(q);
    return (fn == Fn::Floor ? floor_of(arg) : ceil_of(arg)) - whole;
  }
  return std::nullopt;
}

// A rounding of a rounding: floor((floor(x) + m) / k) = floor((x + m) / k) and
// ceil((ceil(x) + m) / k) = ceil((x + m) / k) for k a positive integer and m an integer (both
// proved), x real: the k-blocks' ends are integers, so x and its floor lie in the same block
// (ceil(ceil(N / C) / P), the rounds of ceil(N / C) chunks over P processors, is ceil(N / (C P))).
// Exact for every value where the facts hold.
// A ceil of a floor, outside a loop's body, first turns the outer rounding: ceil(n / k) =
// floor((n + k - 1) / k) for an integer n (the inner floor plus m) and k a positive integer:
// ceil(floor(N / W) / (P / g)), the rounds of every W-th item over a deal's period, is
// floor((N + W (P / g - 1)) / (W P / g)).
std::optional<ex> rule_floor_nested(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Floor && fn != Fn::Ceil) return std::nullopt;
  ex y = e.op(0).expand();
  // The one inner rounding of the kind `kind` (nullopt: two different ones).
  auto inner_of = [&](Fn kind) -> std::optional<ex> {
    ex found;
    for (const ex& t : operands_of(y, true))
      for (const ex& factor : operands_of(t, false))
        if (pamela_function(factor) == kind) {
          if (found.is_zero()) found = factor;
          else if (!factor.is_equal(found)) return std::nullopt;
        }
    return found;
  };
  auto same = inner_of(fn);
  if (!same) return std::nullopt;
  ex inner = *same;
  // Mixed kinds, a floor inside a ceil, only outside a loop's body: there a floor of an
  // integer, floor((n - w - 1) / W) with n = ceil(N / C), is the form the sums over w read
  // (sum_floor_ratio).
  if (inner.is_zero() && fn == Fn::Ceil && !f.mentions_index(e))
    if (auto fl = inner_of(Fn::Floor)) inner = *fl;
  if (inner.is_zero()) return std::nullopt;
  const Fn in_fn = pamela_function(inner);
  // y = (inner + m) / k: the coefficient of inner is 1 / k; m = k y - inner.
  symbol z("_z");
  ex yz = y.subs(exmap{{inner, z}}, subs_options::no_pattern).expand();
  if (!yz.is_polynomial(z) || yz.degree(z) != 1 || yz.ldegree(z) < 0) return std::nullopt;
  ex inv_k = yz.coeff(z, 1), rest = yz.coeff(z, 0);
  if (inv_k.has(z) || rest.has(z) || inv_k.is_zero()) return std::nullopt;
  ex k = (1 / inv_k).normal();
  ex m = (k * rest).expand();
  if (!f.provably_integer(k) || !f.provably_positive(k) || !f.provably_integer(m)) return std::nullopt;
  // The outer ceil turned to a floor: (inner + m + k - 1) / k.
  if (in_fn != fn) m = (m + k - 1).expand();
  ex arg = ((inner.op(0) + m) / k).expand();
  return in_fn == Fn::Floor ? floor_of(arg) : ceil_of(arg);
}

// A rounding of a power of two over a processor count, in a sum over a level d: sum (d) {
// ... F(c 2 ^ E(d) / P) ... } with F floor or ceil, c = 2 ^ m (m an integer), E linear in d
// and an integer (proved), P a parameter. With log2(P) an integer (proved, else assumed and
// checked: the processor count of a tree is a power of two), the argument is 2 ^ e, e = m +
// E(d) - log2(P) an integer, and F(2 ^ e) = (0 <= e) 2 ^ e + (e <= -1) (for ceil; 0 for
// floor): 2 ^ e is an integer for e >= 0 and lies in (0, 1 / 2] for e <= -1. The guards are
// linear in d, so the sum splits where e changes sign and each part is geometric (the
// levels of a tree over P processors: ceil(2 ^ (L - d) / P) is 1 once a level has fewer
// items than processors). Exact wherever the assumption holds.
std::optional<ex> rule_sum_power_rounding(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& d = r->index_ex();
  Facts fd = f;
  fd.declare_index(r->index(), r->lb(), r->ub());
  // The first floor or ceil (outside inner loops) whose argument reads as c 2 ^ E / P.
  std::optional<ex> node;
  ex P, E = 0;
  long m = 0;
  std::function<void(const ex&)> find = [&](const ex& x) {
    if (node || is_class<reduction>(x)) return;
    Fn fn = pamela_function(x);
    if ((fn == Fn::Floor || fn == Fn::Ceil) && x.op(0).has(d)) {
      ex arg = x.op(0).expand(), p, exps = 0;
      numeric c = 1;
      bool ok = true;
      for (const ex& t : operands_of(arg, false)) {
        if (is_class<numeric>(t)) c *= ex_to<numeric>(t);
        else if (is_class<power>(t) && t.op(0).is_equal(2)) exps += t.op(1);
        else if (is_class<power>(t) && is_class<symbol>(t.op(0)) && t.op(1).is_equal(-1) && p.is_zero()) p = t.op(0);
        else ok = false;
      }
      const ex lc = log2_of(c);  // a number exactly where c is a power of two
      ex ex_d = exps.expand();
      if (ok && is_class<numeric>(lc) && ex_to<numeric>(lc).is_integer() && !p.is_zero() && ex_d.has(d) && ex_d.is_polynomial(d) && ex_d.degree(d) == 1 &&
          fd.provably_integer(ex_d)) {
        node = x;
        P = p;
        E = ex_d;
        m = ex_to<numeric>(lc).to_long();
        return;
      }
    }
    for (size_t k = 0; k < x.nops(); ++k) find(x.op(k));
  };
  find(r->body());
  if (!node) return std::nullopt;
  if (!require({{true, log2_of(P)}}, f, a)) return std::nullopt;
  ex expo = (E + m - log2_of(P)).expand();
  ex value = compare(Cmp::Le, 0, expo) * node->op(0);
  if (pamela_function(*node) == Fn::Ceil) value += compare(Cmp::Le, expo, -1);
  return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(),
                           r->body().subs(exmap{{*node, value}}, subs_options::no_pattern));
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
  // The near end rounded outward: ceil(-1 / W) for W >= 2 lies in (-1, 0], its interval
  // [-1/2, 0) has no closed integer end, and 0 = ceil(0) is the candidate.
  if (!near.inf && near.v.is_rational() && !closed_int(near)) {
    numeric n = fl ? floor_num(near.v) : -floor_num(-near.v);
    if (constant_at(n)) return n;
  }
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

// A floor relative to a residue: for a loop index j with 0 <= j <= T - 1, T a positive
// integer and a an integer free of j (all proved), write a = q T + r with q = floor(a / T),
// r = a mod T, 0 <= r < T; then (a - j) / T = q + (r - j) / T with -T < r - j < T, so
//   floor((a - j) / T) = floor(a / T) - (a mod T < j),
// and likewise floor((a + j) / T) = floor(a / T) + (T - a mod T <= j). The floor becomes a
// step in j at a symbolic breakpoint, which the breakpoint rules split: the count of a
// worker w's items, (1 <= w) + floor((N - w) / W) over w = 0..W - 1, times a weight rising
// in w. Exact for every j in the range (proved).
std::optional<ex> rule_floor_residue(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::Floor || !f.mentions_index(e.op(0))) return std::nullopt;
  ex nd = e.op(0).normal().numer_denom();
  const ex num = nd.op(0).expand(), T = nd.op(1);
  if (is_class<numeric>(T) || !f.provably_integer(T) || !f.provably_positive(T)) return std::nullopt;
  for (const_preorder_iterator it = num.preorder_begin(); it != num.preorder_end(); ++it) {
    if (!is_class<symbol>(*it) || !f.mentions_index(*it)) continue;
    const ex j = *it;
    auto lin = linear_in(num, j);
    if (!lin || (lin->first != 1 && lin->first != -1)) continue;
    const ex a = lin->second;
    if (a.has(j) || !f.provably_integer(a) || !f.provably_nonneg(j) || !f.provably_nonneg(T - 1 - j)) continue;
    const ex q = floor_of(a / T), r = mod_of(a, T);
    if (lin->first == -1) return q - compare(Cmp::Lt, r, j);
    return q + compare(Cmp::Le, T - r, j);
  }
  return std::nullopt;
}

// sum (i = lb, ub) { B } where B is a polynomial (degree <= 4) in roundings of one quotient
// and in i: every floor, ceil or div (a div b = floor(a / b)) in B that holds i is F((s i +
// e) / Q) for one Q free of i and one s = +-1, with offsets that agree up to whole
// multiples of Q once a ceil is written as a floor (ceil(j / Q) = floor((j + Q - 1) / Q)
// for integers j, Q): each is then
// floor(j / Q) + m for j = s i + e0 and an integer m, and B = sum_d g_d(i) floor(j / Q) ^ d
// with g_d polynomials in i (free coefficients). With h_d(j) = g_d(i), the sum is F(J1) -
// F(J0 - 1) over the j range, where F(n) = sum_d T_d(A - 1) + A ^ d (G_d(n) - G_d(A Q - 1)),
// A = floor((n + 1) / Q), G_d an antiderivative of h_d and T_d one of t ^ d (G_d(t Q + Q - 1) -
// G_d(t Q - 1)) (full blocks t = 0..A-1 of Q values of j, each with floor(j / Q) = t, then the
// partial block): F(n) - F(n - 1) = B at j = n holds for every integer n, negative too. The
// square is an LU step's cyclic load summed over the steps, ceil((N - k) / P) ^ 2, and on a
// 2-D grid ceil((N - k) / Q) (floor((N - k - 1) / Q) + 1) (a row count times a column count).
// Side conditions: Q a positive integer (proved, or assumed where Q is one parameter the model
// leaves unbounded: with a real Q the blocks are uneven); e0 an integer (proved, or proved to
// differ from lb or ub by an integer); lb, ub integers (proved or assumed); guarded for a
// possibly empty range.
std::optional<ex> rule_sum_floor_poly(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  // The roundings that hold i, outside inner reductions (there B is not a polynomial anyway).
  exvector rounds;
  std::function<bool(const ex&)> walk = [&](const ex& x) {
    if (!x.has(i)) return true;
    if (is_class<reduction>(x)) return false;
    Fn fn = pamela_function(x);
    if (fn == Fn::Floor || fn == Fn::Ceil || (fn == Fn::Div && !x.op(1).has(i))) {
      if (std::none_of(rounds.begin(), rounds.end(), [&](const ex& y) { return y.is_equal(x); })) rounds.push_back(x);
      return rounds.size() <= 4;
    }
    for (size_t k = 0; k < x.nops(); ++k)
      if (!walk(x.op(k))) return false;
    return true;
  };
  if (!walk(r->body()) || rounds.empty()) return std::nullopt;
  rounds = sorted_by_text(rounds);
  // Each rounding as (s, Q, e') with floor((s i + e') / Q) its floor form.
  struct Form {
    int s;
    ex Q, e, raw;  // raw: e before a ceil's shift by Q - 1
  };
  std::vector<Form> forms;
  for (const ex& fl : rounds) {
    // a div b is floor(a / b) for every real a and b != 0
    ex x = (pamela_function(fl) == Fn::Div ? fl.op(0) / fl.op(1) : fl.op(0)).expand();
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
    ex raw = normal(x0 * Q).expand();
    forms.push_back({s, Q, pamela_function(fl) == Fn::Ceil ? (raw + Q - 1).expand() : raw, raw});
  }
  const ex Q = forms[0].Q, e0 = forms[0].e;
  const int s = forms[0].s;
  // The others as floor((s i + e0) / Q) + m: the same Q and s, e - e0 a whole multiple of Q.
  symbol z("_z");
  exmap to_z;
  for (size_t k = 0; k < forms.size(); ++k) {
    if (forms[k].s != s || !(forms[k].Q - Q).expand().is_zero()) return std::nullopt;
    ex m = normal((forms[k].e - e0) / Q);
    if (!is_class<numeric>(m) || !ex_to<numeric>(m).is_integer()) return std::nullopt;
    to_z[rounds[k]] = z + m;
  }
  ex body = r->body().subs(to_z, subs_options::no_pattern).expand();
  if (body.has(i) && !body.is_polynomial(i)) return std::nullopt;
  if (!body.is_polynomial(z) || body.ldegree(z) < 0 || body.degree(z) > 4 || body.degree(z) < 1) return std::nullopt;
  const int dz = body.degree(z);
  std::vector<ex> gd(dz + 1);
  for (int d = 0; d <= dz; ++d) {
    gd[d] = body.coeff(z, d).expand();
    if (gd[d].has(z) || !gd[d].is_polynomial(i) || gd[d].ldegree(i) < 0 || gd[d].degree(i) > 8) return std::nullopt;
    // The coefficients of g_d must not hide another index-dependent function.
    for (int k = 0; k <= gd[d].degree(i); ++k)
      if (gd[d].coeff(i, k).has(i)) return std::nullopt;
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
  // The offset before a ceil's shift by Q - 1 (an integer, proved or assumed) must be one.
  const ex& raw = forms[0].raw;
  if (!f.provably_integer(raw) && !f.provably_integer((raw - r->ub()).expand()) &&
      !f.provably_integer((raw - r->lb()).expand()))
    return std::nullopt;
  for (const ex& fl : rounds)
    if (may_fail(fl, fq) && !f.provably_nonneg(r->ub() - r->lb()) && !cannot_fail_or_assume(fl, fq, a))
      return std::nullopt;
  if (!require(conds, f, a)) return std::nullopt;
  symbol j("_j"), t("_t");
  // i = s (j - e0); the j range.
  ex J0 = s > 0 ? r->lb() + e0 : e0 - r->ub(), J1 = s > 0 ? r->ub() + e0 : e0 - r->lb();
  auto F = [&](const ex& n) {
    ex A = floor_of((n + 1) / Q);
    ex total = 0;
    for (int d = 0; d <= dz; ++d) {
      if (gd[d].is_zero()) continue;
      ex h = gd[d].subs(exmap{{i, s * (j - e0)}}).expand();
      auto G = [&](const ex& m) { return antiderivative(h, j, m); };
      ex T = antiderivative((pow(t, d) * (G(t * Q + Q - 1) - G(t * Q - 1))).expand(), t, t);
      total += T.subs(exmap{{t, A - 1}}) + pow(A, d) * (G(n) - G(A * Q - 1));
    }
    return total;
  };
  ex count = r->ub() - r->lb() + 1;
  return nonempty_guard(count, f) * (F(J1.expand()) - F((J0 - 1).expand())).expand();
}

// sum (i = lb, ub) { g0(i) + g1 * F(a y / Q) } with F = floor, ceil or div, y = +-i + e, a
// an integer with 2 <= |a| <= 8, g1 free of i: the rounding of a multiple, read through the
// rounding of y and the residue of y. With y = Q q + r (q = floor(y / Q), 0 <= r = y mod Q
// <= Q - 1), a y / Q = a q + a r / Q, and floor(a r / Q) counts the m = 1..a - 1 with m Q / a
// <= r, that is ceil(m Q / a) <= r (r an integer): floor(a y / Q) = a floor(y / Q) + sum (m =
// 1, a - 1) { (ceil(m Q / a) <= y mod Q) }; ceil(a y / Q) = -floor(a (-y) / Q). So the sum
// becomes one of floor(y / Q) (sum_floor_poly) and a - 1 counts of a residue above a
// threshold (the residue rules). The steps of a strided cyclic deal summed over a shrinking
// range: ceil(3 (N - k) / P) over k = 1..N. Side conditions: y an integer (e proved one);
// Q a positive integer (proved, or assumed where Q is one parameter the model
// leaves unbounded, as sum_floor_poly does); a an integer. Exact for every integer y.
std::optional<ex> rule_sum_floor_multiple(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  std::optional<ex> round;
  std::function<bool(const ex&)> walk = [&](const ex& x) {
    if (!x.has(i)) return true;
    if (is_class<reduction>(x)) return false;
    Fn fn = pamela_function(x);
    if (fn == Fn::Floor || fn == Fn::Ceil || fn == Fn::Div) {
      if (round && !round->is_equal(x)) return false;  // one rounding only
      round = x;
      return true;
    }
    for (size_t k = 0; k < x.nops(); ++k)
      if (!walk(x.op(k))) return false;
    return true;
  };
  if (!walk(r->body()) || !round) return std::nullopt;
  const Fn fn = pamela_function(*round);
  if (fn == Fn::Div && round->op(1).has(i)) return std::nullopt;
  ex x = (fn == Fn::Div ? round->op(0) / round->op(1) : round->op(0)).expand();
  if (!x.is_polynomial(i) || x.degree(i) != 1 || x.ldegree(i) < 0) return std::nullopt;
  ex c = x.coeff(i, 1), x0 = x.coeff(i, 0);
  if (c.has(i) || x0.has(i)) return std::nullopt;
  // c = n / Q with n a whole number, 2 <= |n| <= 8, and Q the rest.
  ex nd = normal(c).numer_denom();
  ex num = nd.op(0), Q = nd.op(1);
  numeric n = 1;
  if (is_class<numeric>(num)) {
    n = ex_to<numeric>(num);
  } else if (is_class<mul>(num) && is_class<numeric>(num.op(num.nops() - 1))) {
    n = ex_to<numeric>(num.op(num.nops() - 1));
    Q = Q / (num / n);
  } else {
    return std::nullopt;
  }
  if (!n.is_integer() || abs(n) < 2 || abs(n) > 8 || Q.has(i)) return std::nullopt;
  const int s = n.is_positive() ? 1 : -1;
  const long am = abs(n).to_long();
  ex y = (s * i + normal(x0 * Q / abs(n))).expand();  // x = a y / Q with a = |n|
  ex ey = (y - s * i).expand();
  // y an integer, proved: floor((3 k + 1) / 4) is 3 y / 4 with y = k + 1 / 3, and floor((2 k -
  // n - 1) / P) needs an odd n (an assumption that fails at every even n: other rules read
  // it whole).
  if (!f.provably_integer(ey)) return std::nullopt;
  // The body, linear in the rounding with a coefficient free of i.
  symbol z("_z");
  ex body = r->body().subs(exmap{{*round, z}}, subs_options::no_pattern).expand();
  if (!body.is_polynomial(z) || body.degree(z) != 1 || body.ldegree(z) < 0) return std::nullopt;
  ex g1 = body.coeff(z, 1);
  if (g1.has(i) || g1.has(z)) return std::nullopt;
  std::vector<Cond> conds{{true, r->lb()}, {true, r->ub()}};
  if (!f.provably_positive(Q) || !f.provably_integer(Q)) {
    if (!is_class<symbol>(Q) || f.mentions_index(Q)) return std::nullopt;
    if (!f.provably_positive(Q)) conds.push_back({false, Q - 1});
    if (!f.provably_integer(Q)) conds.push_back({true, Q});
  }
  if (!require(conds, f, a)) return std::nullopt;
  // floor(a w / Q) for an integer w, as the rounding of w and the residue of w.
  auto floor_multiple = [&](const ex& w) {
    ex out = am * floor_of(w / Q);
    for (long m = 1; m < am; ++m) out += compare(Cmp::Le, ceil_of(m * Q / am), mod_of(w, Q));
    return out;
  };
  ex value = fn == Fn::Ceil ? -floor_multiple(-y) : floor_multiple(y);
  return rebuild_reduction(*r, ReduceKind::Sum, r->lb(), r->ub(),
                           r->body().subs(exmap{{*round, value}}, subs_options::no_pattern));
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

// x mod k = x and x div k = 0 where 0 <= x < k (proved, k > 0): the residue of a processor
// number p = 0..P - 1 is p itself (t / (2 - (p mod P) mod 2) over the processors is
// t / (2 - p mod 2)). Exact on the window, which is proved for every value of the facts;
// mod here is a - k floor(a / k), so a real x in [0, k) is its own residue.
std::optional<ex> rule_mod_window(const ex& e, const Facts& f, Assumptions&) {
  Fn fn = pamela_function(e);
  if (fn != Fn::Mod && fn != Fn::Div) return std::nullopt;
  const ex &x = e.op(0), &k = e.op(1);
  if (is_class<numeric>(x) && is_class<numeric>(k)) return std::nullopt;  // folded already
  if (!f.provably_positive(k) || !f.provably_nonneg(x) || !f.provably_positive(k - x)) return std::nullopt;
  return fn == Fn::Mod ? x : ex(0);
}

// (x mod W) mod m = x mod m where m divides W: x mod W = x - W floor(x / W), and W floor(x /
// W) is a whole multiple of m when W / m is an integer (proved: a guard W mod 2 == 0 from a
// case on gcd(2, W), or a fact "2 divides W"), so the two residues by m agree, for every
// real x. A worker's speed by the parity of its place among W, (j mod W) mod 2, is the
// parity of j itself when W is even. Side conditions: m a positive whole number, W > 0 and
// W / m an integer (proved). (Two numbers fold already.)
std::optional<ex> rule_mod_of_mod(const ex& e, const Facts& f, Assumptions&) {
  if (pamela_function(e) != Fn::Mod || pamela_function(e.op(0)) != Fn::Mod) return std::nullopt;
  const ex &m = e.op(1), &W = e.op(0).op(1), &x = e.op(0).op(0);
  if (!is_class<numeric>(m) || !ex_to<numeric>(m).is_pos_integer() || W.is_equal(m) || is_class<numeric>(W))
    return std::nullopt;
  if (!f.provably_integer(W / m) || !f.provably_positive(W)) return std::nullopt;
  return mod_of(x, m);
}

// sum (i = lb, ub) { B } where i occurs inside roundings by numbers: floor(c i + x), ceil(c
// i + x), (a i + e) div m and (a i + e) mod m (c = a / m) with c a rational number, x free
// of i, and some c not an integer (an odd-even phase's k div 2, ceil(k / 2)). With L the
// least common multiple of the c's denominators (2..6) and i = L u + rho for rho = 0..L -
// 1, c L u is an integer, so floor(c i + x) = c L u + floor(c rho + x) (the same for ceil
// and div), and (a i + e) mod m = (a rho + e) mod m: the sum is sum over rho of sum (u =
// ceil((lb - rho) / L), floor((ub - rho) / L)) { B(L u + rho) } with those roundings linear
// in u, which the other sum rules close (sum (k = 0, N - 1) { ceil((floor(N / 2) - ceil(k /
// 2)) / P) }). The substitution is an identity at every integer i, so B may hold i anywhere
// else too. Side conditions: lb, ub integers (proved or assumed); guarded where the range
// may be more than one short of non-empty (the u ranges would then count items the range
// lacks). Tried after the other sum rules; a load whose position holds i is the vector
// rules'.
std::optional<ex> rule_sum_rounding_split(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r) return std::nullopt;
  const ex& i = r->index_ex();
  struct Rounding {
    ex node, slope, rest;  // node = F(slope i + rest); for div and mod, over the modulus
    Fn fn;
  };
  std::vector<Rounding> rounds;
  long L = 1;
  bool fractional = false;
  std::function<bool(const ex&)> walk = [&](const ex& x) {
    if (!x.has(i)) return true;
    Fn fn = pamela_function(x);
    bool by_number = (fn == Fn::Div || fn == Fn::Mod) && is_class<numeric>(x.op(1)) &&
                     ex_to<numeric>(x.op(1)).is_pos_integer();
    if (fn == Fn::Floor || fn == Fn::Ceil || by_number) {
      ex arg = (by_number ? x.op(0) / x.op(1) : x.op(0)).expand();
      if (arg.is_polynomial(i) && arg.degree(i) == 1 && arg.ldegree(i) >= 0) {
        ex c = arg.coeff(i, 1), rest = (arg - c * i).expand();
        if (is_class<numeric>(c) && ex_to<numeric>(c).is_rational() && !rest.has(i)) {
          long den = ex_to<numeric>(c).denom().to_long();
          L = std::lcm(L, den);
          fractional = fractional || den > 1;
          auto same = [&](const Rounding& y) { return y.node.is_equal(x); };
          if (std::none_of(rounds.begin(), rounds.end(), same)) rounds.push_back({x, c, rest, fn});
          return L <= 6;
        }
      }
    }
    for (size_t k = 0; k < x.nops(); ++k)
      if (!walk(x.op(k))) return false;
    return true;
  };
  if (!walk(r->body()) || !fractional || L < 2 || position_mentions(r->body(), i)) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  // GiNaC substitutes inside a node before it compares the node with the map's keys, so the
  // roundings go first (in terms of u), then i.
  GiNaC::symbol u("_u");
  ex total = 0;
  for (long rho = 0; rho < L; ++rho) {
    exmap m;
    for (const Rounding& x : rounds) {
      ex step = x.slope * L * u;  // an integer for every integer u
      ex at = x.slope * rho + x.rest;
      switch (x.fn) {
        case Fn::Floor: m[x.node] = step + floor_of(at); break;
        case Fn::Ceil: m[x.node] = step + ceil_of(at); break;
        case Fn::Div: m[x.node] = step + floor_of(at); break;
        default: m[x.node] = mod_of((at * x.node.op(1)).expand(), x.node.op(1)); break;
      }
    }
    ex body = r->body().subs(m, subs_options::no_pattern);
    body = body.subs(exmap{{i, L * u + rho}}, subs_options::no_pattern);
    body = body.subs(exmap{{u, i}}, subs_options::no_pattern);
    ex lo = ceil_of((r->lb() - rho) / L), hi = floor_of((r->ub() - rho) / L);
    total += rebuild_reduction(*r, ReduceKind::Sum, lo, hi, body);
  }
  return nonempty_guard(r->ub() - r->lb() + 1, f) * total;
}

}  // namespace pamc::sym
