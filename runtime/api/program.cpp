#include "runtime/api/program.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace pamela::detail {
namespace {

constexpr std::uint32_t kSmallStack = 64;
constexpr std::uint32_t kSmallLocals = 16;

inline double loop_init_value(std::uint8_t kind) {
  return kind == 0 ? 0.0 : kind == 1 ? -HUGE_VAL : HUGE_VAL;
}

double execute(const Program& p, const double* args, double* stack, double* locals) {
  const Instr* code = p.code.data();
  const double* consts = p.consts.data();
  const std::size_t n = p.code.size();
  double* sp = stack;  // one past the top
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instr& in = code[pc];
    switch (in.op) {
      case Op::Const: *sp++ = consts[in.a]; break;
      case Op::Param: *sp++ = args[in.a]; break;
      case Op::Local: *sp++ = locals[in.a]; break;
      case Op::Add: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s += sp[i];
        *sp++ = s;
        break;
      }
      case Op::Mul: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s *= sp[i];
        *sp++ = s;
        break;
      }
      case Op::Max: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s = std::max(s, sp[i]);
        *sp++ = s;
        break;
      }
      case Op::Min: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s = std::min(s, sp[i]);
        *sp++ = s;
        break;
      }
      case Op::Sub: --sp; sp[-1] -= sp[0]; break;
      case Op::Div: --sp; sp[-1] /= sp[0]; break;
      case Op::Pow: --sp; sp[-1] = std::pow(sp[-1], sp[0]); break;
      case Op::Mod: --sp; sp[-1] = sp[-1] - sp[0] * std::floor(sp[-1] / sp[0]); break;
      case Op::IDiv: --sp; sp[-1] = std::floor(sp[-1] / sp[0]); break;
      case Op::Eq: --sp; sp[-1] = sp[-1] == sp[0] ? 1.0 : 0.0; break;
      case Op::Ne: --sp; sp[-1] = sp[-1] != sp[0] ? 1.0 : 0.0; break;
      case Op::Lt: --sp; sp[-1] = sp[-1] < sp[0] ? 1.0 : 0.0; break;
      case Op::Le: --sp; sp[-1] = sp[-1] <= sp[0] ? 1.0 : 0.0; break;
      case Op::Neg: sp[-1] = -sp[-1]; break;
      case Op::Square: sp[-1] *= sp[-1]; break;
      case Op::Sqrt: sp[-1] = std::sqrt(sp[-1]); break;
      case Op::Floor: sp[-1] = std::floor(sp[-1]); break;
      case Op::Ceil: sp[-1] = std::ceil(sp[-1]); break;
      case Op::Abs: sp[-1] = std::fabs(sp[-1]); break;
      case Op::Log: sp[-1] = std::log(sp[-1]); break;
      case Op::Log2: sp[-1] = std::log2(sp[-1]); break;
      case Op::Exp: sp[-1] = std::exp(sp[-1]); break;
      case Op::LoopInit: {
        sp -= 2;
        locals[in.a] = sp[0];
        locals[in.a + 1] = sp[1];
        const bool empty = !(locals[in.a] <= locals[in.a + 1]);
        *sp++ = empty && (in.kind & kEmptyIsZero) ? 0.0 : loop_init_value(in.kind & 0x0f);
        if (empty) pc = in.b - 1;
        break;
      }
      case Op::LoopNext: {
        const double v = *--sp;
        double& acc = sp[-1];
        const std::uint8_t kind = in.kind & 0x0f;
        acc = kind == 0 ? acc + v : kind == 1 ? std::max(acc, v) : std::min(acc, v);
        locals[in.a] += 1.0;
        if (locals[in.a] <= locals[in.a + 1]) pc = in.b - 1;
        break;
      }
    }
  }
  return sp[-1];
}

}  // namespace

double Program::run(const double* args) const {
  if (max_stack <= kSmallStack && locals <= kSmallLocals) {
    double stack[kSmallStack];
    double loc[kSmallLocals];
    return execute(*this, args, stack, loc);
  }
  std::unique_ptr<double[]> stack(new double[max_stack]);
  std::unique_ptr<double[]> loc(new double[locals ? locals : 1]);
  return execute(*this, args, stack.get(), loc.get());
}

}  // namespace pamela::detail
