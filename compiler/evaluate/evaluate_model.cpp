#include "compiler/evaluate/evaluate_model.h"
#include "compiler/evaluate/compile.h"
#include "compiler/symbolic/progress.h"
#include "compiler/symbolic/class_test.h"

#include <charconv>
#include <sstream>
#include <set>

#include "compiler/passes/lower.h"
#include "compiler/symbolic/open_reason.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/model_facts.h"
#include "compiler/symbolic/simplify.h"
#include "compiler/diag/suggest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>

using pamc::sym::is_class;

namespace pamc {
namespace {

[[noreturn]] void fail(DiagKind kind, const std::string& message, Loc loc = {}) {
  throw CompileError{Diagnostic{Severity::Error, kind, loc, message, {}}};
}

void collect_symbols(const GiNaC::ex& e, std::set<std::string>& out) {
  if (is_class<GiNaC::symbol>(e)) {
    out.insert(GiNaC::ex_to<GiNaC::symbol>(e).get_name());
    return;
  }
  for (std::size_t i = 0; i < e.nops(); ++i) collect_symbols(e.op(i), out);
}

const CostEquation* find_target(const CostModel& model, const std::string& name) {
  if (const CostEquation* e = model.equation(name)) return e;
  return model.equation("T_" + name);  // a process L means T_L
}

bool compare_holds(const std::string& op, const GiNaC::numeric& a, const GiNaC::numeric& b) {
  if (op == ">=") return a >= b;
  if (op == ">") return a > b;
  if (op == "<=") return a <= b;
  return a < b;
}

// The largest reduction at the top of e (outside other reductions) by estimated terms.
void top_reductions(const GiNaC::ex& e, std::vector<GiNaC::ex>& out) {
  if (sym::is_class<sym::reduction>(e)) {
    out.push_back(e);
    return;
  }
  for (std::size_t i = 0; i < e.nops(); ++i) top_reductions(e.op(i), out);
}

}  // namespace

double estimate_terms(const GiNaC::ex& e, const GiNaC::exmap& env) {
  if (sym::is_class<sym::reduction>(e)) {
    const auto& r = GiNaC::ex_to<sym::reduction>(e);
    auto bound = [&](const GiNaC::ex& b) -> std::optional<double> {
      try {
        sym::WorkBudget budget;
        budget.steps_left = 1000000;
        sym::Value v = sym::evaluate(b, env, budget);
        // A bound that is not an integer fails the loop before its first term.
        if (v.is_vector || (v.scalar.is_rational() && !v.scalar.is_integer())) return std::nullopt;
        return v.scalar.to_double();
      } catch (const sym::EvalError&) {
        return std::nullopt;
      }
    };
    auto lb = bound(r.lb()), ub = bound(r.ub());
    if (!lb || !ub) return 0;  // the evaluator reports the bound's own error
    double count = std::max(0.0, std::floor(*ub) - std::ceil(*lb) + 1);
    if (count == 0) return 0;
    double inner = 0;
    // The body at both ends of the range (its loops may grow or shrink with the index), but
    // once where both ends give the same: twice per level made 16 nested constant sums
    // (sum (i = 1, 2) { sum (i = 1, 2) { ... } }) take 2^16 estimates, a second.
    const bool once = *lb == *ub || !r.body().has(r.index_ex());
    for (double at : {std::ceil(*lb), std::floor(*ub)}) {
      GiNaC::exmap at_env = env;
      at_env[r.index_ex()] = GiNaC::numeric(static_cast<long>(std::min(at, 9e18)));
      inner = std::max(inner, estimate_terms(r.body(), at_env));
      if (once) break;
    }
    return count * (1 + inner);
  }
  double n = 0;
  for (std::size_t i = 0; i < e.nops(); ++i) n += estimate_terms(e.op(i), env);
  return n;
}

namespace {
bool conditions_hold(const CostModel& model, const sym::Assumptions& assumptions, const GiNaC::exmap& env);
}  // namespace

bool assumptions_hold(const CostModel& model, const GiNaC::exmap& env) {
  return conditions_hold(model, model.assumptions, env);
}

namespace {
bool conditions_hold(const CostModel& model, const sym::Assumptions& assumptions, const GiNaC::exmap& env) {
  // A condition that mentions a parameter without a value is not needed for these targets;
  // one that cannot be evaluated at a point (N / P >= 1 at P = 0) does not hold there.
  enum class At { Unbound, Fails, Value };
  auto value_at = [&](const GiNaC::ex& e, GiNaC::numeric& out) {
    std::set<std::string> names;
    collect_symbols(e, names);
    for (const CostParameter& p : model.parameters)
      if (names.count(p.name) && !env.count(p.symbol)) return At::Unbound;
    try {
      sym::WorkBudget budget;
      sym::Value v = sym::evaluate(e, env, budget);
      if (v.is_vector) return At::Fails;
      out = v.scalar;
      return At::Value;
    } catch (const sym::EvalError&) {
      return At::Fails;
    }
  };
  for (const GiNaC::ex& e : assumptions.integer) {
    GiNaC::numeric v;
    At at = value_at(e, v);
    if (at == At::Fails || (at == At::Value && !v.is_integer())) return false;
  }
  for (const GiNaC::ex& e : assumptions.nonneg) {
    GiNaC::numeric v;
    At at = value_at(e, v);
    if (at == At::Fails || (at == At::Value && v.is_negative())) return false;
  }
  return true;
}

bool mentions_parameter(const CostModel& model, const GiNaC::ex& e) {
  for (const CostParameter& p : model.parameters)
    if (e.has(p.symbol)) return true;
  return false;
}

// Does the time-domain form, with numbers for the parameters, have a value wherever it is
// evaluated: made of sums, products, whole powers, max / min, roundings, comparisons and
// resource vectors only, every loop bound an integer, every resource position an integer
// >= 0, every mod / div divisor an integer >= 1, every divisor not 0, every max / min
// range non-empty, proved for every value of the enclosing indices (an empty loop's body
// proves anything, as it is never evaluated)? The simplifier takes these
// for granted (facts from the model say them for the parameters), so the form is
// simplified at a point only where they are proved; elsewhere the model's own error, or a
// loop that is never entered, decides, and only unrolling says which.
bool valid_everywhere(const GiNaC::ex& e, const sym::Facts& f) {
  if (sym::is_class<GiNaC::numeric>(e)) return GiNaC::ex_to<GiNaC::numeric>(e).is_rational();
  if (sym::is_class<GiNaC::symbol>(e)) return true;
  if (sym::is_class<sym::reduction>(e)) {
    const auto& r = GiNaC::ex_to<sym::reduction>(e);
    if (!valid_everywhere(r.lb(), f) || !valid_everywhere(r.ub(), f)) return false;
    if (!f.provably_integer(r.lb()) || !f.provably_integer(r.ub())) return false;
    // A max / min over an empty range has no value unless the language makes it 0.
    if (r.kind() != sym::ReduceKind::Sum && !r.empty_is_zero() && !f.provably_nonneg(r.ub() - r.lb())) return false;
    sym::Facts inner = f;
    inner.declare_index(r.index(), r.lb(), r.ub());
    return valid_everywhere(r.body(), inner);
  }
  if (sym::is_class<GiNaC::power>(e)) {
    if (!sym::is_class<GiNaC::numeric>(e.op(1)) || !GiNaC::ex_to<GiNaC::numeric>(e.op(1)).is_rational()) return false;
    // A fractional exponent (a square root) of a base provably > 0: a real number.
    if (!GiNaC::ex_to<GiNaC::numeric>(e.op(1)).is_integer()) return f.provably_positive(e.op(0)) && valid_everywhere(e.op(0), f);
    // A whole exponent; a negative one divides, by something provably not 0.
    if (GiNaC::ex_to<GiNaC::numeric>(e.op(1)).is_negative() && !f.provably_positive(e.op(0)) &&
        !f.provably_positive(-e.op(0)))
      return false;
    return valid_everywhere(e.op(0), f);
  }
  bool known = sym::is_class<GiNaC::add>(e) || sym::is_class<GiNaC::mul>(e) || sym::is_class<sym::extremum>(e);
  switch (sym::pamela_function(e)) {
    case sym::Fn::Unitvec:
      if (!f.provably_integer(e.op(0)) || !f.provably_nonneg(e.op(0))) return false;
      known = true;
      break;
    case sym::Fn::Mod:
    case sym::Fn::Div:
      if (!f.provably_integer(e.op(1)) || !f.provably_positive(e.op(1))) return false;
      known = true;
      break;
    case sym::Fn::VectorMax:
    case sym::Fn::Floor:
    case sym::Fn::Ceil:
    case sym::Fn::Eq:
    case sym::Fn::Ne:
    case sym::Fn::Lt:
    case sym::Fn::Le: known = true; break;
    case sym::Fn::Log2:
      if (!f.provably_positive(e.op(0))) return false;
      known = true;
      break;
    case sym::Fn::Gcd:
      if (!f.provably_integer(e.op(0)) || !f.provably_integer(e.op(1))) return false;
      known = true;
      break;
    default: break;
  }
  // GiNaC's own log and exp: log of something provably > 0, exp of anything.
  if (sym::pamela_function(e) == sym::Fn::None && sym::is_class<GiNaC::function>(e)) {
    const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    if (name == "log" && f.provably_positive(e.op(0))) known = true;
    if (name == "exp") known = true;
  }
  if (!known) return false;
  for (std::size_t k = 0; k < e.nops(); ++k)
    if (!valid_everywhere(e.op(k), f)) return false;
  return true;
}

// Outside the closed form's assumptions the time-domain model gives the value. With the
// point's numbers in place of the parameters its loops have numeric bounds, so it is
// simplified again for this point alone: a loop with a closed count closes (where P >= 1
// fails, a par over p = 1..P is empty and its sum of N terms beside it still has a closed
// form), instead of being unrolled term by term. No parameter is left, so no fact about
// one is used; what the form requires and what the rules assumed are checked at once, as
// numbers. Where either fails, or the simplification does, the time-domain form itself.
// Does substituting env into e make GiNaC compute a power with a large exponent ((n + 1) ^ 1e9
// at n = 1)? subs() has no limit; the exact evaluator refuses such a power at once.
bool large_power_at(const GiNaC::ex& e, const GiNaC::exmap& env) {
  if (sym::is_class<GiNaC::power>(e)) {
    GiNaC::ex x = e.op(1).subs(env, GiNaC::subs_options::no_pattern);
    if (sym::is_class<GiNaC::numeric>(x) && GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(x)) > 4096) return true;
  }
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (large_power_at(e.op(i), env)) return true;
  return false;
}

GiNaC::ex time_form_at(const CostModel& model, const GiNaC::ex& time_value, const GiNaC::exmap& env) {
  try {
    if (large_power_at(time_value, env)) return time_value;
    GiNaC::ex x = time_value.subs(env, GiNaC::subs_options::no_pattern);
    if (mentions_parameter(model, x)) return time_value;
    // What the form itself requires (integer loop bounds, divisors >= 1, resource positions
    // integer >= 0: the facts from the model, inferred with the parameters still in place)
    // must hold here: where it fails, the model's own error, or a loop that is never
    // entered, decides, and only the unrolled form says which.
    {
      sym::Facts with_parameters;
      sym::Assumptions required;
      sym::infer_model_facts({time_value}, with_parameters, required);
      if (!conditions_hold(model, required, env)) return time_value;
    }
    // Checked on the form as written (substituting may fold a loop away), with each
    // parameter known to be exactly its value here.
    sym::Facts at_point;
    for (const auto& [s, v] : env) {
      if (!sym::is_class<GiNaC::symbol>(s) || !sym::is_class<GiNaC::numeric>(v)) return time_value;
      const GiNaC::symbol& p = GiNaC::ex_to<GiNaC::symbol>(s);
      at_point.declare_unbounded(p, p.get_name());
      at_point.add_lower(p, v, false);
      at_point.add_upper(p, v, false);
      if (GiNaC::ex_to<GiNaC::numeric>(v).is_integer()) at_point.declare_integer(p);
    }
    if (!valid_everywhere(time_value, at_point)) return time_value;
    sym::Facts facts;
    sym::Assumptions assumed;
    sym::RuleStats stats;
    GiNaC::ex y = sym::simplify(x, facts, assumed, stats);
    if (conditions_hold(model, assumed, env)) return y;
  } catch (...) {  // GiNaC's errors (a pole), the exact-number budget: the time form decides
  }
  return time_value;
}

// Errors that say the model has no value at the point, whichever form evaluates it; a work
// limit or a number too large for the budget says only that this form stopped.
bool definite_no_value(DiagKind kind) {
  switch (kind) {
    case DiagKind::NonIntegerBound:
    case DiagKind::DivisionByZero:
    case DiagKind::DomainError:
    case DiagKind::EmptyRange:
    case DiagKind::InvalidCondition:
    case DiagKind::InvalidMultiplicity:
      return true;
    default:
      return false;
  }
}

// Where an evaluation error is reported: at the loop whose bound it names, as the simulator
// does; else at the equation. Loops at the same depth with the same index name share one
// symbol (lowering's memo): of those, the one written in the equation's own lines (after
// its start, before the next equation of the file); where none is, and more than one loop
// has the symbol, the equation (pointing at one of them could name a loop that is fine).
Loc loop_site(const CostModel& model, const sym::EvalError& err, Loc equation) {
  if (!GiNaC::is_a<GiNaC::symbol>(err.loop_index)) return equation;
  std::uint32_t next = UINT32_MAX;  // the line of the next equation in the same file
  for (const CostEquation& q : model.equations)
    if (q.loc.file == equation.file && q.loc.line > equation.line && q.loc.line < next) next = q.loc.line;
  const Loc* only = nullptr;
  int sites = 0;
  for (const LoopSite& l : model.loops) {
    if (!err.loop_index.is_equal(l.index) || !l.loc.valid()) continue;
    if (l.loc.file == equation.file && l.loc.line >= equation.line && l.loc.line < next) return l.loc;
    if (!only || only->line != l.loc.line || only->col != l.loc.col || only->file != l.loc.file) ++sites;
    only = &l.loc;
  }
  return sites == 1 ? *only : equation;
}
}  // namespace

bool parse_binding_value(const std::string& text, GiNaC::numeric& out) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    if (!parse_exact_number(text.substr(1), out)) return false;
    if (text[0] == '-') out = -out;
    return true;
  }
  return parse_exact_number(text, out);
}

GiNaC::exmap bind_parameters(const CostModel& model, const std::map<std::string, GiNaC::numeric>& bindings) {
  GiNaC::exmap env;
  for (const CostParameter& p : model.parameters) {
    auto it = bindings.find(p.name);
    if (it != bindings.end()) env[p.symbol] = it->second;
  }
  // Defaults may refer to parameters declared later, so repeat until nothing changes.
  for (bool progress = true; progress;) {
    progress = false;
    for (const CostParameter& p : model.parameters) {
      if (env.count(p.symbol) || !p.default_value) continue;
      try {
        sym::WorkBudget budget;
        sym::Value v = sym::evaluate(*p.default_value, env, budget);
        if (v.is_vector) fail(DiagKind::VectorValue, "the default of parameter '" + p.name + "' is a vector");
        env[p.symbol] = v.scalar;
        progress = true;
      } catch (const sym::EvalError&) {
        // depends on a parameter not bound yet
      }
    }
  }
  for (const CostParameter& p : model.parameters) {
    auto it = env.find(p.symbol);
    if (it == env.end()) continue;
    GiNaC::numeric value = GiNaC::ex_to<GiNaC::numeric>(it->second);
    for (const CostParameter::Bound& b : p.bounds) {
      sym::WorkBudget budget;
      sym::Value bound;
      try {
        bound = sym::evaluate(b.value, env, budget);
      } catch (const sym::EvalError&) {
        continue;  // a bound that mentions an unbound parameter is checked when it is bound
      }
      if (!compare_holds(b.op, value, bound.scalar))
        fail(DiagKind::ParameterOutOfBounds, "parameter " + p.name + " = " + format_number(value) +
                                            " violates its declared bound " + p.name + " " + b.op + " " +
                                            format_number(bound.scalar));
    }
  }
  return env;
}

int significant_digits(double terms) {
  double lost = std::log10(std::sqrt(std::max(terms, 1.0)) * std::ldexp(1.0, -53));  // relative error
  return std::clamp(static_cast<int>(std::floor(-lost)), 1, 17);
}

// A large open loop through the compiled program: the value when it has one (exact when
// every value on the way was an integer below 2^53, else a double and a note), nullopt
// when the program cannot express x or gives no number (the exact evaluator then reports
// the error the model has).
static std::optional<sym::Value> evaluate_compiled(const GiNaC::ex& x, const GiNaC::exmap& env, const std::string& name,
                                                   double terms, const std::function<void(long long)>& tick,
                                                   std::vector<std::string>& notes, std::map<std::string, int>& digits) {
  std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less> params;
  std::vector<double> args;
  for (const auto& [s, v] : env) {
    if (!GiNaC::is_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) return std::nullopt;
    params[s] = static_cast<unsigned>(args.size());
    args.push_back(GiNaC::ex_to<GiNaC::numeric>(v).to_double());
  }
  eval::Program program;
  try {
    program = eval::compile_expression(x, params);
  } catch (const eval::CompileFailure&) {
    return std::nullopt;
  }
  bool exact = false;
  double r = program.run_tracked(args.empty() ? nullptr : args.data(), exact, tick);
  if (!std::isfinite(r)) return std::nullopt;
  sym::Value v;
  if (exact) {
    v.scalar = GiNaC::numeric(static_cast<long>(r));
  } else {
    v.scalar = GiNaC::numeric(r);
    char count[32];
    std::snprintf(count, sizeof count, "%.2g", terms);
    digits[name] = significant_digits(terms);
    notes.push_back(name + " was evaluated in double precision (an open loop of about " + std::string(count) +
                    " terms; pamc eval is exact below 1e5 terms, or where every value is an integer); its rounding errors leave " +
                    std::to_string(digits[name]) + " significant digits right");
  }
  return v;
}

EvalResult evaluate_model(const CostModel& model, const EvalRequest& request) {
  std::vector<const CostEquation*> targets;
  if (request.targets.empty()) {
    for (const CostEquation& e : model.equations)
      if (e.top_level) targets.push_back(&e);
  } else {
    for (const std::string& t : request.targets) {
      const CostEquation* e = find_target(model, t);
      if (!e && model.parameter(t))
        fail(DiagKind::UnknownTarget, "'" + t + "' is a parameter, not an equation: its value is what -D or its default gives");
      if (!e) fail(DiagKind::UnknownTarget, "no equation or process named '" + t + "'");
      targets.push_back(e);
    }
  }
  for (const auto& [name, value] : request.bindings)
    if (!model.parameter(name)) fail(DiagKind::UnknownParameter, unknown_parameter_message("-D", name, model.parameter_names()));

  GiNaC::exmap env = bind_parameters(model, request.bindings);
  // One error naming every parameter the targets need and nobody bound.
  std::set<std::string> needed;
  for (const CostEquation* e : targets) collect_symbols(e->value, needed);
  std::vector<std::string> unbound;
  for (const CostParameter& p : model.parameters)
    if (needed.count(p.name) && !env.count(p.symbol)) unbound.push_back(p.name);
  if (!unbound.empty()) {
    std::string list;
    for (const std::string& u : unbound) list += (list.empty() ? "" : ", ") + u;
    fail(DiagKind::UnboundParameter,
         std::string(unbound.size() == 1 ? "parameter " : "parameters ") + list +
             (unbound.size() == 1 ? " has" : " have") + " no value: give -D NAME=VALUE or declare a default");
  }
  // A time the model spends cannot be negative: a point that makes one so has no value.
  for (const TimeSite& t : model.times) {
    // Through the exact evaluator, not subs(): GiNaC would compute (n + 1) ^ 1e9 at n = 1
    // without a limit.
    GiNaC::ex v = t.time;
    {
      try {
        sym::WorkBudget b;
        b.steps_left = 1000000;
        v = sym::evaluate(t.time, env, b).scalar;
      } catch (const sym::EvalError&) {
        continue;  // no value, or unbound parameters: the evaluation itself will say
      }
    }
    if (GiNaC::is_a<GiNaC::numeric>(v) && GiNaC::ex_to<GiNaC::numeric>(v).is_real() &&
        GiNaC::ex_to<GiNaC::numeric>(v).is_negative())
      fail(DiagKind::NegativeTime,
           "a negative time in " + t.what + ": " + sym::to_pamela(t.time) + " = " +
               format_number(GiNaC::ex_to<GiNaC::numeric>(v)) + " at this point",
           t.loc);
  }
  // Outside the closed form's assumptions (an empty par range, a non-integer loop bound),
  // the time-domain model gives the value, or the error, the model really has.
  const bool closed_form_valid = !request.at_point && assumptions_hold(model, env);
  EvalResult result;
  for (const CostEquation* e : targets) {
    const GiNaC::ex x = closed_form_valid ? e->value : time_form_at(model, e->time_value, env);
    const double terms = estimate_terms(x, env);
    if (request.at_point) {
      // What stays open at this point is the closed form's to close, and an error is the
      // closed form's to report (its message names the loop and why it stays open).
      if (terms > std::min(kAtPointTermsLimit, request.max_terms)) {
        result.needs_closed_form = true;
        return result;
      }
      try {
        sym::WorkBudget budget;
        budget.steps_left = 10'000'000;  // past that, the closed form's budget and messages
        result.values.emplace_back(e->name, sym::evaluate(x, env, budget));
      } catch (const sym::EvalError& err) {
        // The model has no value here (a bound that is not an integer, a division by 0):
        // the closed form, where its assumptions fail, evaluates this same model to this
        // same error, and where they hold it has no value either. Building it would only
        // cost time (seconds on a large model). A spent budget is not such an answer.
        if (!definite_no_value(err.diag.kind)) {
          result.needs_closed_form = true;
          return result;
        }
        fail(err.diag.kind, e->name + ": " + err.message, loop_site(model, err, e->loc));
      }
      continue;
    }
    if (terms > request.max_terms) {
      // Name the loop that costs most, where it is written, and what keeps it open.
      std::vector<GiNaC::ex> reds;
      top_reductions(x, reds);
      GiNaC::ex worst = reds.empty() ? x : reds[0];
      for (const GiNaC::ex& r : reds) {  // ties: the first in printed order, not GiNaC's
        double a = estimate_terms(r, env), b = estimate_terms(worst, env);
        if (a > b || (a == b && sym::to_pamela(r) < sym::to_pamela(worst))) worst = r;
      }
      std::string what;
      Loc where = e->loc;
      if (sym::is_class<sym::reduction>(worst)) {
        const auto& r = GiNaC::ex_to<sym::reduction>(worst);
        std::string kind = r.kind() == sym::ReduceKind::Sum ? "sum" : r.kind() == sym::ReduceKind::Max ? "max" : "min";
        what = " (the " + kind + " over " + r.index().get_name();
        for (const LoopSite& l : model.loops)
          if (l.index.is_equal(r.index()) && l.loc.valid()) {
            where = l.loc;
            break;
          }
        what += model.simplified ? ", open because " + sym::why_open(worst, model.facts) + ")"
                                 : ", unrolled by the unsimplified model)";
      }
      char count[64], limit[64];
      std::snprintf(count, sizeof count, "%.3g", terms);
      std::snprintf(limit, sizeof limit, "%.3g", request.max_terms);
      fail(DiagKind::WorkLimit, e->name + ": this point needs about " + count + " reduction terms" + what +
                                    ", more than the limit of " + limit + " (raise it with --max-terms)", where);
    }
    sym::ProgressLine line(e->name, terms);
    sym::WorkBudget budget;
    budget.steps_left = static_cast<long long>(std::min(9e18, std::max(2e8, 4 * request.max_terms)));
    budget.on_tick = [&line](long long done) {
      if (sym::interrupted()) throw sym::EvalError(DiagKind::Interrupted, "interrupted (Ctrl-C) before the evaluation ended");
      line.tick(done);
    };
    try {
      if (request.compiled && terms > kCompiledEvalFrom) {
        if (auto v = evaluate_compiled(x, env, e->name, terms, budget.on_tick, result.notes, result.digits)) {
          result.values.emplace_back(e->name, *v);
          continue;
        }
      }
      result.values.emplace_back(e->name, sym::evaluate(x, env, budget));
    } catch (const sym::EvalError& err) {
      fail(err.diag.kind, e->name + ": " + err.message, loop_site(model, err, e->loc));
    }
  }
  return result;
}

static std::string exact_text(const GiNaC::numeric& x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

std::string format_number(const GiNaC::numeric& x) {
  if (x.is_integer()) return exact_text(x);
  if (x.is_rational()) {
    // A finite decimal (the denominator is 2^a 5^b) prints exactly, as the cost model
    // prints numbers: 10.1, 0.75, 4e-8.
    GiNaC::numeric den = x.denom();
    int twos = 0, fives = 0;
    while (GiNaC::irem(den, 2).is_zero()) { den = den / 2; ++twos; }
    while (GiNaC::irem(den, 5).is_zero()) { den = den / 5; ++fives; }
    if (den == 1 && std::max(twos, fives) <= 30) return (x < 0 ? "-" : "") + sym::number_to_pamela(GiNaC::abs(x));
  }
  double d = x.to_double();
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string format_value(const sym::Value& v) {
  if (!v.is_vector) return format_number(v.scalar);
  if (!v.elems.empty() && v.elems.rbegin()->first >= kDenseVectorLimit) {
    // The elements below the limit as a literal, each one past it as x * unitvec(k).
    sym::Value head;
    head.is_vector = true;
    std::string tail;
    for (const auto& [pos, value] : v.elems) {
      if (pos < kDenseVectorLimit) head.elems.emplace(pos, value);
      else tail += " + " + format_number(value) + " * unitvec(" + std::to_string(pos) + ")";
    }
    return head.elems.empty() ? tail.substr(3) : format_value(head) + tail;
  }
  std::string out = "[";
  long next = 0;
  for (const auto& [pos, value] : v.elems) {
    for (; next < pos; ++next) out += (next ? ", 0" : "0");
    out += (next ? ", " : "") + format_number(value);
    next = pos + 1;
  }
  return out + "]";
}

}  // namespace pamc
