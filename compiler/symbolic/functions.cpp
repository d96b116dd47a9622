// Pamela's scalar functions and unit vectors as GiNaC functions: see functions.h.
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/class_test.h"

#include <cln/integer.h>

#include <cmath>
#include <map>

namespace pamc::sym {

using namespace GiNaC;

namespace {

DECLARE_FUNCTION_1P(pam_unitvec)
DECLARE_FUNCTION_1P(pam_vmax)
DECLARE_FUNCTION_1P(pam_floor)
DECLARE_FUNCTION_1P(pam_ceil)
DECLARE_FUNCTION_2P(pam_mod)
DECLARE_FUNCTION_2P(pam_div)
DECLARE_FUNCTION_2P(pam_eq)
DECLARE_FUNCTION_2P(pam_ne)
DECLARE_FUNCTION_2P(pam_lt)
DECLARE_FUNCTION_2P(pam_le)
DECLARE_FUNCTION_1P(pam_log2)
DECLARE_FUNCTION_2P(pam_gcd)

bool is_real_num(const ex& e) { return is_class<numeric>(e) && ex_to<numeric>(e).is_real(); }
bool is_rational_num(const ex& e) { return is_class<numeric>(e) && ex_to<numeric>(e).is_rational(); }

numeric floor_any(const numeric& x) {
  if (x.is_rational()) return floor_num(x);
  double d = std::floor(x.to_double());
  return numeric(d);
}

ex unitvec_eval(const ex& k) { return pam_unitvec(k).hold(); }

ex vmax_eval(const ex& v) {
  if (v.is_zero()) return 0;
  return pam_vmax(v).hold();
}

// The factors of a term with a negative integer exponent, as one product (N / W: W; 3 / 2:
// 1, a number's denominator is its coefficient's).
ex symbolic_denominator(const ex& t) {
  auto of_factor = [](const ex& f) -> ex {
    if (is_a<power>(f) && is_a<numeric>(f.op(1)) && ex_to<numeric>(f.op(1)).is_integer() &&
        ex_to<numeric>(f.op(1)).is_negative())
      return pow(f.op(0), -f.op(1));
    return 1;
  };
  if (!is_a<mul>(t)) return of_factor(t);
  ex d = 1;
  for (size_t k = 0; k < t.nops(); ++k) d *= of_factor(t.op(k));
  return d;
}

// One argument form for a rounding: a sum whose terms share one symbolic denominator is
// written over it (1 / W + N / W and (N + 1) / W are one floor, so two rules that build
// the same rounding differently meet; the printed form reads as a quotient).
ex rounding_argument(const ex& x) {
  if (!is_a<add>(x)) return x;
  ex d;
  for (size_t k = 0; k < x.nops(); ++k) {
    ex dk = symbolic_denominator(x.op(k));
    if (dk.is_equal(1) || (k > 0 && !dk.is_equal(d))) return x;
    d = dk;
  }
  ex num = 0;
  for (size_t k = 0; k < x.nops(); ++k) num += x.op(k) * d;
  return num / d;
}

ex floor_eval(const ex& x) {
  if (is_real_num(x)) return floor_any(ex_to<numeric>(x));
  ex y = rounding_argument(x);
  if (!y.is_equal(x)) return pam_floor(y);
  return pam_floor(x).hold();
}

ex ceil_eval(const ex& x) {
  if (is_real_num(x)) return -floor_any(-ex_to<numeric>(x));
  ex y = rounding_argument(x);
  if (!y.is_equal(x)) return pam_ceil(y);
  return pam_ceil(x).hold();
}

ex mod_eval(const ex& a, const ex& b) {
  if (is_real_num(a) && is_real_num(b) && !b.is_zero()) {
    const numeric& na = ex_to<numeric>(a);
    const numeric& nb = ex_to<numeric>(b);
    return na - nb * floor_any(na / nb);
  }
  if (a.is_zero() && is_real_num(b) && !b.is_zero()) return 0;
  return pam_mod(a, b).hold();
}

ex div_eval(const ex& a, const ex& b) {
  if (is_real_num(a) && is_real_num(b) && !b.is_zero())
    return floor_any(ex_to<numeric>(a) / ex_to<numeric>(b));
  return pam_div(a, b).hold();
}

// Comparisons fold when the difference is a real number (also x == x -> 1).
std::optional<numeric> diff_num(const ex& a, const ex& b) {
  ex d = (a - b).expand();
  if (is_real_num(d)) return ex_to<numeric>(d);
  return std::nullopt;
}
// Terms that a and b share cancel (t - N + 1 <= t is 1 - N <= 0): a comparison then shows
// which symbols it really depends on, and one whose sides differ by an index loses it.
std::pair<ex, ex> cancel_common(const ex& a, const ex& b) {
  if (!is_a<add>(a) && !is_a<add>(b)) return {a, b};
  ex x = a.expand(), y = b.expand();
  auto terms = [](const ex& e) {
    exvector t;
    if (is_a<add>(e))
      for (size_t k = 0; k < e.nops(); ++k) t.push_back(e.op(k));
    else
      t.push_back(e);
    return t;
  };
  ex common = 0;
  exvector ty = terms(y);
  for (const ex& t : terms(x)) {
    if (is_a<numeric>(t)) continue;
    for (const ex& u : ty)
      if (t.is_equal(u)) common += t;
  }
  if (common.is_zero()) return {a, b};
  return {(x - common).expand(), (y - common).expand()};
}
ex eq_eval(const ex& a, const ex& b) {
  if (auto d = diff_num(a, b)) return d->is_zero() ? 1 : 0;
  auto [x, y] = cancel_common(a, b);
  return pam_eq(x, y).hold();
}
ex ne_eval(const ex& a, const ex& b) {
  if (auto d = diff_num(a, b)) return d->is_zero() ? 0 : 1;
  auto [x, y] = cancel_common(a, b);
  return pam_ne(x, y).hold();
}
ex lt_eval(const ex& a, const ex& b) {
  if (auto d = diff_num(a, b)) return d->is_negative() ? 1 : 0;
  auto [x, y] = cancel_common(a, b);
  return pam_lt(x, y).hold();
}
ex le_eval(const ex& a, const ex& b) {
  if (auto d = diff_num(a, b)) return d->is_positive() ? 0 : 1;
  auto [x, y] = cancel_common(a, b);
  return pam_le(x, y).hold();
}

// log2 folds exactly on powers of two (2^k for any integer k). The exponent is read off
// the binary representation: halving one bit at a time was quadratic in the number's size
// (log2(2 ^ 600000) took 18 s, and the prover evaluates log2 at a bound like 10 ^ 200000).
ex log2_eval(const ex& x) {
  if (is_rational_num(x) && ex_to<numeric>(x).is_positive()) {
    numeric n = ex_to<numeric>(x).numer(), d = ex_to<numeric>(x).denom();
    auto log2_exact = [](const numeric& v) -> std::optional<long> {  // v >= 1
      const auto p = cln::power2p(cln::the<cln::cl_I>(v.to_cl_N()));  // k + 1 where v = 2^k, else 0
      if (p == 0) return std::nullopt;
      return static_cast<long>(p - 1);
    };
    auto kn = log2_exact(n), kd = log2_exact(d);
    if (kn && kd) return numeric(*kn - *kd);
  }
  return pam_log2(x).hold();
}

// d/dx log2(x) = 1 / (x log(2)), with log(2) exact (GiNaC's log of an ex, not of a numeric,
// which would be a float): `pamc sensitivity` prints it.
ex log2_deriv(const ex& x, unsigned) { return 1 / (x * GiNaC::log(ex(2))); }

// gcd of two integers, >= 0 (gcd(0, 0) = 0); held for anything else, whose value the
// evaluators check (an argument that is not an integer has none).
ex gcd_eval(const ex& a, const ex& b) {
  if (is_class<numeric>(a) && is_class<numeric>(b) && ex_to<numeric>(a).is_integer() && ex_to<numeric>(b).is_integer())
    return GiNaC::gcd(ex_to<numeric>(a), ex_to<numeric>(b));
  return pam_gcd(a, b).hold();
}

}  // namespace

REGISTER_FUNCTION(pam_unitvec, eval_func(unitvec_eval).set_name("unitvec"))
REGISTER_FUNCTION(pam_vmax, eval_func(vmax_eval).set_name("vmax"))
REGISTER_FUNCTION(pam_floor, eval_func(floor_eval).set_name("floor"))
REGISTER_FUNCTION(pam_ceil, eval_func(ceil_eval).set_name("ceil"))
REGISTER_FUNCTION(pam_mod, eval_func(mod_eval).set_name("mod"))
REGISTER_FUNCTION(pam_div, eval_func(div_eval).set_name("div"))
REGISTER_FUNCTION(pam_eq, eval_func(eq_eval).set_name("cmp_eq"))
REGISTER_FUNCTION(pam_ne, eval_func(ne_eval).set_name("cmp_ne"))
REGISTER_FUNCTION(pam_lt, eval_func(lt_eval).set_name("cmp_lt"))
REGISTER_FUNCTION(pam_le, eval_func(le_eval).set_name("cmp_le"))
REGISTER_FUNCTION(pam_log2, eval_func(log2_eval).derivative_func(log2_deriv).set_name("log2"))
REGISTER_FUNCTION(pam_gcd, eval_func(gcd_eval).set_name("gcd"))

numeric floor_num(const numeric& x) {
  numeric n = x.numer(), d = x.denom();  // d > 0
  numeric q = iquo(n, d);                // truncates toward zero
  if (n.is_negative() && q * d != n) q = q - 1;
  return q;
}

numeric ceil_num(const numeric& x) { return -floor_num(-x); }

ex unitvec(const ex& k) { return pam_unitvec(k); }

// One sum built at once (GiNaC sorts and combines its terms once): adding the elements one
// at a time re-sorted the growing sum per element, quadratic in the literal's length.
ex vector_literal(const exvector& elems) {
  exvector terms;
  terms.reserve(elems.size());
  for (size_t i = 0; i < elems.size(); ++i) terms.push_back(elems[i] * unitvec(numeric(static_cast<long>(i))));
  return add(terms);
}

ex vector_max(const ex& v) { return pam_vmax(v); }
ex floor_of(const ex& x) { return pam_floor(x); }
ex ceil_of(const ex& x) { return pam_ceil(x); }
ex mod_of(const ex& a, const ex& b) { return pam_mod(a, b); }
ex idiv_of(const ex& a, const ex& b) { return pam_div(a, b); }
ex log2_of(const ex& x) { return pam_log2(x); }
ex gcd_of(const ex& a, const ex& b) { return pam_gcd(a, b); }

ex compare(Cmp c, const ex& a, const ex& b) {
  switch (c) {
    case Cmp::Eq: return pam_eq(a, b);
    case Cmp::Ne: return pam_ne(a, b);
    case Cmp::Lt: return pam_lt(a, b);
    case Cmp::Le: return pam_le(a, b);
    case Cmp::Gt: return pam_lt(b, a);
    case Cmp::Ge: return pam_le(b, a);
  }
  return 0;
}

Fn pamela_function(const ex& e) {
  if (!is_class<function>(e)) return Fn::None;
  unsigned s = ex_to<function>(e).get_serial();
  if (s == pam_unitvec_SERIAL::serial) return Fn::Unitvec;
  if (s == pam_vmax_SERIAL::serial) return Fn::VectorMax;
  if (s == pam_floor_SERIAL::serial) return Fn::Floor;
  if (s == pam_ceil_SERIAL::serial) return Fn::Ceil;
  if (s == pam_mod_SERIAL::serial) return Fn::Mod;
  if (s == pam_div_SERIAL::serial) return Fn::Div;
  if (s == pam_eq_SERIAL::serial) return Fn::Eq;
  if (s == pam_ne_SERIAL::serial) return Fn::Ne;
  if (s == pam_lt_SERIAL::serial) return Fn::Lt;
  if (s == pam_le_SERIAL::serial) return Fn::Le;
  if (s == pam_log2_SERIAL::serial) return Fn::Log2;
  if (s == pam_gcd_SERIAL::serial) return Fn::Gcd;
  return Fn::None;
}

bool is_comparison(const ex& e) {
  Fn fn = pamela_function(e);
  return fn == Fn::Eq || fn == Fn::Ne || fn == Fn::Lt || fn == Fn::Le;
}

std::optional<std::pair<ex, ex>> monomial_numer_denom(const ex& x) {
  auto factor_ok = [](const ex& f) {
    if (is_class<symbol>(f)) return true;
    return is_class<power>(f) && is_class<symbol>(f.op(0)) && is_class<numeric>(f.op(1)) &&
           ex_to<numeric>(f.op(1)).is_integer();
  };
  numeric c = 1;
  exvector factors;
  if (is_class<mul>(x)) {
    for (size_t k = 0; k < x.nops(); ++k) {
      const ex& f = x.op(k);
      if (is_class<numeric>(f)) {
        if (!ex_to<numeric>(f).is_rational()) return std::nullopt;
        c = c * ex_to<numeric>(f);
      } else if (factor_ok(f)) {
        factors.push_back(f);
      } else {
        return std::nullopt;
      }
    }
  } else if (factor_ok(x)) {
    factors.push_back(x);
  } else {
    return std::nullopt;
  }
  ex num = c.numer(), den = c.denom();
  for (const ex& f : factors) {
    if (is_class<power>(f) && ex_to<numeric>(f.op(1)).is_negative()) den *= GiNaC::pow(f.op(0), -f.op(1));
    else num *= f;
  }
  return std::make_pair(num, den);
}

std::optional<std::pair<ex, ex>> as_quotient(const ex& x) {
  if (is_vector_valued(x)) return std::nullopt;
  // A monomial's quotient without normal() (43,000 instructions a call; the printer asks
  // once per floor and ceil it prints): the same pair, unit-tested against normal().
  if (auto q = monomial_numer_denom(x)) {
    if (q->second.is_equal(1)) return std::nullopt;
    return q;
  }
  ex nd = x.normal().numer_denom();
  if (nd.op(1).is_equal(1)) return std::nullopt;
  return std::make_pair(nd.op(0), nd.op(1));
}

bool has_comparison(const ex& e) {
  if (is_comparison(e)) return true;
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_comparison(e.op(k))) return true;
  return false;
}

bool is_vector_valued(const ex& e) {
  Fn f = pamela_function(e);
  if (f == Fn::Unitvec) return true;
  if (f == Fn::VectorMax) return false;
  for (size_t i = 0; i < e.nops(); ++i)
    if (is_vector_valued(e.op(i))) return true;
  return false;
}

std::optional<std::pair<ex, ex>> split_factor(const ex& t, const std::function<bool(const ex&)>& pick) {
  std::optional<ex> picked;
  ex rest = 1;
  auto take = [&](const ex& f) {
    if (!picked && pick(f)) picked = f;
    else if (is_vector_valued(f)) return false;
    else rest *= f;
    return true;
  };
  if (is_class<mul>(t)) {
    for (size_t i = 0; i < t.nops(); ++i)
      if (!take(t.op(i))) return std::nullopt;
  } else if (!take(t)) {
    return std::nullopt;
  }
  if (!picked) return std::nullopt;
  return std::make_pair(*picked, rest);
}

std::optional<VectorTerms> split_vector(const ex& v) {
  VectorTerms out;
  ex x = v.expand();
  exvector terms;
  if (is_class<add>(x))
    for (size_t i = 0; i < x.nops(); ++i) terms.push_back(x.op(i));
  else
    terms.push_back(x);
  // Linear in the number of terms: scalars are summed once at the end, and a position finds
  // its earlier term through a map (the terms keep their first-seen order).
  exvector scalars;
  std::map<ex, size_t, ex_is_less> slot;
  std::vector<exvector> coeffs;
  for (const ex& t : terms) {
    if (!is_vector_valued(t)) {
      scalars.push_back(t);
      continue;
    }
    auto uc = split_factor(t, [](const ex& f) { return pamela_function(f) == Fn::Unitvec; });
    if (!uc) return std::nullopt;
    ex pos = uc->first.op(0);
    auto [it, fresh] = slot.try_emplace(pos, out.terms.size());
    if (fresh) {
      out.terms.emplace_back(pos, 0);
      coeffs.emplace_back();
    }
    coeffs[it->second].push_back(uc->second);
  }
  out.scalar = add(scalars);
  for (size_t k = 0; k < out.terms.size(); ++k) out.terms[k].second = add(coeffs[k]);
  return out;
}

}  // namespace pamc::sym
