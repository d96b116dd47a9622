// Rewrite rules for max/min of several arguments: dominated arguments dropped (also a vector's
// peak against a bound), common factors, ratios and common terms taken out. See rules.h.
#include "compiler/symbolic/rules.h"
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
#include <map>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

// max(a_1, ..., a_n): drop a_j when another argument a_k has a_k - a_j >= 0 provable
// (for min: a_j - a_k >= 0). Of several such a_j, the first in printed-text order, so the
// result does not depend on GiNaC's argument order (printing is only needed then). An a_j
// that may fail (a min over a range that may be empty, a division) is kept unless the
// dominating a_k fails wherever it does (fails_with: both divide by C): where it has no
// value the max has none, and dropping it for an a_k that has one would give one.
std::optional<ex> rule_max_dominated(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  exvector args = m.args();
  // The arguments' values at the refutation points, once for all pairs: a pair that is
  // ordered the other way at one of them has no proof, and is not asked. The points stop
  // once every pair is refuted.
  const size_t n = args.size();
  std::vector<char> below(n * n, 0);  // below[lo * n + hi]: args[hi] < args[lo] at some point
  size_t left = n * (n - 1);
  f.visit_values(args, [&](const std::vector<std::optional<numeric>>& row) {
    for (size_t lo = 0; lo < n; ++lo)
      for (size_t hi = 0; hi < n; ++hi)
        if (lo != hi && !below[lo * n + hi] && row[lo] && row[hi] && *row[hi] < *row[lo]) {
          below[lo * n + hi] = 1;
          --left;
        }
    return left == 0;
  });
  auto refuted = [&](size_t lo, size_t hi) { return below[lo * n + hi] != 0; };
  auto dominated = [&](size_t j) {
    // An argument that may fail is dropped only for one that fails wherever it does.
    bool fails = may_fail(args[j], f);
    for (size_t k = 0; k < args.size(); ++k)
      if (k != j && (!fails || fails_with(args[j], args[k], f)) &&
          !(m.is_max() ? refuted(j, k) : refuted(k, j)) &&
          f.provably_nonneg(m.is_max() ? args[k] - args[j] : args[j] - args[k]))
        return true;
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

// max(x^m * a_1, ..., x^m * b_n) = x^m * max(a_1, ..., a_n) for a common factor x^m (m the
// least integer exponent of x over the arguments) with x^m provably >= 0; e.g.
// max(10.1 N, 0.1 P N) = N max(10.1, 0.1 P) when N >= 0. Same for min.
std::optional<ex> rule_max_factor(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  // Each argument as its number times its other factors (base, exponent). A sum is taken in
  // one sign, the one that prints first (N - k - 1 rather than k - N + 1), its sign moved to
  // the number: which sign factor() leaves follows GiNaC's term order, and the common
  // factor must not depend on it.
  struct Factored {
    ex number = 1;
    std::vector<std::pair<ex, long>> factors;
  };
  auto factors_of = [](const ex& arg) {
    Factored out;
    for (const ex& t : operands_of(arg, false)) {
      if (is_class<numeric>(t)) {
        out.number *= t;
        continue;
      }
      ex base = t;
      long n = 1;
      if (is_class<power>(t) && is_class<numeric>(t.op(1)) && ex_to<numeric>(t.op(1)).is_pos_integer()) {
        base = t.op(0);
        n = ex_to<numeric>(t.op(1)).to_long();
      }
      if (is_class<add>(base)) {
        ex flipped = -base;
        std::string a = to_pamela(base), b = to_pamela(flipped);
        if (b.size() < a.size() || (b.size() == a.size() && b < a)) {
          base = flipped;
          if (n % 2) out.number = -out.number;
        }
      }
      out.factors.emplace_back(base, n);
    }
    return out;
  };
  std::vector<Factored> per_arg;
  for (const ex& arg : m.args()) per_arg.push_back(factors_of(arg));
  // The bases common to all arguments, each with its least exponent.
  std::vector<std::pair<ex, long>> common;
  for (const auto& [base, n] : per_arg[0].factors) {
    long least = n;
    bool in_all = true;
    for (size_t j = 1; j < per_arg.size() && in_all; ++j) {
      const auto& fs = per_arg[j].factors;
      auto it = std::find_if(fs.begin(), fs.end(), [&b = base](const auto& p) { return p.first.is_equal(b); });
      if (it == fs.end()) in_all = false;
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
    for (const Factored& arg : per_arg) {
      ex r = arg.number;
      for (const auto& [b, n] : arg.factors) r *= GiNaC::pow(b, b.is_equal(base) ? n - least : n);
      rest.push_back(r);
    }
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
    exvector tried;  // a symbol met again has the same coefficient
    for (auto it = xe.preorder_begin(); it != xe.preorder_end(); ++it) {
      if (!is_class<symbol>(*it)) continue;
      if (std::any_of(tried.begin(), tried.end(), [&](const ex& s) { return s.is_equal(*it); })) continue;
      tried.push_back(*it);
      ex cx = xe.coeff(*it, 1);
      if (!is_class<numeric>(cx) || cx.is_zero()) continue;
      ex cy = ye.coeff(*it, 1);
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

namespace {

// One test of a case guard, (k mod a == s) with a and s numbers, 0 <= s < a <= 64.
struct CaseTest {
  ex k;
  long a, s;
};
std::optional<CaseTest> case_test(const ex& t) {
  if (pamela_function(t) != Fn::Eq) return std::nullopt;
  ex md = t.op(0), r = t.op(1);
  if (pamela_function(md) != Fn::Mod) std::swap(md, r);
  if (pamela_function(md) != Fn::Mod || !is_class<numeric>(r) || !is_class<numeric>(md.op(1))) return std::nullopt;
  const numeric &a = ex_to<numeric>(md.op(1)), &s = ex_to<numeric>(r);
  if (!a.is_pos_integer() || a > 64 || !s.is_integer() || s.is_negative() || s >= a) return std::nullopt;
  return CaseTest{md.op(0), a.to_long(), s.to_long()};
}

}  // namespace

namespace detail {

// A sum of cases on k mod a: e = sum_j [guard_j] x_j whose guards (sums of case_test's, all
// on one k) split the residues of an integer k (proved) mod m, the lcm of their moduli,
// into disjoint classes that cover them all, so exactly one guard is 1 at every point. The
// (guard, x) pairs; nullopt otherwise.
std::optional<std::vector<std::pair<ex, ex>>> residue_cases(const ex& e, const Facts& f) {
  if (!is_class<add>(e)) return std::nullopt;
  std::vector<std::pair<ex, ex>> cases;
  std::vector<CaseTest> tests;  // every case's tests
  for (const ex& t : operands_of(e, true)) {
    ex guard, rest = 1;
    for (const ex& x : operands_of(t, false)) {
      auto mod_test = [](const ex& y) {
        return pamela_function(y) == Fn::Eq && (pamela_function(y.op(0)) == Fn::Mod || pamela_function(y.op(1)) == Fn::Mod);
      };
      bool test = mod_test(x) || (is_class<add>(x) && std::all_of(x.begin(), x.end(), mod_test));
      if (test && guard.is_zero()) guard = x;
      else rest *= x;
    }
    if (guard.is_zero()) return std::nullopt;
    for (const ex& g : operands_of(guard, true)) {
      auto ct = case_test(g);
      if (!ct || !ct->k.is_equal(tests.empty() ? ct->k : tests[0].k)) return std::nullopt;
      tests.push_back(*ct);
    }
    cases.emplace_back(guard, rest);
  }
  if (cases.size() < 2) return std::nullopt;
  long m = 1;
  for (const CaseTest& t : tests)
    if ((m = std::lcm(m, t.a)) > 720) return std::nullopt;
  std::vector<bool> hit(m, false);  // the residues mod m some test admits
  for (const CaseTest& t : tests)
    for (long x = t.s; x < m; x += t.a) {
      if (hit[x]) return std::nullopt;  // two tests at one residue
      hit[x] = true;
    }
  if (std::count(hit.begin(), hit.end(), false) != 0 || !f.provably_integer(tests[0].k)) return std::nullopt;
  return cases;
}

}  // namespace detail

// F(sum_j [guard_j] x_j) = sum_j [guard_j] F(x_j) for cases on k mod a (residue_cases: at
// every point exactly one guard is 1), F a max/min or a rounding: each case is then
// simplified where its guard holds (P mod 2 == 0 makes P / 2 an integer), and a max with a
// constant, max(ceil(2 n / P) [P even] + ceil(n / P) [P odd], 1), sees each case alone.
// Exact at every point: the one guard that is 1 picks x_j on both sides; the cases whose
// guard is 0 add 0 (the zero-factor rule). Side condition: k an integer (proved), else no
// guard holds (k = 5 / 2) and the left side is F(0).
std::optional<ex> rule_case_lift(const ex& e, const Facts& f, Assumptions&) {
  bool ext = is_class<extremum>(e);
  Fn fn = pamela_function(e);
  if (!ext && fn != Fn::Floor && fn != Fn::Ceil) return std::nullopt;
  exvector args = ext ? ex_to<extremum>(e).args() : exvector{e.op(0)};
  for (size_t k = 0; k < args.size(); ++k) {
    auto cases = residue_cases(args[k], f);
    if (!cases) continue;
    ex out = 0;
    for (const auto& [guard, x] : *cases) {
      exvector with = args;
      with[k] = x;
      ex fx = ext ? (ex_to<extremum>(e).is_max() ? make_max(with) : make_min(with)) : (fn == Fn::Floor ? floor_of(x) : ceil_of(x));
      out += guard * fx;
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace pamc::sym
