// Facts from the model itself: see model_facts.h.
#include "compiler/symbolic/model_facts.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace pamc::sym {

using namespace GiNaC;

namespace {

// e without its integer constant terms ("N - 1 is an integer" says "N is an integer").
ex strip_integer_constants(const ex& e) {
  ex x = e.expand();
  if (!is_class<add>(x)) return x;
  ex out = 0;
  for (size_t k = 0; k < x.nops(); ++k)
    if (!(is_class<numeric>(x.op(k)) && ex_to<numeric>(x.op(k)).is_integer())) out += x.op(k);
  return out;
}

// A numeric coefficient times the rest: 2 * N -> (2, N), N / P -> (1, N / P).
std::pair<numeric, ex> split_coefficient(const ex& x) {
  if (is_class<mul>(x) && is_class<numeric>(x.op(x.nops() - 1)))
    return {ex_to<numeric>(x.op(x.nops() - 1)), x / x.op(x.nops() - 1)};
  return {numeric(1), x};
}

struct Inferrer {
  Facts& facts;
  std::vector<symbol> bound;  // reduction indices in scope
  std::set<ex, ex_is_less> int_symbols, ge1_symbols, int_exprs;
  std::vector<ex> ge1_exprs;  // divisors that are not a symbol: each must be >= 1
  // Parameters whose default sign a fact below was derived from (N / P >= 1 gives P > 0
  // only with N >= 0): checked as assumptions, since N = -3, P = -1 satisfies N / P >= 1.
  std::set<ex, ex_is_less> default_signs;
  // Loop bounds that are integers by themselves but may fail (ceil(log2(P)) at P = 0):
  // checked silently like the facts, since a closed form may multiply such a bound by a
  // factor that is 0 there ((N > 0) * ceil(log2(P))), and a zero factor covers a failure,
  // while the model evaluates a loop's bound whatever its body is.
  std::set<ex, ex_is_less> defined_exprs;
  void relies_on_sign(const ex& s) {
    if (is_class<symbol>(s) && facts.sign_is_default(ex_to<symbol>(s))) default_signs.insert(s);
  }

  bool parameters_only(const ex& e) const {
    for (const symbol& i : bound)
      if (e.has(i)) return false;
    return true;
  }

  // The value of a loop bound must be an integer.
  void need_integer(const ex& e) {
    if (!parameters_only(e)) return;
    ex x = strip_integer_constants(e);
    if (is_class<numeric>(x)) return;
    if (facts.provably_integer(x)) {
      if (may_fail(x, facts)) defined_exprs.insert(x);
      return;
    }
    if (is_class<symbol>(x)) {
      int_symbols.insert(x);
      facts.declare_integer(ex_to<symbol>(x));
      return;
    }
    auto [c, rest] = split_coefficient(x);
    if (c == -1) x = rest;  // -N / P is an integer iff N / P is
    int_exprs.insert(x);
    facts.declare_integer_expr(x);
    if (pamela_function(x) == Fn::Log2) facts.declare_integer_atom(x);
  }

  // The divisor of mod / div: an integer >= 1.
  std::set<ex, ex_is_less> divisors_done;

  void need_divisor(const ex& e) {
    if (!parameters_only(e) || is_class<numeric>(e)) return;
    if (!divisors_done.insert(e).second) return;  // the same divisor in another place
    need_integer(e);
    ex x = e.expand();
    // Checked whatever the facts below can prove: they are proved from this very fact.
    bool checked_as_symbol = is_class<symbol>(x) && !facts.provably_nonneg(x - 1);
    if (!is_class<symbol>(x) && !facts.provably_nonneg(x - 1)) ge1_exprs.push_back(x);
    if (is_class<symbol>(x)) {
      if (checked_as_symbol) ge1_symbols.insert(x);  // else declared
      facts.add_lower(ex_to<symbol>(x), 1, false);
      return;
    }
    // ceil(y) >= 1 is y > 0 (a block size ceil(N / P)): N > 0 and P > 0 for a quotient.
    if (pamela_function(x) == Fn::Ceil) {
      ex ynd = x.op(0).normal().numer_denom();
      for (const ex& s : {ynd.op(0), ynd.op(1)}) relies_on_sign(s);
      for (const ex& s : {ynd.op(0), ynd.op(1)})
        if (is_class<symbol>(s) && !facts.provably_positive(s)) facts.add_lower(ex_to<symbol>(s), 0, true);
      return;
    }
    auto [c, rest] = split_coefficient(x);
    if (c.is_positive() && is_class<symbol>(rest)) facts.add_lower(ex_to<symbol>(rest), 1 / c, false);
    // A quotient N / P >= 1 of two parameters (block size N / P): P > 0 and N >= P.
    ex nd = x.normal().numer_denom();
    if (is_class<symbol>(nd.op(0)) && is_class<symbol>(nd.op(1))) {
      // Only what the facts lack: a bound stated twice (P <= N declared, N >= P inferred)
      // makes every proof walk both ways.
      relies_on_sign(nd.op(0));
      if (!facts.provably_positive(nd.op(1))) facts.add_lower(ex_to<symbol>(nd.op(1)), 0, true);
      if (!facts.provably_nonneg(nd.op(0) - nd.op(1))) facts.add_lower(ex_to<symbol>(nd.op(0)), nd.op(1), false);
    }
  }

  // Lowered equations share subexpressions heavily (phi_, T_ and omega_ of one process, a
  // process used twice): each node is walked once. What a node yields does not depend on
  // where it is met, as an index symbol only ever occurs inside its own reduction.
  // Keyed by value, not by address: op() of a sum or product builds temporaries, whose
  // addresses are reused once they die (a node would be skipped by chance).
  struct Hash {
    size_t operator()(const ex& x) const { return x.gethash(); }
  };
  struct Eq {
    bool operator()(const ex& a, const ex& b) const { return a.is_equal(b); }
  };
  std::unordered_set<ex, Hash, Eq> seen;

  void walk(const ex& e) {
    if (e.nops() == 0 || !seen.insert(e).second) return;
    if (is_class<reduction>(e)) {
      const auto& r = ex_to<reduction>(e);
      walk(r.lb());
      walk(r.ub());
      need_integer(r.lb());
      need_integer(r.ub());
      bound.push_back(r.index());
      walk(r.body());
      bound.pop_back();
      return;
    }
    switch (pamela_function(e)) {
      case Fn::Mod:
      case Fn::Div: need_divisor(e.op(1)); break;
      case Fn::Unitvec:
        if (!is_class<numeric>(e.op(0))) need_integer(e.op(0));
        break;
      case Fn::Gcd:  // of integers
        for (size_t k = 0; k < 2; ++k)
          if (!is_class<numeric>(e.op(k))) need_integer(e.op(k));
        break;
      default: break;
    }
    for (size_t k = 0; k < e.nops(); ++k) walk(e.op(k));
  }
};

}  // namespace

void infer_model_facts(const std::vector<ex>& equations, Facts& facts, Assumptions& out) {
  Inferrer in{facts, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  for (const ex& e : equations) in.walk(e);
  // "P divides N" (N / P an integer) with P an integer: P != 0, so P >= 1 (P >= 0 by default).
  for (const ex& x : in.int_exprs) {
    ex den = x.normal().denom();
    if (is_class<symbol>(den) && in.int_symbols.count(den) && !in.ge1_symbols.count(den) &&
        !facts.provably_nonneg(den - 1)) {
      in.ge1_symbols.insert(den);
      facts.add_lower(ex_to<symbol>(den), 1, false);
    }
  }
  // One item per symbol or expression, sorted by text so the line is stable.
  std::map<std::string, std::string> items;
  for (const ex& s : in.int_symbols) {
    std::string name = to_pamela(s);
    items[name] = name + (in.ge1_symbols.count(s) ? " >= 1 integer" : " integer");
    out.integer.push_back(s);
  }
  for (const ex& s : in.ge1_symbols) {
    std::string name = to_pamela(s);
    if (!items.count(name)) items[name] = name + " >= 1";
    out.nonneg.push_back(s - 1);
  }
  Facts symbols_only;  // an expression that follows from the integer symbols says nothing new
  for (const ex& s : in.int_symbols) symbols_only.declare_integer(ex_to<symbol>(s));
  for (const ex& x : in.int_exprs) {
    if (symbols_only.provably_integer(x)) continue;
    std::string name = to_pamela(x);  // printed once: a loop bound can be long written out
    items[name] = divides_text(x).value_or(name + " integer");
    out.integer.push_back(x);
  }
  for (const ex& x : in.ge1_exprs) {
    std::string name = to_pamela(x);
    items[name + " >= 1"] = name + " >= 1";
    out.nonneg.push_back(x - 1);
  }
  for (const auto& [key, text] : items) out.from_model.push_back(text);
  for (const ex& x : in.defined_exprs) out.integer.push_back(x);  // no line: an integer by itself
  for (const ex& s : in.default_signs)
    if (out.items.insert(to_pamela(s) + " >= 0").second) out.nonneg.push_back(s);
}

ex powers_of_two(const ex& e, const Facts& facts) {
  std::vector<ex> logs;  // log2(s) for parameters s whose log2 is a known integer
  for (const ex& a : facts.integer_atoms())
    if (pamela_function(a) == Fn::Log2 && is_class<symbol>(a.op(0))) logs.push_back(a);
  if (logs.empty()) return e;
  struct Rewrite : map_function {
    const std::vector<ex>& logs;
    explicit Rewrite(const std::vector<ex>& l) : logs(l) {}
    ex operator()(const ex& x) override {
      ex y = x.map(*this);
      if (!is_class<mul>(y)) return y;
      // A factor 2 ^ t with t not a number, beside s ^ k: the product 2 ^ (k log2(s) + t).
      // 2 ^ t, also held as (2 ^ t) ^ c: its exponent, or 0 when f is not one.
      auto pow2_exponent = [](const ex& f) -> ex {
        if (!is_class<power>(f)) return 0;
        if (f.op(0).is_equal(2) && !is_class<numeric>(f.op(1))) return f.op(1);
        if (is_class<power>(f.op(0)) && f.op(0).op(0).is_equal(2) && is_class<numeric>(f.op(1)))
          return f.op(0).op(1) * f.op(1);
        return 0;
      };
      bool has_pow2 = false;
      for (size_t k = 0; k < y.nops(); ++k)
        if (!pow2_exponent(y.op(k)).is_zero()) has_pow2 = true;
      if (!has_pow2) return y;
      ex exponent = 0, rest = 1;
      bool changed = false;
      for (size_t k = 0; k < y.nops(); ++k) {
        const ex& f = y.op(k);
        if (ex t = pow2_exponent(f); !t.is_zero()) {
          exponent += t;
          continue;
        }
        ex base = is_class<power>(f) ? f.op(0) : f;
        ex power_of = is_class<power>(f) ? f.op(1) : ex(1);
        bool used = false;
        if (is_class<numeric>(power_of) && ex_to<numeric>(power_of).is_integer()) {
          for (const ex& l : logs)
            if (base.is_equal(l.op(0))) {
              exponent += power_of * l;
              used = changed = true;
              break;
            }
        }
        if (!used) rest *= f;
      }
      if (!changed) return y;
      return rest * pow(ex(2), exponent);
    }
  } rw(logs);
  return rw(e);
}

std::vector<std::string> assumption_lines(const Assumptions& a) {
  std::vector<std::string> out, names;
  size_t at = std::string::npos;  // where the shared line goes: at its first name
  for (const std::string& item : a.items) {
    const std::string tail = " >= 0";
    bool bare = item.size() > tail.size() && item.compare(item.size() - tail.size(), tail.size(), tail) == 0 &&
                item.find_first_of(" ()*+-/^") == item.size() - tail.size();
    if (!bare) {
      out.push_back(item);
      continue;
    }
    if (names.empty()) at = out.size();
    names.push_back(item.substr(0, item.size() - tail.size()));
  }
  if (names.size() > 1) {
    std::string line;
    for (const std::string& n : names) line += (line.empty() ? "" : ", ") + n;
    out.insert(out.begin() + static_cast<long>(at), line + " >= 0");
  } else if (names.size() == 1) {
    out.insert(out.begin() + static_cast<long>(at), names[0] + " >= 0");
  }
  return out;
}

void drop_implied_nonneg(Assumptions& a) {
  auto implied = [&](const ex& s) {
    for (const ex& e : a.nonneg) {
      ex c = (s - e).expand();  // e = s - c
      if (!e.is_equal(s) && is_class<numeric>(c) && !ex_to<numeric>(c).is_negative()) return true;
    }
    return false;
  };
  std::vector<ex> kept;
  for (const ex& e : a.nonneg) {
    if (is_class<symbol>(e) && implied(e)) {
      a.items.erase(ex_to<symbol>(e).get_name() + " >= 0");
      continue;
    }
    kept.push_back(e);
  }
  a.nonneg = kept;
}

void drop_redundant_assumptions(Assumptions& a, const Facts& facts) {
  // Conditions the promotion reads: min(x_1, ..., x_n) + rest >= 0 is x_k + rest >= 0 for
  // every k, each of which promote_assumptions may turn into a bound on a symbol.
  auto promotable = [](const std::vector<ex>& conds) {
    std::vector<ex> out;
    for (const ex& c : conds) {
      ex x = c.expand();
      ex m = 0, rest = 0;
      for (const ex& t : is_class<add>(x) ? exvector(x.begin(), x.end()) : exvector{x})
        (m.is_zero() && is_class<extremum>(t) && !ex_to<extremum>(t).is_max() ? m : rest) += t;
      if (m.is_zero()) {
        out.push_back(c);
        continue;
      }
      for (const ex& arg : ex_to<extremum>(m).args()) out.push_back(arg + rest);
    }
    return out;
  };
  std::vector<ex> kept = a.nonneg;
  for (size_t k = 0; k < kept.size();) {
    const ex e = kept[k];
    std::string text = detail::nonneg_text(e);
    bool drop = false;
    if (!is_class<symbol>(e) && a.items.count(text)) {
      std::vector<ex> others(kept.begin(), kept.end());
      others.erase(others.begin() + static_cast<long>(k));
      Facts g = facts;
      Assumptions tmp;
      tmp.integer = a.integer;
      tmp.nonneg = promotable(others);
      promote_assumptions(tmp, g);
      // A proof that leans on a parameter's default sign holds only where that sign is
      // itself an assumption that stays.
      auto& log = DefaultBoundLog::used();
      log.clear();
      DefaultBoundLog::recording() = true;
      bool proved = g.provably_nonneg(e);
      DefaultBoundLog::recording() = false;
      if (proved) {
        drop = true;
        for (const symbol& s : log) {
          bool kept_sign = false;
          for (const ex& o : others) kept_sign = kept_sign || o.is_equal(s);
          drop = drop && kept_sign;
        }
      }
      log.clear();
    }
    if (drop) {
      a.items.erase(text);
      kept.erase(kept.begin() + static_cast<long>(k));
    } else {
      ++k;
    }
  }
  a.nonneg = kept;
  // An integrality that follows from the others ("N * h / P is an integer" from "N / P is
  // an integer" and h = floor(...)): the rest say it already.
  // Only a recorded assumption goes: a fact from the model stays, as the check of the facts.
  std::vector<ex> ints = a.integer;
  for (size_t k = 0; k < ints.size();) {
    if (is_class<symbol>(ints[k]) || !a.items.count(integer_claim_text(ints[k]))) {
      ++k;
      continue;
    }
    Facts g = facts;
    Assumptions tmp;
    tmp.integer = ints;
    tmp.integer.erase(tmp.integer.begin() + static_cast<long>(k));
    promote_assumptions(tmp, g);
    if (g.provably_integer(ints[k])) {
      a.items.erase(integer_claim_text(ints[k]));
      ints.erase(ints.begin() + static_cast<long>(k));
    } else {
      ++k;
    }
  }
  a.integer = ints;
}

void promote_assumptions(Assumptions& a, Facts& facts) {
  std::vector<ex> signs;  // parameters whose default sign a promotion relies on
  for (const ex& e : a.integer) {
    if (is_class<symbol>(e))
      facts.declare_integer(ex_to<symbol>(e));
    else if (pamela_function(e) == Fn::Log2)  // log2(P) is an integer: P a power of two
      facts.declare_integer_atom(e);
    else
      facts.declare_integer_expr(e);
  }
  for (const ex& e : a.nonneg) {
    // x >= 0 with x = s + rest, s a symbol with coefficient 1 not in rest: s >= -rest.
    ex x = e.expand();
    // s ^ k - 1 >= 0 with s >= 0 (Q ^ 2 >= 1 from a Q x Q grid): s >= 1.
    if (is_class<add>(x) && x.nops() == 2) {
      ex t0 = x.op(0), t1 = x.op(1);
      if (is_class<numeric>(t0)) std::swap(t0, t1);
      if (t1.is_equal(-1) && is_class<power>(t0) && is_class<symbol>(t0.op(0)) && is_class<numeric>(t0.op(1)) &&
          ex_to<numeric>(t0.op(1)).is_pos_integer() && facts.provably_nonneg(t0.op(0))) {
        if (facts.sign_is_default(ex_to<symbol>(t0.op(0)))) signs.push_back(t0.op(0));  // Q = -2: Q ^ 2 >= 1
        if (!facts.provably_nonneg(t0.op(0) - 1)) facts.add_lower(ex_to<symbol>(t0.op(0)), 1, false);
        continue;
      }
    }
    exvector terms;
    if (is_class<add>(x))
      for (size_t k = 0; k < x.nops(); ++k) terms.push_back(x.op(k));
    else
      terms.push_back(x);
    std::vector<symbol> candidates;
    for (const ex& t : terms)
      if (is_class<symbol>(t)) candidates.push_back(ex_to<symbol>(t));
    std::sort(candidates.begin(), candidates.end(),
              [](const symbol& p, const symbol& q) { return p.get_name() < q.get_name(); });
    if (facts.provably_nonneg(x)) continue;  // nothing new, and a second path slows proofs
    for (const symbol& s : candidates) {
      ex rest = (x - s).expand();
      if (rest.has(s)) continue;
      facts.add_lower(s, -rest, false);
      break;
    }
  }
  for (const ex& s : signs)
    if (a.items.insert(to_pamela(s) + " >= 0").second) a.nonneg.push_back(s);
}

}  // namespace pamc::sym
