#include "compiler/analysis/sweep.h"
#include "compiler/symbolic/class_test.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "compiler/diag/diag.h"
#include "compiler/evaluate/compile.h"
#include "compiler/evaluate/evaluate_model.h"

using pamc::sym::is_class;

namespace pamc {
namespace {

[[noreturn]] void fail(DiagKind kind, const std::string& message) {
  throw CompileError{Diagnostic{Severity::Error, kind, Loc{}, message, {}}};
}

bool only_symbols_in(const GiNaC::ex& e, const std::set<std::string>& allowed) {
  if (is_class<GiNaC::symbol>(e)) return allowed.count(GiNaC::ex_to<GiNaC::symbol>(e).get_name()) > 0;
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (!only_symbols_in(e.op(i), allowed)) return false;
  return true;
}

bool has_any_symbol(const GiNaC::ex& e) {
  if (is_class<GiNaC::symbol>(e)) return true;
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (has_any_symbol(e.op(i))) return true;
  return false;
}

}  // namespace

bool parse_sweep_range(const std::string& text, SweepRange& out, std::string& error, std::size_t max_points) {
  std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    error = "expected NAME=FIRST:LAST[:STEP|:xFACTOR]";
    return false;
  }
  out = SweepRange{};
  out.name = text.substr(0, eq);
  std::vector<std::string> parts;
  std::string rest = text.substr(eq + 1);
  for (std::size_t start = 0;;) {
    std::size_t colon = rest.find(':', start);
    parts.push_back(rest.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) {
    error = "expected NAME=FIRST:LAST[:STEP|:xFACTOR]";
    return false;
  }
  if (!parse_binding_value(parts[0], out.first) || !parse_binding_value(parts[1], out.last)) {
    error = "FIRST and LAST must be numbers";
    return false;
  }
  out.step = 1;
  if (parts.size() == 3) {
    std::string s = parts[2];
    if (!s.empty() && (s[0] == 'x' || s[0] == 'X' || s[0] == '*')) {
      out.geometric = true;
      s = s.substr(1);
    }
    if (!parse_binding_value(s, out.step)) {
      error = out.geometric ? "xFACTOR must be a number (x2)" : "STEP must be a number";
      return false;
    }
  }
  const GiNaC::numeric& a = out.first;
  const GiNaC::numeric& b = out.last;
  if (out.geometric) {
    if (out.step <= 0 || out.step == 1) {
      error = "the factor must be positive and not 1";
      return false;
    }
    if (a.is_zero()) {
      error = "a geometric range cannot start at 0";
      return false;
    }
    if (a != b && ((abs(b) > abs(a)) != (out.step > 1) || (a > 0) != (b > 0))) {
      error = "the factor never takes " + out.name + " from FIRST to LAST";
      return false;
    }
    // Count first (in doubles): x1.0000001 from 1 to 1e9 is 2e8 values, refused before any
    // is made.
    double estimate = std::floor(std::log(std::fabs(b.to_double() / a.to_double())) / std::log(out.step.to_double())) + 1;
    if (!(estimate <= static_cast<double>(max_points) + 1)) {
      error = "more than " + std::to_string(max_points) + " values";
      return false;
    }
    for (GiNaC::numeric v = a;; v = v * out.step) {
      // A fractional factor's exact powers grow a digit per step: past 15 digits of
      // denominator the value continues as the double it rounds to.
      if (v.is_rational() && v.denom() > GiNaC::numeric(1000000000000000L)) v = GiNaC::numeric(v.to_double());
      if (out.step > 1 ? abs(v) > abs(b) : abs(v) < abs(b)) break;
      if (out.geo.size() >= max_points) {
        error = "more than " + std::to_string(max_points) + " values";
        return false;
      }
      out.geo.push_back(v);
      out.dvalues.push_back(v.to_double());
    }
  } else {
    if (out.step.is_zero()) {
      error = "the step must not be 0";
      return false;
    }
    if (a != b && (b > a) != (out.step > 0)) {
      error = "the step never takes " + out.name + " from FIRST to LAST (use a negative step to go down)";
      return false;
    }
    GiNaC::numeric count = sym::floor_num((b - a) / out.step) + 1;
    if (count > GiNaC::numeric(static_cast<long>(max_points))) {
      error = "more than " + std::to_string(max_points) + " values";
      return false;
    }
    // value k = (A + B k) / q with A, B, q integers: exact in doubles while they stay
    // below 2^53, and then one correctly rounded division (0.1 * 3 gives 0.3, not
    // 0.30000000000000004).
    GiNaC::numeric q = GiNaC::lcm(a.denom(), out.step.denom());
    GiNaC::numeric A = a * q, B = out.step * q, lim("9007199254740992");
    long n = count.to_long();
    bool fast = abs(q) < lim && abs(A) + abs(B) * n < lim;
    out.dvalues.reserve(n);
    if (fast) {
      double Ad = A.to_double(), Bd = B.to_double(), qd = q.to_double();
      for (long k = 0; k < n; ++k) out.dvalues.push_back((Ad + Bd * static_cast<double>(k)) / qd);
    } else {
      for (long k = 0; k < n; ++k) out.dvalues.push_back((a + out.step * k).to_double());
    }
  }
  return true;
}

GiNaC::numeric SweepRange::value(std::size_t k) const {
  if (geometric) return geo.at(k);
  return first + step * static_cast<long>(k);
}

GiNaC::ex bind_except(const CostModel& model, const GiNaC::ex& e, const std::map<std::string, GiNaC::numeric>& fixed,
                      const std::vector<std::string>& keep) {
  GiNaC::exmap m;
  for (const CostParameter& p : model.parameters) {
    if (std::find(keep.begin(), keep.end(), p.name) != keep.end()) continue;
    auto it = fixed.find(p.name);
    if (it != fixed.end())
      m[p.symbol] = it->second;
    else if (p.default_value)
      m[p.symbol] = *p.default_value;
  }
  GiNaC::ex r = e;
  for (std::size_t round = 0; round <= model.parameters.size() + 1; ++round) {
    GiNaC::ex next = r.subs(m);
    if (next.is_equal(r)) break;
    r = next;
  }
  return r;
}

Sweep::Sweep(const CostModel& model, const std::map<std::string, GiNaC::numeric>& fixed,
             std::vector<SweepRange> ranges, const std::vector<std::string>& targets)
    : model_(model), fixed_(fixed), ranges_(std::move(ranges)) {
  std::vector<std::string> swept;
  std::vector<GiNaC::symbol> vars;
  for (const SweepRange& r : ranges_) {
    const CostParameter* p = model.parameter(r.name);
    if (!p) fail(DiagKind::UnknownTarget, "--sweep " + r.name + ": the model has no parameter '" + r.name + "'");
    swept.push_back(r.name);
    vars.push_back(p->symbol);
    points_ *= r.size();
  }
  // The first point, exactly: every error `pamc eval` reports there (unknown target or
  // parameter, unbound parameter, bounds, assumptions), and the targets' names.
  std::vector<std::size_t> first(ranges_.size(), 0);
  EvalRequest req;
  req.bindings = fixed_;
  std::string at;
  for (const SweepRange& r : ranges_) {
    req.bindings[r.name] = r.value(0);
    at += (at.empty() ? "" : ", ") + r.name + " = " + format_number(r.value(0));
  }
  req.targets = targets;
  EvalResult first_result;
  try {
    first_result = evaluate_model(model, req);
  } catch (CompileError& e) {
    if (is_value_error(e.diag.kind)) e.diag.message = "at " + at + ": " + e.diag.message;
    throw;
  }
  std::set<std::string> allowed(swept.begin(), swept.end());
  std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less> param_slots;
  for (std::size_t k = 0; k < vars.size(); ++k) param_slots[vars[k]] = static_cast<unsigned>(k);
  for (const auto& [name, value] : first_result.values) {
    names_.push_back(name);
    const CostEquation* eq = model.equation(name);
    GiNaC::ex e = bind_except(model, eq->value, fixed_, swept);
    std::string why;
    std::optional<eval::Program> program;
    if (value.is_vector) {
      why = "a vector";
    } else {
      // loop indices are symbols too: the compiler binds them
      try {
        program = eval::compile_expression(e, param_slots);
      } catch (const eval::CompileFailure& failure) {
        why = only_symbols_in(e, allowed) ? failure.message : "depends on a parameter without a value";
      }
    }
    if (!program) slow_.emplace_back(name, why);
    programs_.push_back(std::move(program));
  }
  // Checks that depend on the swept parameters.
  auto add_check = [&](const GiNaC::ex& raw, Check::Kind kind) {
    GiNaC::ex e = bind_except(model, raw, fixed_, swept);
    if (is_class<GiNaC::numeric>(e) && (kind == Check::Integer || kind == Check::Nonneg)) {
      // An assumption the fixed values already break: every point is outside it.
      const GiNaC::numeric& v = GiNaC::ex_to<GiNaC::numeric>(e);
      if (kind == Check::Integer ? !v.is_integer() : v.is_negative()) all_outside_assumptions_ = true;
      return;
    }
    if (!has_any_symbol(e) || !only_symbols_in(e, allowed)) return;
    try {
      checks_.push_back({eval::compile_expression(e, param_slots), kind});
    } catch (const eval::CompileFailure&) {  // unchecked here: the exact evaluator decides per point
    }
  };
  for (const CostParameter& p : model.parameters) {
    for (const CostParameter::Bound& b : p.bounds) {
      Check::Kind k = b.op == ">=" ? Check::Ge : b.op == ">" ? Check::Gt : b.op == "<=" ? Check::Le : Check::Lt;
      add_check(p.symbol - b.value, k);
    }
  }
  for (const GiNaC::ex& e : model.assumptions.integer) add_check(e, Check::Integer);
  for (const GiNaC::ex& e : model.assumptions.nonneg) add_check(e, Check::Nonneg);
}

void Sweep::indices(std::size_t i, std::vector<std::size_t>& idx) const {
  idx.assign(ranges_.size(), 0);
  for (std::size_t k = ranges_.size(); k-- > 0;) {
    idx[k] = i % ranges_[k].size();
    i /= ranges_[k].size();
  }
}

void Sweep::fail_exactly_at(const std::vector<std::size_t>& idx, const std::string& what) const {
  check_exactly_at(idx);  // the exact evaluator's own error, if it has one
  std::string at;
  for (std::size_t k = 0; k < ranges_.size(); ++k)
    at += (at.empty() ? "" : ", ") + ranges_[k].name + " = " + format_number(ranges_[k].value(idx[k]));
  fail(DiagKind::EvaluationError, "at " + at + ": " + what);
}

void Sweep::check_exactly_at(const std::vector<std::size_t>& idx) const {
  EvalRequest req;
  req.bindings = fixed_;
  std::string at;
  for (std::size_t k = 0; k < ranges_.size(); ++k) {
    req.bindings[ranges_[k].name] = ranges_[k].value(idx[k]);
    at += (at.empty() ? "" : ", ") + ranges_[k].name + " = " + format_number(ranges_[k].value(idx[k]));
  }
  req.targets = names_;
  try {
    evaluate_model(model_, req);
  } catch (CompileError& e) {
    e.diag.message = "at " + at + ": " + e.diag.message;
    throw;
  }
}

void Sweep::validate() {
  if (checks_.empty()) return;
  constexpr std::size_t kB = kBatch;
  const std::size_t nv = ranges_.size();
  std::vector<std::size_t> idx(nv, 0);
  std::vector<double> xs(nv * kB), ys(kB);
  std::vector<const double*> vars(nv);
  for (std::size_t b0 = 0; b0 < points_; b0 += kB) {
    std::size_t n = std::min(kB, points_ - b0);
    fill_batch(idx, n, b0, xs, vars);
    for (const Check& c : checks_) {
      c.program.run_batch(vars.data(), n, ys.data());
      for (std::size_t j = 0; j < n; ++j) {
        double v = ys[j];
        double tol = 1e-9 * std::max(1.0, std::fabs(v));
        bool ok = true;
        switch (c.kind) {
          case Check::Ge: ok = v >= -tol; break;
          case Check::Gt: ok = v > -tol; break;
          case Check::Le: ok = v <= tol; break;
          case Check::Lt: ok = v < tol; break;
          case Check::Integer: ok = std::fabs(v - std::round(v)) <= tol; break;
          case Check::Nonneg: ok = v >= -tol; break;
        }
        if (!ok) {  // throws where the model itself has no value, or a bound fails
          std::vector<std::size_t> at;
          indices(b0 + j, at);
          check_exactly_at(at);
          if (c.kind == Check::Integer || c.kind == Check::Nonneg) outside_assumptions_.insert(b0 + j);
        }
      }
    }
  }
}

void Sweep::fill_batch(std::vector<std::size_t>& idx, std::size_t n, std::size_t b0, std::vector<double>& xs,
                       std::vector<const double*>& vars) const {
  constexpr std::size_t kB = kBatch;
  const std::size_t nv = ranges_.size();
  // One parameter reads its values in place; a grid fills per-parameter columns with an
  // odometer (the last parameter fastest).
  if (nv == 1) {
    vars[0] = ranges_[0].dvalues.data() + b0;
    idx[0] += n;
    return;
  }
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < nv; ++k) xs[k * kB + j] = ranges_[k].dvalues[idx[k]];
    for (std::size_t k = nv; k-- > 0;) {
      if (++idx[k] < ranges_[k].size()) break;
      idx[k] = 0;
    }
  }
  for (std::size_t k = 0; k < nv; ++k) vars[k] = xs.data() + k * kB;
}

double Sweep::exact_at(std::size_t target, const std::vector<std::size_t>& idx) const {
  EvalRequest req;
  req.bindings = fixed_;
  for (std::size_t k = 0; k < ranges_.size(); ++k) req.bindings[ranges_[k].name] = ranges_[k].value(idx[k]);
  req.targets = {names_[target]};
  EvalResult r = evaluate_model(model_, req);
  const sym::Value& v = r.values.front().second;
  if (v.is_vector) fail(DiagKind::VectorValue, names_[target] + " is a vector; sweep needs scalar targets");
  return v.scalar.to_double();
}

void Sweep::evaluate(std::size_t begin, std::size_t end, double* out) const {
  const std::size_t nt = names_.size(), nv = ranges_.size();
  constexpr std::size_t kB = kBatch;
  std::vector<std::size_t> idx;
  indices(begin, idx);
  std::vector<double> xs(nv * kB), ys(kB);
  std::vector<const double*> vars(nv);
  for (std::size_t b0 = begin; b0 < end; b0 += kB) {
    std::size_t n = std::min(kB, end - b0);
    fill_batch(idx, n, b0, xs, vars);
    for (std::size_t t = 0; t < nt; ++t) {
      if (programs_[t] && programs_[t]->straight()) {
        programs_[t]->run_batch(vars.data(), n, ys.data());
        for (std::size_t j = 0; j < n; ++j) {
          if (all_outside_assumptions_ || (!outside_assumptions_.empty() && outside_assumptions_.count(b0 + j))) {
            std::vector<std::size_t> at;
            indices(b0 + j, at);
            ys[j] = exact_at(t, at);
          }
          if (!std::isfinite(ys[j])) {
            std::vector<std::size_t> at;
            indices(b0 + j, at);
            fail_exactly_at(at, names_[t] + " is not a finite number here");
          }
          out[(b0 - begin + j) * nt + t] = ys[j];
        }
      } else {
        std::vector<std::size_t> at;
        std::vector<double> args(nv);
        for (std::size_t j = 0; j < n; ++j) {
          double y = std::nan("");
          bool inside = !all_outside_assumptions_ && (outside_assumptions_.empty() || !outside_assumptions_.count(b0 + j));
          if (programs_[t] && inside) {
            for (std::size_t k = 0; k < nv; ++k) args[k] = vars[k][j];
            bool exact = false;
            y = programs_[t]->run_tracked(args.data(), exact);
          }
          if (!std::isfinite(y)) {  // no program, outside the assumptions, or no number: exactly
            indices(b0 + j, at);
            y = exact_at(t, at);
          }
          out[(b0 - begin + j) * nt + t] = y;
        }
      }
    }
  }
}

}  // namespace pamc
