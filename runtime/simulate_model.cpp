// simulate() on a normalized model: binds parameters (given values, else defaults) and
// runs the named process equation.
#include <set>

#include "compiler/passes/normalize.h"
#include "runtime/sim_expr.h"
#include "runtime/simulate.h"
#include "compiler/diag/suggest.h"

namespace pamc {

std::map<std::string, double> sim_parameter_values(const NormalModel& model,
                                                   const std::map<std::string, double>& params) {
  std::map<std::string, double> values;
  std::set<std::string> declared;
  for (const NormalParameter& p : model.parameters) {
    declared.insert(p.name);
    auto it = params.find(p.name);
    if (it != params.end()) {
      values[p.name] = it->second;
    } else if (p.default_value) {
      values[p.name] = sim_eval(p.default_value, values);
    }
  }
  for (const auto& kv : params) {
    if (!declared.count(kv.first))
      sim::fail(Loc{}, DiagKind::UnknownParameter,
                unknown_parameter_message("-D", kv.first, std::vector<std::string>(declared.begin(), declared.end())));
  }
  return values;
}

namespace {

// Every time written with parameters only, in every process of the model (a normalized
// body is a DAG: each node is visited once per loop indices in scope).
class TimeCheck {
 public:
  explicit TimeCheck(const std::map<std::string, double>& values) : values_(values) {}
  void walk(const ast::NodeP& e) {
    if (!e || !seen_.emplace(e.get(), scope_).second) return;
    switch (e->kind) {
      case ast::Kind::Delay:
        check(e->kids.at(0), "delay");
        return;
      case ast::Kind::Use:
        check(e->kids.at(1), "use");
        return;
      case ast::Kind::SeqLoop:
      case ast::Kind::ParLoop:
        scope_.push_back(e->name);
        walk(e->kids.at(2));
        scope_.pop_back();
        return;
      case ast::Kind::IfProc:
        for (std::size_t k = 1; k < e->kids.size(); ++k) walk(e->kids[k]);
        return;
      default:  // ; || and groups
        for (const ast::NodeP& k : e->kids) walk(k);
    }
  }

 private:
  void check(const ast::NodeP& t, const char* what) {
    auto v = sim::index_free_time(t, scope_, values_);
    if (v && v->value < 0)
      sim::fail(t->loc, DiagKind::NegativeTime,
                std::string("a negative time in ") + what + ": " + v->text + " = " + sim::fmt_num(v->value) +
                    " at this point");
  }
  const std::map<std::string, double>& values_;
  std::vector<std::string> scope_;
  std::set<std::pair<const ast::Node*, std::vector<std::string>>> seen_;
};

}  // namespace

// The model's domain, as every evaluator checks it before evaluating (docs/semantics.md,
// "Points without a value"): each parameter within its declared bounds, and no time that
// depends on parameters only negative, in any process, whichever is simulated.
static void check_sim_domain(const NormalModel& model, const std::map<std::string, double>& values) {
  for (const NormalParameter& p : model.parameters) {
    auto it = values.find(p.name);
    if (it == values.end()) continue;
    for (const ast::Bound& b : p.bounds) {
      double bound;
      try {
        bound = sim_eval(b.value, values);
      } catch (const SimError&) {
        continue;  // a bound without a value here: the evaluation that needs it says so
      }
      const double v = it->second;
      const bool holds = b.op == ast::Op::Ge ? v >= bound : b.op == ast::Op::Gt ? v > bound
                         : b.op == ast::Op::Le ? v <= bound : v < bound;
      if (!holds)
        sim::fail(p.loc, DiagKind::ParameterOutOfBounds,
                  "parameter " + p.name + " = " + sim::fmt_num(v) + " violates its declared bound " + p.name + " " +
                      ast::op_spelling(b.op) + " " + sim::fmt_num(bound));
    }
  }
  TimeCheck times(values);
  for (const NormalEquation& eq : model.equations)
    if (eq.type == ast::Type::Process) times.walk(eq.body);
}

SimResult simulate(const NormalModel& model, const std::string& process_name,
                   const std::map<std::string, double>& params, const SimOptions& opts) {
  std::map<std::string, double> values = sim_parameter_values(model, params);
  check_sim_domain(model, values);
  std::string name = process_name;
  if (name.rfind("T_", 0) == 0) {
    bool exact = false;
    for (const NormalEquation& eq : model.equations) exact = exact || eq.name == name;
    if (!exact) name = name.substr(2);
  }
  for (const NormalEquation& eq : model.equations) {
    if (eq.name == name) {
      if (eq.type != ast::Type::Process)
        sim::fail(eq.loc, DiagKind::UnknownTarget, "'" + name + "' is not a process; only processes can be simulated");
      return simulate_body(eq.body, values, opts);
    }
  }
  sim::fail(Loc{}, DiagKind::UnknownTarget, "the model has no process '" + process_name + "'");
}

}  // namespace pamc
