#include "compiler/evaluate/compile.h"
#include "compiler/symbolic/class_test.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "compiler/symbolic/symbolic.h"

using pamc::sym::is_class;

namespace pamc::eval {
namespace {

using GiNaC::ex;
namespace sym = pamc::sym;

class Compiler {
 public:
  Compiler(Program& p, const std::map<ex, unsigned, GiNaC::ex_is_less>& params) : p_(p), params_(params) {}

  void expr(const ex& e) {
    using namespace GiNaC;
    if (is_class<numeric>(e)) {
      const numeric& x = ex_to<numeric>(e);
      if (!x.is_real()) fail("a complex number");
      push_const(x.to_double());
      return;
    }
    if (is_class<GiNaC::constant>(e)) {
      push_const(ex_to<numeric>(e.evalf()).to_double());
      return;
    }
    if (is_class<symbol>(e)) {
      auto local = locals_.find(e);
      if (local != locals_.end()) return push(Op::Local, local->second);
      auto param = params_.find(e);
      if (param != params_.end()) return push(Op::Param, param->second);
      fail("the unbound name '" + ex_to<symbol>(e).get_name() + "'");
    }
    if (is_class<add>(e)) return add_(e);
    if (is_class<mul>(e)) return mul_(e);
    if (is_class<power>(e)) return power_(e.op(0), e.op(1));
    if (sym::is_extremum(e)) {
      for (std::size_t i = 0; i < e.nops(); ++i) expr(e.op(i));
      return nary(sym::is_max(e) ? Op::Max : Op::Min, e.nops());
    }
    if (sym::is_reduction(e)) return reduction(sym::as_reduction(e));
    if (is_class<function>(e)) return function_(e);
    fail("an expression of an unsupported kind");
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw CompileFailure{"cannot compile " + what}; }

  // Each emitter tracks the stack depth, for the evaluator's stack size.
  void push(Op op, std::uint32_t a = 0) {
    p_.code.push_back(Instr{op, 0, a, 0});
    grow(1);
  }
  void grow(int delta) {
    depth_ += delta;
    p_.max_stack = std::max<std::uint32_t>(p_.max_stack, static_cast<std::uint32_t>(depth_));
  }
  // Each constant once in the table, found through a hash map (a search of the table made a
  // vector literal of n distinct elements quadratic). A NaN matches nothing, -0 matches 0,
  // as == has it.
  void push_const(double v) {
    if (const_index_.size() != p_.consts.size()) {  // the table grew elsewhere: index it again
      const_index_.clear();
      for (std::size_t k = p_.consts.size(); k-- > 0;) const_index_[p_.consts[k]] = static_cast<std::uint32_t>(k);
    }
    auto [it, fresh] = const_index_.try_emplace(v, static_cast<std::uint32_t>(p_.consts.size()));
    if (fresh) p_.consts.push_back(v);
    push(Op::Const, it->second);
  }
  void unary(Op op) { p_.code.push_back(Instr{op, 0, 0, 0}); }
  void binary(Op op) {
    p_.code.push_back(Instr{op, 0, 0, 0});
    grow(-1);
  }
  void nary(Op op, std::size_t n) {
    if (n == 1) return;
    p_.code.push_back(Instr{op, 0, static_cast<std::uint32_t>(n), 0});
    grow(1 - static_cast<int>(n));
  }

  // A sum: positive terms added, terms with a negative coefficient subtracted.
  void add_(const ex& e) {
    std::vector<ex> pos, neg;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      ex t = e.op(i);
      if (negative_coefficient(t)) neg.push_back(-t);
      else pos.push_back(t);
    }
    if (pos.empty()) {
      for (const ex& t : neg) expr(t);
      nary(Op::Add, neg.size());
      unary(Op::Neg);
      return;
    }
    for (const ex& t : pos) expr(t);
    nary(Op::Add, pos.size());
    if (!neg.empty()) {
      for (const ex& t : neg) expr(t);
      nary(Op::Add, neg.size());
      binary(Op::Sub);
    }
  }
  static bool negative_coefficient(const ex& t) {
    using namespace GiNaC;
    if (is_class<numeric>(t)) return ex_to<numeric>(t).is_negative();
    if (is_class<mul>(t)) {
      ex last = t.op(t.nops() - 1);  // GiNaC keeps the numeric coefficient last
      return is_class<numeric>(last) && ex_to<numeric>(last).is_negative();
    }
    return false;
  }

  // A product: factors with negative integer exponents form a denominator.
  void mul_(const ex& e) {
    using namespace GiNaC;
    std::vector<ex> num, den;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      ex f = e.op(i);
      if (is_class<power>(f) && is_class<numeric>(f.op(1)) && ex_to<numeric>(f.op(1)).is_integer() &&
          ex_to<numeric>(f.op(1)).is_negative())
        den.push_back(GiNaC::pow(f.op(0), -f.op(1)));
      else
        num.push_back(f);
    }
    if (num.empty()) push_const(1.0);
    for (const ex& f : num) expr(f);
    nary(Op::Mul, std::max<std::size_t>(num.size(), 1));
    if (!den.empty()) {
      for (const ex& f : den) expr(f);
      nary(Op::Mul, den.size());
      binary(Op::Div);
    }
  }

  void power_(const ex& base, const ex& exponent) {
    using namespace GiNaC;
    if (exponent == numeric(1, 2)) {
      expr(base);
      return unary(Op::Sqrt);
    }
    if (exponent == numeric(2)) {
      expr(base);
      return unary(Op::Square);
    }
    if (exponent == numeric(-1)) {
      push_const(1.0);
      expr(base);
      return binary(Op::Div);
    }
    expr(base);
    expr(exponent);
    binary(Op::Pow);
  }

  void function_(const ex& e) {
    using sym::Fn;
    auto one = [&](Op op) {
      expr(e.op(0));
      unary(op);
    };
    auto two = [&](Op op) {
      expr(e.op(0));
      expr(e.op(1));
      binary(op);
    };
    switch (sym::pamela_function(e)) {
      case Fn::Floor:
      case Fn::Ceil: {
        // floor(n / d) as an integer division (exact in int64 where the operands are
        // integers, and no rounding of n / d first); ceil(n / d) = -floor(-n / d).
        auto q = sym::as_quotient(e.op(0));
        if (!q) return one(sym::pamela_function(e) == Fn::Floor ? Op::Floor : Op::Ceil);
        bool is_floor = sym::pamela_function(e) == Fn::Floor;
        expr(is_floor ? q->first : -q->first);
        expr(q->second);
        binary(Op::IDiv);
        if (!is_floor) unary(Op::Neg);
        return;
      }
      case Fn::Log2: return one(Op::Log2);
      case Fn::Mod: return two(Op::Mod);
      case Fn::Div: return two(Op::IDiv);
      case Fn::Gcd: return two(Op::Gcd);
      case Fn::Eq: return two(Op::Eq);
      case Fn::Ne: return two(Op::Ne);
      case Fn::Lt: return two(Op::Lt);
      case Fn::Le: return two(Op::Le);
      case Fn::VectorMax: {
        if (p_.vectors >= 255) fail("more than 255 resource vectors");
        std::uint32_t k = p_.vectors++;
        p_.code.push_back(Instr{Op::VecNew, 0, k, 0});
        vector_(e.op(0), k, 1);
        return push(Op::VecMax, k);
      }
      case Fn::Unitvec: fail("a vector-valued expression (only scalar equations have a value)");
      case Fn::None: break;
    }
    std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    if (e.nops() == 1) {
      if (name == "conjugate" || name == "real_part") return expr(e.op(0));  // cost expressions are real
      if (name == "abs") return one(Op::Abs);
      if (name == "log") return one(Op::Log);
      if (name == "exp") return one(Op::Exp);
      if (name == "sqrt") return one(Op::Sqrt);
    }
    fail("the function '" + name + "'");
  }

  // Adds scale * v into vector slot k: v a sum of terms c * unitvec(pos) and of sums over an
  // index of such terms (what lowering makes of the uses of a resource array).
  void vector_(const ex& v, std::uint32_t k, const ex& scale) {
    using namespace GiNaC;
    if (is_class<add>(v)) {
      for (std::size_t i = 0; i < v.nops(); ++i) vector_(v.op(i), k, scale);
      return;
    }
    if (is_class<mul>(v)) {
      ex vf, rest = 1;
      bool found = false;
      for (std::size_t i = 0; i < v.nops(); ++i) {
        if (!sym::is_vector_valued(v.op(i))) {
          rest *= v.op(i);
        } else if (!found) {
          vf = v.op(i);
          found = true;
        } else {
          fail("a product of two vectors");
        }
      }
      if (!found) fail("a scalar added to a vector");
      return vector_(vf, k, scale * rest);
    }
    if (sym::pamela_function(v) == sym::Fn::Unitvec) {
      expr(v.op(0));
      expr(scale);
      p_.code.push_back(Instr{Op::VecAdd, 0, k, 0});
      grow(-2);
      return;
    }
    if (sym::is_reduction(v) && sym::as_reduction(v).kind() == sym::ReduceKind::Sum) {
      const sym::reduction& r = sym::as_reduction(v);
      expr(r.lb());
      expr(r.ub());
      std::uint32_t slot = p_.locals;
      p_.locals += 2;
      std::size_t init = p_.code.size();
      p_.code.push_back(Instr{Op::VLoopInit, static_cast<std::uint8_t>(k), slot, 0});
      grow(-2);
      std::uint32_t body = static_cast<std::uint32_t>(p_.code.size());
      with_index(r.index_ex(), slot, [&] { vector_(r.body(), k, scale); });
      p_.code.push_back(Instr{Op::VLoopNext, static_cast<std::uint8_t>(k), slot, body});
      p_.code[init].b = static_cast<std::uint32_t>(p_.code.size());
      return;
    }
    if (!sym::is_vector_valued(v)) fail("a scalar added to a vector");
    fail("a vector expression of an unsupported kind");
  }

  template <class F>
  void with_index(const ex& index, std::uint32_t slot, F&& body) {
    auto shadowed = locals_.find(index);
    std::optional<std::uint32_t> saved;
    if (shadowed != locals_.end()) saved = shadowed->second;
    locals_[index] = slot;
    body();
    if (saved) locals_[index] = *saved;
    else locals_.erase(index);
  }

  void reduction(const sym::reduction& r) {
    expr(r.lb());
    expr(r.ub());
    std::uint32_t slot = p_.locals;
    p_.locals += 2;
    std::uint8_t kind = static_cast<std::uint8_t>(r.kind()) | (r.empty_is_zero() ? kEmptyIsZero : 0);
    std::size_t init = p_.code.size();
    p_.code.push_back(Instr{Op::LoopInit, kind, slot, 0});
    grow(-1);  // lb ub -> acc
    std::uint32_t body = static_cast<std::uint32_t>(p_.code.size());
    ex index = r.index_ex();
    auto shadowed = locals_.find(index);
    std::optional<std::uint32_t> saved;
    if (shadowed != locals_.end()) saved = shadowed->second;
    locals_[index] = slot;
    expr(r.body());
    if (saved) locals_[index] = *saved;
    else locals_.erase(index);
    p_.code.push_back(Instr{Op::LoopNext, kind, slot, body});
    grow(-1);  // acc v -> acc
    p_.code[init].b = static_cast<std::uint32_t>(p_.code.size());
  }

  Program& p_;
  const std::map<ex, unsigned, GiNaC::ex_is_less>& params_;
  std::map<ex, std::uint32_t, GiNaC::ex_is_less> locals_;
  std::unordered_map<double, std::uint32_t> const_index_;  // consts[k] -> its first k
  int depth_ = 0;
};

}  // namespace

namespace {

// Peephole fusion of the sequences an open loop's body repeats per term: Local Local Add(2)
// -> AddLocals, Const Mod -> ModConst, Const VecAdd -> VecAddConst, and (on a second pass)
// ModConst VecAddConst -> VecAddMod, a resource array's cyclic owner (cpu(x mod P)). A
// sequence is fused only when no jump lands inside it; jump targets are remapped. Stack
// depths only shrink.
void fuse(Program& p) {
  const std::vector<Instr>& in = p.code;
  std::vector<char> target(in.size() + 1, 0);
  for (const Instr& i : in)
    if (i.op == Op::LoopInit || i.op == Op::LoopNext || i.op == Op::VLoopInit || i.op == Op::VLoopNext)
      target[i.b] = 1;
  std::vector<Instr> out;
  std::vector<std::uint32_t> where(in.size() + 1, 0);  // old index -> new index
  for (std::size_t k = 0; k < in.size();) {
    where[k] = static_cast<std::uint32_t>(out.size());
    auto free_at = [&](std::size_t j) { return j < in.size() && !target[j]; };
    if (in[k].op == Op::Local && free_at(k + 1) && in[k + 1].op == Op::Local && free_at(k + 2) &&
        in[k + 2].op == Op::Add && in[k + 2].a == 2) {
      out.push_back(Instr{Op::AddLocals, 0, in[k].a, in[k + 1].a});
      where[k + 1] = where[k + 2] = where[k];
      k += 3;
    } else if (in[k].op == Op::Const && free_at(k + 1) && in[k + 1].op == Op::Mod) {
      // A divisor that is an integer in [1, 2^31) gets its reciprocal (program.h, Divisor).
      const double d = p.consts[in[k].a];
      std::uint32_t reciprocal = 0;
      if (d >= 1 && d < 2147483648.0 && d == static_cast<double>(static_cast<std::uint32_t>(d))) {
        const auto di = static_cast<std::uint32_t>(d);
        p.divisors.push_back(Divisor{UINT64_MAX / di + 1, di});
        reciprocal = static_cast<std::uint32_t>(p.divisors.size());
      }
      out.push_back(Instr{Op::ModConst, 0, in[k].a, reciprocal});
      where[k + 1] = where[k];
      k += 2;
    } else if (in[k].op == Op::Const && free_at(k + 1) && in[k + 1].op == Op::VecAdd) {
      out.push_back(Instr{Op::VecAddConst, 0, in[k + 1].a, in[k].a});
      where[k + 1] = where[k];
      k += 2;
    } else if (in[k].op == Op::ModConst && in[k].b != 0 && free_at(k + 1) && in[k + 1].op == Op::VecAddConst &&
               in[k + 1].a < 256) {
      out.push_back(Instr{Op::VecAddMod, static_cast<std::uint8_t>(in[k + 1].a), in[k].b - 1, in[k + 1].b});
      where[k + 1] = where[k];
      k += 2;
    } else {
      out.push_back(in[k]);
      ++k;
    }
  }
  where[in.size()] = static_cast<std::uint32_t>(out.size());
  for (Instr& i : out)
    if (i.op == Op::LoopInit || i.op == Op::LoopNext || i.op == Op::VLoopInit || i.op == Op::VLoopNext)
      i.b = where[i.b];
  p.code = std::move(out);
}

// Program::same_cost: a loop's body (between its LoopInit and LoopNext) takes the same loop
// steps every iteration where it holds no loop (one step: its LoopNext), or where it reads
// no local of the loop's slot (it runs the same instructions every iteration).
void mark_same_cost(Program& p) {
  p.same_cost.assign(p.locals, 0);
  for (std::size_t pc = 0; pc < p.code.size(); ++pc) {
    const Instr& init = p.code[pc];
    if (init.op != Op::LoopInit && init.op != Op::VLoopInit) continue;
    const std::uint32_t slot = init.a;
    bool reads = false, loops = false;
    for (std::size_t k = pc + 1; k + 1 < init.b && !(reads && loops); ++k) {
      const Instr& in = p.code[k];
      reads = reads || (in.op == Op::Local && in.a == slot) ||
              (in.op == Op::AddLocals && (in.a == slot || in.b == slot));
      loops = loops || in.op == Op::LoopInit || in.op == Op::VLoopInit;
    }
    if (slot < p.same_cost.size()) p.same_cost[slot] = reads && loops ? 0 : 1;
  }
}

}  // namespace

Program compile_expression(const GiNaC::ex& e, const std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less>& params) {
  Program p;
  Compiler c(p, params);
  c.expr(e);
  fuse(p);
  fuse(p);  // pairs of the first pass's fused instructions
  for (const Instr& in : p.code)
    if (in.op == Op::LoopInit || in.op == Op::VLoopInit || in.op == Op::VecNew || in.op == Op::Local ||
        in.op == Op::AddLocals)
      p.straight_ = false;
  mark_same_cost(p);
  return p;
}

}  // namespace pamc::eval
