// Two-way choices linear in a loop index (find_linear_choices: a max, min or abs of two
// sides, or a comparison, whose difference is a i + b), and the reader of a symbolic slope
// of proved sign they share (signed_slope). The splits and extremes at their crossing
// points use them: sum_piecewise (rules_sums.cpp), and ext_breakpoints here (the extremes
// of a body that is linear between its choices' switching points).
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

ex power_base(const ex& factor) {
  return is_class<power>(factor) && is_class<numeric>(factor.op(1)) && ex_to<numeric>(factor.op(1)).is_pos_integer()
             ? factor.op(0) : factor;
}

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
    ex base = power_base(factor);
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

using namespace detail;

namespace {
// x with each test a == b (a != b) whose sides differ by a i + c, a a number, written as the
// two steps (a <= b) (b <= a) (one less that): equal exactly where both hold, so the
// breakpoints of each step bracket the one index where the test holds (a boundary process,
// (p == 0) h + (p == P - 1) h).
ex equalities_as_steps(const ex& x, const ex& i) {
  if (!x.has(i) || is_class<reduction>(x)) return x;
  Fn fn = pamela_function(x);
  if ((fn == Fn::Eq || fn == Fn::Ne) && linear_in((x.op(1) - x.op(0)).expand(), i)) {
    ex both = compare(Cmp::Le, x.op(0), x.op(1)) * compare(Cmp::Le, x.op(1), x.op(0));
    return fn == Fn::Eq ? both : 1 - both;
  }
  struct Walk : map_function {
    const ex& i;
    explicit Walk(const ex& i_) : i(i_) {}
    ex operator()(const ex& y) override { return equalities_as_steps(y, i); }
  } walk(i);
  return x.map(walk);
}
}  // namespace

// max/min (i = lb, ub) { B } where B depends on i only through two-way choices that are
// linear in i (find_linear_choices: max/min/abs of sides whose difference is a i + b, and
// comparisons) and is otherwise of degree <= 1 in i: B is linear on each piece between the
// choices' switching points, so its extremes over the integers are at the ends of pieces.
// The candidates are lb, ub and, per choice with switch point t = -b / a, the last index
// before the switch and the first after it (floor(t), ceil(t) for a max/min/abs, which are
// continuous; L - 1, L for a comparison that starts holding at L), each clamped into
// [lb, ub]; the result is the max/min of B at the candidates (a boundary process:
// max (p = 0, P - 1) { (p > 0) t + (p < P - 1) t }; a sum of distances). Side conditions:
// at most 4 choices; every combination of the choices' sides leaves B of degree <= 1 in i
// or monotone in i by its structure (checked); lb, ub integers and a non-empty range (proved or assumed; a par's max over a
// maybe-empty range is guarded as in ext_const); b does not fail.
std::optional<ex> rule_ext_breakpoints(const ex& e, const Facts& f, Assumptions& a) {
  const reduction* r = as_ext_red(e);
  if (!r || is_vector_valued(r->body())) return std::nullopt;
  const ex& i = r->index_ex();
  std::vector<LinearChoice> found;
  const ex body = equalities_as_steps(r->body(), i);
  find_linear_choices(body, i, found, &f);
  if (found.empty()) return std::nullopt;
  // Distinct nodes only (a choice found twice is one choice).
  std::vector<LinearChoice> cs;
  for (const auto& c : found) {
    bool seen = false;
    for (const auto& d : cs) seen = seen || d.node.is_equal(c.node);
    if (!seen) cs.push_back(c);
  }
  if (cs.size() > 4) return std::nullopt;  // distinct choices: min(N, i) used three times is one
  for (const auto& c : cs)
    if (may_fail(c.b, f)) return std::nullopt;
  // Linear on every piece: each combination of sides; or monotone by structure (a step
  // (1 <= p) on top of floor((N - p) / P)), whose extremes on a piece are at its ends too.
  Facts fr = f;
  fr.declare_index(r->index(), r->lb(), r->ub());
  exvector vertices;  // of the pieces whose extreme may lie inside them
  // Whether every piece rises (falls) with i: then between two jumps of a test the body
  // only rises, and a max needs only the last index before each jump and ub (a min the
  // first after each jump and lb), half the candidates.
  bool all_up = true, all_down = true;
  for (unsigned mask = 0; mask < (1u << cs.size()); ++mask) {
    exmap m;
    for (size_t k = 0; k < cs.size(); ++k) m[cs[k].node] = (mask >> k) & 1 ? cs[k].g1 : cs[k].g2;
    ex x = body.subs(m, subs_options::no_pattern).expand();
    if (x.is_polynomial(i) && x.degree(i) <= 1) {
      ex slope = x.coeff(i, 1);
      all_up = all_up && fr.provably_nonneg(slope);
      all_down = all_down && fr.provably_nonpos(slope);
      continue;
    }
    all_up = all_down = false;
    // A convex quadratic piece has its max at a piece end (a concave one its min): the sum
    // of distances sum (j) { abs(j - i) } closed piecewise. A concave one (for a max; convex
    // for a min) with a leading coefficient of proved strict sign has it at an end or at
    // an integer next to its vertex -B / (2 A), which joins the candidates (a count of the
    // rows still to come times a weight that grows: (N - p + 1) (p - W)).
    if (x.is_polynomial(i) && x.degree(i) == 2) {
      ex lead = x.coeff(i, 2);
      if (!lead.has(i) && (r->kind() == ReduceKind::Max ? fr.provably_nonneg(lead) : fr.provably_nonpos(lead)))
        continue;
      ex lin = x.coeff(i, 1);
      if (!lead.has(i) && !lin.has(i) && (r->kind() == ReduceKind::Max ? fr.provably_positive(-lead) : fr.provably_positive(lead))) {
        vertices.push_back((-lin / (2 * lead)).expand());
        continue;
      }
    }
    if (!structural_direction(x, i, fr)) return std::nullopt;
  }
  // a par's max over a range whose length holds a rounding is guarded, not assumed non-empty
  const ex span = r->ub() - r->lb();
  bool guard_only = r->empty_is_zero() && span_has_rounding(span) && !f.provably_nonneg(span);
  bool nonempty = !guard_only && require({{true, r->lb()}, {true, r->ub()}, {false, span}}, f, a);
  if (!nonempty && !(r->empty_is_zero() && !may_fail(r->body(), f) &&
                     require({{true, r->lb()}, {true, r->ub()}}, f, a)))
    return std::nullopt;
  auto fl = [&](const ex& x) { return f.provably_integer(x) ? x : floor_of(x); };
  auto cl = [&](const ex& x) { return f.provably_integer(x) ? x : ceil_of(x); };
  // rising pieces: a max at the right ends of the runs between jumps, a min at the left
  const bool right_ends = (r->kind() == ReduceKind::Max) ? all_up : all_down;
  const bool left_ends = !right_ends && ((r->kind() == ReduceKind::Max) ? all_down : all_up);
  exvector points;
  if (!right_ends) points.push_back(r->lb());
  if (!left_ends) points.push_back(r->ub());
  for (const auto& c : cs) {
    ex t = (-c.b / ex(c.a)).expand();
    bool is_cmp = c.g1.is_equal(1) && c.g2.is_zero() && c.is_max;
    if (!is_cmp) {
      if (right_ends || left_ends) continue;  // continuous there: no run ends at it
      points.push_back(fl(t));
      points.push_back(cl(t));
      continue;
    }
    // the last index before the switch and the first after it
    ex before, after;
    if (c.a.is_positive()) {  // holds from L on
      after = c.strict ? fl(t) + 1 : cl(t);
      before = after - 1;
    } else {  // holds up to U
      before = c.strict ? cl(t) - 1 : fl(t);
      after = before + 1;
    }
    if (!left_ends) points.push_back(before);
    if (!right_ends) points.push_back(after);
  }
  for (const ex& v : vertices) {
    if (may_fail(v, f)) return std::nullopt;
    points.push_back(fl(v));
    points.push_back(cl(v));
  }
  exvector values;
  for (const ex& p : points) {
    ex at = p;
    if (!p.is_equal(r->lb()) && !p.is_equal(r->ub())) at = make_min({make_max({p, r->lb()}), r->ub()});
    ex v = body.subs(exmap{{i, at}}, subs_options::no_pattern);
    bool dup = false;
    for (const ex& w : values) dup = dup || w.is_equal(v);
    if (!dup) values.push_back(v);
  }
  ex out = r->kind() == ReduceKind::Max ? make_max(values) : make_min(values);
  return nonempty ? out : compare(Cmp::Le, r->lb(), r->ub()) * out;
}

}  // namespace pamc::sym
