#include "compiler/analysis/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "compiler/diag/diag.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/analysis/domain.h"
#include "compiler/analysis/sweep.h"
#include "compiler/support/json.h"

namespace pamc {

using GiNaC::ex;
using GiNaC::numeric;

std::optional<numeric> value_at(const ex& e, const GiNaC::exmap& env) {
  try {
    sym::WorkBudget budget;
    sym::Value v = sym::evaluate(e, env, budget);
    if (v.is_vector) return std::nullopt;
    return v.scalar;
  } catch (const sym::EvalError&) {
    return std::nullopt;
  }
}

namespace {
struct Activate : GiNaC::map_function {
  const GiNaC::exmap& env;
  std::vector<std::string>* notes;
  Activate(const GiNaC::exmap& e, std::vector<std::string>* n) : env(e), notes(n) {}
  void note(const std::string& s) {
    if (notes && std::find(notes->begin(), notes->end(), s) == notes->end()) notes->push_back(s);
  }
  ex operator()(const ex& e) override {
    if (sym::is_extremum(e)) {
      std::size_t best = 0;
      std::vector<std::optional<numeric>> vals;
      for (std::size_t i = 0; i < e.nops(); ++i) vals.push_back(value_at(e.op(i), env));
      for (std::size_t i = 0; i < e.nops(); ++i) {
        if (!vals[i]) continue;
        if (!vals[best] || (sym::is_max(e) ? *vals[i] > *vals[best] : *vals[i] < *vals[best])) best = i;
      }
      std::string ties;
      for (std::size_t i = 0; i < e.nops(); ++i)
        if (i != best && vals[i] && vals[best] && *vals[i] == *vals[best]) ties += ", " + sym::to_pamela(e.op(i));
      if (!ties.empty())
        note(sym::to_pamela(e) + ": " + sym::to_pamela(e.op(best)) + ties +
             " tie here (a kink), so derivatives are one-sided; shown for the branch " + sym::to_pamela(e.op(best)));
      return (*this)(e.op(best));
    }
    switch (sym::pamela_function(e)) {
      case sym::Fn::Floor:
      case sym::Fn::Ceil:
        note(sym::to_pamela(e) + " differentiated as its argument (a step function's derivative is 0 almost everywhere)");
        return (*this)(e.op(0));
      case sym::Fn::Div:
        note(sym::to_pamela(e) + " differentiated as the real quotient");
        return (*this)(e.op(0)) / (*this)(e.op(1));
      case sym::Fn::Mod: {
        ex q = sym::floor_of(e.op(0) / e.op(1));
        auto qv = value_at(q, env);
        note(sym::to_pamela(e) + " differentiated with its quotient held at its value here");
        return (*this)(e.op(0)) - (*this)(e.op(1)) * (qv ? ex(*qv) : q);
      }
      case sym::Fn::Eq:
      case sym::Fn::Ne:
      case sym::Fn::Lt:
      case sym::Fn::Le:
        if (auto v = value_at(e, env)) return *v;
        return e;
      case sym::Fn::VectorMax: {
        // max over a resource vector, vmax(c * V) = c * vmax(V) for scalar factors c >= 0:
        // they come out, so their parameters get derivatives (the rest has none, see
        // has_unknown_derivative).
        const ex& arg = e.op(0);
        if (!GiNaC::is_a<GiNaC::mul>(arg)) return e;
        ex scalar = 1, vec = 1;
        for (std::size_t i = 0; i < arg.nops(); ++i)
          (sym::is_vector_valued(arg.op(i)) ? vec : scalar) *= arg.op(i);
        auto c = value_at(scalar, env);
        if (scalar.is_equal(1) || !c || c->is_negative()) return e;
        return (*this)(scalar) * sym::vector_max(vec);
      }
      default: break;  // log2 stays log2: its derivative is 1 / (x * log(2)) (functions.cpp)
    }
    if (sym::is_reduction(e)) return e;
    return e.map(*this);
  }
};

}  // namespace

ex active_branch(const ex& e, const GiNaC::exmap& env, std::vector<std::string>* notes) {
  Activate act(env, notes);
  return act(e);
}

namespace {

[[noreturn]] void fail(DiagKind kind, const std::string& message) {
  throw CompileError{Diagnostic{Severity::Error, kind, Loc{}, message, {}}};
}

// Symbols of e that are model parameters, in declaration order.
std::vector<std::string> parameters_in(const CostModel& model, const ex& e) {
  std::vector<std::string> out;
  for (const CostParameter& p : model.parameters)
    if (e.has(p.symbol)) out.push_back(p.name);
  return out;
}

// Every max/min in e, outermost first, outside reductions (whose bodies mention the index).
void collect_extrema(const ex& e, std::vector<ex>& out, bool& in_reduction) {
  if (sym::is_reduction(e)) {
    in_reduction = in_reduction || [&] {
      std::vector<ex> inner;
      bool dummy = false;
      for (std::size_t i = 0; i < e.nops(); ++i) collect_extrema(e.op(i), inner, dummy);
      return !inner.empty();
    }();
    collect_extrema(e.op(0), out, in_reduction);  // the limits are fine
    collect_extrema(e.op(1), out, in_reduction);
    return;
  }
  if (sym::is_extremum(e)) {
    bool seen = false;
    for (const ex& o : out) seen = seen || o.is_equal(e);
    if (!seen) out.push_back(e);
  }
  for (std::size_t i = 0; i < e.nops(); ++i) collect_extrema(e.op(i), out, in_reduction);
}

// d = c1 * x + c0 with c0, c1 free of x?
bool linear_in(const ex& d, const GiNaC::symbol& x, ex& c1, ex& c0) {
  ex e = d.expand();
  if (!e.has(x)) return false;
  c1 = e.coeff(x, 1);
  c0 = e.coeff(x, 0);
  if (c1.has(x) || c0.has(x) || c1.is_zero()) return false;
  return (e - c1 * x - c0).expand().is_zero();
}

struct Env {
  GiNaC::exmap env;
  const CostModel* model;
  std::map<std::string, numeric> bindings;  // as given (-D), for evaluating the model elsewhere
  std::string target;                       // the equation analysed
  GiNaC::exmap without(const GiNaC::symbol& s) const {
    GiNaC::exmap m = env;
    m.erase(s);
    return m;
  }
};

// Does the model have a value with p = x (the others as given)? Every check eval makes: the
// declared bounds, negative times, non-integer loop bounds.
bool model_has_value(const Env& env, const CostParameter& p, const numeric& x) {
  EvalRequest req;
  req.bindings = env.bindings;
  req.bindings[p.name] = x;
  req.targets = {env.target};
  try {
    evaluate_model(*env.model, req);
    return true;
  } catch (const CompileError&) {
    return false;
  }
}

// Root of f(x) = a - b near x0, where x0 is the parameter's value: steps outwards by
// doubling in both directions until the sign changes, then bisects. Doubles only.
std::optional<double> numeric_root(const ex& d, const GiNaC::symbol& x, const GiNaC::exmap& others, double x0) {
  auto f = [&](double v) -> std::optional<double> {
    GiNaC::exmap m = others;
    m[x] = numeric(v);
    auto r = value_at(d, m);
    if (!r) return std::nullopt;
    return r->to_double();
  };
  auto f0 = f(x0);
  if (!f0 || *f0 == 0) return std::nullopt;
  double base = x0 == 0 ? 1 : std::fabs(x0);
  for (int dir : {+1, -1}) {
    double prev = x0;
    double fprev = *f0;
    for (int k = 0; k < 60; ++k) {
      double v = x0 + dir * base * std::ldexp(1.0, k - 10);
      auto fv = f(v);
      if (!fv) break;
      if ((*fv > 0) != (fprev > 0)) {
        double lo = prev, hi = v, flo = fprev;
        for (int it = 0; it < 200 && lo != hi; ++it) {
          double mid = 0.5 * (lo + hi);
          if (mid == lo || mid == hi) break;
          auto fm = f(mid);
          if (!fm) return std::nullopt;
          if ((*fm > 0) == (flo > 0)) lo = mid, flo = *fm; else hi = mid;
        }
        return 0.5 * (lo + hi);
      }
      prev = v;
      fprev = *fv;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string crossover_text(const numeric& value, bool numeric_only) {
  std::string exact = format_number(value);
  if (!numeric_only && exact.size() <= 10) return exact;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value.to_double());
  return (numeric_only || buf != exact ? "~" : "") + std::string(buf);
}

namespace {

// A ratio for people: exact when short, else 4 significant digits.
std::string approx(const numeric& n) {
  std::string s = format_number(n);
  if (s.size() <= 8) return s;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", n.to_double());
  return buf;
}

Crossover solve_crossover(const CostModel& model, const Env& env, const ex& a, const ex& b, std::size_t other,
                          const CostParameter& p, bool is_max) {
  Crossover c;
  c.other = other;
  c.parameter = p.name;
  ex d = a - b;  // positive now iff a > b
  ex c1, c0;
  GiNaC::exmap others = env.without(p.symbol);
  numeric x_now = GiNaC::ex_to<numeric>(env.env.at(p.symbol));
  bool have = false;
  if (linear_in(d, p.symbol, c1, c0)) {
    // Linear with a coefficient that vanishes here (a guard such as (2 <= P) - 1): a - b
    // does not change with p at this point, so there is no crossover in p to solve for.
    auto slope = value_at(c1, others);
    if (!slope || slope->is_zero()) return c;
    ex sol = -c0 / c1;
    c.symbolic = sym::to_pamela(sol);
    c.value = value_at(sol, others);
    have = c.value.has_value();
  }
  if (!have) {
    // Linear once the other parameters are bound?
    ex bound = d.subs(others);
    if (linear_in(bound, p.symbol, c1, c0)) {
      ex sol = -c0 / c1;
      if (auto v = value_at(sol, {})) {
        c.value = v;
        if (c.symbolic.empty()) c.symbolic = sym::to_pamela(sol);
        have = true;
      }
    }
  }
  if (!have) {
    if (auto r = numeric_root(d, p.symbol, others, x_now.to_double())) {
      c.value = numeric(*r);
      c.numeric_only = true;
      c.symbolic.clear();
    }
  }
  if (c.value && !c.value->is_real()) c.value.reset();
  if (c.value) {
    // A crossover in the domain only: the other argument must strictly take over at some
    // point beyond it where the model has a value (never at a negative time, nor on the far
    // side of a bound, nor in a stretch where the two only tie).
    Domain dom = domain_of(model, p, others);
    // The other argument's side is the far one; at a tie (the point is on the crossover)
    // whichever side it takes over on.
    bool now_above = x_now > *c.value;
    bool witnessed = false;
    std::vector<bool> sides{!now_above};
    if (x_now == *c.value) sides.push_back(now_above);
    for (bool above : sides) {
      if (witnessed || !dom.contains_closure(*c.value)) break;
      int tries = 8;  // whole-model evaluations (a point may break a fact such as P divides N)
      numeric scale = x_now == *c.value ? x_now : x_now - *c.value;
      for (const numeric& w : points_beyond(dom, *c.value, above, scale)) {
        GiNaC::exmap at = others;
        at[p.symbol] = w;
        auto va = value_at(a, at), vb = value_at(b, at);
        if (!va || !vb || !(is_max ? *vb > *va : *vb < *va)) continue;
        if ((witnessed = model_has_value(env, p, w)) || --tries == 0) break;
      }
      if (witnessed) now_above = !above;
    }
    if (!witnessed) {
      c.value.reset();
      return c;
    }
    std::string side = now_above ? " < " : " > ";
    c.takes_over = p.name + side + crossover_text(*c.value, c.numeric_only);
    // What moves it: the parameters of its solution when there is one, else every other
    // parameter of a - b (the root of a - b = 0 in p moves with each of them).
    ex c1s, c0s;
    ex moved = linear_in(d, p.symbol, c1s, c0s) ? ex(-c0s / c1s) : d;
    for (const std::string& q : parameters_in(model, moved))
      if (q != p.name) c.depends_on.push_back(q);
  }
  return c;
}

// Are a and b the same function near the point, not two branches that happen to meet here?
// (K * max(N / P + (2 <= P) * t, N / P + (2 <= P) ^ 2 * t) at P = 4: equal for every P >= 2.)
// They are when they agree at the point moved up and down in each parameter they mention
// (to the next integers, or by 1/1024 and 1/64 of its value), one at a time and all
// together, within the domain.
bool same_near(const CostModel& model, const Env& env, const ex& a, const ex& b) {
  const ex d = a - b;
  if (value_at(d, env.env) != std::optional<numeric>(numeric(0))) return false;
  std::vector<const CostParameter*> ps;
  for (const CostParameter& p : model.parameters)
    if (d.has(p.symbol) && env.env.count(p.symbol)) ps.push_back(&p);
  // The next values: the integers on either side, else a small relative move either way.
  auto moved = [&](const CostParameter& p, int k) -> std::optional<numeric> {
    const numeric x = GiNaC::ex_to<numeric>(env.env.at(p.symbol));
    Domain dom = domain_of(model, p, env.without(p.symbol));
    static const int steps[] = {1, -1, 16, -16};
    if (dom.integer && k >= 2) return std::nullopt;
    numeric v = dom.integer ? x + steps[k] : x.is_zero() ? numeric(steps[k], 1024) : x * (1 + numeric(steps[k], 1024));
    if (!dom.contains(v)) return std::nullopt;
    return v;
  };
  int compared = 0;
  auto agree = [&](const GiNaC::exmap& at) {
    auto va = value_at(a, at), vb = value_at(b, at);
    if (!va || !vb) return true;  // no value there: no evidence either way
    ++compared;
    return *va == *vb;
  };
  for (int k = 0; k < 4; ++k) {
    GiNaC::exmap all = env.env;
    for (const CostParameter* p : ps) {
      auto v = moved(*p, k);
      if (!v) continue;
      GiNaC::exmap one = env.env;
      one[p->symbol] = all[p->symbol] = *v;
      if (!agree(one)) return false;
    }
    if (ps.size() > 1 && !agree(all)) return false;
  }
  return compared > 0 || ps.empty();
}

ExtremumInfo analyse_extremum(const CostModel& model, const Env& env, const ex& m) {
  ExtremumInfo info;
  info.text = sym::to_pamela(m);
  info.is_max = sym::is_max(m);
  std::vector<ex> args;
  // The branches in printed-text order, as the printer writes the max (GiNaC's operand
  // order follows the executable's layout).
  std::vector<std::pair<std::string, ex>> ops;
  for (std::size_t i = 0; i < m.nops(); ++i) ops.emplace_back(sym::to_pamela(m.op(i)), m.op(i));
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [text, op] : ops) {
    auto v = value_at(op, env.env);
    if (!v) continue;
    args.push_back(op);
    info.args.push_back({text, *v, parameters_in(model, op)});
  }
  if (info.args.empty()) return info;
  for (std::size_t i = 1; i < info.args.size(); ++i) {
    const numeric& best = info.args[info.dominant].value;
    if (info.is_max ? info.args[i].value > best : info.args[i].value < best) info.dominant = i;
  }
  // Arguments equal to the dominant one: the same function near the point (one regime,
  // shown by its shortest spelling), or a true tie (the point is on a crossover).
  {
    std::vector<std::size_t> group{info.dominant};
    for (std::size_t i = 0; i < info.args.size(); ++i)
      if (i != info.dominant && info.args[i].value == info.args[info.dominant].value &&
          same_near(model, env, args[info.dominant], args[i]))
        group.push_back(i);
    for (std::size_t i : group)
      if (info.args[i].text.size() < info.args[info.dominant].text.size()) info.dominant = i;
    for (std::size_t i : group)
      if (i != info.dominant) info.same.push_back(i);
    std::sort(info.same.begin(), info.same.end());
  }
  auto is_same = [&](std::size_t i) { return std::find(info.same.begin(), info.same.end(), i) != info.same.end(); };
  const numeric& best = info.args[info.dominant].value;
  std::optional<numeric> runner;
  for (std::size_t i = 0; i < info.args.size(); ++i) {
    if (i == info.dominant || is_same(i)) continue;
    const numeric& v = info.args[i].value;
    if (v == best) info.tied.push_back(i);
    if (!runner || (info.is_max ? v > *runner : v < *runner)) runner = v;
  }
  if (runner) {
    if (info.is_max && runner->is_positive()) info.ratio = best / *runner;
    if (!info.is_max && best.is_positive()) info.ratio = *runner / best;
  }
  std::set<std::string> cross_params;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i == info.dominant || is_same(i)) continue;
    for (const CostParameter& p : model.parameters) {
      ex d = args[info.dominant] - args[i];
      if (!d.has(p.symbol) || !env.env.count(p.symbol)) continue;
      Crossover c = solve_crossover(model, env, args[info.dominant], args[i], i, p, info.is_max);
      if (!c.value) continue;
      cross_params.insert(c.depends_on.begin(), c.depends_on.end());
      info.crossovers.push_back(std::move(c));
    }
  }
  info.crossover_parameters.assign(cross_params.begin(), cross_params.end());
  return info;
}

std::vector<const CostEquation*> resolve_targets(const CostModel& model, const std::map<std::string, numeric>& bindings,
                                                 const std::vector<std::string>& targets, GiNaC::exmap& env,
                                                 std::vector<numeric>& values) {
  EvalRequest req;
  req.bindings = bindings;
  req.targets = targets;
  EvalResult r = evaluate_model(model, req);  // every error eval reports
  std::vector<const CostEquation*> out;
  for (const auto& [name, v] : r.values) {
    if (v.is_vector) fail(DiagKind::VectorValue, name + " is a vector; this analysis needs scalar equations");
    out.push_back(model.equation(name));
    values.push_back(v.scalar);
  }
  env = bind_parameters(model, bindings);
  return out;
}

// d e / d x, with the reductions and vector maxima free of x frozen as symbols first: they
// are constants, and GiNaC would otherwise differentiate through them (a reduction's
// derivative is a reduction of 0 that never folds, vmax's a D[0](vmax)(...) times it).
ex derivative(const ex& e, const GiNaC::symbol& x) {
  struct Freeze : GiNaC::map_function {
    const GiNaC::symbol& x;
    GiNaC::exmap back;
    explicit Freeze(const GiNaC::symbol& s) : x(s) {}
    ex operator()(const ex& e) override {
      if (!e.has(x) && (sym::is_reduction(e) || sym::pamela_function(e) == sym::Fn::VectorMax)) {
        GiNaC::symbol frozen;
        back[frozen] = e;
        return frozen;
      }
      return e.map(*this);
    }
  } freeze(x);
  ex frozen = freeze(e);
  return frozen.diff(x).subs(freeze.back);
}

// A derivative GiNaC could not take (D[0](vmax)(...)): a function without a derivative rule.
bool has_unknown_derivative(const ex& e) {
  if (GiNaC::is_a<GiNaC::fderivative>(e)) return true;
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (has_unknown_derivative(e.op(i))) return true;
  return false;
}

bool has_reduction_with(const ex& e, const GiNaC::symbol& s) {
  if (sym::is_reduction(e)) return e.has(s);
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (has_reduction_with(e.op(i), s)) return true;
  return false;
}

// A number as the text report prints it (exact where it is exact); no value is null.
Json json_num(const numeric& n) { return json_number_text(format_number(n)); }
Json json_num(const std::optional<numeric>& n) { return n ? json_num(*n) : Json(nullptr); }
Json json_text_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

std::vector<std::pair<std::string, numeric>> point_of(const CostModel& model, const GiNaC::exmap& env, const ex& e) {
  std::vector<std::pair<std::string, numeric>> out;
  for (const CostParameter& p : model.parameters) {
    auto it = env.find(p.symbol);
    if (e.has(p.symbol) && it != env.end()) out.emplace_back(p.name, GiNaC::ex_to<numeric>(it->second));
  }
  return out;
}

std::string point_text(const std::vector<std::pair<std::string, numeric>>& point) {
  std::string out;
  for (const auto& [name, v] : point) out += (out.empty() ? "" : ", ") + name + " = " + format_number(v);
  return out.empty() ? "any point" : out;
}

}  // namespace

std::vector<ExplainReport> explain_model(const CostModel& model, const std::map<std::string, numeric>& bindings,
                                         const std::vector<std::string>& targets) {
  Env env{{}, &model, bindings, ""};
  std::vector<numeric> values;
  auto eqs = resolve_targets(model, bindings, targets, env.env, values);
  std::vector<ExplainReport> out;
  for (std::size_t t = 0; t < eqs.size(); ++t) {
    env.target = eqs[t]->name;
    ExplainReport r;
    r.target = eqs[t]->name;
    r.equation = sym::to_pamela(eqs[t]->value);
    r.value = values[t];
    r.point = point_of(model, env.env, eqs[t]->value);
    std::vector<ex> extrema;
    bool in_reduction = false;
    collect_extrema(eqs[t]->value, extrema, in_reduction);
    for (const ex& m : extrema) r.extrema.push_back(analyse_extremum(model, env, m));
    if (in_reduction) r.notes.push_back("max/min inside a residual reduction are not analysed");
    if (extrema.empty()) r.notes.push_back("no max or min: one regime, nothing to explain");
    // A loop left open: which one, and what kept it open (the compiled output's notes).
    if (sym::count_reductions(eqs[t]->value) > 0)
      for (const std::string& n : model.open_notes()) r.notes.push_back("open: " + n);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<SensitivityReport> sensitivity_model(const CostModel& model, const std::map<std::string, numeric>& bindings,
                                                 const std::vector<std::string>& targets) {
  GiNaC::exmap env;
  std::vector<numeric> values;
  auto eqs = resolve_targets(model, bindings, targets, env, values);
  std::vector<SensitivityReport> out;
  for (std::size_t t = 0; t < eqs.size(); ++t) {
    SensitivityReport r;
    r.target = eqs[t]->name;
    r.equation = sym::to_pamela(eqs[t]->value);
    r.value = values[t];
    r.point = point_of(model, env, eqs[t]->value);
    ex active = active_branch(eqs[t]->value, env, &r.notes);
    r.active = sym::to_pamela(active);
    for (const CostParameter& p : model.parameters) {
      if (!eqs[t]->value.has(p.symbol)) continue;
      SensitivityRow row;
      row.parameter = p.name;
      row.at = GiNaC::ex_to<numeric>(env.at(p.symbol));
      if (has_reduction_with(active, p.symbol)) {
        row.note = "a residual reduction depends on " + p.name + "; no symbolic derivative";
      } else {
        ex d = derivative(active, p.symbol);
        if (has_unknown_derivative(d)) {
          row.note = "the max over a resource vector depends on " + p.name + "; no symbolic derivative";
          r.rows.push_back(std::move(row));
          continue;
        }
        row.derivative = sym::to_pamela(d);
        row.value = value_at(d, env);
        if (row.value && !r.value.is_zero()) row.elasticity = *row.value * row.at / r.value;
        if (r.value.is_zero()) row.note = "T = 0 here: no elasticity";
      }
      r.rows.push_back(std::move(row));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::pair<numeric, std::string>> crossovers_in(const CostModel& model, const std::string& target,
                                                           const std::map<std::string, numeric>& bindings,
                                                           const std::string& param, double lo, double hi) {
  std::vector<std::pair<numeric, std::string>> out;
  const CostEquation* eq = model.equation(target);
  const CostParameter* p = model.parameter(param);
  if (!eq || !p || !(lo < hi)) return out;
  ex e = bind_except(model, eq->value, bindings, {param});
  std::vector<ex> extrema;
  bool in_reduction = false;
  collect_extrema(e, extrema, in_reduction);
  auto at = [&](const ex& f, double x) -> std::optional<double> {
    auto v = value_at(f, GiNaC::exmap{{p->symbol, numeric(x)}});
    if (!v) return std::nullopt;
    return v->to_double();
  };
  // Samples of the range, geometric when it spans decades of positive values (a sweep
  // of P = 1 .. 4096 has its crossovers anywhere on a log scale).
  constexpr int kSamples = 512;
  std::vector<double> xs;
  bool geometric = lo > 0 && hi / lo > 100;
  for (int k = 0; k <= kSamples; ++k) {
    double t = static_cast<double>(k) / kSamples;
    xs.push_back(geometric ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t);
  }
  // The parameter's domain (the facts and numeric bounds: the other parameters are bound).
  Domain dom = domain_of(model, *p, bind_parameters(model, bindings));
  // The sign of a - b at x: 0 within rounding of their size (two branches equal over a
  // stretch differ by 1e-21 in doubles, which is no crossover), none without a value.
  auto sign = [&](const ex& a, const ex& b, double x) -> std::optional<int> {
    auto va = at(a, x), vb = at(b, x);
    if (!va || !vb) return std::nullopt;
    double diff = *va - *vb, scale = std::max(std::fabs(*va), std::fabs(*vb));
    if (std::fabs(diff) <= 1e-12 * scale) return 0;
    return diff > 0 ? 1 : -1;
  };
  for (const ex& m : extrema) {
    for (std::size_t i = 0; i < m.nops(); ++i)
      for (std::size_t j = i + 1; j < m.nops(); ++j) {
        const ex a = m.op(i), b = m.op(j), d = a - b;
        std::vector<numeric> roots;
        ex c1, c0;
        if (linear_in(d, p->symbol, c1, c0)) {
          if (auto x = value_at(-c0 / c1, {})) roots.push_back(*x);
        } else if (d.has(p->symbol)) {
          // A crossover is a strict change of sign: a takes over from b or b from a. Where
          // they are equal over a stretch (the same function there), nothing crosses.
          std::optional<double> last_x;
          int last_sign = 0;
          for (double xk : xs) {
            auto s = sign(a, b, xk);
            if (!s || *s == 0) continue;
            if (last_sign != 0 && *s != last_sign) {
              double lo = *last_x, hi = xk;
              for (int it = 0; it < 100; ++it) {
                double mid = 0.5 * (lo + hi);
                if (mid == lo || mid == hi) break;
                auto sm = sign(a, b, mid);
                if (!sm) break;
                if (*sm == last_sign) lo = mid; else hi = mid;
              }
              roots.push_back(numeric(0.5 * (lo + hi)));
            }
            last_x = xk;
            last_sign = *s;
          }
        }
        for (const numeric& x : roots) {
          if (!x.is_real() || !dom.contains_closure(x)) continue;  // never outside the domain
          // A kink of the max only if both arguments attain it there (to a double's
          // precision for a root found numerically).
          auto vm = at(m, x.to_double()), vi = at(a, x.to_double()), vj = at(b, x.to_double());
          if (!vm || !vi || !vj) continue;
          double scale = std::max({std::fabs(*vm), std::fabs(*vi), 1e-300});
          if (std::fabs(*vm - *vi) > 1e-9 * scale || std::fabs(*vm - *vj) > 1e-9 * scale) continue;
          out.emplace_back(x, sym::to_pamela(a) + " = " + sym::to_pamela(b));
        }
      }
  }
  return out;
}

std::string format_explain(const std::vector<ExplainReport>& reports, bool json) {
  std::ostringstream o;
  if (json) {
    Json doc = Json::object();
    for (const ExplainReport& r : reports) {
      Json extrema = Json::array();
      for (const ExtremumInfo& x : r.extrema) {
        Json args = Json::array();
        for (const ExtremumInfo::Arg& a : x.args)
          args.push_back({{"expression", a.text}, {"value", json_num(a.value)}, {"parameters", a.parameters}});
        Json crossovers = Json::array();
        for (const Crossover& cr : x.crossovers)
          crossovers.push_back({{"with", cr.other}, {"parameter", cr.parameter}, {"solution", json_text_or_null(cr.symbolic)},
                                {"value", json_num(cr.value)}, {"numeric_only", cr.numeric_only},
                                {"other_dominates_when", cr.takes_over}, {"depends_on", cr.depends_on}});
        extrema.push_back({{"expression", x.text}, {"kind", x.is_max ? "max" : "min"}, {"dominant", x.dominant},
                           {"args", std::move(args)}, {"same", x.same}, {"tied", x.tied}, {"ratio", json_num(x.ratio)},
                           {"crossovers", std::move(crossovers)}, {"crossover_depends_on", x.crossover_parameters}});
      }
      json_append(doc, r.target, {{"equation", r.equation}, {"value", json_num(r.value)}, {"extrema", std::move(extrema)},
                                  {"notes", r.notes}});
    }
    return json_text(doc) + "\n";
  }
  for (const ExplainReport& r : reports) {
    o << r.target << " = " << r.equation << "\n  = " << format_number(r.value) << " at "
      << point_text(r.point) << "\n";
    for (const ExtremumInfo& x : r.extrema) {
      const char* kind = x.is_max ? "max" : "min";
      o << "\n  " << x.text << "\n";
      std::size_t width = 0;
      for (const auto& a : x.args) width = std::max(width, a.text.size());
      for (std::size_t i = 0; i < x.args.size(); ++i) {
        const auto& a = x.args[i];
        o << "    " << a.text << std::string(width - a.text.size(), ' ') << " = " << format_number(a.value);
        if (i == x.dominant) o << "   <- " << (x.tied.empty() ? "dominates" : "ties for the " + std::string(kind));
        if (std::find(x.same.begin(), x.same.end(), i) != x.same.end())
          o << "   <- the same as the dominant term near this point";
        o << "\n";
      }
      const ExtremumInfo::Arg& dom = x.args[x.dominant];
      if (!x.tied.empty()) {
        o << "    a tie: they meet at this point (a kink of the " << kind << ")\n";
      } else if (x.ratio) {
        o << "    " << dom.text << " dominates by a factor of " << approx(*x.ratio) << "\n";
      }
      for (const Crossover& c : x.crossovers) {
        o << "    crossover with " << x.args[c.other].text << ": " << c.parameter << " = ";
        std::string at = crossover_text(*c.value, c.numeric_only);
        if (!c.symbolic.empty() && c.symbolic != format_number(*c.value))
          o << c.symbolic << " = " << at;
        else
          o << at;
        o << " (" << x.args[c.other].text << " dominates when " << c.takes_over << ")";
        if (!c.depends_on.empty()) {
          o << "; moves with ";
          for (std::size_t q = 0; q < c.depends_on.size(); ++q) o << (q ? ", " : "") << c.depends_on[q];
        }
        o << "\n";
      }
      if (dom.parameters.empty())
        o << "    to change the dominant term: it is a constant of the model\n";
      else {
        o << "    to change the dominant term: change ";
        for (std::size_t q = 0; q < dom.parameters.size(); ++q) o << (q ? ", " : "") << dom.parameters[q];
        o << "\n";
      }
      if (!x.crossovers.empty()) {
        if (x.crossover_parameters.empty())
          o << "    to move the crossover: no parameter moves it (it depends on model constants only)\n";
        else {
          o << "    to move the crossover: change ";
          for (std::size_t q = 0; q < x.crossover_parameters.size(); ++q) o << (q ? ", " : "") << x.crossover_parameters[q];
          o << "\n";
        }
      }
    }
    for (const std::string& n : r.notes) o << "  note: " << n << "\n";
  }
  return o.str();
}

std::string format_sensitivity(const std::vector<SensitivityReport>& reports, bool json) {
  std::ostringstream o;
  if (json) {
    Json doc = Json::object();
    for (const SensitivityReport& r : reports) {
      Json parameters = Json::object();
      for (const SensitivityRow& row : r.rows)
        json_append(parameters, row.parameter,
                    {{"at", json_num(row.at)}, {"derivative", json_text_or_null(row.derivative)},
                     {"value", json_num(row.value)}, {"elasticity", json_num(row.elasticity)}});
      json_append(doc, r.target, {{"equation", r.equation}, {"active", r.active}, {"value", json_num(r.value)},
                                  {"parameters", std::move(parameters)}, {"notes", r.notes}});
    }
    return json_text(doc) + "\n";
  }
  for (const SensitivityReport& r : reports) {
    o << r.target << " = " << r.equation << "\n  = " << format_number(r.value) << " at "
      << point_text(r.point) << "\n";
    if (r.active != r.equation) o << "  active branch here: " << r.active << "\n";
    std::vector<std::vector<std::string>> rows{{"parameter", "value", "d" + r.target + "/dx", "at the point", "elasticity"}};
    for (const SensitivityRow& row : r.rows)
      rows.push_back({row.parameter, format_number(row.at), row.derivative.empty() ? "-" : row.derivative,
                      row.value ? format_number(*row.value) : "-", row.elasticity ? format_number(*row.elasticity) : "-"});
    std::vector<std::size_t> w(5, 0);
    for (const auto& row : rows)
      for (std::size_t c = 0; c < 5; ++c) w[c] = std::max(w[c], row[c].size());
    for (const auto& row : rows) {
      o << " ";
      for (std::size_t c = 0; c < 5; ++c) o << " " << row[c] << (c + 1 < 5 ? std::string(w[c] - row[c].size() + 1, ' ') : "");
      o << "\n";
    }
    for (const SensitivityRow& row : r.rows)
      if (!row.note.empty()) o << "  note: " << row.parameter << ": " << row.note << "\n";
    for (const std::string& n : r.notes) o << "  note: " << n << "\n";
  }
  return o.str();
}

}  // namespace pamc
