#include "compiler/analysis/fit.h"
#include "compiler/analysis/table.h"

#include "compiler/analysis/domain.h"
#include "compiler/analysis/explain.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/evaluate/compile.h"
#include "compiler/symbolic/class_test.h"

namespace pamc {

// ======================================================================================
// Measurements
// ======================================================================================

namespace {

using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::symbol;

[[noreturn]] void fail(DiagKind kind, const std::string& message, Loc loc = {}, const std::string& file = {}) {
  throw CompileError{Diagnostic{Severity::Error, kind, loc, message, file}};
}

}  // namespace

FitData parse_fit_data(SourceFileP file) {
  analysis::Table t;
  analysis::parse_table(file, t);  // the header, ragged rows and quotes: pamc's one CSV reader
  FitData data;
  data.file = file;
  const SourceFile* f = file.get();
  if (t.header_line == 0) fail(DiagKind::DataError, "the data file is empty: expected a header row of column names", {}, f->path);
  data.columns = t.columns;
  data.column_cols = t.column_cols;
  for (const analysis::Table::Row& r : t.rows) {
    FitData::Row row;
    row.line = r.line;
    for (std::size_t c = 0; c < r.cells.size(); ++c) {
      const std::string& text = r.cells[c];
      const Loc at{f, r.line, r.cols[c]};
      numeric v;
      if (text.empty()) fail(DiagKind::DataError, "empty cell in column '" + data.columns[c] + "'", at);
      if (!parse_binding_value(text, v))
        fail(DiagKind::DataError, "column '" + data.columns[c] + "': '" + text + "' is not a number", at);
      // The fit works in doubles: a value no double holds (1e400, 1e-400) is the data's error.
      if (double d = v.to_double(); !std::isfinite(d) || (d == 0.0 && !v.is_zero()))
        fail(DiagKind::DataError, "column '" + data.columns[c] + "': '" + text + "' is outside what a double holds", at);
      row.values.push_back(v);
      row.cols.push_back(r.cols[c]);
    }
    data.rows.push_back(std::move(row));
  }
  if (data.rows.empty()) fail(DiagKind::DataError, "the data file has a header but no rows", {}, f->path);
  return data;
}

// ======================================================================================
// Fitting a model
// ======================================================================================

namespace {

using sym::is_class;

bool has_any(const ex& e, const std::vector<symbol>& syms) {
  for (const symbol& s : syms)
    if (e.has(s)) return true;
  return false;
}

// Nodes GiNaC differentiates correctly: sums, products, powers, log and exp.
bool smooth_node(const ex& e) {
  return is_class<GiNaC::add>(e) || is_class<GiNaC::mul>(e) || is_class<GiNaC::power>(e) ||
         is_class<GiNaC::symbol>(e) || is_class<GiNaC::numeric>(e) || is_class<GiNaC::constant>(e) ||
         (sym::pamela_function(e) == sym::Fn::None &&
          is_class<GiNaC::function>(e) &&
          (GiNaC::ex_to<GiNaC::function>(e).get_serial() == GiNaC::log_SERIAL::serial ||
           GiNaC::ex_to<GiNaC::function>(e).get_serial() == GiNaC::exp_SERIAL::serial));
}

// Every maximal sub-expression free of the unknowns becomes a fresh symbol (GiNaC's diff
// must not look inside max/min, reductions or Pamela's functions there); `opaque` names
// a non-smooth node that holds an unknown, if any.
struct Freeze : GiNaC::map_function {
  const std::vector<symbol>& unknowns;
  GiNaC::exmap frozen;  // fresh symbol -> what it stands for
  std::optional<ex> opaque;
  explicit Freeze(const std::vector<symbol>& u) : unknowns(u) {}
  static std::optional<ex> opaque_of(const ex& e, const std::vector<symbol>& u) {
    Freeze f(u);
    f(e);
    return f.opaque;
  }
  ex operator()(const ex& e) override {
    if (!has_any(e, unknowns)) {
      if (is_class<GiNaC::numeric>(e) || is_class<GiNaC::constant>(e)) return e;
      symbol s;
      frozen[s] = e;
      return s;
    }
    if (is_class<GiNaC::symbol>(e)) return e;
    if (smooth_node(e)) return e.map(*this);
    if (!opaque) opaque = e;
    return e;
  }
};

// An equation prepared for fitting: derivatives with respect to the unknowns when it is
// smooth in them, and compiled double evaluators when they compile.
struct Prepared {
  ex e;
  bool smooth = false, linear = false;
  std::optional<ex> opaque;  // a non-smooth node holding an unknown
  std::vector<ex> d;         // d e / d u_j (smooth only)
  std::optional<eval::Program> fe;
  std::vector<std::optional<eval::Program>> fd;
};

// The evaluation room's program for e over vars, or none (the exact evaluator then).
std::optional<eval::Program> compile_or_none(const ex& e, const std::vector<symbol>& vars) {
  std::map<ex, unsigned, GiNaC::ex_is_less> slots;
  for (std::size_t k = 0; k < vars.size(); ++k) slots[vars[k]] = static_cast<unsigned>(k);
  try {
    return eval::compile_expression(e, slots);
  } catch (const eval::CompileFailure&) {
    return std::nullopt;
  }
}

// A program's value, NaN wherever the model has none (a loop program's run() may hide it).
double run_program(const eval::Program& p, const double* args) {
  if (p.straight()) return p.run(args);
  bool exact = false;
  return p.run_tracked(args, exact);
}

Prepared prepare(const ex& e, const std::vector<symbol>& unknowns, const std::vector<symbol>& vars) {
  Prepared p;
  p.e = e;
  Freeze fr(unknowns);
  ex f = fr(e);
  p.opaque = fr.opaque;
  p.smooth = !fr.opaque;
  p.fe = compile_or_none(e, vars);
  if (!p.smooth) return p;
  p.linear = true;
  for (const symbol& u : unknowns) {
    ex dj = f.diff(u);
    if (has_any(dj.expand(), unknowns)) p.linear = false;
    ex restored = dj.subs(fr.frozen);
    p.d.push_back(restored);
    p.fd.push_back(compile_or_none(restored, vars));
  }
  return p;
}

// e with every max/min that holds an unknown replaced by the argument that attains it at
// env: the piece of a piecewise model the point lies on. Nothing else changes (a
// ceil(N / P) beside an unknown keeps its value, unlike `pamc sensitivity`'s relaxation).
struct SelectBranches : GiNaC::map_function {
  const GiNaC::exmap& env;
  const std::vector<symbol>& unknowns;
  SelectBranches(const GiNaC::exmap& e, const std::vector<symbol>& u) : env(e), unknowns(u) {}
  ex operator()(const ex& e) override {
    if (!has_any(e, unknowns) || sym::is_reduction(e)) return e;
    if (sym::is_extremum(e)) {
      std::optional<std::size_t> best;
      std::optional<numeric> best_v;
      for (std::size_t i = 0; i < e.nops(); ++i) {
        auto v = value_at(e.op(i), env);
        if (v && v->is_real() && (!best_v || (sym::is_max(e) ? *v > *best_v : *v < *best_v))) best = i, best_v = v;
      }
      if (best) return (*this)(e.op(*best));
    }
    return e.map(*this);
  }
};

struct RowCtx {
  std::uint32_t line = 0;
  GiNaC::exmap env;           // every known parameter, exact
  std::vector<double> known;  // the known parameters as doubles, in `vars` order after the unknowns
  const Prepared* eq = nullptr;
  double measured = 0, weight = 1;
  // The active branch and its derivatives at the last point (non-smooth equations).
  std::optional<ex> active;
  std::vector<ex> active_d;
  bool active_linear = false;  // that branch is linear in the unknowns
};

std::string join(const std::vector<std::string>& v, const std::string& last = " and ") {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? (i + 1 == v.size() ? last : ", ") : "") + v[i];
  return out;
}

std::string quoted_list(const std::vector<std::string>& v, const std::string& last = " and ") {
  std::vector<std::string> q;
  for (const std::string& s : v) q.push_back("'" + s + "'");
  return join(q, last);
}

const CostEquation* find_target(const CostModel& model, const std::string& name) {
  if (const CostEquation* e = model.equation(name)) return e;
  return model.equation("T_" + name);
}

std::string g15(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

class Fitter {
 public:
  Fitter(const CostModel& model, const FitData& data, const FitRequest& req) : model_(model), data_(data), req_(req) {}

  FitResult run() {
    resolve_target();
    resolve_unknowns();
    resolve_columns();
    bind_rows();
    if (rows_.size() < unknowns_.size())
      fail(DiagKind::Underdetermined,
           std::to_string(rows_.size()) + (rows_.size() == 1 ? " row cannot" : " rows cannot") + " determine " +
               std::to_string(unknowns_.size()) + " unknowns: give at least as many rows as unknowns",
           {}, data_.file->path);
    bool linear = closed_.linear && (!time_used_ || time_.linear);
    out_.linear = linear;
    out_.relative = req_.relative;
    std::vector<double> theta = linear ? solve_linear() : solve_nonlinear();
    finish(theta);
    return std::move(out_);
  }

 private:
  const CostModel& model_;
  const FitData& data_;
  const FitRequest& req_;
  FitResult out_;
  const CostEquation* eq_ = nullptr;
  std::vector<symbol> unknowns_;
  std::vector<std::string> unknown_names_;
  std::vector<symbol> vars_;                   // unknowns, then every other parameter
  std::vector<const CostParameter*> knowns_;   // the other parameters, in vars_ order
  std::vector<std::size_t> input_columns_;     // CSV columns that bind parameters
  std::size_t measured_column_ = 0;
  Prepared closed_, time_;
  bool time_used_ = false;
  std::vector<RowCtx> rows_;
  std::vector<double> lo_, hi_;          // each unknown's bounds
  std::vector<bool> piece_bound_;        // held at a bound by the last bounded solve
  std::vector<double> piece_cov_;        // its variances (free unknowns)

  Loc row_loc(const RowCtx& r) const { return Loc{data_.file.get(), r.line, 1}; }

  void resolve_target() {
    if (!req_.target.empty()) {
      eq_ = find_target(model_, req_.target);
      if (!eq_) fail(DiagKind::UnknownTarget, "no equation or process named '" + req_.target + "'");
    } else if (!(eq_ = model_.equation("T_main"))) {
      std::vector<const CostEquation*> top;
      for (const CostEquation& e : model_.equations)
        if (e.top_level) top.push_back(&e);
      if (top.size() != 1) {
        std::vector<std::string> names;
        for (const CostEquation* e : top) names.push_back(e->name);
        fail(DiagKind::UnknownTarget, "the model has no T_main: choose the equation to fit with --target" +
                                          (names.empty() ? std::string() : " (" + join(names) + ")"));
      }
      eq_ = top[0];
    }
    out_.target = eq_->name;
    out_.equation = sym::to_pamela(eq_->value);
  }

  void resolve_unknowns() {
    if (req_.unknowns.empty()) fail(DiagKind::UnknownTarget, "nothing to fit: give --fit NAME[,NAME]...");
    for (const std::string& name : req_.unknowns) {
      const CostParameter* p = model_.parameter(name);
      if (!p) fail(DiagKind::UnknownTarget, "--fit " + name + ": the model has no parameter '" + name + "'");
      if (!eq_->value.has(p->symbol) && !eq_->time_value.has(p->symbol))
        fail(DiagKind::UnknownTarget, "--fit " + name + ": " + eq_->name + " does not depend on " + name);
      unknowns_.push_back(p->symbol);
      unknown_names_.push_back(name);
      // Where the unknown may lie: what the facts allow (>= 0 unless declared otherwise,
      // the declared bounds), the domain the closed form was derived for.
      Domain dom = domain_of(model_, *p, {});
      const double inf = std::numeric_limits<double>::infinity();
      lo_.push_back(dom.lo ? dom.lo->to_double() : -inf);
      hi_.push_back(dom.hi ? dom.hi->to_double() : inf);
    }
    for (const auto& [name, v] : req_.bindings)
      if (!model_.parameter(name)) fail(DiagKind::UnknownTarget, "-D " + name + ": the model has no parameter '" + name + "'");
    for (const auto& [name, v] : req_.start)
      if (std::find(unknown_names_.begin(), unknown_names_.end(), name) == unknown_names_.end())
        fail(DiagKind::UnknownTarget, "--start " + name + ": " + name + " is not fitted (--fit)");
    vars_ = unknowns_;
    for (const CostParameter& p : model_.parameters)
      if (std::find(unknown_names_.begin(), unknown_names_.end(), p.name) == unknown_names_.end()) {
        vars_.push_back(p.symbol);
        knowns_.push_back(&p);
      }
  }

  void resolve_columns() {
    const SourceFile* f = data_.file.get();
    std::uint32_t header_line = data_.rows.front().line;  // for locating header cells, below
    // The header is the first non-comment line before the first row.
    for (std::uint32_t l = 1; l < data_.rows.front().line; ++l) {
      std::string_view t = f->line_text(l);
      std::size_t first = t.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && t[first] != '#') {
        header_line = l;
        break;
      }
    }
    auto header_loc = [&](std::size_t c) { return Loc{f, header_line, data_.column_cols[c]}; };
    std::vector<std::size_t> candidates;
    std::vector<std::string> names{eq_->name};
    if (!eq_->process.empty() && eq_->process != eq_->name) names.push_back(eq_->process);
    names.push_back("measured");
    names.push_back("time");
    for (std::size_t c = 0; c < data_.columns.size(); ++c) {
      const std::string& col = data_.columns[c];
      if (const CostParameter* p = model_.parameter(col)) {
        (void)p;
        if (std::find(unknown_names_.begin(), unknown_names_.end(), col) != unknown_names_.end())
          fail(DiagKind::InvalidParameter, "column '" + col + "' gives values for " + col + ", which is fitted (--fit)",
               header_loc(c));
        if (req_.bindings.count(col))
          fail(DiagKind::InvalidParameter, "column '" + col + "' gives values for " + col + ", which -D also fixes",
               header_loc(c));
        input_columns_.push_back(c);
        continue;
      }
      if (!req_.measured.empty() ? col == req_.measured
                                 : std::find(names.begin(), names.end(), col) != names.end())
        candidates.push_back(c);
    }
    if (candidates.empty()) {
      if (!req_.measured.empty()) {
        bool is_param = model_.parameter(req_.measured) != nullptr &&
                        std::find(data_.columns.begin(), data_.columns.end(), req_.measured) != data_.columns.end();
        fail(DiagKind::DataError,
             is_param ? "--measured " + req_.measured + ": that column names a parameter of the model"
                      : "--measured " + req_.measured + ": the data has no column '" + req_.measured + "'",
             {}, f->path);
      }
      fail(DiagKind::DataError,
           "no column holds the measurements of " + eq_->name + ": name it " + quoted_list(names, " or ") +
               " (and not after a parameter), or choose it with --measured",
           {}, f->path);
    }
    if (candidates.size() > 1) {
      std::vector<std::string> c;
      for (std::size_t i : candidates) c.push_back(data_.columns[i]);
      fail(DiagKind::DataError, "columns " + quoted_list(c) + " could each be the measurements of " + eq_->name +
                                        ": choose one with --measured",
           header_loc(candidates[1]));
    }
    measured_column_ = candidates[0];
    out_.measured = data_.columns[measured_column_];
    for (std::size_t c = 0; c < data_.columns.size(); ++c)
      if (c != measured_column_ && !model_.parameter(data_.columns[c]))
        out_.notes.push_back("column '" + data_.columns[c] + "' names no parameter of the model; ignored");
  }

  void bind_rows() {
    // The unknowns keep no default here: they are what is looked for.
    CostModel pm;
    pm.parameters = model_.parameters;
    pm.assumptions = model_.assumptions;
    for (CostParameter& p : pm.parameters)
      if (std::find(unknown_names_.begin(), unknown_names_.end(), p.name) != unknown_names_.end()) {
        p.default_value.reset();
        p.bounds.clear();
      }
    closed_ = prepare(eq_->value, unknowns_, vars_);
    std::set<std::string> unbound;
    std::size_t outside = 0;
    for (const FitData::Row& row : data_.rows) {
      RowCtx r;
      r.line = row.line;
      std::map<std::string, numeric> b = req_.bindings;
      for (std::size_t c : input_columns_) b[data_.columns[c]] = row.values[c];
      try {
        r.env = bind_parameters(pm, b);
      } catch (const CompileError& e) {
        fail(e.diag.kind, "in this row: " + e.diag.message, row_loc(r));
      }
      const bool closed_ok = assumptions_hold(pm, r.env);
      if (!closed_ok) {
        if (!time_used_) time_ = prepare(eq_->time_value, unknowns_, vars_);
        time_used_ = true;
        ++outside;
      }
      r.eq = closed_ok ? &closed_ : &time_;
      for (const CostParameter* p : knowns_) {
        auto it = r.env.find(p->symbol);
        if (it == r.env.end()) {
          if (r.eq->e.has(p->symbol)) unbound.insert(p->name);
          r.known.push_back(std::numeric_limits<double>::quiet_NaN());
        } else {
          r.known.push_back(GiNaC::ex_to<numeric>(it->second).to_double());
        }
      }
      r.measured = row.values[measured_column_].to_double();
      if (req_.relative) {
        if (r.measured == 0)
          fail(DiagKind::InvalidMeasurement, "measured value 0 in this row: relative residuals need nonzero measurements",
               Loc{data_.file.get(), row.line, row.cols[measured_column_]});
        r.weight = 1 / std::fabs(r.measured);
      }
      rows_.push_back(std::move(r));
    }
    if (!unbound.empty()) {
      std::vector<std::string> names;
      for (const CostParameter& p : model_.parameters)
        if (unbound.count(p.name)) names.push_back(p.name);
      fail(DiagKind::UnboundParameter,
           std::string(names.size() == 1 ? "parameter " : "parameters ") + join(names) +
               (names.size() == 1 ? " has" : " have") +
               " no value: give a column of that name in the data, -D NAME=VALUE, or declare a default",
           {}, data_.file->path);
    }
    if (outside)
      out_.notes.push_back(std::to_string(outside) + (outside == 1 ? " row breaks" : " rows break") +
                           " an assumption of the closed form; the time-domain model is fitted there");
  }

  GiNaC::exmap point_env(const RowCtx& r, const std::vector<double>& theta) const {
    GiNaC::exmap env = r.env;
    for (std::size_t j = 0; j < unknowns_.size(); ++j) env[unknowns_[j]] = numeric(theta[j]);
    return env;
  }

  // The unknowns at exact 0: a linear equation's constant term and coefficients, exactly.
  GiNaC::exmap exact_zero_env(const RowCtx& r) const {
    GiNaC::exmap env = r.env;
    for (const symbol& u : unknowns_) env[u] = numeric(0);
    return env;
  }

  static double exact(const ex& e, const GiNaC::exmap& env, bool& ok) {
    try {
      sym::WorkBudget budget;
      sym::Value v = sym::evaluate(e, env, budget);
      if (v.is_vector) {
        ok = false;
        return 0;
      }
      double d = v.scalar.to_double();
      ok = ok && std::isfinite(d);
      return d;
    } catch (const sym::EvalError&) {
      ok = false;
      return 0;
    }
  }

  double fast_or_exact(const std::optional<eval::Program>& fx, const ex& e, const RowCtx& r,
                       const std::vector<double>& theta, bool& ok) const {
    if (fx) {
      std::vector<double> v(theta);
      v.insert(v.end(), r.known.begin(), r.known.end());
      double d = run_program(*fx, v.data());
      if (std::isfinite(d)) return d;
    }
    return exact(e, point_env(r, theta), ok);  // also gives the exact error
  }

  double predict(const RowCtx& r, const std::vector<double>& theta, bool& ok) const {
    return fast_or_exact(r.eq->fe, r.eq->e, r, theta, ok);
  }

  // d predicted / d u_j at theta, for every j.
  bool gradient(RowCtx& r, const std::vector<double>& theta, double* out) const {
    bool ok = true;
    if (r.eq->smooth) {
      for (std::size_t j = 0; j < unknowns_.size(); ++j) out[j] = fast_or_exact(r.eq->fd[j], r.eq->d[j], r, theta, ok);
      return ok;
    }
    GiNaC::exmap env = point_env(r, theta);
    if (!select_branch(r, env))
      fail(DiagKind::NotDifferentiable, "cannot differentiate " + eq_->name + " with respect to the unknowns: they enter through " +
                                          sym::to_pamela(*Freeze::opaque_of(*r.active, unknowns_)),
           row_loc(r));
    for (std::size_t j = 0; j < unknowns_.size(); ++j) out[j] = exact(r.active_d[j], env, ok);
    return ok;
  }

  // Row r's branch at env (every max/min holding an unknown at the argument that attains
  // it) with its derivatives; false when an unknown sits where diff cannot reach it.
  bool select_branch(RowCtx& r, const GiNaC::exmap& env) const {
    SelectBranches select(env, unknowns_);
    ex a = select(r.eq->e);
    if (r.active && r.active->is_equal(a)) return !r.active_d.empty();
    r.active = a;
    r.active_d.clear();
    Freeze fr(unknowns_);
    ex f = fr(a);
    if (fr.opaque) return false;
    r.active_linear = true;
    for (const symbol& u : unknowns_) {
      ex dj = f.diff(u);
      if (has_any(dj.expand(), unknowns_)) r.active_linear = false;
      r.active_d.push_back(dj.subs(fr.frozen));
    }
    return true;
  }

  // The rows' branches at theta as one linear system a x = b (weighted), when every
  // branch is linear in the unknowns: the piece of a max/min model theta lies on.
  bool piece_system(const std::vector<double>& theta, std::vector<double>& a, std::vector<double>& b) {
    const std::size_t m = rows_.size(), n = unknowns_.size();
    a.assign(m * n, 0);
    b.assign(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
      RowCtx& r = rows_[i];
      if (!select_branch(r, point_env(r, theta)) || !r.active_linear) return false;
      bool ok = true;
      GiNaC::exmap env0 = exact_zero_env(r);
      double c0 = exact(*r.active, env0, ok);
      for (std::size_t j = 0; j < n; ++j) a[i * n + j] = exact(r.active_d[j], env0, ok) * r.weight;
      if (!ok) return false;
      b[i] = (r.measured - c0) * r.weight;
    }
    return true;
  }

  // Sum of squared (weighted) residuals at theta; infinity where the model has no value.
  double cost(const std::vector<double>& theta) const {
    double s = 0;
    for (const RowCtx& r : rows_) {
      bool ok = true;
      double v = predict(r, theta, ok);
      if (!ok || !std::isfinite(v)) return std::numeric_limits<double>::infinity();
      s += (v - r.measured) * r.weight * (v - r.measured) * r.weight;
    }
    return s;
  }

  bool inside(const std::vector<double>& x) const {
    for (std::size_t j = 0; j < x.size(); ++j)
      if (x[j] < lo_[j] || x[j] > hi_[j]) return false;
    return true;
  }

  // From theta, the bounded least-squares optimum of the piece it lies on, then of the
  // piece that lies on, while the sum of squares falls: the exact optimum of a model that
  // is linear in the unknowns on each piece of its max/min (most cost models), which
  // Levenberg-Marquardt only approaches. Returns whether it moved.
  bool solve_pieces(std::vector<double>& theta) {
    bool moved = false;
    double c = cost(theta);
    std::vector<double> a, b;
    for (int round = 0; round < 50 && piece_system(theta, a, b); ++round) {
      BoundedLeastSquares ls = solve_bounded_least_squares(a, rows_.size(), unknowns_.size(), b, lo_, hi_);
      if (ls.dependent) break;
      double c2 = cost(ls.x);
      if (!(c2 < c) && !(c2 == c && ls.x != theta && round == 0)) break;
      moved = moved || ls.x != theta;
      bool same = ls.x == theta;
      theta = ls.x;
      piece_bound_ = ls.at_bound;
      piece_cov_ = ls.cov_diag;
      c = c2;
      if (same) break;
    }
    return moved;
  }

  [[noreturn]] void dependent_error(std::size_t j, const std::string& why) const {
    std::string name = unknown_names_[j];
    fail(DiagKind::Underdetermined,
         unknowns_.size() == 1
             ? "the data cannot determine " + name + ": " + why
             : "the data cannot separate " + name + " from the other unknowns (" + join(unknown_names_) + "): " + why,
         {}, data_.file->path);
  }

  std::vector<double> solve_linear() {
    out_.method = "linear least squares (Householder QR)";
    const std::size_t m = rows_.size(), n = unknowns_.size();
    std::vector<double> a(m * n), b(m);
    for (std::size_t i = 0; i < m; ++i) {
      RowCtx& r = rows_[i];
      bool ok = true;
      GiNaC::exmap env0 = exact_zero_env(r);
      // Exact coefficients: the terms are evaluated with rational arithmetic.
      double c0 = exact(r.eq->e, env0, ok);
      for (std::size_t j = 0; j < n; ++j) a[i * n + j] = exact(r.eq->d[j], env0, ok) * r.weight;
      if (!ok) not_finite(r);
      b[i] = (r.measured - c0) * r.weight;
    }
    BoundedLeastSquares ls = solve_bounded_least_squares(a, m, n, b, lo_, hi_);
    if (ls.dependent)
      dependent_error(*ls.dependent, m == n ? "the rows are not independent in the unknowns' terms"
                                            : "its term is zero or proportional to the others' in every row; vary the parameters it multiplies");
    cov_diag_ = ls.cov_diag;
    for (std::size_t j = 0; j < n; ++j) {
      out_.parameters.push_back({unknown_names_[j], ls.x[j], std::nullopt, 0});
      out_.parameters.back().at_bound = ls.at_bound[j];
    }
    if (std::count(ls.at_bound.begin(), ls.at_bound.end(), true))
      out_.method = "bounded linear least squares (active set, Householder QR)";
    return ls.x;
  }

  [[noreturn]] void not_finite(const RowCtx& r) const { row_failure(r, exact_zero_env(r), ""); }

  // Why the target has no finite value in row r at env (the exact evaluator's message).
  [[noreturn]] void row_failure(const RowCtx& r, const GiNaC::exmap& env, const std::string& where) const {
    std::string why = "its value is not finite";
    try {
      sym::WorkBudget budget;
      sym::Value v = sym::evaluate(r.eq->e, env, budget);
      if (v.is_vector) why = "it is a vector";
    } catch (const sym::EvalError& e) {
      why = e.message;
    }
    fail(DiagKind::EvaluationError, eq_->name + " has no value in this row" + where + ": " + why, row_loc(r));
  }

  std::string at_text(const std::vector<double>& x) const {
    std::string s;
    for (std::size_t j = 0; j < x.size(); ++j) s += (j ? ", " : "") + unknown_names_[j] + " = " + g15(x[j]);
    return s;
  }

  double start_value(std::size_t j) const {
    const std::string& name = unknown_names_[j];
    if (auto it = req_.start.find(name); it != req_.start.end()) return it->second.to_double();
    const CostParameter* p = model_.parameter(name);
    if (p->default_value) {
      try {
        GiNaC::exmap env = bind_parameters(model_, req_.bindings);
        if (auto it = env.find(p->symbol); it != env.end()) return GiNaC::ex_to<numeric>(it->second).to_double();
      } catch (const CompileError&) {
      }
    }
    return 1;
  }

  std::vector<double> solve_nonlinear() {
    out_.method = "Levenberg-Marquardt";
    const std::size_t m = rows_.size(), n = unknowns_.size();
    std::vector<double> x0(n);
    for (std::size_t j = 0; j < n; ++j) {
      x0[j] = start_value(j);
      double c = std::clamp(x0[j], lo_[j], hi_[j]);
      if (c != x0[j])
        out_.notes.push_back("the start " + unknown_names_[j] + " = " + g15(x0[j]) + " is outside its bounds; started at " + g15(c));
      x0[j] = c;
    }
    for (RowCtx& r : rows_) {
      bool ok = true;
      double v = predict(r, x0, ok);
      if (!ok || !std::isfinite(v)) row_failure(r, point_env(r, x0), " at the starting point " + at_text(x0));
    }
    // 1. Where the target is linear in the unknowns on each piece of its max/min, the
    //    bounded least-squares optimum of the pieces, from the start.
    std::vector<double> x = x0;
    solve_pieces(x);
    // 2. Levenberg-Marquardt from there over the unknowns not on a bound; a trial point
    //    outside the bounds is a rejected step, so every iterate keeps them.
    auto on_bound = [&](std::size_t j) { return x[j] == lo_[j] || x[j] == hi_[j]; };
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < n; ++j)
      if (!on_bound(j)) free.push_back(j);
    auto full = [&](const std::vector<double>& xf) {
      std::vector<double> y = x;
      for (std::size_t k = 0; k < free.size(); ++k) y[free[k]] = xf[k];
      return y;
    };
    LmProblem p;
    p.m = m;
    p.n = free.size();
    p.residuals = [&](const std::vector<double>& xf, std::vector<double>& r) {
      std::vector<double> y = full(xf);
      if (!inside(y)) return false;
      for (std::size_t i = 0; i < m; ++i) {
        bool ok = true;
        double v = predict(rows_[i], y, ok);
        if (!ok || !std::isfinite(v)) return false;
        r[i] = (v - rows_[i].measured) * rows_[i].weight;
      }
      return true;
    };
    std::vector<double> g(n);
    p.jacobian = [&](const std::vector<double>& xf, std::vector<double>& jac) {
      std::vector<double> y = full(xf);
      for (std::size_t i = 0; i < m; ++i) {
        if (!gradient(rows_[i], y, g.data())) return false;
        for (std::size_t k = 0; k < free.size(); ++k) {
          jac[i * free.size() + k] = g[free[k]] * rows_[i].weight;
          if (!std::isfinite(jac[i * free.size() + k])) return false;
        }
      }
      return true;
    };
    if (!free.empty()) {
      std::vector<double> xf0;
      for (std::size_t j : free) xf0.push_back(x[j]);
      LmOptions opts;
      opts.max_iterations = req_.max_iterations;
      LmResult res = levenberg_marquardt(p, xf0, opts);
      auto at = [&](const std::vector<double>& xf) { return at_text(full(xf)); };
      if (res.dependent && !res.converged) {
        std::size_t j = free[*res.dependent];
        dependent_error(j, res.why + " (at " + at(res.x) + ")");
      }
      if (!res.converged)
        fail(DiagKind::NoConvergence,
             "Levenberg-Marquardt did not converge: " + res.why + " (started at " + at_text(x0) + ", stopped at " +
                 at(res.x) + ", residual sum of squares " + g15(res.cost) + "); try other starting values with --start NAME=VALUE" +
                 (res.iterations >= req_.max_iterations ? " or more --max-iterations" : ""),
             {}, data_.file->path);
      x = full(res.x);
      out_.iterations = res.iterations;
      out_.convergence = res.why;
    } else {
      out_.convergence = "every unknown is held at a bound";
    }
    // 3. The pieces again from where it stopped: the exact optimum of the piece it ends on.
    solve_pieces(x);
    {
      std::vector<double> a, b;
      if (piece_system(x, a, b)) {
        BoundedLeastSquares ls = solve_bounded_least_squares(a, m, n, b, lo_, hi_);
        bool optimum = !ls.dependent;
        for (std::size_t j = 0; optimum && j < n; ++j) optimum = std::fabs(ls.x[j] - x[j]) <= 1e-12 * std::fabs(x[j]);
        if (optimum) {
          out_.method = "Levenberg-Marquardt, then bounded linear least squares on the pieces of max/min";
          out_.convergence = "the least-squares optimum of the piece of max/min the fit ends on (linear there)";
        }
      }
    }
    // Variances from the Jacobian at the solution, of the unknowns not on a bound.
    free.clear();
    for (std::size_t j = 0; j < n; ++j)
      if (!on_bound(j)) free.push_back(j);
    p.n = free.size();
    std::vector<double> xf, jac(m * free.size());
    for (std::size_t j : free) xf.push_back(x[j]);
    if (!free.empty() && p.jacobian(xf, jac)) {
      LeastSquares ls = solve_least_squares(jac, m, free.size(), std::vector<double>(m, 0.0));
      if (!ls.dependent) {
        cov_diag_.assign(n, 0);
        for (std::size_t k = 0; k < free.size(); ++k) cov_diag_[free[k]] = ls.cov_diag[k];
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      out_.parameters.push_back({unknown_names_[j], x[j], std::nullopt, x0[j]});
      out_.parameters.back().at_bound = on_bound(j);
    }
    return x;
  }

  std::vector<double> cov_diag_;

  void finish(const std::vector<double>& theta) {
    const std::size_t m = rows_.size(), n = unknowns_.size();
    double rss = 0, wrss = 0, rel2 = 0, relmax = -1;
    std::size_t rel_count = 0, negative = 0;
    // R^2 of the residuals the fit minimises (weighted by 1 / |measured| with --relative):
    // the share of the measurements' spread about their (weighted) mean that it explains.
    double w2sum = 0, mean = 0;
    for (const RowCtx& r : rows_) w2sum += r.weight * r.weight, mean += r.weight * r.weight * r.measured;
    mean /= w2sum;
    double sstot = 0;
    for (std::size_t i = 0; i < m; ++i) {
      RowCtx& r = rows_[i];
      bool ok = true;
      double pred = predict(r, theta, ok);
      if (!ok || !std::isfinite(pred)) row_failure(r, point_env(r, theta), " at the fitted values " + at_text(theta));
      FitRow row;
      row.line = r.line;
      for (std::size_t c : input_columns_) row.inputs.emplace_back(data_.columns[c], data_.rows[i].values[c].to_double());
      row.measured = r.measured;
      row.predicted = pred;
      double res = pred - r.measured;
      rss += res * res;
      wrss += res * r.weight * res * r.weight;
      sstot += (r.measured - mean) * r.weight * (r.measured - mean) * r.weight;
      if (pred < 0 && r.measured >= 0) ++negative;
      if (r.measured != 0) {
        double rel = res / r.measured;
        row.relative_error = rel;
        rel2 += rel * rel;
        ++rel_count;
        if (std::fabs(rel) > relmax) {
          relmax = std::fabs(rel);
          out_.max_relative_error_line = r.line;
        }
      }
      out_.rows.push_back(std::move(row));
    }
    out_.rss = rss;
    out_.rms = std::sqrt(rss / static_cast<double>(m));
    if (rel_count) {
      out_.rms_relative_error = std::sqrt(rel2 / static_cast<double>(rel_count));
      out_.max_relative_error = relmax;
    }
    if (sstot > 0) out_.r2 = 1 - wrss / sstot;
    std::size_t held = 0;
    for (const FitParameter& q : out_.parameters) held += q.at_bound;
    if (m > n - held && cov_diag_.size() == n) {
      double sigma2 = wrss / static_cast<double>(m - (n - held));
      for (std::size_t j = 0; j < n; ++j)
        if (!out_.parameters[j].at_bound) out_.parameters[j].std_error = std::sqrt(sigma2 * cov_diag_[j]);
    }
    for (const FitParameter& q : out_.parameters)
      if (q.at_bound)
        out_.notes.push_back(q.name + " is held at its bound " + g15(q.value) +
                             ": the data pull it beyond what the model allows (the least-squares optimum within the bounds)");
    // A fit can explain nearly all the spread (R^2 near 1) while missing the small
    // measurements by a factor: the large ones carry the absolute residuals.
    if (out_.rms_relative_error && *out_.rms_relative_error > kLargeRelativeError) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "the fit misses the measurements by %.3g%% RMS (%.3g%% at line %u)",
                    100 * *out_.rms_relative_error, 100 * *out_.max_relative_error, *out_.max_relative_error_line);
      out_.warnings.push_back(std::string(buf) +
                              (req_.relative ? ": the model does not describe these measurements well"
                                             : "; absolute residuals let the largest measurements decide: --relative "
                                               "weighs every row by its own size"));
    }
    if (negative)
      out_.warnings.push_back(std::to_string(negative) + (negative == 1 ? " row is" : " rows are") +
                              " predicted below 0 at the fitted values");
  }
};

}  // namespace

FitResult fit_model(const CostModel& model, const FitData& data, const FitRequest& request) {
  return Fitter(model, data, request).run();
}

}  // namespace pamc
