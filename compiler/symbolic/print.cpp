// Pamela printer: see print.h.
//
// Precedence levels (higher binds tighter): 1 or, 2 and, 3 comparison, 4 + -, 5 * / mod div,
// 6 unary minus / not, 7 ^ (right-associative), 8 atoms (numbers, names, calls, reductions,
// vectors, parenthesized comparisons).
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/expr_key.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/reduction.h"

#include <cln/integer.h>
#include <cln/integer_io.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {

enum Prec { kAdd = 4, kMul = 5, kUnary = 6, kPow = 7, kAtom = 8 };

struct Text {
  std::string s;
  int prec;
};

Text P(const ex& e);

std::string wrap(const Text& t, int need) { return t.prec < need ? "(" + t.s + ")" : t.s; }

// The exponents (a, b) of a denominator d = 2^a 5^b, or nullopt when d has another prime
// factor. Asked only up to 4096 bits of denominator (0.5 ^ 200000 prints as the fraction it
// is). A few operations on the whole number, not one division per factor: the numbers here
// come from exact arithmetic and reach 4096 bits (1e-400 has 1,329), and a model's facts
// print each one many times.
cln::cl_I power_of_5(long k) { return k == 0 ? cln::cl_I(1) : cln::expt_pos(cln::cl_I(5), k); }

std::optional<std::pair<long, long>> two_five_exponents(const numeric& d) {
  if (d.int_length() > 4096) return std::nullopt;
  if (d < numeric(1L << 62)) {  // machine arithmetic for the usual small denominators
    long x = d.to_long(), a = 0, b = 0;
    while (x % 2 == 0) x /= 2, ++a;
    while (x % 5 == 0) x /= 5, ++b;
    if (x != 1) return std::nullopt;
    return std::make_pair(a, b);
  }
  cln::cl_I di = cln::the<cln::cl_I>(d.to_cl_N());
  long a = static_cast<long>(cln::ord2(di));
  cln::cl_I odd = cln::ash(di, -a);
  // odd = 5^b has floor(b log2(5)) + 1 bits: b is one of the two or three values near.
  long bits = static_cast<long>(cln::integer_length(odd));
  long guess = static_cast<long>(static_cast<double>(bits - 1) / std::log2(5.0));
  for (long b = std::max(0L, guess - 1); b <= guess + 1; ++b)
    if (power_of_5(b) == odd) return std::make_pair(a, b);
  return std::nullopt;
}

// Is the rational's decimal expansion finite (denominator 2^a 5^b)?
bool is_decimal(const numeric& r) { return two_five_exponents(r.denom()).has_value(); }

// The decimal text of n / 10^digits for the digit string s of n >= 0.
std::string place_point(std::string s, int digits) {
  if (digits == 0) return s;
  // Four or more zeros after the point read better in scientific notation (machine
  // constants such as 4e-8 seconds); still exact: 1.25e-7 is the same rational.
  if (digits - static_cast<int>(s.size()) >= 4) {
    std::string mantissa = s.substr(0, 1);
    std::string rest = s.substr(1);
    while (!rest.empty() && rest.back() == '0') rest.pop_back();
    if (!rest.empty()) mantissa += "." + rest;
    return mantissa + "e-" + std::to_string(digits - static_cast<int>(s.size()) + 1);
  }
  if (static_cast<int>(s.size()) <= digits) s = std::string(digits - s.size() + 1, '0') + s;
  s.insert(s.size() - digits, ".");
  return s;
}

// r = n / (2^a 5^b) with n and the denominator below 2^62: the digits of r * 10^max(a, b) in
// machine integers. nullopt when that overflows.
std::optional<std::string> small_decimal_text(const numeric& r) {
  static const numeric limit(1L << 62);
  numeric nn = r.numer(), dd = r.denom();
  if (!(nn < limit) || !(dd < limit)) return std::nullopt;
  long n = nn.to_long(), d = dd.to_long();
  int twos = 0, fives = 0;
  while (d % 2 == 0) d /= 2, ++twos;
  while (d % 5 == 0) d /= 5, ++fives;
  int digits = std::max(twos, fives);
  long scaled = n;
  for (int k = twos; k < digits; ++k)
    if (__builtin_mul_overflow(scaled, 2L, &scaled)) return std::nullopt;
  for (int k = fives; k < digits; ++k)
    if (__builtin_mul_overflow(scaled, 5L, &scaled)) return std::nullopt;
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(scaled % 10)));
    scaled /= 10;
  } while (scaled > 0);
  return place_point(std::move(s), digits);
}

std::string decimal_text(const numeric& r) {  // r >= 0, is_decimal(r)
  if (auto fast = small_decimal_text(r)) return *fast;
  auto [twos, fives] = *two_five_exponents(r.denom());
  long digits = std::max(twos, fives);  // r * 10^digits is the smallest such integer
  cln::cl_I n = cln::the<cln::cl_I>(r.numer().to_cl_N());
  n = n * power_of_5(digits - fives);
  n = cln::ash(n, digits - twos);
  std::ostringstream os;
  cln::fprintdecimal(os, n);
  return place_point(os.str(), static_cast<int>(digits));
}

std::string float_text(double d) {
  char buf[64];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  auto e = s.find("e+");
  if (e != std::string::npos) s.erase(e + 1, 1);
  return s;
}

Text number(const numeric& n) {
  if (!n.is_real()) {
    std::ostringstream os;
    os << n;
    return {"(" + os.str() + ")", kAtom};
  }
  bool neg = n.is_negative();
  numeric a = abs(n);
  std::string body;
  int prec = kAtom;
  if (a.is_rational()) {
    if (is_decimal(a)) {
      body = decimal_text(a);
    } else {
      std::ostringstream os;
      os << a.numer() << "/" << a.denom();
      body = os.str();
      prec = kMul;
    }
  } else {
    body = float_text(a.to_double());
  }
  if (neg) return {"-" + body, std::min(prec, static_cast<int>(kUnary))};
  return {body, prec};
}

bool by_text(const std::string& a, const std::string& b) { return a < b; }

// A term of a sum as the printer writes it: sign, magnitude text (wrapped for a sum), and
// whether it is a number. A product whose text leads with '-' (its coefficient, or a factor's
// sign moved there) counts as negative, so "a + -x" is written "a - x".
struct Term {
  bool neg;
  std::string mag;
  bool is_num;
};
Term term_of(const ex& t) {
  if (is_class<numeric>(t) && ex_to<numeric>(t).is_real()) {
    const numeric& n = ex_to<numeric>(t);
    return {n.is_negative(), wrap(number(abs(n)), kAdd + 1), true};
  }
  bool neg = is_class<mul>(t) && is_class<numeric>(t.op(t.nops() - 1)) && ex_to<numeric>(t.op(t.nops() - 1)).is_negative();
  Text x = P(neg ? ex(-t) : t);
  while (x.prec == kMul && !x.s.empty() && x.s[0] == '-') {
    x.s.erase(0, 1);
    neg = !neg;
  }
  // A vector term c [a - b] may be held as -c [b - a]: write the one whose text sorts first.
  if (is_class<mul>(t) && x.prec == kAtom && is_vector_valued(t)) {
    Text y = P(neg ? t : ex(-t));
    if (y.prec == kAtom && y.s < x.s) return {!neg, wrap(y, kAdd + 1), false};
  }
  return {neg, wrap(x, kAdd + 1), false};
}

// The order the printer writes a sum's terms in: numbers last, then by magnitude text.
bool term_before(const Term& a, const Term& b) {
  if (a.is_num != b.is_num) return b.is_num;
  if (a.mag != b.mag) return a.mag < b.mag;
  return a.neg < b.neg;
}

// Should the sum e be printed negated (its sign moved out)? When more of its terms are
// negative than positive; on a tie, when the first term in the printer's order is.
bool print_negated(const ex& e) {
  std::optional<Term> first;
  size_t negative = 0;
  for (size_t i = 0; i < e.nops(); ++i) {
    Term t = term_of(e.op(i));
    if (t.neg) ++negative;
    if (!first || term_before(t, *first)) first = t;
  }
  if (2 * negative != e.nops()) return 2 * negative > e.nops();
  return first && first->neg;
}

// A product as coefficient, numerator factors and denominator factors. A factor that is a
// sum (or a power of one) is printed with fewer negative terms than positive ones (on a tie,
// its first term positive), the sign moved to the coefficient: x (a - b) and -x (b - a) are
// one expression that GiNaC may hold either way (factor() normalizes by its own term order,
// which follows the executable's layout), and they print alike.
Text product(const numeric& coeff, const exvector& factors_in) {
  std::vector<std::pair<std::string, std::string>> num, den;  // (sort key, text)
  numeric c = coeff;
  exvector factors;
  for (const ex& f : factors_in) {
    // -f of a sum is a sum again (GiNaC distributes a number over a sum); a power of a sum is
    // left as it is: GiNaC would turn (-s)^3 back into -(s^3).
    if (is_class<add>(f) && !is_vector_valued(f) && print_negated(f)) {
      factors.push_back(-f);
      c = -c;
    } else {
      factors.push_back(f);
    }
  }
  for (const ex& f : factors) {
    // A power of a sum: GiNaC picks the base's sign by its term order too, and would undo a
    // flipped base ((-s)^3 -> -(s^3)), so the text is made here: the base printed the way
    // print_negated chooses, the sign (for an odd exponent) moved to the coefficient.
    if (is_class<power>(f) && is_class<add>(f.op(0)) && is_class<numeric>(f.op(1)) &&
        ex_to<numeric>(f.op(1)).is_integer() && !is_vector_valued(f.op(0))) {
      const numeric& n = ex_to<numeric>(f.op(1));
      bool flip = print_negated(f.op(0));
      if (flip && n.is_odd()) c = -c;
      Text base = P(flip ? ex(-f.op(0)) : f.op(0));  // -s of a sum is a sum
      numeric k = abs(n);
      Text t = k == 1 ? base : Text{wrap(base, kAtom) + " ^ " + number(k).s, kPow};
      (n.is_negative() ? den : num).emplace_back(t.s, wrap(t, kMul + 1));
      continue;
    }
    if (is_class<power>(f) && is_class<numeric>(f.op(1)) && ex_to<numeric>(f.op(1)).is_negative()) {
      Text d = P(GiNaC::pow(f.op(0), -f.op(1)));
      den.emplace_back(d.s, wrap(d, kMul + 1));
    } else {
      Text t = P(f);
      while (t.prec == kMul && !t.s.empty() && t.s[0] == '-') {  // -sum { x } as a factor
        t.s.erase(0, 1);
        t.prec = kAtom;
        c = -c;
      }
      num.emplace_back(t.s, wrap(t, kMul + 1));
    }
  }
  std::sort(num.begin(), num.end());
  std::sort(den.begin(), den.end());
  bool neg = c.is_negative();
  c = abs(c);
  if (c.is_rational() && !is_decimal(c)) {  // 2/3 * x prints as 2 * x / 3
    std::ostringstream os;
    os << c.denom();
    den.insert(den.begin(), {os.str(), os.str()});
    c = c.numer();
  }
  std::string s;
  if (!(c == 1) || num.empty()) s = number(c).s;
  for (const auto& f : num) s += (s.empty() ? "" : " * ") + f.second;
  for (const auto& f : den) s += " / " + f.second;
  if (neg) return {"-" + s, kMul};  // -x * y reads as (-x) * y: the same value
  return {s, kMul};
}

// A vector: its terms at numeric positions as one literal [c0, c1, ...] (0 in the gaps),
// the others as c * unitvec(k), joined by +. {"", -1} when e does not split into terms.
Text vector_text(const ex& e) {
  auto vt = split_vector(e);
  if (!vt || !vt->scalar.is_zero()) return {"", -1};
  long n = 0;
  GiNaC::exvector rest;  // summed once: adding term by term is quadratic in a long literal
  std::vector<std::pair<long, ex>> lit;
  for (const auto& [pos, c] : vt->terms) {
    if (is_class<numeric>(pos) && ex_to<numeric>(pos).is_nonneg_integer() && ex_to<numeric>(pos) <= 1000) {
      lit.emplace_back(ex_to<numeric>(pos).to_long(), c);
      n = std::max(n, ex_to<numeric>(pos).to_long() + 1);
    } else {
      rest.push_back(c * pamc::sym::unitvec(pos));
    }
  }
  ex others = GiNaC::add(rest);
  if (lit.empty()) return {"", -1};
  std::vector<ex> elems(n, ex(0));
  for (const auto& [k, c] : lit) elems[k] += c;
  std::string s = "[";
  for (long i = 0; i < n; ++i) s += (i ? ", " : "") + P(elems[i]).s;
  s += "]";
  if (others.is_zero()) return {s, kAtom};
  Text o = P(others);
  return {s + " + " + o.s, kAdd};
}

Text call(const std::string& name, const ex& e) {
  std::string s = name + "(";
  for (size_t i = 0; i < e.nops(); ++i) s += (i ? ", " : "") + P(e.op(i)).s;
  return {s + ")", kAtom};
}

// floor and ceil of a quotient over a whole-number denominator print as one fraction,
// floor((P - 1) / 2), not floor(0.5 * P - 0.5): the block arithmetic a reader writes (and
// one rounding in the emitted code, emit/code_printer.cpp). Kept only where it is not longer.
Text rounding(const std::string& name, const ex& e) {
  Text plain = call(name, e);
  const ex arg = e.op(0);
  if (!is_class<add>(arg) && !is_class<mul>(arg)) return plain;
  auto q = as_quotient(arg);
  if (!q) return plain;
  ex num = q->first.expand(), den = q->second;
  if (!is_class<numeric>(den) || !ex_to<numeric>(den).is_integer() || den.is_equal(-1)) return plain;
  if (ex_to<numeric>(den).is_negative()) {
    num = (-num).expand();
    den = -den;
  }
  Text frac{wrap(P(num), kMul) + " / " + P(den).s, kMul};
  std::string s = name + "(" + frac.s + ")";
  if (s.size() > plain.s.size()) return plain;
  return {s, kAtom};
}

Text infix(const ex& a, const char* op, const ex& b, int prec) {
  // A left operand with a leading '-' is parenthesized: (-1) div b is not -(1 div b), and a
  // product or sum reads a leading '-' of a term as its sign.
  Text l = P(a);
  std::string left = !l.s.empty() && l.s[0] == '-' ? "(" + l.s + ")" : wrap(l, prec);
  return {left + " " + op + " " + wrap(P(b), prec + 1), prec};
}

Text P_uncached(const ex& e);

// Do a and b print alike? Node for node: the same classes, symbols, exact numbers, function
// and reduction kinds, index names. Not GiNaC's is_equal, which finds equal expressions
// that print differently (an exact 1 and a floating 1.0, reductions over renamed indices)
// and, comparing two max or reductions, makes their equal arguments share one tree (which
// would change how one of them prints). False where unsure (a floating number, another
// class): that only prints again.
bool prints_alike(const ex& a, const ex& b) {
  if (are_ex_trivially_equal(a, b)) return true;
  const basic& x = ex_to<basic>(a);
  const basic& y = ex_to<basic>(b);
  if (&x.get_class_info() != &y.get_class_info()) return false;
  if (is_class<numeric>(a)) {
    const numeric &m = ex_to<numeric>(a), &n = ex_to<numeric>(b);
    return m.is_rational() && n.is_rational() && m.is_equal(n);
  }
  if (is_class<symbol>(a)) return x.is_equal(y);  // a symbol has no parts to share
  if (is_class<reduction>(a)) {
    const auto &r = ex_to<reduction>(a), &q = ex_to<reduction>(b);
    return r.kind() == q.kind() && r.empty_is_zero() == q.empty_is_zero() &&
           r.index().is_equal(q.index()) && prints_alike(r.lb(), q.lb()) &&
           prints_alike(r.ub(), q.ub()) && prints_alike(r.body(), q.body());
  }
  if (is_class<extremum>(a)) {
    if (ex_to<extremum>(a).is_max() != ex_to<extremum>(b).is_max()) return false;
  } else if (is_class<function>(a)) {
    if (ex_to<function>(a).get_serial() != ex_to<function>(b).get_serial()) return false;
  } else if (!is_class<add>(a) && !is_class<mul>(a) && !is_class<power>(a)) {
    return false;
  }
  if (a.nops() != b.nops()) return false;
  for (size_t i = 0; i < a.nops(); ++i)
    if (!prints_alike(a.op(i), b.op(i))) return false;
  return true;
}
struct PrintsAlike {
  bool operator()(const ex& a, const ex& b) const { return prints_alike(a, b); }
};

// A sum's or a product's text is asked for again and again: the rules print the same
// arguments to put them in text order (the order that does not follow the executable's
// layout), and the printer prints a sum's terms once to choose its sign and again to write
// it. Remembered (a sum, product, power or call; a number or a name prints at once) first
// per node, held here so that its address is not reused, then per value (prints_alike).
// Bounded, for long-lived hosts (the language server, the Python module): a full table is
// dropped, which costs only printing again.
Text P(const ex& e) {
  if (e.nops() == 0) return P_uncached(e);
  static thread_local std::unordered_map<const basic*, std::pair<ex, Text>> by_node;
  static thread_local std::unordered_map<ex, Text, ExprHash, PrintsAlike> by_value;
  const basic* node = &ex_to<basic>(e);
  if (auto it = by_node.find(node); it != by_node.end()) return it->second.second;
  Text t;
  if (auto it = by_value.find(e); it != by_value.end()) {
    t = it->second;
  } else {
    t = P_uncached(e);
    if (by_value.size() >= 16384) by_value.clear();
    by_value.emplace(e, t);
  }
  if (by_node.size() >= 16384) by_node.clear();
  by_node.emplace(node, std::make_pair(e, t));
  return t;
}

Text P_uncached(const ex& e) {
  if (is_class<numeric>(e)) return number(ex_to<numeric>(e));
  if (is_class<symbol>(e)) return {ex_to<symbol>(e).get_name(), kAtom};
  if (is_class<constant>(e)) {
    std::ostringstream os;
    os << e;
    return {os.str(), kAtom};
  }
  if ((is_class<add>(e) || is_class<mul>(e)) && is_vector_valued(e)) {
    Text v = vector_text(e);
    if (v.prec >= 0) return v;
  }
  if (is_class<add>(e)) {
    std::vector<Term> terms;
    for (size_t i = 0; i < e.nops(); ++i) terms.push_back(term_of(e.op(i)));
    std::sort(terms.begin(), terms.end(), term_before);
    // Lead with a positive term when there is one.
    auto first_pos = std::find_if(terms.begin(), terms.end(), [](const Term& t) { return !t.neg; });
    if (first_pos != terms.end()) std::rotate(terms.begin(), first_pos, first_pos + 1);
    std::string s;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (i == 0)
        s = (terms[i].neg ? "-" : "") + terms[i].mag;
      else
        s += (terms[i].neg ? " - " : " + ") + terms[i].mag;
    }
    return {s, kAdd};
  }
  if (is_class<mul>(e)) {
    numeric c = 1;
    exvector f;
    for (size_t i = 0; i < e.nops(); ++i) {
      if (is_class<numeric>(e.op(i)))
        c = c * ex_to<numeric>(e.op(i));
      else
        f.push_back(e.op(i));
    }
    return product(c, f);
  }
  if (is_class<power>(e)) {
    const ex& b = e.op(0);
    const ex& x = e.op(1);
    if (is_class<numeric>(x) && ex_to<numeric>(x).is_negative()) return product(1, {e});
    if (x.is_equal(numeric(1, 2))) return {"sqrt(" + P(b).s + ")", kAtom};
    std::string bs = wrap(P(b), kAtom);
    return {bs + " ^ " + wrap(P(x), kPow), kPow};
  }
  if (is_class<extremum>(e)) {
    const auto& m = ex_to<extremum>(e);
    std::vector<std::string> args;
    for (const ex& a : m.args()) args.push_back(P(a).s);
    std::sort(args.begin(), args.end(), by_text);
    std::string s = m.is_max() ? "max(" : "min(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
    return {s + ")", kAtom};
  }
  if (is_class<reduction>(e)) {
    const auto& r = ex_to<reduction>(e);
    static const char* names[] = {"sum", "max", "min"};
    Text body = P(r.body());
    // A sum whose body prints with a leading '-' (a product, its sign chosen by the printer)
    // is written -sum (...) { ... }: sum { -x } and -sum { x } then print alike.
    bool negated = r.kind() == ReduceKind::Sum && body.prec == kMul && !body.s.empty() && body.s[0] == '-';
    if (negated) body.s.erase(0, 1);
    std::string text = std::string(names[static_cast<int>(r.kind())]) + " (" + r.index().get_name() + " = " +
                       P(r.lb()).s + ", " + P(r.ub()).s + ") { " + body.s + " }";
    if (negated) return {"-" + text, kMul};
    return {text, kAtom};
  }
  switch (pamela_function(e)) {
    case Fn::Unitvec: return call("unitvec", e);
    case Fn::VectorMax: return call("max", e);
    case Fn::Floor: return rounding("floor", e);
    case Fn::Ceil: return rounding("ceil", e);
    case Fn::Log2: return call("log2", e);
    case Fn::Gcd: return call("gcd", e);
    case Fn::Mod: return infix(e.op(0), "mod", e.op(1), kMul);
    case Fn::Div: return infix(e.op(0), "div", e.op(1), kMul);
    case Fn::Eq: return {"(" + wrap(P(e.op(0)), 4) + " == " + wrap(P(e.op(1)), 4) + ")", kAtom};
    case Fn::Ne: return {"(" + wrap(P(e.op(0)), 4) + " != " + wrap(P(e.op(1)), 4) + ")", kAtom};
    case Fn::Lt: return {"(" + wrap(P(e.op(0)), 4) + " < " + wrap(P(e.op(1)), 4) + ")", kAtom};
    case Fn::Le: return {"(" + wrap(P(e.op(0)), 4) + " <= " + wrap(P(e.op(1)), 4) + ")", kAtom};
    case Fn::None: break;
  }
  if (is_class<function>(e)) return call(ex_to<function>(e).get_name(), e);
  std::ostringstream os;  // not expected in Pamela expressions; printed for diagnosis
  os << e;
  return {"(" + os.str() + ")", kAtom};
}

}  // namespace

std::string number_to_pamela(const numeric& n) { return number(n).s; }

std::string to_pamela(const ex& e) { return P(e).s; }

static bool has_symbol(const ex& e) {
  if (is_a<symbol>(e)) return true;
  for (size_t k = 0; k < e.nops(); ++k)
    if (has_symbol(e.op(k))) return true;
  return false;
}

std::optional<std::string> divides_text(const ex& x) {
  // A constant (a sum of sums of exact numbers) is not brought to one fraction, which takes
  // a gcd per path through it.
  if (!has_symbol(x)) return std::nullopt;
  ex nd = x.normal().numer_denom();
  // "P divides N" for N / P, "4 divides B" for B / 4
  const ex& den = nd.op(1);
  bool whole = is_a<numeric>(den) && ex_to<numeric>(den).is_pos_integer();
  if (!den.is_equal(1) && (is_a<symbol>(den) || whole) && (is_a<symbol>(nd.op(0)) || is_a<mul>(nd.op(0))))
    return to_pamela(nd.op(1)) + " divides " + to_pamela(nd.op(0));
  return std::nullopt;
}

std::string integer_claim_text(const ex& e) {
  return divides_text(e).value_or(to_pamela(e) + " is an integer");
}

}  // namespace pamc::sym
