// Two-way choices linear in a loop index (find_linear_choices: a max, min or abs of two
// sides, or a comparison, whose difference is a i + b), and the reader of a symbolic slope
// of proved sign they share (signed_slope). The splits and extremes at their crossing
// points use them: sum_piecewise (rules_sums.cpp), ext_breakpoints (rules_extrema.cpp).
#include "compiler/symbolic/rules.h"
#include "compiler/symbolic/rules_internal.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"

namespace pamc::sym {

using namespace GiNaC;

namespace detail {


namespace {
// Does the range bound x divide by s (s ^ -k in it, k > 0)? Then x has no value at s = 0.
bool divides_by(const ex& x, const ex& s) {
  for (const_preorder_iterator it = x.preorder_begin(); it != x.preorder_end(); ++it)
    if (is_class<power>(*it) && it->op(0).is_equal(s) && is_class<numeric>(it->op(1)) &&
        ex_to<numeric>(it->op(1)).is_negative())
      return true;
  return false;
}
}  // namespace

std::optional<SignedSlope> signed_slope(const ex& g, const reduction& r, const Facts& f) {
  const ex& i = r.index_ex();
  ex x = g.expand();
  if (!x.has(i) || !x.is_polynomial(i) || x.degree(i) != 1 || x.ldegree(i) < 0) return std::nullopt;
  ex a = x.coeff(i, 1), b = x.coeff(i, 0);
  if (a.has(i) || b.has(i) || is_class<numeric>(a) || may_fail(a, f)) return std::nullopt;
  bool up = f.provably_nonneg(a);
  if (!up && !f.provably_nonneg(-a)) return std::nullopt;
  // Nonzero: every factor proved nonzero, or a symbol (to a positive power) that a bound of
  // the range divides by, so that where it is 0 the sum has no value either.
  for (const ex& factor : operands_of(a, false)) {
    if (f.provably_positive(factor) || f.provably_positive(-factor)) continue;
    ex base = is_class<power>(factor) && is_class<numeric>(factor.op(1)) && ex_to<numeric>(factor.op(1)).is_pos_integer()
                  ? factor.op(0) : factor;
    if (is_class<symbol>(base) && (divides_by(r.lb(), base) || divides_by(r.ub(), base))) continue;
    return std::nullopt;
  }
  return SignedSlope{a, b, up};
}

// What it reads and returns: struct LinearChoice in rules_internal.h.
void find_linear_choices(const ex& x, const ex& i, std::vector<LinearChoice>& out, const Facts* f,
                         const reduction* range) {
  if (!x.has(i)) return;
  if (is_class<reduction>(x)) {
    const auto& r = ex_to<reduction>(x);
    find_linear_choices(r.lb(), i, out, f, range);
    find_linear_choices(r.ub(), i, out, f, range);
    return;
  }
  // d = a i + b with a a number; or, given facts, a free of i with a proved sign, read as
  // sign(a) i + b / |a| (the same ray: d / |a| has d's sign), |a| kept as the choice's scale.
  struct Slope {
    numeric a;
    ex b, scale = 1;
  };
  auto slope = [&](const ex& d) -> std::optional<Slope> {
    if (auto lin = linear_in(d, i)) return Slope{lin->first, lin->second};
    if (!f) return std::nullopt;
    ex dx = d.expand();
    if (!dx.is_polynomial(i) || dx.degree(i) != 1) return std::nullopt;
    ex a = dx.coeff(i, 1), b = dx.coeff(i, 0);
    if (a.has(i) || b.has(i)) return std::nullopt;
    if (f->provably_positive(a)) return Slope{1, (b / a).expand(), a};
    if (f->provably_positive(-a)) return Slope{-1, (-b / a).expand(), -a};
    if (!range) return std::nullopt;
    auto s = signed_slope(dx, *range, *f);
    if (!s) return std::nullopt;
    return s->positive ? Slope{1, (b / a).expand(), a} : Slope{-1, (-b / a).expand(), -a};
  };
  auto add = [&](const ex& g1, const ex& g2, bool is_max, const std::optional<Slope>& s, bool strict = false) {
    if (s) out.push_back({x, g1, g2, is_max, s->a, s->b, strict, s->scale});
  };
  if (is_class<extremum>(x) && ex_to<extremum>(x).args().size() == 2) {
    const auto& m = ex_to<extremum>(x);
    // The two sides in printed-text order, so the split is the same whatever order GiNaC
    // holds them in.
    ex g1 = m.args()[0], g2 = m.args()[1];
    if (to_pamela(g2) < to_pamela(g1)) std::swap(g1, g2);
    add(g1, g2, m.is_max(), slope(g1 - g2));
  } else if (is_ex_the_function(x, abs)) {
    add(x.op(0), -x.op(0), true, slope(2 * x.op(0)));
  } else if (pamela_function(x) == Fn::Le) {
    // (a <= b) is max-like: 1 where d = b - a >= 0, else 0.
    add(1, 0, true, slope(x.op(1) - x.op(0)));
  } else if (pamela_function(x) == Fn::Lt) {
    // (a < b): 1 where d = b - a > 0, else 0.
    add(1, 0, true, slope(x.op(1) - x.op(0)), true);
  }
  for (size_t k = 0; k < x.nops(); ++k) find_linear_choices(x.op(k), i, out, f, range);
}

}  // namespace detail

}  // namespace pamc::sym
