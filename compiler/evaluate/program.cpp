#include "compiler/evaluate/program.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace pamc::eval {
namespace {

constexpr std::uint32_t kSmallStack = 64;
constexpr std::uint32_t kSmallLocals = 16;

inline double loop_init_value(std::uint8_t kind) {
  return kind == 0 ? 0.0 : kind == 1 ? -HUGE_VAL : HUGE_VAL;
}

// floor without a libm call (the baseline x86-64 has no rounding instruction, and std::floor
// is a function call there): exact for |x| < 2^63, std::floor beyond (and for NaN).
inline double fast_floor(double x) {
  if (!(std::fabs(x) < 9.2e18)) return std::floor(x);
  double t = static_cast<double>(static_cast<long long>(x));
  return t > x ? t - 1.0 : t;
}
inline bool is_int(double x) { return fast_floor(x) == x; }
// x mod k with floor semantics; in int64 when both are integers below 2^53 (exact, and no
// rounding of x / k).
inline double floor_mod(double x, double k) {
  constexpr double kLimit = 9007199254740992.0;
  if (std::fabs(x) <= kLimit && std::fabs(k) <= kLimit && k != 0.0) {
    auto a = static_cast<long long>(x), b = static_cast<long long>(k);
    if (static_cast<double>(a) == x && static_cast<double>(b) == k) {
      // 32-bit division where it fits: several times faster than 64-bit on many cores
      long long r = (a >= INT32_MIN && a <= INT32_MAX && b >= INT32_MIN && b <= INT32_MAX && b != -1)
                        ? static_cast<long long>(static_cast<std::int32_t>(a) % static_cast<std::int32_t>(b))
                        : a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return static_cast<double>(r);
    }
  }
  return x - k * fast_floor(x / k);
}
// x mod d for a constant divisor with its reciprocal (program.h, Divisor): by two
// multiplications where x is an integer in [0, 2^32), floor_mod elsewhere. Same value.
__extension__ typedef unsigned __int128 uint128;  // GCC and Clang on 64-bit targets
inline std::uint32_t mod_index(std::uint32_t a, const Divisor& v) {
  const std::uint64_t low = v.m * a;
  return static_cast<std::uint32_t>((static_cast<uint128>(low) * v.d) >> 64);
}
// Whether x is an integer in [0, 2^32), the range mod_index serves; a = x if so.
inline bool small_index(double x, std::uint32_t& a) {
  if (!(x >= 0 && x < 4294967296.0)) return false;
  a = static_cast<std::uint32_t>(x);
  return static_cast<double>(a) == x;
}
inline double mod_by(double x, const Divisor& v) {
  std::uint32_t a;
  return small_index(x, a) ? static_cast<double>(mod_index(a, v)) : floor_mod(x, static_cast<double>(v.d));
}
// a * b, except that a zero factor makes the product zero even where the other has no value
// (NaN, or 0 * inf): `if (c) e` is c * e, and a branch not taken is never evaluated
// (docs/semantics.md). Ordinary products are IEEE's, -0.0 included.
inline double times(double a, double b) {
  const double p = a * b;
  return p == p ? p : ((a == 0.0) | (b == 0.0) ? 0.0 : p);
}
// a / b; a / 0 has no value (NaN, never an infinity), and 0 / 0 is 0: a product with a
// zero factor, c * 6 * (N - k)^-1 at c = 0, k = N.
inline double quotient(double a, double b) {
  if (b == 0.0) return a == 0.0 ? 0.0 : std::nan("");
  return a / b;
}
// A comparison is 1 or 0, and has no value where an operand has none (sqrt(-3) < 2).
inline double truth(bool c, double a, double b) { return a != a || b != b ? std::nan("") : c ? 1.0 : 0.0; }
// max and min that keep a NaN (no value) wherever it stands: std::max(x, NaN) is x.
inline double max_of(double a, double b) { return a != a ? a : b != b ? b : std::max(a, b); }
inline double min_of(double a, double b) { return a != a ? a : b != b ? b : std::min(a, b); }
// Functions outside their domain have no value: 0 ^ -1 and log(0) are NaN, not infinities.
inline double power_of(double x, double y) { return x == 0.0 && y < 0.0 ? std::nan("") : std::pow(x, y); }
inline double log_of(double x) { return x == 0.0 ? std::nan("") : std::log(x); }
// gcd of two integers below 2^53 (exact in int64), >= 0; NaN for anything else: the
// model's gcd has no value there.
inline double gcd_of(double x, double y) {
  constexpr double kLimit = 9007199254740992.0;
  if (!(std::fabs(x) <= kLimit && std::fabs(y) <= kLimit) || !is_int(x) || !is_int(y)) return std::nan("");
  auto a = static_cast<long long>(std::fabs(x)), b = static_cast<long long>(std::fabs(y));
  while (b != 0) a = std::exchange(b, a % b);
  return static_cast<double>(a);
}
inline double log2_of(double x) { return x == 0.0 ? std::nan("") : std::log2(x); }
// floor(x / k), in int64 when both are integers below 2^53 (no rounding of x / k first).
inline double floor_div(double x, double k) {
  constexpr double kLimit = 9007199254740992.0;
  if (std::fabs(x) <= kLimit && std::fabs(k) <= kLimit && k != 0.0) {
    auto a = static_cast<long long>(x), b = static_cast<long long>(k);
    if (static_cast<double>(a) == x && static_cast<double>(b) == k) {
      long long q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;  // floor semantics
      return static_cast<double>(q);
    }
  }
  return k == 0.0 ? std::nan("") : fast_floor(x / k);
}

// The vector slots of one run: each an array of elements and a poison flag.
struct Vectors {
  std::vector<std::vector<double>> elems;
  std::vector<char> poisoned;
  explicit Vectors(std::uint32_t n) : elems(n), poisoned(n, 0) {}
  void clear(std::uint32_t k) {
    elems[k].clear();
    poisoned[k] = 0;
  }
  // A position known to be one (a remainder by a divisor below 2^31).
  void add_at(std::uint32_t k, std::size_t i, double v) {
    std::vector<double>& e = elems[k];
    if (i >= e.size()) e.resize(std::max(i + 1, 2 * e.size()), 0.0);
    e[i] += v;
  }
  void add(std::uint32_t k, double pos, double v) {
    if (v == 0.0) return;  // nothing added: a guarded use (`if (p > 0) use(r(p - 1), t)` at p = 0)
    if (!(pos >= 0) || pos >= 2147483648.0 || !is_int(pos)) {
      poisoned[k] = 1;
      return;
    }
    auto i = static_cast<std::size_t>(pos);
    std::vector<double>& e = elems[k];
    if (i >= e.size()) e.resize(std::max(i + 1, 2 * e.size()), 0.0);
    e[i] += v;
  }
  double max(std::uint32_t k) const {
    if (poisoned[k]) return std::nan("");
    const std::vector<double>& e = elems[k];
    std::size_t n = e.size();
    while (n > 0 && e[n - 1] == 0.0) --n;  // elements end at the highest nonzero one
    if (n == 0) return 0.0;
    double m = e[0];
    for (std::size_t i = 1; i < n; ++i) m = max_of(m, e[i]);
    return m;
  }
};

// Track: also say whether every value computed was an integer of at most 2^53 in magnitude
// (then the double result is the exact one): `exact` ends false at the first value that is
// not, or at a transcendental function. Integer division and remainder then use int64.
template <bool Track>
double execute(const Program& p, const double* args, double* stack, double* locals, bool* exact,
               const std::function<void(long long)>* tick = nullptr, const StepLimit* limit = nullptr,
               long long* marks = nullptr) {
  // Built only for programs with resource vectors: two empty std::vectors cost a simulator's
  // per-event expression a fifth of its time.
  std::optional<Vectors> vectors;
  if (p.vectors) vectors.emplace(p.vectors);
  Vectors* vec = vectors ? &*vectors : nullptr;  // vector instructions imply p.vectors > 0
  bool inexact = false;
  // Track: a point without a value anywhere (an empty max, a bad position) is NaN at the
  // end, even where an enclosing max would have dropped the NaN or -inf on the way.
  bool failed = false;
  long long steps = 0;
  auto step = [&] {
    if constexpr (Track)
      if ((++steps & 0xFFFFF) == 0 && tick && *tick) (*tick)(steps);
  };
  // StepLimit: marks[slot] holds the steps when the loop started, until its first iteration
  // ends (then -1); a loop of same-cost iterations then knows what it will take. The loops
  // in their first iteration enclose one another: marks[p.locals + k] is that stack of
  // slots, innermost last. Each one of same cost takes at least its trip count times what
  // its first iteration holds, so 32 nested sum (i = 1, 2) show 2^32 steps after two.
  std::uint32_t firsts = 0;  // the stack's height
  auto started = [&](std::uint32_t slot) {
    if constexpr (Track) {
      if (!marks) return;
      marks[slot] = steps;
      marks[p.locals + firsts++] = slot;
    }
  };
  auto measured = [&](std::uint32_t slot) {
    if constexpr (Track) {
      if (!marks || marks[slot] < 0) return;
      long long began = marks[slot];
      const long long per = steps - began;
      marks[slot] = -1;
      --firsts;  // slot: the innermost loop in its first iteration
      if (!p.same_cost[slot]) return;
      // cost: at least the steps of the loop that started at `began`, all its iterations
      double cost = (locals[slot + 1] - locals[slot] + 1) * static_cast<double>(per);
      double total = static_cast<double>(began) + cost;
      for (std::uint32_t k = firsts; k-- > 0;) {
        const auto outer = static_cast<std::uint32_t>(marks[p.locals + k]);
        if (!p.same_cost[outer]) break;
        const double first = static_cast<double>(began - marks[outer]) + cost;  // its first iteration, at least
        cost = (locals[outer + 1] - locals[outer] + 1) * first;
        began = marks[outer];
        total = std::max(total, static_cast<double>(began) + cost);
      }
      if (total > static_cast<double>(limit->max))
        limit->over(total < 9e18 ? static_cast<long long>(total) : 9000000000000000000LL);
    }
  };
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  auto integral = [&](double x) { return fast_floor(x) == x && std::fabs(x) <= kExactLimit; };
  auto note = [&](double x) {
    if constexpr (Track) inexact = inexact || !integral(x);
  };
  const Instr* code = p.code.data();
  const double* consts = p.consts.data();
  const std::size_t n = p.code.size();
  double* sp = stack;  // one past the top
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instr& in = code[pc];
    switch (in.op) {
      case Op::Const: *sp++ = consts[in.a]; note(sp[-1]); break;
      case Op::Param: *sp++ = args[in.a]; note(sp[-1]); break;
      case Op::Local: *sp++ = locals[in.a]; break;
      case Op::Add: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s += sp[i];
        *sp++ = s;
        note(s);
        break;
      }
      case Op::Mul: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s = times(s, sp[i]);
        *sp++ = s;
        note(s);
        break;
      }
      case Op::Max: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s = max_of(s, sp[i]);
        *sp++ = s;
        break;
      }
      case Op::Min: {
        sp -= in.a;
        double s = sp[0];
        for (std::uint32_t i = 1; i < in.a; ++i) s = min_of(s, sp[i]);
        *sp++ = s;
        break;
      }
      case Op::Sub: --sp; sp[-1] -= sp[0]; note(sp[-1]); break;
      case Op::Div:
        --sp;
        if constexpr (Track) {
          // integers: exact only when the division is (7 / 2 is not, whatever it rounds to)
          if (integral(sp[-1]) && integral(sp[0]) && sp[0] != 0.0) {
            auto a = static_cast<long long>(sp[-1]), b = static_cast<long long>(sp[0]);
            inexact = inexact || a % b != 0;
          } else {
            inexact = true;
          }
        }
        sp[-1] = quotient(sp[-1], sp[0]);
        break;
      case Op::Pow: --sp; inexact = inexact || (Track && !(sp[0] >= 0)); sp[-1] = power_of(sp[-1], sp[0]); note(sp[-1]); break;
      case Op::Mod: --sp; sp[-1] = floor_mod(sp[-1], sp[0]); note(sp[-1]); break;
      case Op::IDiv: --sp; sp[-1] = floor_div(sp[-1], sp[0]); note(sp[-1]); break;
      case Op::Gcd: --sp; sp[-1] = gcd_of(sp[-1], sp[0]); break;
      case Op::Eq: --sp; sp[-1] = truth(sp[-1] == sp[0], sp[-1], sp[0]); break;
      case Op::Ne: --sp; sp[-1] = truth(sp[-1] != sp[0], sp[-1], sp[0]); break;
      case Op::Lt: --sp; sp[-1] = truth(sp[-1] < sp[0], sp[-1], sp[0]); break;
      case Op::Le: --sp; sp[-1] = truth(sp[-1] <= sp[0], sp[-1], sp[0]); break;
      case Op::Neg: sp[-1] = -sp[-1]; break;
      case Op::Square: sp[-1] *= sp[-1]; note(sp[-1]); break;
      case Op::Sqrt: sp[-1] = std::sqrt(sp[-1]); inexact = Track; break;
      case Op::Floor: sp[-1] = fast_floor(sp[-1]); break;
      case Op::Ceil: sp[-1] = std::ceil(sp[-1]); break;
      case Op::Abs: sp[-1] = std::fabs(sp[-1]); break;
      case Op::Log: sp[-1] = log_of(sp[-1]); inexact = Track; break;
      case Op::Log2: sp[-1] = log2_of(sp[-1]); note(sp[-1]); break;
      case Op::Exp: sp[-1] = std::exp(sp[-1]); inexact = Track; break;
      case Op::LoopInit: {
        sp -= 2;
        locals[in.a] = sp[0];
        locals[in.a + 1] = sp[1];
        if (!is_int(sp[0]) || !is_int(sp[1]) || !std::isfinite(sp[0]) || !std::isfinite(sp[1])) {  // no value: the model's loop bounds are integers
          *sp++ = std::nan("");
          pc = in.b - 1;
          // A bound that is a number but not an integer fails the whole model; one without a
          // value (NaN or an infinity: log2(0), a division by zero) is NaN like any value
          // there, which a zero factor covers (a branch not taken).
          failed = failed || (std::isfinite(locals[in.a]) && std::isfinite(locals[in.a + 1]));
          break;
        }
        const bool empty = !(locals[in.a] <= locals[in.a + 1]);
        failed = failed || (empty && (in.kind & 0x0f) != 0 && !(in.kind & kEmptyIsZero));
        // an empty max or min has no value; a par's max is 0 there (kEmptyIsZero)
        *sp++ = !empty ? loop_init_value(in.kind & 0x0f)
                : (in.kind & kEmptyIsZero) || (in.kind & 0x0f) == 0 ? 0.0 : std::nan("");
        if (empty) pc = in.b - 1;
        else started(in.a);
        break;
      }
      case Op::AddLocals: *sp++ = locals[in.a] + locals[in.b]; note(sp[-1]); break;
      case Op::ModConst:
        sp[-1] = in.b ? mod_by(sp[-1], p.divisors[in.b - 1]) : floor_mod(sp[-1], consts[in.a]);
        note(sp[-1]);
        break;
      case Op::VecAddConst: --sp; note(consts[in.b]); vec->add(in.a, sp[0], consts[in.b]); break;
      case Op::VecAddMod: {
        const double x = *--sp;
        const Divisor& v = p.divisors[in.a];
        note(consts[in.b]);
        std::uint32_t a;
        if (small_index(x, a))
          vec->add_at(in.kind, mod_index(a, v), consts[in.b]);
        else
          vec->add(in.kind, floor_mod(x, static_cast<double>(v.d)), consts[in.b]);
        break;
      }
      case Op::VecNew: vec->clear(in.a); break;
      case Op::VecAdd: sp -= 2; note(sp[1]); vec->add(in.a, sp[0], sp[1]); break;
      case Op::VecMax:
        *sp++ = vec->max(in.a);
        note(sp[-1]);
        failed = failed || vec->poisoned[in.a];
        break;
      case Op::VLoopInit: {
        sp -= 2;
        locals[in.a] = sp[0];
        locals[in.a + 1] = sp[1];
        if (!is_int(sp[0]) || !is_int(sp[1]) || !std::isfinite(sp[0]) || !std::isfinite(sp[1])) {
          vec->poisoned[in.kind] = 1;
          pc = in.b - 1;
        } else if (!(sp[0] <= sp[1])) {
          pc = in.b - 1;
        } else {
          started(in.a);
        }
        break;
      }
      case Op::VLoopNext:
        step();
        measured(in.a);
        locals[in.a] += 1.0;
        if (locals[in.a] <= locals[in.a + 1]) pc = in.b - 1;
        break;
      case Op::LoopNext: {
        const double v = *--sp;
        double& acc = sp[-1];
        const std::uint8_t kind = in.kind & 0x0f;
        acc = kind == 0 ? acc + v : kind == 1 ? max_of(acc, v) : min_of(acc, v);
        note(acc);
        step();
        measured(in.a);
        locals[in.a] += 1.0;
        if (locals[in.a] <= locals[in.a + 1]) pc = in.b - 1;
        break;
      }
      default: __builtin_unreachable();  // every Op has its case: no range check per dispatch
    }
  }
  if (exact) *exact = !inexact;
  if (Track && failed) return std::nan("");
  return sp[-1];
}

}  // namespace

double Program::run(const double* args) const {
  if (max_stack <= kSmallStack && locals <= kSmallLocals) {
    double stack[kSmallStack];
    double loc[kSmallLocals];
    return execute<false>(*this, args, stack, loc, nullptr);
  }
  std::unique_ptr<double[]> stack(new double[max_stack]);
  std::unique_ptr<double[]> loc(new double[locals ? locals : 1]);
  return execute<false>(*this, args, stack.get(), loc.get(), nullptr);
}

// The column stack of run_batch: slot s holds n values at col(s). Same arithmetic as
// execute<false>, instruction by instruction, so the values agree bit for bit.
void Program::run_batch(const double* const* cols, std::size_t n, double* out) const {
  if (n == 0) return;
  if (!straight()) {
    std::vector<double> args;
    std::uint32_t nargs = 0;
    for (const Instr& in : code)
      if (in.op == Op::Param) nargs = std::max(nargs, in.a + 1);
    args.resize(nargs);
    for (std::size_t j = 0; j < n; ++j) {
      for (std::uint32_t k = 0; k < nargs; ++k) args[k] = cols[k][j];
      out[j] = run(args.data());
    }
    return;
  }
  std::vector<double> stack(static_cast<std::size_t>(max_stack ? max_stack : 1) * n);
  auto col = [&](std::size_t s) { return stack.data() + s * n; };
  std::size_t sp = 0;  // slots in use
  for (const Instr& in : code) {
    switch (in.op) {
      case Op::Const: std::fill_n(col(sp++), n, consts[in.a]); break;
      case Op::Param: std::copy_n(cols[in.a], n, col(sp++)); break;
      case Op::Add:
      case Op::Mul:
      case Op::Max:
      case Op::Min: {
        sp -= in.a;
        double* r = col(sp);
        for (std::uint32_t i = 1; i < in.a; ++i) {
          const double* x = col(sp + i);
          switch (in.op) {
            case Op::Add: for (std::size_t j = 0; j < n; ++j) r[j] += x[j]; break;
            case Op::Mul: for (std::size_t j = 0; j < n; ++j) r[j] = times(r[j], x[j]); break;
            case Op::Max: for (std::size_t j = 0; j < n; ++j) r[j] = max_of(r[j], x[j]); break;
            default: for (std::size_t j = 0; j < n; ++j) r[j] = min_of(r[j], x[j]); break;
          }
        }
        ++sp;
        break;
      }
      case Op::Sub:
      case Op::Div:
      case Op::Pow:
      case Op::Mod:
      case Op::IDiv:
      case Op::Gcd:
      case Op::Eq:
      case Op::Ne:
      case Op::Lt:
      case Op::Le: {
        --sp;
        double* x = col(sp - 1);
        const double* y = col(sp);
        switch (in.op) {
          case Op::Sub: for (std::size_t j = 0; j < n; ++j) x[j] -= y[j]; break;
          case Op::Div: for (std::size_t j = 0; j < n; ++j) x[j] = quotient(x[j], y[j]); break;
          case Op::Pow: for (std::size_t j = 0; j < n; ++j) x[j] = power_of(x[j], y[j]); break;
          case Op::Mod: for (std::size_t j = 0; j < n; ++j) x[j] = floor_mod(x[j], y[j]); break;
          case Op::IDiv: for (std::size_t j = 0; j < n; ++j) x[j] = floor_div(x[j], y[j]); break;
          case Op::Gcd: for (std::size_t j = 0; j < n; ++j) x[j] = gcd_of(x[j], y[j]); break;
          case Op::Eq: for (std::size_t j = 0; j < n; ++j) x[j] = truth(x[j] == y[j], x[j], y[j]); break;
          case Op::Ne: for (std::size_t j = 0; j < n; ++j) x[j] = truth(x[j] != y[j], x[j], y[j]); break;
          case Op::Lt: for (std::size_t j = 0; j < n; ++j) x[j] = truth(x[j] < y[j], x[j], y[j]); break;
          default: for (std::size_t j = 0; j < n; ++j) x[j] = truth(x[j] <= y[j], x[j], y[j]); break;
        }
        break;
      }
      case Op::ModConst: {
        double* x = col(sp - 1);
        if (in.b) {
          const Divisor& v = divisors[in.b - 1];
          for (std::size_t j = 0; j < n; ++j) x[j] = mod_by(x[j], v);
        } else {
          for (std::size_t j = 0; j < n; ++j) x[j] = floor_mod(x[j], consts[in.a]);
        }
        break;
      }
      case Op::Neg:
      case Op::Square:
      case Op::Sqrt:
      case Op::Floor:
      case Op::Ceil:
      case Op::Abs:
      case Op::Log:
      case Op::Log2:
      case Op::Exp: {
        double* x = col(sp - 1);
        switch (in.op) {
          case Op::Neg: for (std::size_t j = 0; j < n; ++j) x[j] = -x[j]; break;
          case Op::Square: for (std::size_t j = 0; j < n; ++j) x[j] *= x[j]; break;
          case Op::Sqrt: for (std::size_t j = 0; j < n; ++j) x[j] = std::sqrt(x[j]); break;
          case Op::Floor: for (std::size_t j = 0; j < n; ++j) x[j] = fast_floor(x[j]); break;
          case Op::Ceil: for (std::size_t j = 0; j < n; ++j) x[j] = std::ceil(x[j]); break;
          case Op::Abs: for (std::size_t j = 0; j < n; ++j) x[j] = std::fabs(x[j]); break;
          case Op::Log: for (std::size_t j = 0; j < n; ++j) x[j] = log_of(x[j]); break;
          case Op::Log2: for (std::size_t j = 0; j < n; ++j) x[j] = log2_of(x[j]); break;
          default: for (std::size_t j = 0; j < n; ++j) x[j] = std::exp(x[j]); break;
        }
        break;
      }
      default: break;  // loops and vectors: not in a straight program
    }
  }
  std::copy_n(col(sp - 1), n, out);
}

double Program::run_checked(const double* args, const std::function<void(long long)>* tick,
                            const StepLimit* limit) const {
  bool exact = false;
  if (limit && (limit->max <= 0 || same_cost.size() < locals)) limit = nullptr;
  if (max_stack <= kSmallStack && locals <= kSmallLocals) {
    double stack[kSmallStack];
    double loc[kSmallLocals];
    long long marks[2 * kSmallLocals];
    return execute<true>(*this, args, stack, loc, &exact, tick, limit, limit ? marks : nullptr);
  }
  std::unique_ptr<double[]> stack(new double[max_stack ? max_stack : 1]);
  std::unique_ptr<double[]> loc(new double[locals ? locals : 1]);
  std::unique_ptr<long long[]> marks(limit ? new long long[2 * locals + 1] : nullptr);
  return execute<true>(*this, args, stack.get(), loc.get(), &exact, tick, limit, marks.get());
}

double Program::run_tracked(const double* args, bool& exact, const std::function<void(long long)>& tick) const {
  std::unique_ptr<double[]> stack(new double[max_stack ? max_stack : 1]);
  std::unique_ptr<double[]> loc(new double[locals ? locals : 1]);
  return execute<true>(*this, args, stack.get(), loc.get(), &exact, &tick);
}

}  // namespace pamc::eval
