// lower: normalized processes -> phi / delta / omega / T (SPEC section 3, table).
//
//   process            phi                 delta                 T
//   delay(t)           t                   0                     t
//   use(fcfs(a,b), t)  t                   unitvec(a) * t / b    phi
//   a ; b              phi_a + phi_b       delta_a + delta_b     T_a + T_b
//   a || b             max(phi_a, phi_b)   delta_a + delta_b     max(T_a, T_b, omega_L)
//   seq (i = l, u) B   sum_i phi_B         sum_i delta_B         sum_i T_B
//   par (i = l, u) B   max_i phi_B         sum_i delta_B         max(max_i T_B, omega_L)
//   if (c) a else b    c * X_a + (1 - c) * X_b   for every X
//
// `use` takes t (not t / b as the seed's text prints): one request on a multi-server
// resource still takes t; b divides only the aggregate workload (docs/semantics.md).
#include "compiler/passes/lower.h"
#include "compiler/passes/node_table.h"
#include "compiler/passes/tree_shape.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/exact_size.h"
#include "compiler/symbolic/expr_key.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <sstream>

using pamc::sym::is_class;

namespace pamc {
namespace {

using ast::Kind;
using ast::NodeP;
using ast::Op;
using GiNaC::ex;
using Scope = std::map<std::string, ex>;

// Normalization shares each equation's body among all its uses (a DAG), and lowering would
// walk every use again: a chain of equations t_k = 0.5 * t_j + ... is lowered once per use
// of each link. Within one lower(), a subtree whose free names are all parameters lowers to
// the same expression wherever it is used, so it is lowered once, keyed by node, and by loop
// depth when it holds loops (their indices' symbols are per name and depth): processes that
// use a looping process twice per line (q1 = q0 || q0, q2 = q1 || q1, ...) are then lowered
// in linear time, not once per path (2^k). Disabled while a loop index hides a parameter
// (normalize renames such indices, so that does not happen).
struct LowerMemo {
  const Scope* params = nullptr;       // the scope as it held only parameters
  using Key = std::pair<const ast::Node*, int>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<const void*>()(k.first) ^ (static_cast<std::size_t>(k.second) * 0x9e3779b97f4a7c15ULL); }
  };
  std::unordered_map<Key, ex, KeyHash> value;
  // Process nodes the same way (phi, delta, T): normalization shares a called process's
  // body, so a chain of n processes each calling the previous one lowers in O(n), not O(n^2).
  std::unordered_map<Key, std::array<ex, 3>, KeyHash> process_value;
  int hiding = 0;                      // BindIndex objects currently hiding a name
  // Loop indices: one symbol per (name, nesting depth). The same loop lowered again (a
  // process used by several equations, phi_ and T_ of one equation) then gives the same
  // expression, not an alpha-equivalent copy, and comparing copies (renaming bodies) was the
  // simplifier memo's largest cost. A nested index is one level deeper, so an index never
  // shares its symbol with one it hides or one its range mentions.
  int depth = 0;                       // BindIndex objects alive
  std::map<std::pair<std::string, int>, GiNaC::symbol> indices;
  // Where each loop index is bound in the source, for the notes on reductions left open.
  std::vector<LoopSite> loops;
  std::vector<TimeSite> times;  // index-free symbolic times (checked at evaluation)
  std::unordered_multimap<std::size_t, std::size_t> time_index;  // hash -> position in times
  // While an equation is lowered for lower()'s equations of one shape: what it recorded
  // (a loop's index and site, a time and its site), in order, with the node whose place it
  // took, to be recorded again at the places of an equation of the same shape. `hidden`:
  // a memo hit skipped a subtree that might have recorded something (a process, or a node
  // with loops), so the log is not the whole of it.
  struct Event {
    const ast::Node* at;
    std::optional<GiNaC::symbol> index;  // a loop's index, or
    ex time;                             // a time (reject_negative_time)
    const char* what;
  };
  std::vector<Event>* events = nullptr;
  bool hidden = false;

  // Closed: every free name is a parameter (a loop inside binds its own index). A closed
  // subtree with loops lowers to the same expression wherever it is used at the same loop
  // depth (its indices' symbols are per name and depth), so it is memoized per depth.
  // Small, as one is kept per node: the free names are a list in name_lists, shared with
  // the kid they came from when it is the only one that has any.
  struct Info {
    bool loops = false;      // a loop or reduction inside
    std::uint32_t free = 0;  // name_lists[free]: free names that are not parameters, sorted (0: none)
  };
  std::vector<std::vector<std::string>> name_lists{{}};
  NodeTable<Info> infos;
  // Valid until the next call (the table may grow): read it before asking for another node.
  const Info& info(const NodeP& n) {
    if (const Info* known = infos.find(n.get())) return *known;
    Info out;
    if (n->kind == Kind::Name) {
      if (!params->count(n->name)) out.free = single_name(n->name);
      return infos.insert(n.get(), out);
    }
    bool binder = n->kind == Kind::Reduce || n->kind == Kind::SeqLoop || n->kind == Kind::ParLoop;
    out.loops = binder;
    // Most nodes take their free names from one kid (a loop body, the one operand that
    // names an index) and share that kid's list: found without copying a name.
    std::uint32_t first = 0;
    bool several = false;
    for (std::size_t k = 0; k < n->kids.size(); ++k) {
      if (!n->kids[k]) continue;
      const Info& kid = info(n->kids[k]);
      out.loops = out.loops || kid.loops;
      if (!kid.free) continue;
      const std::vector<std::string>& names = name_lists[kid.free];
      bool drops = binder && k == 2 && std::binary_search(names.begin(), names.end(), n->name);
      if (first || drops) several = true;  // merged or filtered below
      if (!first) first = kid.free;
    }
    if (!several) {
      out.free = first;
      return infos.insert(n.get(), out);
    }
    std::vector<std::string> names;
    int sources = 0;  // kids that gave free names: from one, they are sorted and distinct already
    for (std::size_t k = 0; k < n->kids.size(); ++k) {
      if (!n->kids[k]) continue;
      std::uint32_t free = infos.find(n->kids[k].get())->free;
      if (!free) continue;
      ++sources;
      for (const std::string& name : name_lists[free])
        if (!(binder && k == 2 && name == n->name)) names.push_back(name);
    }
    if (sources > 1) {
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
    }
    if (!names.empty()) {
      out.free = static_cast<std::uint32_t>(name_lists.size());
      name_lists.push_back(std::move(names));
    }
    return infos.insert(n.get(), out);
  }
  // The list holding just `name`, one per name.
  std::unordered_map<std::string, std::uint32_t> single;
  std::uint32_t single_name(const std::string& name) {
    auto [it, fresh] = single.try_emplace(name, 0);
    if (fresh) {
      it->second = static_cast<std::uint32_t>(name_lists.size());
      name_lists.push_back({name});
    }
    return it->second;
  }
  // The memo's key: the node, and the loop depth when its lowering binds indices; none for
  // an open node (one table lookup for both).
  std::optional<Key> closed_key(const NodeP& n) {
    const Info& i = info(n);
    if (i.free) return std::nullopt;
    return Key{n.get(), i.loops ? depth : -1};
  }
};

// Binds a loop index in the scope for the lifetime of this object and restores what it
// hid: copying the scope (every parameter) at each loop made lowering O(parameters x loops).
class BindIndex {
 public:
  BindIndex(LowerMemo* memo, Scope& scope, const std::string& name, const ex& value)
      : memo_(memo), scope_(scope), name_(name) {
    auto it = scope_.find(name_);
    if (it != scope_.end()) {
      hidden_ = it->second;
      // Only a hidden parameter makes a closed subtree (free names all parameters) lower
      // differently here; an index hiding another index (seq (i) seq (i)) does not, and
      // turning the memo off under it made a doubling definition below 2^k lowerings.
      hides_parameter_ = memo_ && memo_->params->count(name_);
      if (hides_parameter_) ++memo_->hiding;
    }
    scope_[name_] = value;
    if (memo_) ++memo_->depth;
  }
  ~BindIndex() {
    if (memo_) --memo_->depth;
    if (hides_parameter_) --memo_->hiding;
    if (hidden_) scope_[name_] = *hidden_;
    else scope_.erase(name_);
  }
  BindIndex(const BindIndex&) = delete;
  BindIndex& operator=(const BindIndex&) = delete;

 private:
  LowerMemo* memo_;  // null: no memo (lower_numeric)
  Scope& scope_;
  std::string name_;
  std::optional<ex> hidden_;
  bool hides_parameter_ = false;
};

[[noreturn]] void fail(const Loc& loc, DiagKind kind, const std::string& message) {
  throw CompileError{Diagnostic{Severity::Error, kind, loc, message, {}}};
}

sym::ReduceKind reduce_kind(Op op) {
  return op == Op::Sum ? sym::ReduceKind::Sum : op == Op::Max ? sym::ReduceKind::Max : sym::ReduceKind::Min;
}

// a ^ b, with a constant base and exponent checked first: 0 to a negative power has no
// value, and an exact power of more than a million bits (10 ^ 10 ^ 10) would take all
// memory before it printed; a fractional power of a negative number is not real.
// The loops being lowered, innermost last: index, lb, ub (checked_pow reads the bounds).
thread_local std::vector<std::tuple<ex, ex, ex>> loops_in_scope;
struct LoopInScope {
  LoopInScope(const ex& i, const ex& lb, const ex& ub) { loops_in_scope.emplace_back(i, lb, ub); }
  ~LoopInScope() { loops_in_scope.pop_back(); }
};

// GiNaC computes some powers exactly on its own, before any rule runs: (n - 0.001) ^ 1e9
// takes out (1/1000) ^ 1e9, and 1000 ^ (l + 1) becomes 1000 ^ (1 - 1e9) where a rule puts
// the loop's bound l = log2(P) - 1e9. Both are refused here as the constant power is.
void check_hidden_powers(const ex& a, const ex& b, const Loc& loc) {
  using GiNaC::numeric;
  auto refuse = [&](double bits, const std::string& what) {
    if (bits > 1e6)
      fail(loc, DiagKind::ValueTooLarge,
           "the exact value of " + what + " has about " + sym::digits_text(bits) +
               " digits (more than 300,000); pamc keeps numbers exact, so a power this large has no value");
  };
  if (!GiNaC::is_a<numeric>(a) && GiNaC::is_a<numeric>(b) && GiNaC::ex_to<numeric>(b).is_integer()) {
    ex x = a.expand();
    GiNaC::exvector terms = GiNaC::is_a<GiNaC::add>(x) ? GiNaC::exvector(x.begin(), x.end()) : GiNaC::exvector{x};
    for (const ex& t : terms) {
      ex c = GiNaC::is_a<numeric>(t) ? t : GiNaC::is_a<GiNaC::mul>(t) ? t.op(t.nops() - 1) : ex(1);
      if (GiNaC::is_a<numeric>(c))
        refuse(sym::power_bits(GiNaC::ex_to<numeric>(c), GiNaC::ex_to<numeric>(b)), "(" + sym::to_pamela(a) + ") ^ " + sym::to_pamela(b) + "'s coefficient " + sym::to_pamela(c) + " ^ " + sym::to_pamela(b));
    }
  }
  if (GiNaC::is_a<numeric>(a) && !GiNaC::is_a<numeric>(b)) {
    for (const auto& [i, lb, ub] : loops_in_scope) {
      if (!b.has(i)) continue;
      for (const ex& bound : {lb, ub}) {
        // A numeric bound is the loop's own business (its range and the rules' power limits);
        // a symbolic bound with a huge constant part is what a rule substitutes unchecked.
        if (GiNaC::is_a<numeric>(bound)) continue;
        ex e = b.subs(GiNaC::exmap{{i, bound}}).expand();
        ex k = GiNaC::is_a<numeric>(e) ? e : ex(0);
        if (GiNaC::is_a<GiNaC::add>(e))
          for (std::size_t j = 0; j < e.nops(); ++j)
            if (GiNaC::is_a<numeric>(e.op(j))) k = e.op(j);
        if (GiNaC::is_a<numeric>(k) && GiNaC::ex_to<numeric>(k).is_integer())
          refuse(sym::power_bits(GiNaC::ex_to<numeric>(a), GiNaC::ex_to<numeric>(k)),
                 sym::to_pamela(a) + " ^ (" + sym::to_pamela(b) + ") at " + sym::to_pamela(i) + " = " + sym::to_pamela(bound));
      }
    }
  }
}

ex checked_pow(const ex& a, const ex& b, const Loc& loc) {
  using GiNaC::numeric;
  check_hidden_powers(a, b, loc);
  // 2 ^ (l + 1e9) is 2 ^ l * 2 ^ 1e9 once expanded (comparisons and the simplifier expand):
  // the constant part of a symbolic exponent is held to the same limit as a constant power.
  ex constant_exponent = b;
  if (GiNaC::is_a<numeric>(a) && !GiNaC::is_a<numeric>(b)) {
    ex e = b.expand();
    constant_exponent = 0;
    if (GiNaC::is_a<GiNaC::add>(e)) {
      for (std::size_t k = 0; k < e.nops(); ++k)
        if (GiNaC::is_a<numeric>(e.op(k))) constant_exponent = e.op(k);
    }
  }
  if (GiNaC::is_a<numeric>(a) && GiNaC::is_a<numeric>(constant_exponent)) {
    const numeric& x = GiNaC::ex_to<numeric>(a);
    const numeric& y = GiNaC::ex_to<numeric>(constant_exponent);
    auto text = [&] {
      std::string base = sym::to_pamela(a);
      return (x.is_negative() ? "(" + base + ")" : base) + " ^ " + sym::to_pamela(b);
    };
    bool constant = GiNaC::is_a<numeric>(b);  // the domain errors only for a constant exponent
    if (constant && x.is_zero() && y.is_negative())
      fail(loc, DiagKind::DomainError, "0 to a negative power (" + text() + ")");
    if (constant && x.is_negative() && !y.is_integer())
      fail(loc, DiagKind::DomainError, "a negative number to a fractional power (" + text() + ")");
    if (x.is_rational() && y.is_integer() && !x.is_zero() && x != 1 && x != -1) {
      double bits = std::fabs(y.to_double()) *
                    (std::log2(std::fabs(x.numer().to_double())) + std::log2(x.denom().to_double()));
      if (bits > 1e6)
        fail(loc, DiagKind::ValueTooLarge,
             "the exact value of " +
                 (constant ? text() : sym::to_pamela(a) + " ^ " + sym::to_pamela(y) + " (a factor of " + sym::to_pamela(a) + " ^ (" + sym::to_pamela(b) + "))") +
                 " has about " + sym::digits_text(bits) +
                 " digits (more than 300,000); pamc keeps numbers exact, so a power this large has no value");
    }
  }
  // 0 ^ 0 is 1, as the evaluators have it (GiNaC refuses it: the fuzzer's `0 ^ -0` was an
  // internal error).
  if (a.is_zero() && b.is_zero()) return 1;
  return GiNaC::pow(a, b);
}

// The lowered X_L of one process expression.
struct Lowered {
  ex phi, delta, T;
};

// Lowering with lower()'s memo, or with none (lower_numeric: one expression alone). The
// memo is this object's member, not a thread_local: what a call may use is what it was given.
class Lowering {
 public:
  explicit Lowering(LowerMemo* memo) : memo_(memo) {}

  ex lower_num(const NodeP& n, Scope& scope) {
    LowerMemo* m = memo_;
    if (!m || m->hiding > 0 || n->kind == Kind::Name) return lower_num_uncached(n, scope);
    auto key = m->closed_key(n);
    if (!key) return lower_num_uncached(n, scope);
    auto it = m->value.find(*key);
    if (it != m->value.end()) {
      if (key->second >= 0) m->hidden = true;  // a node with loops (Key: its depth)
      return it->second;
    }
    ex v = lower_num_uncached(n, scope);
    m->value.emplace(*key, v);
    return v;
  }

  ex lower_num_uncached(const NodeP& n, Scope& scope) {
    switch (n->kind) {
      case Kind::Number: {
        GiNaC::numeric value;
        if (!parse_exact_number(n->name, value))
          fail(n->loc, DiagKind::NumberTooLarge, "numeric literal '" + n->name.substr(0, 40) + "' is out of range");
        return value;
      }
      case Kind::Name: {
        auto it = scope.find(n->name);
        if (it == scope.end()) fail(n->loc, DiagKind::UndefinedName, "'" + n->name + "' is not a parameter or loop index");
        return it->second;
      }
      case Kind::Group:
        return lower_num(n->kids[0], scope);
      case Kind::Unary: {
        ex x = lower_num(n->kids[0], scope);
        return n->op == Op::Not ? 1 - x : -x;
      }
      case Kind::Binary:
        return lower_binary(n, scope);
      case Kind::Call:
        return lower_call(n, scope);
      case Kind::Reduce: {
        ex lb = lower_num(n->kids[0], scope);
        ex ub = lower_num(n->kids[1], scope);
        GiNaC::symbol index = index_symbol(n);
        BindIndex bind(memo_, scope, n->name, index);
        LoopInScope in_scope(index, lb, ub);
        return sym::make_reduction(reduce_kind(n->op), index, lb, ub, lower_num(n->kids[2], scope));
      }
      case Kind::IfExpr: {
        ex c = lower_num(n->kids[0], scope);
        ex a = lower_num(n->kids[1], scope), b = lower_num(n->kids[2], scope);
        check_product({c, a}, n->loc, "product");
        check_product({c, b}, n->loc, "product");
        return c * a + (1 - c) * b;
      }
      case Kind::Vector: {
        GiNaC::exvector elems;
        for (const NodeP& k : n->kids) elems.push_back(lower_num(k, scope));
        return sym::vector_literal(elems);
      }
      default:
        fail(n->loc, DiagKind::TypeMismatch, "expected a numeric expression, found a process");
    }
  }

  // The equation being lowered, named in the errors of the exact-number budget.
  std::string equation;

  // The budget on exact numbers (symbolic/exact_size.h), checked before GiNaC folds the
  // constants of a sum or a product.
  const GiNaC::exvector& check_sum(const GiNaC::exvector& terms, const Loc& loc) {
    double bits = sym::sum_bits(terms);
    if (bits > sym::kMaxExactBits) fail(loc, DiagKind::ValueTooLarge, named(sym::too_large_message("this sum", bits)));
    return terms;
  }
  const GiNaC::exvector& check_product(const GiNaC::exvector& factors, const Loc& loc, const char* what) {
    double bits = sym::product_bits(factors);
    if (bits > sym::kMaxExactBits)
      fail(loc, DiagKind::ValueTooLarge, named(sym::too_large_message(std::string("this ") + what, bits)));
    return factors;
  }
  std::string named(const std::string& message) const { return equation.empty() ? message : equation + ": " + message; }

  // The symbol of a loop index bound here (see LowerMemo::indices).
  GiNaC::symbol index_symbol(const NodeP& n) {
    if (!memo_) return GiNaC::symbol(n->name);
    auto [it, fresh] = memo_->indices.try_emplace({n->name, memo_->depth}, n->name);
    memo_->loops.push_back({it->second, n->loc});
    if (memo_->events) memo_->events->push_back({n.get(), it->second, ex(), nullptr});
    return it->second;
  }

  ex lower_call(const NodeP& n, Scope& scope) {
    GiNaC::exvector args;
    for (const NodeP& k : n->kids) args.push_back(lower_num(k, scope));
    const std::string& f = n->name;
    if (f == "max" || f == "min") {
      if (args.size() == 1) {  // max(v) of a vector; min(v) = -max(-v)
        return f == "max" ? sym::vector_max(args[0]) : -sym::vector_max(-args[0]);
      }
      return f == "max" ? sym::make_max(args) : sym::make_min(args);
    }
    if (args.size() == 1) {
      const ex& x = args[0];
      // A constant argument outside the function's domain is the user's error, located (GiNaC
      // would answer with a complex number or an exception).
      if (GiNaC::is_a<GiNaC::numeric>(x) && GiNaC::ex_to<GiNaC::numeric>(x).is_real()) {
        const GiNaC::numeric& v = GiNaC::ex_to<GiNaC::numeric>(x);
        if (f == "sqrt" && v.is_negative())
          fail(n->loc, DiagKind::DomainError, "sqrt of a negative number (" + sym::to_pamela(x) + ")");
        if ((f == "log" || f == "log2") && !v.is_positive())
          fail(n->loc, DiagKind::DomainError, f + " of a non-positive number (" + sym::to_pamela(x) + ")");
      }
      if (f == "sqrt") return GiNaC::sqrt(x);
      if (f == "log") return GiNaC::log(x);
      if (f == "log2") return sym::log2_of(x);
      if (f == "exp") return GiNaC::exp(x);
      if (f == "ceil") return sym::ceil_of(x);
      if (f == "floor") return sym::floor_of(x);
      if (f == "abs") return GiNaC::abs(x);
      if (f == "unitvec") return sym::unitvec(x);
    }
    if (f == "gcd" && args.size() == 2) {
      for (const ex& x : args)
        if (GiNaC::is_a<GiNaC::numeric>(x) && !GiNaC::ex_to<GiNaC::numeric>(x).is_integer())
          fail(n->loc, DiagKind::DomainError, "gcd of a number that is not an integer (" + sym::to_pamela(x) + ")");
      return sym::gcd_of(args[0], args[1]);
    }
    fail(n->loc, DiagKind::TypeMismatch, "'" + f + "' cannot be used as a numeric function here");
  }

  ex lower_binary(const NodeP& n, Scope& scope) {
    // A chain of one associative operator is one node (parse/build_ast.h, Chain): its terms are built as
    // one GiNaC sum or product (adding 20,000 terms one by one would copy the sum each time).
    if (n->kids.size() > 2 || n->op == Op::Add || n->op == Op::Mul) {
      GiNaC::exvector terms;
      terms.reserve(n->kids.size());
      for (const NodeP& k : n->kids) terms.push_back(lower_num(k, scope));
      switch (n->op) {
        case Op::Add: return GiNaC::add(check_sum(terms, n->loc));
        case Op::Mul:
        case Op::And:  // independence: P(a and b) = P(a) P(b)
          return GiNaC::mul(check_product(terms, n->loc, "product"));
        case Op::Or: {  // P(a or b or ...) = 1 - (1 - P(a)) (1 - P(b)) ...
          check_product(terms, n->loc, "product");
          if (terms.size() == 2) return terms[0] + terms[1] - terms[0] * terms[1];
          GiNaC::exvector misses;
          for (const ex& t : terms) misses.push_back(1 - t);
          return 1 - GiNaC::mul(misses);
        }
        default: fail(n->loc, DiagKind::TypeMismatch, "unexpected operator in a numeric expression");
      }
    }
    ex a = lower_num(n->kids[0], scope);
    ex b = lower_num(n->kids[1], scope);
    switch (n->op) {
      case Op::Add:
      case Op::Sub:
      case Op::Or: check_sum({a, b}, n->loc); break;
      case Op::Mul:
      case Op::And: check_product({a, b}, n->loc, "product"); break;
      case Op::Div:
      case Op::Mod:
      case Op::IDiv: check_product({a, b}, n->loc, "quotient"); break;
      default: break;
    }
    if (n->op == Op::Or) check_product({a, b}, n->loc, "product");
    switch (n->op) {
      case Op::Add: return a + b;
      case Op::Sub: return a - b;
      case Op::Mul: return a * b;
      case Op::Div:
      case Op::Mod:
      case Op::IDiv:
        // x / 0, x mod 0 and x div 0 have no value anywhere.
        if (b.is_zero()) fail(n->loc, DiagKind::DivisionByZero, "division by zero");
        if (n->op == Op::Div) return a / b;
        return n->op == Op::Mod ? sym::mod_of(a, b) : sym::idiv_of(a, b);
      case Op::Pow: return checked_pow(a, b, n->loc);
      case Op::Eq: return sym::compare(sym::Cmp::Eq, a, b);
      case Op::Ne: return sym::compare(sym::Cmp::Ne, a, b);
      case Op::Lt: return sym::compare(sym::Cmp::Lt, a, b);
      case Op::Le: return sym::compare(sym::Cmp::Le, a, b);
      case Op::Gt: return sym::compare(sym::Cmp::Gt, a, b);
      case Op::Ge: return sym::compare(sym::Cmp::Ge, a, b);
      case Op::And: return a * b;          // independence: P(a and b) = P(a) P(b)
      case Op::Or: return a + b - a * b;
      default: break;
    }
    fail(n->loc, DiagKind::TypeMismatch, "unexpected operator in a numeric expression");
  }

  Lowered lower_process(const NodeP& n, Scope& scope) {
    LowerMemo* m = memo_;
    auto key = m && m->hiding == 0 ? m->closed_key(n) : std::nullopt;
    if (!key) return lower_uncached(n, scope);
    auto it = m->process_value.find(*key);
    if (it != m->process_value.end()) {
      m->hidden = true;
      return {it->second[0], it->second[1], it->second[2]};
    }
    Lowered l = lower_uncached(n, scope);
    m->process_value.emplace(*key, std::array<ex, 3>{l.phi, l.delta, l.T});
    return l;
  }

 private:
  // The operands of a ; or || chain, lowered: their phi, delta and T side by side.
  struct Operands {
    GiNaC::exvector phi, delta, T;
  };
  Operands lower_operands(const NodeP& n, Scope& scope) {
    Operands o;
    for (const NodeP& k : n->kids) {
      Lowered a = lower_process(k, scope);
      o.phi.push_back(a.phi);
      o.delta.push_back(a.delta);
      o.T.push_back(a.T);
    }
    return o;
  }

  Lowered lower_uncached(const NodeP& n, Scope& scope) {
    switch (n->kind) {
      case Kind::Group:
        return lower_process(n->kids[0], scope);
      case Kind::Delay: {
        ex t = lower_num(n->kids[0], scope);
        reject_negative_time(t, n->kids[0], "delay");
        return {t, 0, t};
      }
      case Kind::Use: {
        const NodeP& r = n->kids[0];
        if (r->kind != Kind::Call || r->name != "fcfs" || r->kids.size() != 2)
          fail(r->loc, DiagKind::TypeMismatch, "use needs a resource fcfs(index, multiplicity)");
        ex index = lower_num(r->kids[0], scope);
        ex multiplicity = lower_num(r->kids[1], scope);
        if (multiplicity.is_zero()) fail(r->loc, DiagKind::InvalidMultiplicity, "a resource with multiplicity 0");
        if (GiNaC::is_a<GiNaC::numeric>(multiplicity) && GiNaC::ex_to<GiNaC::numeric>(multiplicity).is_negative())
          fail(r->kids[1]->loc, DiagKind::InvalidMultiplicity,
               "a resource with a negative number of servers (" + sym::to_pamela(multiplicity) + ")");
        check_identity(index, multiplicity, r->loc);
        ex t = lower_num(n->kids[1], scope);
        reject_negative_time(t, n->kids[1], "use");
        return {t, sym::unitvec(index) * t / multiplicity, t};
      }
      case Kind::Seq: {  // p ; q ; r is one node with every operand (parse/build_ast.h, Chain)
        Operands o = lower_operands(n, scope);
        return {GiNaC::add(o.phi), GiNaC::add(o.delta), GiNaC::add(o.T)};
      }
      case Kind::Par: {
        if (n->kids.size() == 2) {
          Lowered a = lower_process(n->kids[0], scope), b = lower_process(n->kids[1], scope);
          ex delta = a.delta + b.delta;
          return {sym::make_max({a.phi, b.phi}), delta, sym::make_max({a.T, b.T, sym::vector_max(delta)})};
        }
        // p || q || r: the max of the operands' times and of the summed demand's busiest
        // resource, as ((p || q) || r) gives (demands are nonnegative, so the inner
        // vector_max is never above the outer one).
        Operands o = lower_operands(n, scope);
        ex sum_delta = GiNaC::add(o.delta);
        o.T.push_back(sym::vector_max(sum_delta));
        return {sym::make_max(o.phi), sum_delta, sym::make_max(o.T)};
      }
      case Kind::SeqLoop:
      case Kind::ParLoop: {
        ex lb = lower_num(n->kids[0], scope);
        ex ub = lower_num(n->kids[1], scope);
        GiNaC::symbol index = index_symbol(n);
        Lowered b;
        {
          BindIndex bind(memo_, scope, n->name, index);
          LoopInScope in_scope(index, lb, ub);
          b = lower_process(n->kids[2], scope);
        }
        ex delta = sym::make_reduction(sym::ReduceKind::Sum, index, lb, ub, b.delta);
        if (n->kind == Kind::SeqLoop)
          return {sym::make_reduction(sym::ReduceKind::Sum, index, lb, ub, b.phi), delta,
                  sym::make_reduction(sym::ReduceKind::Sum, index, lb, ub, b.T)};
        // An empty par has no branches: no time (empty_is_zero), where a max over an empty
        // range would have no value.
        ex T = sym::make_max({sym::make_reduction(sym::ReduceKind::Max, index, lb, ub, b.T, true), sym::vector_max(delta)});
        return {sym::make_reduction(sym::ReduceKind::Max, index, lb, ub, b.phi, true), delta, T};
      }
      case Kind::IfProc: {
        ex c = lower_num(n->kids[0], scope);
        Lowered a = lower_process(n->kids[1], scope);
        Lowered b = n->kids.size() > 2 ? lower_process(n->kids[2], scope) : Lowered{0, 0, 0};
        auto mix = [&](const ex& x, const ex& y) { return c * x + (1 - c) * y; };
        return {mix(a.phi, b.phi), mix(a.delta, b.delta), mix(a.T, b.T)};
      }
      default:
        fail(n->loc, DiagKind::TypeMismatch, "expected a process expression");
    }
  }

 public:
  // Does e mention s outside the reductions over s that it contains?
  static bool mentions_free(const ex& e, const ex& s) {
    if (!e.has(s)) return false;
    if (e.is_equal(s)) return true;
    if (sym::is_class<sym::reduction>(e)) {
      const auto& r = GiNaC::ex_to<sym::reduction>(e);
      if (mentions_free(r.lb(), s) || mentions_free(r.ub(), s)) return true;
      return !r.index_ex().is_equal(s) && mentions_free(r.body(), s);
    }
    for (std::size_t k = 0; k < e.nops(); ++k)
      if (mentions_free(e.op(k), s)) return true;
    return false;
  }

  // A time is never below zero: a constant one is an error here (delay(-1) would make
  // T_main = -1).
  // A symbolic time free of loop indices is recorded, so that evaluation can refuse a point
  // where it is negative (delay(N - 5) at N = 1).
  void reject_negative_time(const ex& t, const NodeP& at, const char* what) {
    if (GiNaC::is_a<GiNaC::numeric>(t)) {
      if (GiNaC::ex_to<GiNaC::numeric>(t).is_real() && GiNaC::ex_to<GiNaC::numeric>(t).is_negative())
        fail(at->loc, DiagKind::NegativeTime, std::string("a negative time in ") + what + " (" + sym::to_pamela(t) + ")");
      return;
    }
    if (!memo_ || sym::is_vector_valued(t)) return;
    // An index bound inside the time (delay(sum (i = 1, N) { i mod 3 } - M)) leaves it a
    // time of the parameters: only an index free in it makes it vary with a loop.
    for (const auto& [key, index] : memo_->indices)
      if (mentions_free(t, index)) return;
    if (memo_->events) memo_->events->push_back({at.get(), std::nullopt, t, what});
    record_time(t, at->loc, what);
  }
  // An index-free symbolic time at a place (once per time and place).
  void record_time(const ex& t, const Loc& loc, const char* what) {
    // Each (time, place) once; hashed, as a model has as many as it has uses and delays.
    std::size_t h = t.gethash() ^ (std::hash<const void*>()(loc.file) + 0x9e3779b97f4a7c15ULL * loc.line + loc.col);
    auto range = memo_->time_index.equal_range(h);
    for (auto it = range.first; it != range.second; ++it) {
      const TimeSite& k = memo_->times[it->second];
      if (k.time.is_equal(t) && k.loc.line == loc.line && k.loc.col == loc.col && k.loc.file == loc.file) return;
    }
    memo_->time_index.emplace(h, memo_->times.size());
    memo_->times.push_back({t, loc, what});
  }

 private:
  // A resource's identity is its index (SPEC 2): the same index with two multiplicities is
  // an error wherever both are numbers.
  void check_identity(const ex& index, const ex& multiplicity, const Loc& loc) {
    if (!is_class<GiNaC::numeric>(index) || !is_class<GiNaC::numeric>(multiplicity)) return;
    std::ostringstream key;
    key << index;
    auto [it, fresh] = seen_.emplace(key.str(), std::make_pair(multiplicity, loc));
    if (fresh || it->second.first.is_equal(multiplicity)) return;
    std::ostringstream msg;
    msg << "resource index " << index << " is used with multiplicity " << multiplicity << " here and "
        << it->second.first;
    if (it->second.second.valid()) msg << " at line " << it->second.second.line;
    msg << "; a resource's identity is its index";
    fail(loc, DiagKind::ResourceConflict, msg.str());
  }

  LowerMemo* memo_;
  std::map<std::string, std::pair<ex, Loc>> seen_;
};

// The size of e written out as a tree: shared subexpressions counted once per use, computed
// once per shared node (linear in the DAG). Saturates far above any limit. A number counts
// its size in machine words: printing one (the model's facts print every loop bound to
// order them) and arithmetic on it take time in proportion, so 2^13 copies of
// 1e-400 + 3 cost as much as a million small nodes.
double written_size(const ex& e, NodeTable<double>& seen) {
  double n = 1;
  if (GiNaC::is_exactly_a<GiNaC::numeric>(e)) {
    const GiNaC::numeric& x = GiNaC::ex_to<GiNaC::numeric>(e);
    if (x.is_rational()) n += static_cast<double>(x.numer().int_length() + x.denom().int_length()) / 64;
  }
  if (e.nops() == 0) return n;  // a leaf costs less to size than to look up
  const GiNaC::basic* node = &GiNaC::ex_to<GiNaC::basic>(e);
  if (const double* known = seen.find(node)) return *known;
  for (std::size_t k = 0; k < e.nops(); ++k) n = std::min(1e18, n + written_size(e.op(k), seen));
  seen.insert(node, n);
  return n;
}

// The simplifier and the emitters walk an expression once per path, not once per shared
// node: an equation that uses a looping process or a sum twice per line (q1 = q0 || (q0 ; r),
// d1 = sum (i = 1, d0) { d0 + 1 }, ...) doubles per line when written out, and past about a
// half a million nodes the simplifier takes seconds, then minutes. Checked before it starts.
constexpr double kMaxWrittenNodes = 5e5;

void check_written_size(std::initializer_list<ex> values, const NormalEquation& e,
                        NodeTable<double>& seen) {
  double size = 0;
  for (const ex& v : values) size = std::max(size, written_size(v, seen));
  if (size <= kMaxWrittenNodes) return;
  char count[32];
  std::snprintf(count, sizeof count, "%.2g", size);
  fail(e.loc, DiagKind::ModelTooLarge,
       e.name + ": written out, its expression has about " + count +
           " nodes (more than 500,000): it uses a definition that holds a loop several times, and each line that "
           "does so doubles it (q1 = q0 || q0, q2 = q1 || q1, ...); write the repetition as a loop");
}

}  // namespace

ex lower_numeric(const NodeP& e, const std::map<std::string, GiNaC::ex>& scope) {
  Scope copy = scope;
  // A memo of its own (lower()'s is for the whole model): the expression is a DAG whose
  // shared subtrees (a numeric equation used twice per line) would be lowered once per path,
  // exponentially many times. The names given are fixed for this call, like parameters.
  const Scope fixed = scope;
  LowerMemo memo;
  memo.params = &fixed;
  return Lowering(&memo).lower_num(e, copy);
}

CostModel lower(const NormalModel& model) {
  CostModel cost;
  cost.name = model.name;
  Scope scope;
  Lowering plain(nullptr);  // defaults and bounds: before the memo, which needs every parameter
  for (const NormalParameter& p : model.parameters) {
    CostParameter param{p.name, GiNaC::symbol(p.name), std::nullopt, {}};
    scope[p.name] = param.symbol;
    cost.facts.declare_parameter(param.symbol, p.name);
    cost.parameters.push_back(param);
  }
  // Defaults and bounds may mention any parameter, so they are lowered once all exist.
  for (std::size_t i = 0; i < model.parameters.size(); ++i) {
    const NormalParameter& p = model.parameters[i];
    CostParameter& param = cost.parameters[i];
    if (p.default_value) param.default_value = plain.lower_num(p.default_value, scope);
    for (const ast::Bound& b : p.bounds) {
      ex value = plain.lower_num(b.value, scope);
      param.bounds.push_back({ast::op_spelling(b.op), value});
      if (b.op == Op::Ge || b.op == Op::Gt) cost.facts.add_lower(param.symbol, value, b.op == Op::Gt);
      else cost.facts.add_upper(param.symbol, value, b.op == Op::Lt);
    }
  }
  Scope params_only = scope;
  LowerMemo memo;
  memo.params = &params_only;
  Lowering lowering(&memo);
  NodeTable<double> written;  // written_size's memo, shared by the equations
  // Equations equal in value (a generated model repeats a few shapes thousands of times)
  // hold one shared expression: every later stage compares and hashes them (the
  // simplifier's memo, the model's facts, the position checks, the printer's memo), and a
  // shared tree is equal at the first pointer compare, where a copy is walked whole.
  std::unordered_set<ex, sym::ExprHash, sym::ExprEq> equal_values;
  std::unordered_map<const GiNaC::basic*, ex> omega_of;  // a shared delta's omega, computed once
  auto shared = [&](const ex& v) { return *equal_values.insert(v).first; };
  // Equations of one shape (the same normalized tree up to source positions: a generated
  // model's lines that differ only in their name) lower to the same values. The first of a
  // shape is lowered and what it recorded is logged (LowerMemo::Event); a later one takes
  // its values and records the same at its own places. That is what lowering it would do:
  // lowering reads only the tree's shape (the parameters' scope is the same for every
  // equation, a loop's index symbol is per name and depth), its errors would have stopped
  // the first one, and what it records is kept once per place (loop sites, times), so a
  // record repeated at a place recorded before (where lowering itself would have found a
  // shared subtree in its memo) changes nothing. Not where the first one's memo hits hid
  // records (LowerMemo::hidden), nor where a node of the first stands for two of the other.
  struct Shape {
    const NormalEquation* eq;
    std::vector<LowerMemo::Event> events;
    ex values[4];  // the value, or phi, delta, omega, T
  };
  std::vector<Shape> shapes;
  std::unordered_multimap<std::size_t, std::size_t> shape_index;  // shape hash -> shapes
  Partners partner;
  cost.equations.reserve(4 * model.equations.size());
  for (const NormalEquation& e : model.equations) {
    long nodes = kShapeNodes;
    std::size_t h = shape_hash(e.body.get(), nodes) ^ static_cast<std::size_t>(e.type);
    const bool shaped = nodes >= 0;
    const Shape* same = nullptr;
    auto range = shaped ? shape_index.equal_range(h) : std::make_pair(shape_index.end(), shape_index.end());
    for (auto it = range.first; it != range.second && !same; ++it) {
      const Shape& c = shapes[it->second];
      partner.clear();
      long budget = kShapeNodes;
      if (c.eq->type != e.type || !same_shape(c.eq->body.get(), e.body.get(), partner, budget) ||
          !one_partner_each(partner))
        continue;
      bool placed = true;
      for (const LowerMemo::Event& ev : c.events) placed = placed && partner_of(partner, ev.at);
      if (placed) same = &c;
    }
    if (same) {
      for (const LowerMemo::Event& ev : same->events) {
        const Loc& at = partner_of(partner, ev.at)->loc;
        if (ev.index) memo.loops.push_back({*ev.index, at});
        else lowering.record_time(ev.time, at, ev.what);
      }
      const ex* v = same->values;
      if (e.type == ast::Type::Numeric) {
        cost.equations.push_back({e.name, EquationRole::Numeric, "", v[0], v[0], e.top_level, e.loc});
      } else {
        cost.equations.push_back({"phi_" + e.name, EquationRole::Phi, e.name, v[0], v[0], false, e.loc});
        cost.equations.push_back({"delta_" + e.name, EquationRole::Delta, e.name, v[1], v[1], false, e.loc});
        cost.equations.push_back({"omega_" + e.name, EquationRole::Omega, e.name, v[2], v[2], false, e.loc});
        cost.equations.push_back({"T_" + e.name, EquationRole::Time, e.name, v[3], v[3], e.top_level, e.loc});
      }
      continue;
    }
    Shape first{&e, {}, {}};
    memo.events = &first.events;
    memo.hidden = false;
    lowering.equation = e.name;
    if (e.type == ast::Type::Numeric) {
      ex value = shared(lowering.lower_num(e.body, scope));
      check_written_size({value}, e, written);
      cost.equations.push_back({e.name, EquationRole::Numeric, "", value, value, e.top_level, e.loc});
      memo.events = nullptr;
      if (shaped && !memo.hidden && shape_index.count(h) < kShapesPerHash) {
        first.values[0] = value;
        shape_index.emplace(h, shapes.size());
        shapes.push_back(std::move(first));
      }
      continue;
    }
    Lowered l = lowering.lower_process(e.body, scope);
    memo.events = nullptr;
    check_written_size({l.phi, l.delta, l.T}, e, written);
    l = {shared(l.phi), shared(l.delta), shared(l.T)};
    auto [known, fresh] = omega_of.try_emplace(&GiNaC::ex_to<GiNaC::basic>(l.delta));
    if (fresh) known->second = shared(sym::vector_max(l.delta));
    const ex omega = known->second;
    if (shaped && !memo.hidden && shape_index.count(h) < kShapesPerHash) {
      first.values[0] = l.phi;
      first.values[1] = l.delta;
      first.values[2] = omega;
      first.values[3] = l.T;
      shape_index.emplace(h, shapes.size());
      shapes.push_back(std::move(first));
    }
    cost.equations.push_back({"phi_" + e.name, EquationRole::Phi, e.name, l.phi, l.phi, false, e.loc});
    cost.equations.push_back({"delta_" + e.name, EquationRole::Delta, e.name, l.delta, l.delta, false, e.loc});
    cost.equations.push_back({"omega_" + e.name, EquationRole::Omega, e.name, omega, omega, false, e.loc});
    cost.equations.push_back({"T_" + e.name, EquationRole::Time, e.name, l.T, l.T, e.top_level, e.loc});
  }
  // Each loop site once, in order (a set: a generated model has as many loops as lines, and
  // comparing each with all before it was half the lowering of 10^4 equations).
  std::map<std::tuple<const SourceFile*, std::uint32_t, std::uint32_t>, std::vector<GiNaC::symbol>> sites;
  for (const LoopSite& l : memo.loops) {
    auto& indices = sites[{l.loc.file, l.loc.line, l.loc.col}];
    bool seen = false;
    for (const GiNaC::symbol& k : indices) seen = seen || k.is_equal(l.index);
    if (seen) continue;
    indices.push_back(l.index);
    cost.loops.push_back(l);
  }
  cost.times = memo.times;
  return cost;
}

}  // namespace pamc
