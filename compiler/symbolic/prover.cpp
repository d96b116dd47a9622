// The prover: proofs that an expression is >= 0 (or > 0) under the facts (see facts.h).
// Interval arithmetic first (facts.cpp's range()), then retries that make symbolic bounds
// explicit, split a max/min into its arguments, compare an integer with a rounding exactly,
// relax floor, ceil and mod to their linear bounds, and split an integer into 0 and >= 1.
// Every retry is sound on its own; a proof that fails takes back what it logged.
#include "compiler/symbolic/facts.h"
#include "compiler/symbolic/exact_size.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/normal_memo.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules_internal.h"  // shared_factors

#include <algorithm>
#include <functional>
#include <set>
#include <optional>

namespace pamc::sym {

using namespace GiNaC;

namespace {

void add_linear_bounds(Facts& f, const ex& d, bool strict) {
  for (const LinearBound& b : linear_bounds(d, f, strict))
    b.lower ? f.add_lower(b.s, b.bound, b.strict) : f.add_upper(b.s, b.bound, b.strict);
}

}  // namespace

std::vector<LinearBound> linear_bounds(const ex& d, const Facts& f, bool strict) {
  std::vector<LinearBound> out;
  ex x = d.expand();
  std::set<ex, ex_is_less> syms;
  for (const_preorder_iterator it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_a<symbol>(*it)) syms.insert(*it);
  for (const ex& s : syms) {
    const symbol& v = ex_to<symbol>(s);
    if (!f.is_declared(v) || !x.is_polynomial(s) || x.degree(s) != 1 || x.ldegree(s) < 0) continue;
    ex c = x.coeff(s, 1), r = x.coeff(s, 0);
    if (!is_a<numeric>(c) || !ex_to<numeric>(c).is_real() || c.is_zero() || r.has(s)) continue;
    out.push_back({v, (-r / c).expand(), ex_to<numeric>(c).is_positive(), strict});
  }
  return out;
}

// What a comparison's value says, as facts: a <= b at 1 is b - a >= 0, at 0 is a - b > 0;
// a < b at 1 is b - a > 0, at 0 is a - b >= 0; a == b at 1 is both; a != b at 0 likewise.
void comparison_case(Facts& f, const ex& cmp, bool holds) {
  const ex d = cmp.op(1) - cmp.op(0);
  switch (pamela_function(cmp)) {
    case Fn::Le: holds ? add_linear_bounds(f, d, false) : add_linear_bounds(f, -d, true); break;
    case Fn::Lt: holds ? add_linear_bounds(f, d, true) : add_linear_bounds(f, -d, false); break;
    case Fn::Eq:
    case Fn::Ne:
      if (holds == (pamela_function(cmp) == Fn::Eq)) {
        add_linear_bounds(f, d, false);
        add_linear_bounds(f, -d, false);
      }
      break;
    default: break;
  }
}

namespace {
// The distinct subexpressions of e that `pick` accepts, outside every reduction (inside one
// they may depend on its index), in preorder; a picked node is not searched further.
exvector outside_reductions(const ex& e, bool (*pick)(const ex&)) {
  exvector out;
  std::function<void(const ex&)> walk = [&](const ex& x) {
    if (is_class<reduction>(x)) return;
    if (pick(x)) {
      for (const ex& y : out)
        if (y.is_equal(x)) return;
      out.push_back(x);
      return;
    }
    for (size_t i = 0; i < x.nops(); ++i) walk(x.op(i));
  };
  walk(e);
  return out;
}
bool is_extremum_node(const ex& x) { return is_class<extremum>(x); }
bool is_rounding(const ex& x) { return pamela_function(x) == Fn::Floor || pamela_function(x) == Fn::Ceil; }
bool is_remainder(const ex& x) { return pamela_function(x) == Fn::Mod; }
// The first of v in printed-text order, not GiNaC's operand order: which max, rounding or
// remainder a retry splits decides whether it proves, and that must not follow the
// executable's layout (GiNaC's order does).
std::optional<ex> first_of(const exvector& v) {
  if (v.empty()) return std::nullopt;
  if (v.size() == 1) return v[0];
  size_t best = 0;
  std::string best_text = to_pamela(v[0]);
  for (size_t k = 1; k < v.size(); ++k) {
    std::string t = to_pamela(v[k]);
    if (t < best_text) best_text = std::move(t), best = k;
  }
  return v[best];
}
}  // namespace

namespace {

// Set while a factor of the top claim's product is proved (signed_factors): that proof, one
// level down, may still take the slack step.
bool& slack_for_factor() {
  thread_local bool on = false;
  return on;
}

// A power of a symbolic base with a large whole exponent ((N / P) ^ 1e9): expanding it, or
// what a substitution N = 1 + t makes of it, writes out the binomial theorem term by term.
bool has_large_power(const ex& e) {
  if (is_a<power>(e) && is_a<numeric>(e.op(1)) && !is_a<numeric>(e.op(0))) {
    const numeric& n = ex_to<numeric>(e.op(1));
    if (n.is_integer() && abs(n) > 64) return true;
  }
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_large_power(e.op(k))) return true;
  return false;
}

// Is x's common denominator (GiNaC's normal form, numer_denom_of) 1 without computing it?
// normal() brings sums, products and whole powers over one denominator, and treats every
// other node (a function such as a vector max, a reduction, a max) as an atom over 1, so a
// quotient inside an atom's arguments never reaches the denominator. x is over 1 when its
// sums, products and powers to positive whole exponents hold no negative power and no
// fraction: then the quotient retry has nothing to do, and normalizing the atoms' arguments
// (whole vectors of loads) was a third of a failed proof about two vector maxima.
bool over_one(const ex& x) {
  if (is_a<numeric>(x)) {
    const numeric& n = ex_to<numeric>(x);
    return n.is_integer() || (n.is_real() && !n.is_rational());
  }
  if (is_a<symbol>(x)) return true;
  if (is_a<add>(x) || is_a<mul>(x)) {
    for (size_t k = 0; k < x.nops(); ++k)
      if (!over_one(x.op(k))) return false;
    return true;
  }
  if (is_a<power>(x)) {
    if (!is_a<numeric>(x.op(1)) || !ex_to<numeric>(x.op(1)).is_pos_integer()) return false;
    return over_one(x.op(0));
  }
  return is_a<function>(x) || is_class<reduction>(x) || is_class<extremum>(x);
}

// The number of distinct bases x divides by where normal() brings x over one denominator
// (its sums, products and powers; atoms are over 1, as in over_one), stopping past `most`.
size_t denominators(const ex& x, std::vector<ex>& seen, size_t most) {
  if (seen.size() > most) return seen.size();
  if (is_a<add>(x) || is_a<mul>(x)) {
    for (size_t k = 0; k < x.nops(); ++k) denominators(x.op(k), seen, most);
  } else if (is_a<power>(x) && is_a<numeric>(x.op(1))) {
    if (ex_to<numeric>(x.op(1)).is_negative()) {
      if (std::none_of(seen.begin(), seen.end(), [&](const ex& b) { return b.is_equal(x.op(0)); })) seen.push_back(x.op(0));
    } else {
      denominators(x.op(0), seen, most);
    }
  }
  return seen.size();
}

}  // namespace

// x >= 0 (> 0) where x is linear in a power b ^ (d + c) of a loop index d (b > 1 and c
// numbers): the power rises with d, so with a negative coefficient it is replaced by its
// value at d's upper bound, with a positive one at the lower bound, and x proved there.
// A bound log2(X) + k gives b = 2 the value X 2 ^ k (2 ^ log2(X) is X), and then the
// index's range being non-empty says X >= 2 ^ (lb - k) for a numeric lower bound lb: a
// level d = 0 .. log2(P) - 1 of a tree has 2 ^ d + 1 <= P, as 2 ^ d <= P / 2 and P >= 2.
bool Facts::exponential_of_index(const ex& x, bool strict, int depth) const {
  if (depth > 1) return false;
  std::vector<ex> atoms;
  for (const_preorder_iterator it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_a<power>(*it) && is_a<numeric>(it->op(0)) && ex_to<numeric>(it->op(0)) > 1 && !is_a<numeric>(it->op(1)))
      atoms.push_back(*it);
  for (const ex& a : atoms) {
    if (x.degree(a) != 1 || x.ldegree(a) != 0) continue;
    ex coeff = x.coeff(a, 1), rest = x.coeff(a, 0);
    if (coeff.has(a) || rest.has(a)) continue;
    const numeric base = ex_to<numeric>(a.op(0));
    ex expo = a.op(1).expand();
    for (const auto& [s, inf] : info_) {
      if (!inf.index || !expo.has(s)) continue;
      if (expo.degree(s) != 1 || !expo.coeff(s, 1).is_equal(1)) continue;
      ex c = (expo - s).expand();
      if (!is_a<numeric>(c)) continue;
      bool down = provably_positive(-coeff), up = !down && provably_positive(coeff);
      if (!down && !up) continue;
      // the index's bounds on the side that makes x smallest
      std::vector<ex> ends;
      if (down) {
        for (const auto& [b, st] : inf.upper) ends.push_back(st ? b - 1 : b);  // an index: integer
        if (!inf.iv.hi.inf) ends.push_back(inf.iv.hi.v);
      } else {
        for (const auto& [b, st] : inf.lower) ends.push_back(st ? b + 1 : b);
        if (!inf.iv.lo.inf) ends.push_back(inf.iv.lo.v);
      }
      for (const ex& end : ends) {
        ex at = (end + c).expand();
        ex value;
        Facts g = *this;
        // b ^ n past the size of any exact number pamc keeps (a level from l = 1e400): not
        // computed (CLN would square for ever), and nothing is proved from that end.
        auto too_large = [](const numeric& b, const ex& n) {
          return is_a<numeric>(n) && ex_to<numeric>(n).is_rational() &&
                 power_bits(b, iquo(ex_to<numeric>(n).numer(), ex_to<numeric>(n).denom())) > kMaxExactBits;
        };
        if (is_a<numeric>(at)) {
          if (too_large(base, at)) continue;
          value = pow(a.op(0), at);
        } else if (base == 2) {
          // at = log2(X) + k
          ex lg, k = 0;
          for (const ex& t : is_a<add>(at) ? exvector(at.begin(), at.end()) : exvector{at}) {
            if (pamela_function(t) == Fn::Log2 && lg.is_zero()) lg = t;
            else k += t;
          }
          if (lg.is_zero() || !is_a<numeric>(k) || too_large(2, k)) continue;
          value = lg.op(0) * pow(ex(2), k);
          if (down && is_a<symbol>(lg.op(0)) && !inf.iv.lo.inf && inf.iv.lo.v.is_integer() &&
              !too_large(2, (inf.iv.lo.v - (k - c)).expand()))
            g.add_lower(ex_to<symbol>(lg.op(0)), pow(ex(2), inf.iv.lo.v - (k - c)), false);
        } else {
          continue;
        }
        if (g.prove_at((rest + coeff * value).expand(), strict, depth + 1)) return true;
      }
    }
  }
  return false;
}

bool Facts::prove_at(const ex& e, bool strict, int depth) const {
  // A step costs its terms too: the retries below expand and substitute the whole sum.
  if (!ProofWork::spend(1 + (is_a<add>(e) ? static_cast<long>(e.nops()) : 0))) return false;
  auto ok = [&](const Facts& f, const ex& x) {
    Interval r = f.range(x);
    return strict ? r.positive() : r.nonneg();
  };
  if (ok(*this, e)) return true;
  // Interval arithmetic only: every retry below expands (exponential in such a power).
  if (has_large_power(e)) return false;
  // A product whose factors each have a proved sign (>= 0 or <= 0; > 0 or < 0 for strict),
  // an even number of them negative with the number in front: the weight i (N - i + 1) of a
  // triangle's row over 1 <= i <= N - 1, where each factor needs its own bound (i >= 1; i <=
  // N - 1) and the expanded form needs both at once. GiNaC may hold it as -i (i - N - 1).
  // The factors of the top claim's own product get the slack step of the top level too (a
  // factor N - i + 1 with i <= N / P), one level down.
  auto factor_proof = [&](const ex& f) {
    struct Restore {  // also where GiNaC throws inside the proof
      bool was = slack_for_factor();
      ~Restore() { slack_for_factor() = was; }
    } restore;
    slack_for_factor() = depth == 0;
    return prove_at(f, strict, depth + 1);
  };
  auto signed_factors = [&](const ex& m) {
    int sign = 1;
    for (size_t k = 0; k < m.nops(); ++k) {
      const ex& f = m.op(k);
      if (is_a<numeric>(f)) {
        const numeric& c = ex_to<numeric>(f);
        if (!c.is_real() || c.is_zero()) return false;
        if (c.is_negative()) sign = -sign;
      } else if (!factor_proof(f)) {
        if (!factor_proof((-f).expand())) return false;
        sign = -sign;
      }
    }
    return sign > 0;
  };
  if (depth < 3 && is_a<mul>(e) && signed_factors(e)) return true;
  // A sum whose terms share a factor, as that product: t + t floor((N - k - 1) / P) is t (1 +
  // floor(...)), >= 0 (> 0) where each factor is, each proved on its own.
  if (depth < 3 && is_a<add>(e)) {
    auto g = detail::shared_factors(e);
    if (g && is_a<mul>(*g) && signed_factors(*g)) return true;
  }
  // One 0/1 test minus another, c1 - c2 >= 0: c2 implies c1, which holds where c1's slack
  // is at least c2's ((3 <= P) implies (2 <= P): P - 2 >= P - 3), strictly where c1 is
  // strict and c2 is not.
  // A product of 0/1 tests is at most each of them, so c1 - c2 c3 ... >= 0 where one c_j
  // implies c1.
  if (!strict && is_a<add>(e) && e.nops() == 2) {
    for (int k = 0; k < 2; ++k) {
      const ex &c1 = e.op(k), sub = -e.op(1 - k);
      Fn f1 = pamela_function(c1);
      if (f1 != Fn::Le && f1 != Fn::Lt) continue;
      exvector tests;
      if (is_a<mul>(sub)) tests.assign(sub.begin(), sub.end());
      else tests.push_back(sub);
      bool all_tests = true;
      for (const ex& c : tests) all_tests = all_tests && is_comparison(c);
      if (!all_tests) continue;
      for (const ex& c2 : tests) {
        Fn f2 = pamela_function(c2);
        if (f2 != Fn::Le && f2 != Fn::Lt) continue;
        ex slack = (c1.op(1) - c1.op(0)) - (c2.op(1) - c2.op(0));
        if (f1 == Fn::Lt && f2 == Fn::Le ? prove_at(slack, true, depth + 1) : prove_at(slack, false, depth + 1))
          return true;
      }
    }
  }
  // A product with a 0/1 test, c * h >= 0: where c is 0 the product is; where it is 1, its
  // condition a <= b (a < b) holds, and h >= 0 is proved with it as a bound on a symbol
  // that the condition's difference is linear in (the count (i - 1 <= N) * (N - i + 1)).
  if (!strict && is_a<mul>(e) && depth < 3) {
    for (size_t k = 0; k < e.nops(); ++k) {
      Fn fk = pamela_function(e.op(k));
      if (fk != Fn::Le && fk != Fn::Lt) continue;
      ex rest = 1;
      for (size_t j = 0; j < e.nops(); ++j)
        if (j != k) rest *= e.op(j);
      ex d = (e.op(k).op(1) - e.op(k).op(0)).expand();
      for (const auto& [s, inf] : info_) {
        if (!is_a<symbol>(s) || !d.has(s) || !d.is_polynomial(s) || d.degree(s) != 1) continue;
        ex c = d.coeff(s, 1);
        if (!is_a<numeric>(c)) continue;
        ex bound = (-d.coeff(s, 0) / c).expand();
        Facts g = *this;
        if (ex_to<numeric>(c).is_positive()) g.add_lower(ex_to<symbol>(s), bound, fk == Fn::Lt);
        else g.add_upper(ex_to<symbol>(s), bound, fk == Fn::Lt);
        if (g.prove_at(rest, false, depth + 1)) return true;
      }
    }
  }
  ex x = e.expand();
  if (!x.is_equal(e) && ok(*this, x)) return true;  // the same expression: the same range
  // Retry with symbolic bounds made explicit: s >= L becomes s = L + t, t >= 0 (t > 0 when
  // strict); s <= U becomes s = U - t. One symbol at a time, then all lower bounds at once.
  std::vector<std::pair<exmap, Facts>> tries;
  exmap all_lower, mixed;
  Facts all_facts = *this, mixed_facts;
  for (const auto& [s, inf] : info_) {
    if (!x.has(s)) continue;
    // A numeric lower bound other than 0 is shifted out the same way (P >= 1: P = 1 + t, so
    // N P - N = N t >= 0).
    if (inf.iv.lo.inf == 0 && !inf.iv.lo.v.is_zero() && inf.lower.empty() && !inf.index) {
      symbol t("_t");
      Facts f = *this;
      f.declare(t, "_t");
      if (inf.iv.lo.open) f.add_lower(t, 0, true);
      if (inf.integer && inf.iv.lo.v.is_integer()) f.declare_integer(t);
      tries.push_back({exmap{{s, inf.iv.lo.v + t}}, f});
      all_lower[s] = inf.iv.lo.v + t;
      all_facts.declare(t, "_t");
      if (inf.iv.lo.open) all_facts.add_lower(t, 0, true);
    }
    for (const auto& [b, st] : inf.lower) {
      symbol t("_t");
      Facts f = *this;
      f.declare(t, "_t");
      if (st) f.add_lower(t, 0, true);
      if (inf.integer && provably_integer(b)) f.declare_integer(t);
      tries.push_back({exmap{{s, b + t}}, f});
      if (!all_lower.count(s)) {
        all_lower[s] = b + t;
        all_facts.declare(t, "_t");
        if (st) all_facts.add_lower(t, 0, true);
      }
    }
    for (const auto& [b, st] : inf.upper) {
      symbol t("_t");
      Facts f = *this;
      f.declare(t, "_t");
      if (st) f.add_lower(t, 0, true);
      if (inf.integer && provably_integer(b)) f.declare_integer(t);
      tries.push_back({exmap{{s, b - t}}, f});
      // An index at its upper end with every other symbol at its lower one: (P - 1)(N - k)
      // >= 0 for k <= N - 1 and P >= 1 needs both at once.
      if (inf.index && !mixed.count(s)) {
        symbol u("_t");
        mixed[s] = b - u;
        mixed_facts.declare(u, "_t");
        if (st) mixed_facts.add_lower(u, 0, true);
      }
    }
  }
  if (all_lower.size() > 1) tries.push_back({all_lower, all_facts});
  if (!mixed.empty()) {
    exmap m = all_lower;
    for (const auto& [s, v] : mixed) m[s] = v.subs(all_lower);  // N - 1 - u with N = 2 + t
    if (m.size() > 1) {
      Facts g = all_facts;
      for (const auto& [s, v] : mixed)
        for (const auto& [sym, inf] : mixed_facts.info_)
          if (v.has(sym) && !g.is_declared(ex_to<symbol>(sym))) {
            g.declare(ex_to<symbol>(sym), "_t");
            if (inf.iv.lo.open) g.add_lower(ex_to<symbol>(sym), 0, true);
          }
      tries.push_back({m, g});
    }
  }
  for (const auto& [m, f] : tries) {
    ex y = x.subs(m).expand();
    if (ok(f, y)) return true;
    // Linear in its slacks with coefficients >= 0, y is least at slack 0, the bound itself:
    // N - i with i = N / P - t is N - N / P + t, proved from N - N / P >= 0, which its own
    // tactics prove (the shared factor N). Near the top only: the proof of y0 retries too.
    if (depth == 0 || (depth == 1 && slack_for_factor())) {
      // The slacks: the fresh symbols of the substituted values (declared by the try only).
      std::set<ex, ex_is_less> slacks;
      for (const auto& [sym, v] : m)
        for (const_preorder_iterator it = v.preorder_begin(); it != v.preorder_end(); ++it)
          if (is_a<symbol>(*it) && !info_.count(*it)) slacks.insert(*it);
      exmap at_bound;
      bool slack_ok = true;
      for (const ex& t : slacks)
        if (slack_ok && y.has(t)) {
          slack_ok = y.is_polynomial(t) && y.degree(t) == 1;
          ex c = slack_ok ? y.coeff(t, 1) : ex(0);
          slack_ok = slack_ok && is_a<numeric>(c) && !ex_to<numeric>(c).is_negative();
          at_bound[t] = 0;
        }
      if (slack_ok && !at_bound.empty() && f.prove_at(y.subs(at_bound).expand(), strict, depth + 1)) return true;
    }
    // A bound that rounds (i <= ceil(N / C) - 1) brings its floor or ceil in with it; relaxed,
    // N - C i >= 0 follows (C ceil(N / C) < N + C). Near the top only, one rounding only.
    if (depth <= 1 && mentions_index(x)) {
      exvector rs = outside_reductions(y, is_rounding);
      if (rs.size() == 1 && !x.has(rs[0]) && f.relaxed_rounding(y, rs[0], strict, depth)) return true;
    }
  }
  if (exponential_of_index(x, strict, depth)) return true;
  if (depth <= 1 && monotone_roundings(x, strict, depth)) return true;
  // A quotient: over a common denominator d > 0, the sign is the numerator's (N / P - 1 >= 0
  // from N - P >= 0 and P > 0). Only tried when x divides by something outside its atoms.
  // At most three distinct divisors: over more, the common denominator is a product that
  // normal() expands term by term (residue weights t / (1 + (i mod P) mod 2) under a cyclic
  // map wrote eight, and one proof took 10 s); the proof fails instead, the cautious side.
  std::vector<ex> divisors;
  if (has_negative_power(x) && !over_one(x) && denominators(x, divisors, 3) <= 3) {
    ex nd = numer_denom_of(x);
    if (!nd.op(1).is_equal(1) && !has_negative_power(nd.op(0)) && prove_at(nd.op(1), true, depth) &&
        prove_at(nd.op(0), strict, depth))
      return true;
  }
  // A max/min (outside reductions) equals one of its arguments at every point, so e holds
  // if it holds with each argument in its place, all occurrences alike: N - max(0, y) - 1
  // >= 0 from N - 1 >= 0 and N - y - 1 >= 0. Where e grows with it (linear, a max with a
  // positive coefficient or a min with a negative one), max(a, b) >= a, so one argument in
  // its place is enough: 9 - N + max(1, N - 2) >= 0 from 9 - N + N - 2 >= 0. Two levels at
  // most (the proofs multiply).
  if (depth < 2) {
    if (auto m = first_of(outside_reductions(e, is_extremum_node))) {
      const auto& mx = ex_to<extremum>(*m);
      ex ee = e.expand();
      ex c = ee.degree(*m) == 1 && ee.ldegree(*m) >= 0 ? ee.coeff(*m, 1) : ex(0);
      const bool any = is_class<numeric>(c) && (mx.is_max() ? ex_to<numeric>(c).is_positive() : ex_to<numeric>(c).is_negative());
      for (const ex& arg : mx.args()) {
        bool holds = prove_at(e.subs(exmap{{*m, arg}}, subs_options::no_pattern), strict, depth + 1);
        if (holds && any) return true;
        if (!holds && !any) return false;
      }
      return !any;
    }
    // An integer r plus or minus one floor or ceil compares with the rounding's argument
    // exactly: floor(y) >= -r iff y >= -r, ceil(y) <= r iff y <= r, ceil(y) >= -r iff
    // y > -r - 1, floor(y) <= r iff y < r + 1 (ceil((N - k) / P) <= N - k from N - k >= 0
    // and P >= 1, which no interval of the rounding shows). Exact, so nothing is lost.
    if (auto rounding = first_of(outside_reductions(x, is_rounding))) {
      ex rest = 0;
      int sign = 0;
      for (const ex& t : is_a<add>(x) ? exvector(x.begin(), x.end()) : exvector{x}) {
        if (t.is_equal(*rounding) && sign == 0) sign = 1;
        else if (t.is_equal(-*rounding) && sign == 0) sign = -1;
        else rest += t;
      }
      if (sign != 0 && !rest.has(*rounding) && provably_integer(rest)) {
        ex r = strict ? rest - 1 : rest;  // an integer > 0 is >= 1
        const ex& y = rounding->op(0);
        bool fl = pamela_function(*rounding) == Fn::Floor;
        bool done = sign > 0 ? (fl ? prove_at((r + y).expand(), false, depth + 1) : prove_at((r + 1 + y).expand(), true, depth + 1))
                             : (fl ? prove_at((r + 1 - y).expand(), true, depth + 1) : prove_at((r - y).expand(), false, depth + 1));
        if (done) return true;
      }
    }
    // The relaxations below: at the top level only, and only about a loop's body, where the
    // index makes interval arithmetic too coarse (elsewhere they cost more than they prove).
    const bool relax = depth == 0 && mentions_index(x);
    exvector roundings = relax ? outside_reductions(x, is_rounding) : exvector{};
    if (roundings.size() == 1 && relaxed_rounding(x, roundings[0], strict, depth)) return true;
    // An integer x >= 0 is 0 or at least 1, which a polynomial of degree >= 2 in x may need:
    // x (x - 1) >= 0 has no real proof over [0, 1]. x is an integer symbol or a registered
    // integer quotient such as N / P (N = x P); both cases must hold. Last, and only when x
    // enters at degree >= 2, since it doubles a proof.
    if (depth == 0 && integer_case_split(x, strict)) return true;
    // Comparisons are 0 or 1: with at most three of them (outside reductions), x holds if it
    // holds with each of them replaced by 0 and by 1, in every combination. Exact for the
    // comparisons and independent of how GiNaC happens to order or expand a product of
    // guards (((c - 1) (o - 1) - 1) w and its expansion prove alike); a combination the
    // facts would exclude is proved too, which only asks more.
    // Each case also knows what its comparisons' values say, where a comparison is linear in
    // a symbol of the facts (comparison_case): max(2 (2 <= P), 2 P - 2) is 2 P - 2 for
    // integers P >= 1, by P >= 2 where the test is 1 and P <= 1 where it is 0.
    if (depth == 0) {
      exvector cmps = outside_reductions(x, is_comparison);
      if (!cmps.empty() && cmps.size() <= 3) {
        // In printed-text order: the facts each case adds are then added in one order,
        // whatever GiNaC's operand order (which follows the executable's layout).
        std::sort(cmps.begin(), cmps.end(), [](const ex& a, const ex& b) { return to_pamela(a) < to_pamela(b); });
        bool all = true;
        for (unsigned m = 0; all && m < (1u << cmps.size()); ++m) {
          exmap at;
          Facts in_case = *this;
          for (size_t k = 0; k < cmps.size(); ++k) {
            at[cmps[k]] = (m >> k) & 1u;
            comparison_case(in_case, cmps[k], (m >> k) & 1u);
          }
          // A case no point meets ((i + 1 == 0) for i >= 0) holds vacuously.
          if (in_case.numerically_empty()) continue;
          all = in_case.prove_at(x.subs(at, subs_options::no_pattern).expand(), strict, depth + 1);
        }
        if (all) return true;
      }
    }
    // A remainder a mod k of integers with k > 0 lies in [0, k - 1]; interval arithmetic
    // only sees [0, k) with k unbounded, so it is written k - 1 - t, 0 <= t <= k - 1: P - 1 -
    // i mod P >= 0. One remainder per level, the first that qualifies. Also outside a loop:
    // (N - 1) mod P + 1 <= P, a residue class's last index, has no other proof.
    if (auto r = depth == 0 ? first_of(outside_reductions(x, is_remainder)) : std::nullopt) {
      const ex& k = r->op(1);
      if (provably_positive(k) && provably_integer(*r) && !k.has(r->op(0))) {
        symbol t("_t");
        Facts f = *this;
        f.declare(t, "_t");
        f.declare_integer(t);
        f.add_upper(t, k - 1, false);
        if (f.prove_at(x.subs(exmap{{*r, k - 1 - t}}, subs_options::no_pattern).expand(), strict, depth + 1))
          return true;
      }
    }
  }
  return false;
}

// floor(z) = z - 1 + u and ceil(z) = z + 1 - u for some u in (0, 1]: proved for every such
// u, the claim holds. For an integer x, x >= 0 is x > -1, which is what survives the
// relaxation: floor((N - p) / P) + 1 >= 0 for p <= P - 1 from (N - p) / P + 1 > 0. Used with
// exactly one floor or ceil: relaxing one of several rarely proves anything.
bool Facts::relaxed_rounding(const ex& x, const ex& fc, bool strict, int depth) const {
  bool fl = pamela_function(fc) == Fn::Floor;
  symbol u("_u");
  Facts f = *this;
  f.declare(u, "_u");
  f.add_lower(u, 0, true);
  f.add_upper(u, 1, false);
  ex target = !strict && provably_integer(x) ? x + 1 : x;
  bool st = strict || !target.is_equal(x);
  ex y = target.subs(exmap{{fc, fl ? fc.op(0) - 1 + u : fc.op(0) + 1 - u}}, subs_options::no_pattern).expand();
  return f.prove_at(y, st, depth + 1);
}

// floor and ceil are nondecreasing: c (F(y) - F(z)) + r >= 0 (> 0) for a number c > 0 where
// y - z >= 0 and r >= 0 (> 0), F one of floor and ceil for both: ceil((N - C) / (C P)) <=
// ceil(N / (C P)). Interval arithmetic sees two unrelated roundings.
bool Facts::monotone_roundings(const ex& x, bool strict, int depth) const {
  exvector rs = outside_reductions(x, is_rounding);
  if (rs.size() != 2 || pamela_function(rs[0]) != pamela_function(rs[1])) return false;
  symbol z0("_z"), z1("_z");
  ex xz = x.subs(exmap{{rs[0], z0}, {rs[1], z1}}, subs_options::no_pattern).expand();
  if (!xz.is_polynomial(lst{z0, z1}) || xz.degree(z0) != 1 || xz.degree(z1) != 1) return false;
  ex c0 = xz.coeff(z0, 1), c1 = xz.coeff(z1, 1);
  ex r = xz.coeff(z0, 0).coeff(z1, 0);
  if (!is_a<numeric>(c0) || !is_a<numeric>(c1) || !(c0 + c1).is_zero() || r.has(z0) || r.has(z1)) return false;
  const ex& up = ex_to<numeric>(c0).is_positive() ? rs[0] : rs[1];
  const ex& down = ex_to<numeric>(c0).is_positive() ? rs[1] : rs[0];
  return prove_at((up.op(0) - down.op(0)).expand(), false, depth + 1) && prove_at(r, strict, depth + 1);
}

bool Facts::integer_case_split(const ex& x, bool strict) const {
  // Not inside another split: the proofs below prove side conditions of their own.
  static thread_local bool splitting = false;
  if (splitting) return false;
  struct Guard {
    Guard() { splitting = true; }
    ~Guard() { splitting = false; }
  } guard;
  std::vector<std::pair<ex, ex>> candidates;  // (symbol s, q): x = s * q is the integer
  for (const auto& [s, inf] : info_)
    if (inf.integer && !inf.index && x.has(s) && inf.iv.lo.inf == 0 && inf.iv.lo.v.is_zero())
      candidates.push_back({s, 1});
  for (const ex& g : integer_exprs_) {
    if (!is_class<mul>(g)) continue;
    ex sym = 0, q = 1;
    for (size_t k = 0; k < g.nops(); ++k) {
      const ex& f = g.op(k);
      if (is_class<symbol>(f) && sym.is_zero() && x.has(f)) sym = f;
      else q *= f;
    }
    if (sym.is_zero() || q.has(sym) || !range(g).nonneg() || !range(q).positive()) continue;
    candidates.push_back({sym, q});
  }
  for (const auto& [s, q] : candidates) {
    symbol v("_x");
    ex y = x.subs(exmap{{s, v / q}}, subs_options::no_pattern).expand();
    if (y.has(s) || !y.is_polynomial(v) || y.degree(v) < 2 || y.degree(v) > 4) continue;
    Facts f = *this;
    f.declare(v, "_x");
    f.declare_integer(v);
    if (!f.prove_at(y.subs(exmap{{v, 0}}), strict, 3)) continue;
    if (f.prove_at(y.subs(exmap{{v, v + 1}}).expand(), strict, 3)) return true;
  }
  return false;
}

bool Facts::numerically_empty() const {
  for (const auto& [s, inf] : info_) {
    const End &lo = inf.iv.lo, &hi = inf.iv.hi;
    if (lo.inf != 0 || hi.inf != 0) continue;
    if (lo.v > hi.v || (lo.v == hi.v && (lo.open || hi.open))) return true;
  }
  return false;
}

bool Facts::mentions_index(const ex& e) const {
  for (const auto& [s, inf] : info_)
    if (inf.index && e.has(s)) return true;
  return false;
}

// provably_nonneg and provably_positive: proof_memo.cpp.

}  // namespace pamc::sym
