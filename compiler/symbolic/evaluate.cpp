// Reference evaluator: see evaluate.h.
#include "compiler/symbolic/evaluate.h"
#include "compiler/symbolic/stored_pairs.h"

#include <optional>
#include <unordered_map>
#include <vector>
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/exact_size.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <cmath>
#include <sstream>

namespace pamc::sym {

using namespace GiNaC;

namespace {

[[noreturn]] void fail(DiagKind kind, const std::string& m) { throw EvalError(kind, m); }

Value scalar(const numeric& n) {
  if (!n.is_real()) fail(DiagKind::DomainError, "result is not a real number");
  Value v;
  v.scalar = n;
  return v;
}

Value vec(std::map<long, numeric> m) {
  Value v;
  v.is_vector = true;
  for (auto it = m.begin(); it != m.end();)
    it = it->second.is_zero() ? m.erase(it) : std::next(it);
  v.elems = std::move(m);
  return v;
}

const numeric& need_scalar(const Value& v, const char* what) {
  if (v.is_vector) fail(DiagKind::VectorValue, std::string("a vector where a scalar is needed (") + what + ")");
  return v.scalar;
}

// The budget on exact numbers (exact_size.h), before each sum, product and quotient.
void check_size(double bits, const char* what) {
  if (bits > kMaxExactBits) fail(DiagKind::ValueTooLarge, too_large_message(what, bits));
}
double bits_of(const numeric& x) { return exact_bits(x); }

// A number as a message quotes it: a long one by its size, not its 300,000 digits. Past
// 4096 bits (1,233 digits) it is not printed to find that out: decimal printing is
// quadratic, and the prover's refutation builds (and drops) such messages at points where
// a power is too large (3 ^ 600000 as a bound: 0.5 s per message).
std::string short_number(const numeric& x) {
  if (double bits = bits_of(x); bits > 4096) return "(a number of about " + digits_text(bits) + " digits)";
  std::string s = number_to_pamela(x);
  if (s.size() <= 40) return s;
  return "(a number of " + std::to_string(s.size()) + " characters)";
}

// acc += b, in place: a sum of n unit vectors (a vector literal, a loop over positions)
// grows one map, where copying it per term was quadratic in n.
void add_into(Value& acc, const Value& b) {
  if (!acc.is_vector && !b.is_vector) {
    check_size(sum_bits({acc.scalar, b.scalar}), "a sum");
    acc = scalar(acc.scalar + b.scalar);
    return;
  }
  if (!b.is_vector && b.scalar.is_zero()) return;
  if (!acc.is_vector && acc.scalar.is_zero()) {
    acc = b;
    return;
  }
  if (!acc.is_vector || !b.is_vector) fail(DiagKind::VectorValue, "a scalar added to a vector");
  for (const auto& [k, x] : b.elems) {
    auto [it, fresh] = acc.elems.try_emplace(k, x);
    if (fresh) continue;
    check_size(sum_bits({it->second, x}), "a sum");
    it->second = it->second + x;
    if (it->second.is_zero()) acc.elems.erase(it);
  }
}

Value mul_v(const Value& a, const Value& b) {
  auto times = [](const numeric& x, const numeric& y) {
    check_size(bits_of(x) + bits_of(y), "a product");
    return x * y;
  };
  if (!a.is_vector && !b.is_vector) return scalar(times(a.scalar, b.scalar));
  if (a.is_vector && b.is_vector) {  // elementwise
    std::map<long, numeric> m;
    for (const auto& [k, x] : a.elems)
      if (auto it = b.elems.find(k); it != b.elems.end()) m[k] = times(x, it->second);
    return vec(m);
  }
  const Value& v = a.is_vector ? a : b;
  const numeric& s = a.is_vector ? b.scalar : a.scalar;
  std::map<long, numeric> m;
  for (const auto& [k, x] : v.elems) m[k] = times(x, s);
  return vec(m);
}

// Elementwise max/min (implicit elements are 0); scalars with scalars.
Value ext_v(const Value& a, const Value& b, bool is_max) {
  auto pick = [&](const numeric& x, const numeric& y) { return (is_max ? x < y : y < x) ? y : x; };
  if (!a.is_vector && !b.is_vector) return scalar(pick(a.scalar, b.scalar));
  // A zero scalar is the zero vector (a product with a zero factor, see product()).
  if (!a.is_vector && a.scalar.is_zero()) return ext_v(vec({}), b, is_max);
  if (!b.is_vector && b.scalar.is_zero()) return ext_v(a, vec({}), is_max);
  if (!a.is_vector || !b.is_vector) fail(DiagKind::VectorValue, "max/min of a scalar and a vector");
  std::map<long, numeric> m;
  for (const auto& [k, x] : a.elems) m[k] = x;
  for (const auto& [k, x] : b.elems) (void)x, m[k] = 0;
  for (auto& [k, x] : m) {
    numeric ax = a.elems.count(k) ? a.elems.at(k) : numeric(0);
    numeric bx = b.elems.count(k) ? b.elems.at(k) : numeric(0);
    x = pick(ax, bx);
  }
  return vec(m);
}

numeric to_number(const ex& r) {
  ex x = r;
  if (!is_class<numeric>(x)) x = x.evalf();
  if (!is_class<numeric>(x) || !ex_to<numeric>(x).is_real()) fail(DiagKind::DomainError, "result is not a real number");
  return ex_to<numeric>(x);
}

// floor of a float is an integer: return it as an exact integer numeric, so that e.g.
// ceil(log2(3)) can be a loop bound (a float 2.0 is not is_integer()).
numeric floor_n(const numeric& x) {
  if (x.is_rational()) return floor_num(x);
  double d = std::floor(x.to_double());
  if (std::fabs(d) < 4.0e18) return numeric(static_cast<long>(d));
  return numeric(d);
}

const numeric& integer_value(const numeric& n, const char* which) {
  if (!n.is_integer()) fail(DiagKind::NonIntegerBound, std::string("non-integer loop bound (") + which + " = " + number_to_pamela(n) + ")");
  return n;
}

long integer_bound(const numeric& n, const char* which) {
  integer_value(n, which);
  if (n > numeric(1L << 62) || n < -numeric(1L << 62)) fail(DiagKind::ValueTooLarge, "loop bound out of range");
  return n.to_long();
}

// Errors that say a term has no value at this point: a division by zero, a function out of
// its domain, a resource position that is not one. A zero factor beside such a term makes
// the product zero all the same. Not: a loop bound that is not an integer (the model's
// parameters are wrong, whatever the term), a limit, a missing binding, an interrupt.
bool no_value(const EvalError& e) {
  switch (e.diag.kind) {
    case DiagKind::DivisionByZero:
    case DiagKind::DomainError:
      return true;
    case DiagKind::NonIntegerBound:
      return e.loop_index.is_zero();  // a unitvec position, not a loop bound
    default:
      return false;
  }
}

// count copies of b added up, as the term-by-term sum gives it, where every number is
// exact and no partial sum could pass the size budget (a partial sum k b has at most the
// bits of (count - 1) b, and add_into checks each step with twice the denominators' bits):
// else nullopt, and the caller adds term by term, checking each step as before.
std::optional<Value> repeated_sum(const Value& b, const numeric& count) {
  auto fits = [&](const numeric& x) {
    if (!x.is_rational()) return false;
    return bits_of(count - 1) + bits_of(abs(x.numer())) + 4 * bits_of(x.denom()) + 1 <= kMaxExactBits;
  };
  if (!b.is_vector) {
    if (!fits(b.scalar)) return std::nullopt;
    return scalar(count * b.scalar);
  }
  std::map<long, numeric> m;
  for (const auto& [k, x] : b.elems) {
    if (!fits(x)) return std::nullopt;
    m[k] = count * x;
  }
  return vec(std::move(m));
}

bool is_one(const ex& c) {
  static const numeric one(1);
  return is_class<numeric>(c) && ex_to<numeric>(c).is_equal(one);
}

struct Evaluator {
  // The caller's point, read where no loop binds the symbol, and the loop indices bound
  // while their reductions run: the point is not copied (the prover evaluates claims at
  // points thousands of times per model).
  const exmap& point;
  WorkBudget& budget;
  exmap env;
  // Does a loop's body read its index; each loop held, so that its address is never
  // another's while this lasts.
  std::unordered_map<const reduction*, std::pair<ex, bool>> reads;
  std::unordered_map<const reduction*, std::pair<ex, int>> degrees;  // polynomial_degree's, likewise

  bool reads_index(const reduction& r) {
    auto it = reads.find(&r);
    if (it == reads.end()) it = reads.emplace(&r, std::make_pair(ex(r), r.body().has(r.index_ex()))).first;
    return it->second.second;
  }

  // A product with a zero factor is zero, whatever its other factors: `if (c) a` is c * a,
  // and a branch not taken is never evaluated, as the simulator never runs it
  // (`if (p > 0) use(link(p - 1), t)` at p = 0 has no link(-1)). The compiled program
  // multiplies the same way (program.cpp, times). docs/semantics.md.
  Value product(const ex& e) {
    std::optional<EvalError> pending;  // the first factor without a value
    Value r = scalar(1);
    bool zero = false;
    auto take = [&](const auto& factor) {
      try {
        Value f = factor();
        zero = zero || (!f.is_vector && f.scalar.is_zero());
        r = mul_v(r, f);
      } catch (const EvalError& err) {
        if (!no_value(err)) throw;
        if (!pending) pending = err;
      }
    };
    // The factors in e.op(i)'s order, read from the (base, exponent) pairs GiNaC stores:
    // op(i) would build each power anew.
    const auto& m = ex_to<mul>(e);
    for (const expair& p : StoredPairs::pairs(m))
      take([&] {
        if (is_one(p.coeff)) return ev(p.rest);
        Value b = ev(p.rest);
        Value x = ev(p.coeff);
        return power_of(b, x);
      });
    if (const ex& c = StoredPairs::coeff(m); !is_one(c)) take([&] { return ev(c); });
    if (zero) return r.is_vector ? vec({}) : scalar(0);
    if (pending) throw *pending;
    return r;
  }

  Value power_of(const Value& b, const Value& x) {
    const numeric& nb = need_scalar(b, "power base");
    const numeric& nx = need_scalar(x, "exponent");
    if (nb.is_zero() && !nx.is_positive()) {
      if (nx.is_zero()) return scalar(1);
      fail(DiagKind::DivisionByZero, "division by zero");
    }
    if (nx.is_integer() && nb.is_rational()) {
      // Exact, within the limit lowering puts on constant powers (passes/lower.cpp): a
      // value of more than about 300,000 digits is an error, not minutes of work.
      const double bits = power_bits(nb, nx);
      if (bits > kMaxExactBits)
        fail(DiagKind::ValueTooLarge, "the exact value of " + short_number(nb) + " ^ " + short_number(nx) +
             " has more than 300,000 digits; pamc keeps numbers exact, so a power this large has no value");
      // A big exact power costs four steps of the budget per bit (computing it costs more
      // than its size): sum (i = 1, 1e7) { 2 ^ i } would otherwise run for hours within
      // the term limit.
      if (bits > 640 && (budget.steps_left -= static_cast<long long>(4 * bits)) < 0)
        fail(DiagKind::WorkLimit, "work limit exceeded by exact powers of about " + std::to_string(static_cast<long long>(bits / 3.32)) +
             " digits (the value has no double; pamc keeps it exact)");
      return scalar(nb.power(nx));
    }
    return scalar(to_number(GiNaC::pow(nb, nx)));
  }

  Value ev(const ex& e) {
    if (is_class<numeric>(e)) return scalar(ex_to<numeric>(e));
    if (is_class<symbol>(e)) {
      exmap::const_iterator it = env.find(e);
      if (it == env.end()) {
        it = point.find(e);
        if (it == point.end()) fail(DiagKind::UnboundParameter, "unbound symbol " + ex_to<symbol>(e).get_name());
      }
      if (!is_class<numeric>(it->second)) fail(DiagKind::UnboundParameter, "symbol " + ex_to<symbol>(e).get_name() + " is not bound to a number");
      return scalar(ex_to<numeric>(it->second));
    }
    if (is_class<constant>(e)) return scalar(to_number(e));
    if (is_class<add>(e)) {
      // The terms in e.op(i)'s order, from the stored (term, coefficient) pairs: op(i)
      // would build each term * coefficient anew. A term's value times its coefficient is
      // that product's value (the coefficient is a nonzero number, multiplied last).
      const auto& a = ex_to<add>(e);
      std::optional<Value> r;
      auto put = [&](Value t) {
        if (r) add_into(*r, t);
        else r = std::move(t);
      };
      for (const expair& p : StoredPairs::pairs(a)) {
        if (is_one(p.coeff)) put(ev(p.rest));
        else put(mul_v(ev(p.rest), scalar(ex_to<numeric>(p.coeff))));
      }
      if (const ex& c = StoredPairs::coeff(a); !c.is_zero()) put(ev(c));
      return r ? *r : scalar(0);
    }
    if (is_class<mul>(e)) return product(e);
    if (is_class<power>(e)) {
      Value b = ev(e.op(0)), x = ev(e.op(1));
      return power_of(b, x);
    }
    if (is_class<extremum>(e)) {
      const auto& m = ex_to<extremum>(e);
      Value r = ev(m.args()[0]);
      for (size_t i = 1; i < m.args().size(); ++i) r = ext_v(r, ev(m.args()[i]), m.is_max());
      return r;
    }
    if (is_class<reduction>(e)) return reduce(ex_to<reduction>(e));
    switch (pamela_function(e)) {
      case Fn::Unitvec: {
        numeric k = need_scalar(ev(e.op(0)), "unitvec position");
        if (!k.is_integer() || k.is_negative()) fail(DiagKind::NonIntegerBound, "unitvec position " + number_to_pamela(k) + " is not a nonnegative integer");
        if (k > numeric(1L << 62)) fail(DiagKind::ValueTooLarge, "unitvec position out of range");
        return vec({{k.to_long(), numeric(1)}});
      }
      case Fn::VectorMax: {
        Value v = ev(e.op(0));
        if (!v.is_vector) return v;  // a scalar s is the vector [s]
        if (v.elems.empty()) return scalar(0);
        // Elements 0..n-1, n = 1 + highest position; positions not stored hold 0.
        numeric best = v.elems.begin()->second;
        for (const auto& [k, x] : v.elems) if (x > best) best = x;
        long n = v.elems.rbegin()->first + 1;
        if (static_cast<long>(v.elems.size()) < n && best < 0) best = 0;
        return scalar(best);
      }
      case Fn::Floor: return scalar(floor_n(need_scalar(ev(e.op(0)), "floor")));
      case Fn::Ceil: return scalar(-floor_n(-need_scalar(ev(e.op(0)), "ceil")));
      case Fn::Mod:
      case Fn::Div: {
        numeric a = need_scalar(ev(e.op(0)), "mod/div"), b = need_scalar(ev(e.op(1)), "mod/div");
        if (b.is_zero()) fail(DiagKind::DivisionByZero, "division by zero");
        check_size(bits_of(a) + bits_of(b), "a quotient");
        numeric q = floor_n(a / b);
        return scalar(pamela_function(e) == Fn::Div ? q : a - b * q);
      }
      case Fn::Eq:
      case Fn::Ne:
      case Fn::Lt:
      case Fn::Le: {
        numeric a = need_scalar(ev(e.op(0)), "comparison"), b = need_scalar(ev(e.op(1)), "comparison");
        bool r = false;
        switch (pamela_function(e)) {
          case Fn::Eq: r = a == b; break;
          case Fn::Ne: r = a != b; break;
          case Fn::Lt: r = a < b; break;
          default: r = a <= b; break;
        }
        return scalar(r ? 1 : 0);
      }
      case Fn::Log2: {
        numeric x = need_scalar(ev(e.op(0)), "log2");
        if (!x.is_positive()) fail(DiagKind::DomainError, "log2 of a non-positive number");
        ex r = log2_of(x);  // exact on powers of two
        if (is_class<numeric>(r)) return scalar(ex_to<numeric>(r));
        return scalar(to_number(GiNaC::log(x) / GiNaC::log(numeric(2))));
      }
      case Fn::Gcd: {
        numeric a = need_scalar(ev(e.op(0)), "gcd"), b = need_scalar(ev(e.op(1)), "gcd");
        if (!a.is_integer() || !b.is_integer()) fail(DiagKind::DomainError, "gcd of a number that is not an integer");
        check_size(bits_of(a) + bits_of(b), "a gcd");
        return scalar(GiNaC::gcd(a, b));
      }
      case Fn::None: break;
    }
    if (is_class<function>(e)) {
      const auto& f = ex_to<function>(e);
      exvector args;
      for (size_t i = 0; i < e.nops(); ++i) args.push_back(need_scalar(ev(e.op(i)), "function argument"));
      const std::string name = f.get_name();
      if (name == "log" && !ex_to<numeric>(args[0]).is_positive()) fail(DiagKind::DomainError, "log of a non-positive number");
      return scalar(to_number(function(f.get_serial(), args)));
    }
    fail(DiagKind::EvaluationError, "cannot evaluate " + to_pamela(e));
  }

  // A loop's bounds, each an integer (exact: the bounds of a loop whose body does not read
  // its index need not fit a machine word).
  std::pair<numeric, numeric> bounds(const reduction& r) {
    try {
      numeric lb = integer_value(need_scalar(ev(r.lb()), "loop bound"), "lower");
      numeric ub = integer_value(need_scalar(ev(r.ub()), "loop bound"), "upper");
      return {lb, ub};
    } catch (EvalError& err) {  // the innermost loop's bound failed: name it
      if (!is_class<symbol>(err.loop_index)) err.loop_index = r.index();
      throw;
    }
  }

  Value reduce(const reduction& r) {
    if (!reads_index(r)) {
      // The body is the same at every index: a max or min is its value, a sum of exact
      // numbers is the count times it (term by term, a chain of sums whose bounds are
      // sums took 2^13 x 10^8 steps to say its bound was an integer). Floats are still
      // added term by term, which rounds differently from a product.
      auto [lb, ub] = bounds(r);
      if (lb > ub) return empty(r);
      if (--budget.steps_left < 0) fail(DiagKind::WorkLimit, "work limit exceeded while unrolling a reduction");
      Value b = ev(r.body());
      if (r.kind() != ReduceKind::Sum || lb == ub) return b;
      if (auto v = repeated_sum(b, ub - lb + 1)) return *v;
      return unroll(r, in_range(r, lb, "lower"), in_range(r, ub, "upper"));
    }
    if (int d = polynomial_degree(r); d >= 0) {
      // A long sum of a polynomial in the index is its closed form (a chain of such sums,
      // each bound the sum before it, spent 2 x 10^8 steps on each of eval's checks).
      // Errors as term by term: the bounds are read in the same order, and the lower one
      // out of range is reported before the upper one's error.
      numeric lbv, ubv;
      try {
        lbv = integer_value(need_scalar(ev(r.lb()), "loop bound"), "lower");
        try {
          ubv = integer_value(need_scalar(ev(r.ub()), "loop bound"), "upper");
        } catch (EvalError&) {
          in_range(r, lbv, "lower");
          throw;
        }
      } catch (EvalError& err) {
        if (!is_class<symbol>(err.loop_index)) err.loop_index = r.index();
        throw;
      }
      if (ubv - lbv + 1 > kClosedSumFrom)
        if (auto v = polynomial_sum(r, lbv, ubv - lbv + 1, d)) return *v;
      long lb = in_range(r, lbv, "lower"), ub = in_range(r, ubv, "upper");
      if (lb > ub) return empty(r);
      return unroll(r, lb, ub);
    }
    long lb = 0, ub = 0;
    try {
      lb = integer_bound(need_scalar(ev(r.lb()), "loop bound"), "lower");
      ub = integer_bound(need_scalar(ev(r.ub()), "loop bound"), "upper");
    } catch (EvalError& err) {  // the innermost loop's bound failed: name it
      if (!is_class<symbol>(err.loop_index)) err.loop_index = r.index();
      throw;
    }
    if (lb > ub) return empty(r);
    return unroll(r, lb, ub);
  }

  // The degree d of a sum's body as a polynomial in its index (at most 32), else -1: its
  // terms are then d + 1 values and their differences (polynomial_sum).
  int polynomial_degree(const reduction& r) {
    if (r.kind() != ReduceKind::Sum) return -1;
    auto it = degrees.find(&r);
    if (it == degrees.end()) {
      const ex& b = r.body();
      int d = -1;
      if (b.is_polynomial(r.index_ex())) {
        int n = b.degree(r.index_ex());
        if (n >= 1 && n <= 32) d = n;
      }
      it = degrees.emplace(&r, std::make_pair(ex(r), d)).first;
    }
    return it->second.second;
  }

  // sum (i = lb, lb + count - 1) { p(i) } for p of degree at most d: with the forward
  // differences D^j of p at lb, the sum of C(t, j) over t = 0 .. count - 1 is
  // C(count, j + 1), so the sum is sum_j D^j * C(count, j + 1). Exact, equal to the sum term
  // by term: p's d + 1 values are its first d + 1 terms, in the same order (the same errors
  // where one has none). nullopt where a value is a vector or not exact (floats round
  // differently from term to term): then term by term.
  std::optional<Value> polynomial_sum(const reduction& r, const numeric& lb, const numeric& count, int d) {
    const ex key = r.index_ex();
    auto saved = env.find(key) != env.end() ? std::optional<ex>(env[key]) : std::nullopt;
    std::vector<numeric> v;
    for (int t = 0; t <= d; ++t) {
      if (--budget.steps_left < 0) fail(DiagKind::WorkLimit, "work limit exceeded while unrolling a reduction");
      env[key] = lb + t;
      Value b = ev(r.body());
      if (b.is_vector || !b.scalar.is_rational()) break;
      v.push_back(b.scalar);
    }
    if (saved) env[key] = *saved; else env.erase(key);
    if (static_cast<int>(v.size()) != d + 1) return std::nullopt;
    numeric total = 0, binom = count;  // C(count, j + 1)
    for (int j = 0; j <= d; ++j) {
      check_size(bits_of(v[0]) + bits_of(binom), "a product");
      numeric term = v[0] * binom;
      check_size(sum_bits(total, term), "a sum");
      total += term;
      for (size_t k = 0; k + 1 < v.size(); ++k) {
        check_size(sum_bits(v[k + 1], v[k]), "a sum");
        v[k] = v[k + 1] - v[k];
      }
      v.pop_back();
      check_size(bits_of(binom) + bits_of(count), "a product");
      binom = binom * (count - (j + 1)) / (j + 2);
    }
    return scalar(total);
  }

  Value empty(const reduction& r) {
    if (r.kind() == ReduceKind::Sum || r.empty_is_zero()) return scalar(0);
    fail(DiagKind::EmptyRange, std::string(r.kind() == ReduceKind::Max ? "max" : "min") + " over an empty range");
  }

  long in_range(const reduction& r, const numeric& n, const char* which) {
    try {
      return integer_bound(n, which);
    } catch (EvalError& err) {
      if (!is_class<symbol>(err.loop_index)) err.loop_index = r.index();
      throw;
    }
  }

  // Term by term, lb <= ub.
  Value unroll(const reduction& r, long lb, long ub) {
    const ex key = r.index_ex();
    auto saved = env.find(key) != env.end() ? std::optional<ex>(env[key]) : std::nullopt;
    Value acc;
    for (long i = lb;; ++i) {
      if (--budget.steps_left < 0) fail(DiagKind::WorkLimit, "work limit exceeded while unrolling a reduction");
      if ((++budget.steps_done & 0xFFFF) == 0 && budget.on_tick) budget.on_tick(budget.steps_done);
      env[key] = numeric(i);
      Value b = ev(r.body());
      if (i == lb)
        acc = b;
      else if (r.kind() == ReduceKind::Sum)
        add_into(acc, b);
      else
        acc = ext_v(acc, b, r.kind() == ReduceKind::Max);
      if (i == ub) break;
    }
    if (saved) env[key] = *saved; else env.erase(key);
    return acc;
  }
};

}  // namespace

Value evaluate(const ex& e, const exmap& env, WorkBudget& budget) {
  Evaluator ev{env, budget, {}, {}, {}};
  return ev.ev(e);
}

bool values_equal(const Value& a, const Value& b, double rel) {
  auto eq = [rel](const numeric& x, const numeric& y) {
    if (x.is_rational() && y.is_rational()) return x == y;
    double dx = x.to_double(), dy = y.to_double();
    return std::fabs(dx - dy) <= rel * std::max({1.0, std::fabs(dx), std::fabs(dy)});
  };
  auto as_map = [](const Value& v) {
    if (v.is_vector) return v.elems;
    std::map<long, numeric> m;
    if (!v.scalar.is_zero()) m[0] = v.scalar;
    return m;
  };
  if (!a.is_vector && !b.is_vector) return eq(a.scalar, b.scalar);
  auto ma = as_map(a), mb = as_map(b);
  for (const auto& [k, x] : ma)
    if (!eq(x, mb.count(k) ? mb.at(k) : numeric(0))) return false;
  for (const auto& [k, x] : mb)
    if (!eq(x, ma.count(k) ? ma.at(k) : numeric(0))) return false;
  return true;
}

std::string to_string(const Value& v) {
  if (!v.is_vector) return number_to_pamela(v.scalar);
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (const auto& [k, x] : v.elems) {
    os << (first ? "" : ", ") << k << ": " << number_to_pamela(x);
    first = false;
  }
  os << "}";
  return os.str();
}

}  // namespace pamc::sym
