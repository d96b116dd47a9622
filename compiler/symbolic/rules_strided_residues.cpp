// Residue tests with a stride, ((a i + e) mod k == r): owner-computes loops that keep every
// other item (`if ((2 * i + 1) mod W == 0)`), even/odd phases split by parity, red-black
// sweeps. The counting and selection rules read a test of the index itself, (i + e) mod k
// == r; a stride becomes one by cases on k mod a, where it is a progression of i.
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <numeric>

namespace pamc::sym {

using namespace GiNaC;
using namespace detail;

namespace {

// The first (in printed-text order) test (m == r) or (m != r) in body with m = (a i + e) mod
// k, a a whole number with 2 <= |a| <= 4, and k, e, r free of i. A larger stride gives as
// many cases, and those multiply with the cases of the rules around (a residue split by 6
// wrote (6 i + 2) mod W: 36 cases, 20 s of compile where the loop left open takes 0.07 s).
struct Strided {
  ex test, k, d;  // d = e - r: the test says k divides a i + d (given 0 <= r < k)
  ex r;
  long a;
  bool eq;
};
std::optional<Strided> strided_test(const ex& body, const ex& i) {
  std::vector<std::pair<std::string, Strided>> found;
  for (const_preorder_iterator it = body.preorder_begin(); it != body.preorder_end(); ++it) {
    Fn fn = pamela_function(*it);
    if (fn != Fn::Eq && fn != Fn::Ne) continue;
    for (int side = 0; side < 2; ++side) {
      const ex& m = it->op(side);
      const ex& r = it->op(1 - side);
      if (pamela_function(m) != Fn::Mod || r.has(i) || m.op(1).has(i)) continue;
      auto lin = linear_in(m.op(0), i);
      if (!lin || !lin->first.is_integer()) continue;
      long a = lin->first.to_long();
      if (std::labs(a) < 2 || std::labs(a) > 4) continue;
      found.emplace_back(to_pamela(*it), Strided{*it, m.op(1), lin->second - r, r, a, fn == Fn::Eq});
      break;
    }
  }
  if (found.empty()) return std::nullopt;
  std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return found[0].second;
}

}  // namespace

// R (i = lb, ub) { B(i, (a i + e) mod k == r) } for R a sum, max or min, a a whole number
// with 2 <= |a| <= 4 (made positive by negating a i + d), k a positive integer and e, r
// integers (proved). For 0 <= r < k the test says k | a i + d, d = e - r. By cases c = k
// mod a (the guards (k mod a == c), free of i, exactly one of them 1): with g = gcd(a, c) =
// gcd(a, k), a' = a / g and k' = k / g coprime, k | a i + d iff g | d and k' | a' i + d / g,
// iff (i + (d / g) u) mod k' == 0 for u the inverse of a' mod k': u = (1 + k' t) / a' with
// t in 0..a' - 1 solving (c / g) t = -1 (mod a'), so that u = n0 + t (k - c) / a with the
// whole number n0 = (1 + (c / g) t) / a'; (k - c) / a is written floor(k / a), equal in the
// case and an integer everywhere, so that loop bounds built from it need no assumption.
// Then R distributes over the cases, exactly one being 1. The factor (0 <= r) (r <= k - 1) keeps the test false outside that range, and
// for a symbolic d the factor (d mod g == 0) says g | d. Side conditions: those above,
// proved. Exact at every point where the model has a value.
std::optional<ex> rule_strided_residue(const ex& e, const Facts& f, Assumptions&) {
  if (!is_class<reduction>(e)) return std::nullopt;
  const auto& red = ex_to<reduction>(e);
  if (red.kind() != ReduceKind::Sum && red.kind() != ReduceKind::Max && red.kind() != ReduceKind::Min) return std::nullopt;
  const ex& i = red.index_ex();
  auto s = strided_test(red.body(), i);
  if (!s) return std::nullopt;
  if (!f.provably_positive(s->k) || !f.provably_integer(s->k) || !f.provably_integer(s->d) || !f.provably_integer(s->r))
    return std::nullopt;
  long a = s->a;
  ex d = s->d;
  if (a < 0) a = -a, d = -d;
  ex valid = 1;
  if (!f.provably_nonneg(s->r)) valid *= compare(Cmp::Le, 0, s->r);
  if (!f.provably_nonneg(s->k - 1 - s->r)) valid *= compare(Cmp::Le, s->r, s->k - 1);
  const bool k_known = is_class<numeric>(s->k);
  ex out = 0;
  for (long c = 0; c < a; ++c) {
    if (k_known && !mod_of(s->k, a).is_equal(ex(c))) continue;
    const long g = std::gcd(a, c);  // gcd(a, 0) = a
    ex holds;                       // the test where k mod a == c
    // g | d: decided for a number d; else the test (d mod g == 0), beside which d / g is
    // written floor(d / g), equal there and an integer everywhere.
    ex divides = 1, quotient = d / g;
    if (g > 1 && !is_class<numeric>(d)) {
      divides = compare(Cmp::Eq, mod_of(d, g), 0);
      quotient = floor_of(d / g);
    }
    if (g > 1 && is_class<numeric>(d) && !(ex_to<numeric>(d) / g).is_integer()) {
      holds = 0;  // a i + d is never a multiple of g, which divides k
    } else {
      const long ap = a / g, cp = (c / g) % ap;
      long t = 0;
      while ((cp * t + 1) % ap != 0) ++t;  // cp is a unit mod ap: t < ap exists
      const long n0 = (1 + (c / g) * t) / ap;
      ex u = n0 + t * floor_of(s->k / a);  // (k - c) / a here, and an integer at every point
      ex shift = (quotient * u).expand();
      holds = divides * valid * compare(Cmp::Eq, mod_of(i + shift, s->k / g), 0);
    }
    ex test = s->eq ? holds : 1 - holds;
    ex body = red.body().subs(exmap{{s->test, test}}, subs_options::no_pattern);
    ex guard = k_known ? ex(1) : compare(Cmp::Eq, mod_of(s->k, a), c);
    out += guard * rebuild_reduction(red, red.kind(), red.lb(), red.ub(), body);
  }
  return out;
}

}  // namespace pamc::sym
