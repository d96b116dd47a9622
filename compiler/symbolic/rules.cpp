// The simplifier's rewrite rules: see rules.h. Each rule states its side condition above it.
#include "compiler/symbolic/rules.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <map>

namespace pamc::sym {

using namespace GiNaC;

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
  if (is_a<add>(x))
    for (size_t i = 0; i < x.nops(); ++i) terms.push_back(x.op(i));
  else
    terms.push_back(x);
  ex lhs = 0, rhs = 0;
  for (const ex& t : terms) {
    ex coeff = is_a<numeric>(t) ? t : (is_a<mul>(t) ? t.op(t.nops() - 1) : ex(1));
    if (is_a<numeric>(coeff) && ex_to<numeric>(coeff).is_negative())
      rhs -= t;
    else
      lhs += t;
  }
  return to_pamela(lhs) + " >= " + to_pamela(rhs);
}

// All conditions provable, or (those that are not) assumable: they mention no loop index.
// Only then are the unprovable ones recorded, so a rule that gives up records nothing.
bool require(const std::vector<Cond>& conds, const Facts& f, Assumptions& a) {
  std::vector<const Cond*> unproved;
  for (const Cond& c : conds) {
    bool ok = c.integer ? f.provably_integer(c.e) : f.provably_nonneg(c.e);
    if (ok) continue;
    if (f.mentions_index(c.e)) return false;
    if (!c.integer && is_a<numeric>(c.e.expand())) return false;  // provably false
    unproved.push_back(&c);
  }
  for (const Cond* c : unproved) {
    if (c->integer) {
      a.items.insert(to_pamela(c->e) + " is an integer");
      a.integer.push_back(c->e);
    } else {
      a.items.insert(nonneg_text(c->e));
      a.nonneg.push_back(c->e);
    }
  }
  return true;
}

const reduction* as_red(const ex& e, ReduceKind k) {
  if (!is_a<reduction>(e)) return nullptr;
  const auto& r = ex_to<reduction>(e);
  return r.kind() == k ? &r : nullptr;
}
const reduction* as_ext_red(const ex& e) {
  if (!is_a<reduction>(e)) return nullptr;
  const auto& r = ex_to<reduction>(e);
  return r.kind() == ReduceKind::Sum ? nullptr : &r;
}

exvector operands_of(const ex& e, bool is_add) {
  exvector v;
  if (is_add ? is_a<add>(e) : is_a<mul>(e))
    for (size_t i = 0; i < e.nops(); ++i) v.push_back(e.op(i));
  else
    v.push_back(e);
  return v;
}

ex rebuild(const reduction& r, ReduceKind k, const ex& body) {
  return make_reduction(k, r.index(), r.lb(), r.ub(), body);
}

ReduceKind flip(ReduceKind k) { return k == ReduceKind::Max ? ReduceKind::Min : ReduceKind::Max; }

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

}  // namespace

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

// sum { a + b } = sum { a } + sum { b }. Always (both sides are 0 on an empty range).
std::optional<ex> rule_sum_split(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_a<add>(r->body())) return std::nullopt;
  ex out = 0;
  for (size_t i = 0; i < r->body().nops(); ++i) out += rebuild(*r, ReduceKind::Sum, r->body().op(i));
  return out;
}

// sum { c * b } = c * sum { b } for factors c free of the index (numbers, parameters,
// unitvec(k) with k index-free). Always.
std::optional<ex> rule_sum_factor(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || !is_a<mul>(r->body())) return std::nullopt;
  ex out = 1, rest = 1;
  for (size_t i = 0; i < r->body().nops(); ++i) {
    const ex& f = r->body().op(i);
    (f.has(r->index_ex()) ? rest : out) *= f;
  }
  if (out.is_equal(1) || rest.is_equal(1)) return std::nullopt;  // index-free: rule_sum_const
  return out * rebuild(*r, ReduceKind::Sum, rest);
}

// sum (i = lb, ub) { c } = (ub - lb + 1) * c for c free of i.
// Side conditions: lb, ub integers (proved, else assumed when they mention parameters
// only: a non-integer bound has no brute-force value either). An empty range gives 0:
// where ub - lb + 1 >= 0 cannot be proved, the result is guarded (see nonempty_guard).
std::optional<ex> rule_sum_const(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_red(e, ReduceKind::Sum);
  if (!r || r->body().has(r->index_ex())) return std::nullopt;
  ex count = r->ub() - r->lb() + 1;
  if (!require({{true, r->lb()}, {true, r->ub()}}, f, a)) return std::nullopt;
  return nonempty_guard(count, f) * count * r->body();
}

// sum (i = lb, ub) { p(i) } for p a polynomial in i with i-free coefficients (Faulhaber):
// sum_k c_k (S_k(ub) - S_k(lb - 1)). Side conditions and guard as for rule_sum_const
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
  if (!require({{true, r->lb()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  return r->body();
}

// max (i) { c + g(i) } = c + max (i) { g(i) } for c free of i (also min). Always.
std::optional<ex> rule_ext_shift(const ex& e, const Facts&, Assumptions&) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_a<add>(r->body())) return std::nullopt;
  ex c = 0, g = 0;
  for (size_t k = 0; k < r->body().nops(); ++k) {
    const ex& t = r->body().op(k);
    (t.has(r->index_ex()) ? g : c) += t;
  }
  if (c.is_zero() || g.is_zero()) return std::nullopt;
  return c + rebuild(*r, r->kind(), g);
}

// max (i) { c * g(i) } = c * max (i) { g(i) } for c free of i and provably >= 0;
// = c * min (i) { g(i) } when c is provably <= 0 (and symmetrically for min). Scalars only.
std::optional<ex> rule_ext_scale(const ex& e, const Facts& f, Assumptions&) {
  const reduction* r = as_ext_red(e);
  if (!r || !is_a<mul>(r->body()) || is_vector_valued(r->body())) return std::nullopt;
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

// max (i = lb, ub) { g(i) } = g(ub) when g(i+1) - g(i) >= 0 is provable for lb <= i < ub
// (g nondecreasing), = g(lb) when g is provably nonincreasing; min the other way round.
// Side conditions: non-empty range and integer bounds (proved or assumed).
std::optional<ex> rule_ext_monotone(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || !r->body().has(r->index_ex()) || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub() - 1);
  ex d = (r->body().subs(exmap{{i, i + 1}}) - r->body()).expand();
  bool up = fi.provably_nonneg(d);
  bool down = !up && fi.provably_nonpos(d);
  if (!up && !down) return std::nullopt;
  if (!require({{true, r->lb()}, {true, r->ub()}, {false, r->ub() - r->lb()}}, f, a)) return std::nullopt;
  bool at_ub = up == (r->kind() == ReduceKind::Max);
  return r->body().subs(exmap{{i, at_ub ? r->ub() : r->lb()}});
}

// max(v) for v = sum_k c_k unitvec(k) with numeric positions: max(c_0, ..., c_{n-1}) with 0
// for the positions not present. Always.
std::optional<ex> rule_vmax_numeric(const ex& e, const Facts&, Assumptions&) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  auto vt = split_vector(e.op(0));
  if (!vt || !vt->scalar.is_zero() || vt->terms.empty()) return std::nullopt;
  long n = 0;
  for (const auto& [pos, c] : vt->terms) {
    if (!is_a<numeric>(pos) || !ex_to<numeric>(pos).is_nonneg_integer() || ex_to<numeric>(pos) > 4096)
      return std::nullopt;
    n = std::max(n, ex_to<numeric>(pos).to_long() + 1);
  }
  exvector elems(n, ex(0));
  for (const auto& [pos, c] : vt->terms) elems[ex_to<numeric>(pos).to_long()] += c;
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
  if (is_a<numeric>(k)) return std::nullopt;
  if (f.provably_nonneg(c)) return c;
  if (f.provably_nonneg(k - 1)) return make_max({c, 0});
  return std::nullopt;
}

// Identity mapping: max(s * sum (p = lb, ub) { c(p) * unitvec(p + d) }) with s and d free of p
// and c, s scalars: the positions are distinct, so the result is max (p = lb, ub) { s * c(p) },
// joined with 0 (the elements below position lb + d) unless s * c(p) >= 0 is provable or
// lb + d = 0. Side condition: non-empty range, proved (else the vector is 0 and the max
// reduction an error); integer lb, proved or assumed.
std::optional<ex> rule_vmax_identity(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  ex v = e.op(0), s = 1;
  const reduction* r = nullptr;
  for (const ex& t : operands_of(v, false)) {
    if (const reduction* rr = as_red(t, ReduceKind::Sum); rr && !r) {
      r = rr;
    } else if (is_vector_valued(t)) {
      return std::nullopt;
    } else {
      s *= t;
    }
  }
  if (!r) return std::nullopt;
  auto vt = split_vector(r->body());
  if (!vt || !vt->scalar.is_zero() || vt->terms.size() != 1) return std::nullopt;
  const auto& [pos, c] = vt->terms[0];
  const ex& p = r->index_ex();
  ex d = (pos - p).expand();
  if (d.has(p) || s.has(p)) return std::nullopt;
  Facts fi = f;
  fi.declare_index(r->index(), r->lb(), r->ub());
  ex body = s * c;
  bool need_zero = !fi.provably_nonneg(body) && !(r->lb() + d).expand().is_zero();
  // Non-emptiness must be proved, never assumed: on an empty range the vector is 0 and has
  // a max (0), while the max reduction would have none.
  if (!f.provably_nonneg(r->ub() - r->lb())) return std::nullopt;
  if (!require({{true, r->lb()}}, f, a)) return std::nullopt;
  ex m = make_reduction(ReduceKind::Max, r->index(), r->lb(), r->ub(), body);
  return need_zero ? make_max({m, 0}) : m;
}

// max(a_1, ..., a_n): drop a_j when another argument a_k has a_k - a_j >= 0 provable
// (for min: a_j - a_k >= 0). Arguments are visited in printed-text order.
std::optional<ex> rule_max_dominated(const ex& e, const Facts& f, Assumptions&) {
  if (!is_a<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  exvector args = sorted_by_text(m.args());
  for (size_t j = 0; j < args.size(); ++j) {
    for (size_t k = 0; k < args.size(); ++k) {
      if (k == j) continue;
      ex diff = m.is_max() ? args[k] - args[j] : args[j] - args[k];
      if (f.provably_nonneg(diff)) {
        args.erase(args.begin() + static_cast<long>(j));
        return m.is_max() ? make_max(args) : make_min(args);
      }
    }
  }
  return std::nullopt;
}

// max(x^m * a_1, ..., x^m * b_n) = x^m * max(a_1, ..., a_n) for a common factor x^m (m the
// least integer exponent of x over the arguments) with x^m provably >= 0; e.g.
// max(10.1 N, 0.1 P N) = N max(10.1, 0.1 P) when N >= 0. Same for min.
std::optional<ex> rule_max_factor(const ex& e, const Facts& f, Assumptions&) {
  if (!is_a<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  std::vector<std::map<std::string, std::pair<ex, long>>> per_arg;
  for (const ex& arg : m.args()) {
    std::map<std::string, std::pair<ex, long>> fac;
    for (const ex& t : operands_of(arg, false)) {
      if (is_a<numeric>(t)) continue;
      ex base = t;
      long n = 1;
      if (is_a<power>(t) && is_a<numeric>(t.op(1)) && ex_to<numeric>(t.op(1)).is_pos_integer()) {
        base = t.op(0);
        n = ex_to<numeric>(t.op(1)).to_long();
      }
      fac[to_pamela(base)] = {base, n};
    }
    per_arg.push_back(std::move(fac));
  }
  for (const auto& [key, be] : per_arg[0]) {
    long least = be.second;
    bool common = true;
    for (size_t j = 1; j < per_arg.size() && common; ++j) {
      auto it = per_arg[j].find(key);
      if (it == per_arg[j].end() || !it->second.first.is_equal(be.first))
        common = false;
      else
        least = std::min(least, it->second.second);
    }
    if (!common) continue;
    ex x = GiNaC::pow(be.first, least);
    if (!f.provably_nonneg(x)) continue;
    exvector rest;
    for (const ex& arg : m.args()) rest.push_back(arg / x);
    return x * (m.is_max() ? make_max(rest) : make_min(rest));
  }
  return std::nullopt;
}

// max(t + a_1, ..., t + a_n) = t + max(a_1, ..., a_n) for a term t common to all arguments.
// Always.
std::optional<ex> rule_max_common_term(const ex& e, const Facts&, Assumptions&) {
  if (!is_a<extremum>(e)) return std::nullopt;
  const auto& m = ex_to<extremum>(e);
  for (const ex& arg : m.args())
    if (!is_a<add>(arg)) return std::nullopt;
  for (const ex& t : sorted_by_text(operands_of(m.args()[0], true))) {
    bool common = true;
    for (size_t j = 1; j < m.args().size() && common; ++j) {
      common = false;
      for (const ex& u : operands_of(m.args()[j], true))
        if (u.is_equal(t)) common = true;
    }
    if (!common) continue;
    exvector rest;
    for (const ex& arg : m.args()) rest.push_back(arg - t);
    return t + (m.is_max() ? make_max(rest) : make_min(rest));
  }
  return std::nullopt;
}

const std::vector<NamedRule>& all_rules() {
  static const std::vector<NamedRule> rules = {
      {"sum_zero", rule_sum_zero},
      {"sum_split", rule_sum_split},
      {"sum_factor", rule_sum_factor},
      {"sum_const", rule_sum_const},
      {"sum_poly", rule_sum_poly},
      {"ext_const", rule_ext_const},
      {"ext_shift", rule_ext_shift},
      {"ext_scale", rule_ext_scale},
      {"ext_monotone", rule_ext_monotone},
      {"vmax_numeric", rule_vmax_numeric},
      {"vmax_single", rule_vmax_single},
      {"vmax_identity", rule_vmax_identity},
      {"max_dominated", rule_max_dominated},
      {"max_common_term", rule_max_common_term},
      {"max_factor", rule_max_factor},
  };
  return rules;
}

}  // namespace pamc::sym
