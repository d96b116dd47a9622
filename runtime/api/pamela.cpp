// The embedding library: compiles a model through pamc's pipeline, then keeps only what
// evaluation needs (compiled programs, names, formulas as text); no GiNaC object outlives
// Model::from_*, so models and functions are safe to use from several threads.
#include "pamela/pamela.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "compiler/diag/diag.h"
#include "compiler/emit/emit.h"
#include "compiler/passes/pipeline.h"
#include "compiler/symbolic/symbolic.h"
#include "compiler/evaluate/compile.h"
#include "compiler/evaluate/program.h"
#include "compiler/diag/suggest.h"

namespace pamela {
namespace detail {

// The public header names detail::Program; it is the evaluation room's program.
struct Program : pamc::eval::Program {
  Program() = default;
  Program(pamc::eval::Program p) : pamc::eval::Program(std::move(p)) {}
};

struct EquationData {
  std::string name;
  std::string formula;
  bool top_level = false;
  bool vector = false;
  std::string failure;  // why it has no program (vector-valued, ...)
  Program program;
  // An equation the bytecode cannot hold (a resource vector left in the closed form) is
  // evaluated by pamc's exact evaluator instead: slower, but the same value as pamc eval.
  bool exact = false;
  GiNaC::ex value;
  // Where a fact or assumption fails, the unsimplified model gives the value (as pamc eval).
  bool conditional = false;
  GiNaC::ex time_value;
  std::optional<Program> time_program;  // the same, compiled (else the exact evaluator)
};

struct ModelData {
  std::string name;
  std::vector<std::string> parameter_names;
  std::vector<Parameter> parameters;
  std::vector<std::optional<Program>> defaults;  // per parameter
  std::size_t required = 0;                      // parameters before the trailing defaulted run
  std::vector<std::string> assumptions;
  struct Check {
    std::string text;
    bool integer;  // else: nonnegative
    Program program;
  };
  std::vector<Check> checks;
  // The model's domain (declared bounds, index-free times >= 0): outside it, no value (NaN).
  struct DomainCheck {
    bool strict;
    Program program;
  };
  std::vector<DomainCheck> domain;
  std::vector<EquationData> equations;
  std::vector<GiNaC::symbol> symbols;  // the parameters' symbols, for exact evaluation
  // The cost model as `pamc compile --emit latex|sympy` prints it (or why it cannot be).
  struct Emitted {
    std::string text, failure;
  };
  Emitted latex, sympy;
};

}  // namespace detail

namespace {

std::string join_rendered(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.rendered;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Diagnostic convert(const pamc::Diagnostic& d) {
  Diagnostic out;
  if (d.loc.valid()) {
    out.file = d.loc.file->path;
    out.line = static_cast<int>(d.loc.line);
    out.column = static_cast<int>(d.loc.col);
  } else {
    out.file = d.file_name;
  }
  out.kind = pamc::diag_kind_name(d.kind);
  out.message = d.message;
  std::ostringstream r;
  pamc::render_diagnostic(r, d);
  out.rendered = r.str();
  return out;
}

[[noreturn]] void throw_simple(const std::string& kind, const std::string& message, const std::string& file = {}) {
  Diagnostic d;
  d.file = file;
  d.kind = kind;
  d.message = message;
  d.rendered = (file.empty() ? "pamela" : file) + ": error: " + message + " [" + kind + "]\n";
  throw Error({d});
}

// GiNaC is not thread-safe: compile one model at a time.
std::mutex& compile_mutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<detail::ModelData> build(std::unique_ptr<pamc::Compilation> comp, pamc::Diagnostics& diags) {
  if (!comp || diags.has_errors()) {
    std::vector<Diagnostic> ds;
    for (const pamc::Diagnostic& d : diags.all())
      if (d.severity == pamc::Severity::Error) ds.push_back(convert(d));
    if (ds.empty()) throw_simple("InternalError", "the model did not compile");
    throw Error(std::move(ds));
  }
  const pamc::CostModel& model = comp->model;
  auto data = std::make_shared<detail::ModelData>();
  data->name = model.name;
  data->assumptions.assign(model.assumptions.items.begin(), model.assumptions.items.end());
  std::map<GiNaC::ex, unsigned, GiNaC::ex_is_less> params;
  for (std::size_t i = 0; i < model.parameters.size(); ++i) {
    const pamc::CostParameter& p = model.parameters[i];
    params[p.symbol] = static_cast<unsigned>(i);
    data->symbols.push_back(p.symbol);
    Parameter info;
    info.name = p.name;
    if (p.default_value) info.default_text = pamc::sym::to_pamela(*p.default_value);
    for (const auto& b : p.bounds) info.bounds.push_back(b.op + " " + pamc::sym::to_pamela(b.value));
    data->parameter_names.push_back(p.name);
    data->parameters.push_back(std::move(info));
    std::optional<detail::Program> def;
    if (p.default_value) {
      try {
        def = pamc::eval::compile_expression(*p.default_value, params);
      } catch (const pamc::eval::CompileFailure&) {
      }
    }
    data->defaults.push_back(std::move(def));
  }
  data->required = data->defaults.size();
  while (data->required > 0 && data->defaults[data->required - 1]) --data->required;
  for (int integer = 0; integer < 2; ++integer)
    for (const GiNaC::ex& a : integer ? model.assumptions.integer : model.assumptions.nonneg) {
      try {
        data->checks.push_back({integer ? pamc::sym::integer_claim_text(a) : pamc::sym::to_pamela(a) + " >= 0", integer == 1,
                                pamc::eval::compile_expression(a, params)});
      } catch (const pamc::eval::CompileFailure&) {
      }
    }
  for (const pamc::DomainCheck& d : model.domain_checks()) {
    try {
      data->domain.push_back({d.strict, pamc::eval::compile_expression(d.value, params)});
    } catch (const pamc::eval::CompileFailure&) {
    }
  }
  for (const pamc::CostEquation& e : model.equations) {
    detail::EquationData eq;
    eq.name = e.name;
    eq.top_level = e.top_level;
    eq.formula = pamc::sym::to_pamela(e.value);
    eq.vector = pamc::sym::is_vector_valued(e.value);
    eq.time_value = e.time_value;
    eq.conditional = !e.time_value.is_equal(e.value) &&
                     (!model.assumptions.nonneg.empty() || !model.assumptions.integer.empty());
    if (eq.conditional && !pamc::sym::is_vector_valued(e.time_value)) {
      try {
        eq.time_program = pamc::eval::compile_expression(e.time_value, params);
      } catch (const pamc::eval::CompileFailure&) {
      }
    }
    if (eq.vector) {
      eq.failure = "'" + e.name + "' is vector-valued; only scalar equations can be evaluated";
    } else {
      try {
        eq.program = pamc::eval::compile_expression(e.value, params);
      } catch (const pamc::eval::CompileFailure& f) {
        if (f.message.find("vector") != std::string::npos) {
          eq.exact = true;
          eq.value = e.value;
        } else {
          eq.failure = e.name + ": " + f.message;
        }
      }
    }
    data->equations.push_back(std::move(eq));
  }
  auto emit = [&](std::string (*form)(const pamc::CostModel&, bool), detail::ModelData::Emitted& out) {
    try {
      out.text = form(model, false);
    } catch (const pamc::CompileError& e) {
      out.failure = e.diag.message;
    }
  };
  emit(pamc::emit::emit_latex, data->latex);
  emit(pamc::emit::emit_sympy, data->sympy);
  return data;
}

pamc::LoadOptions load_options(const Options& o) {
  pamc::LoadOptions l;
  l.include_dirs = o.include_dirs;
  l.machines = o.machines;
  return l;
}

}  // namespace

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_rendered(diagnostics)), diagnostics_(std::move(diagnostics)) {}

// ---- Model

Model Model::from_file(const std::string& path, const Options& options) {
  std::lock_guard<std::mutex> lock(compile_mutex());
  pamc::Diagnostics diags;
  try {
    auto comp = pamc::compile_file(path, load_options(options),
                                   options.simplify ? pamc::Stage::Simplified : pamc::Stage::Time, diags);
    return Model(build(std::move(comp), diags));
  } catch (const pamc::CompileError& e) {
    throw Error({convert(e.diag)});
  }
}

Model Model::from_text(const std::string& text, const std::string& name, const Options& options) {
  std::lock_guard<std::mutex> lock(compile_mutex());
  pamc::Diagnostics diags;
  std::string file = name;
  if (std::filesystem::path(file).extension() != ".pam") file += ".pam";
  try {
    auto comp = pamc::compile_text(file, text, load_options(options),
                                   options.simplify ? pamc::Stage::Simplified : pamc::Stage::Time, diags);
    return Model(build(std::move(comp), diags));
  } catch (const pamc::CompileError& e) {
    throw Error({convert(e.diag)});
  }
}

const std::string& Model::name() const { return data_->name; }
const std::vector<std::string>& Model::parameters() const { return data_->parameter_names; }
const std::vector<Parameter>& Model::parameter_info() const { return data_->parameters; }
const std::vector<std::string>& Model::assumptions() const { return data_->assumptions; }

static const std::string& emitted(const detail::ModelData::Emitted& e) {
  if (!e.failure.empty()) throw_simple("CannotEmit", e.failure);
  return e.text;
}
const std::string& Model::latex() const { return emitted(data_->latex); }
const std::string& Model::sympy() const { return emitted(data_->sympy); }

std::vector<std::string> Model::top_level_equations() const {
  std::vector<std::string> out;
  for (const auto& e : data_->equations)
    if (e.top_level && !e.vector) out.push_back(e.name);
  return out;
}

std::vector<std::string> Model::equations() const {
  std::vector<std::string> out = top_level_equations();
  for (const auto& e : data_->equations)
    if (!e.top_level && !e.vector) out.push_back(e.name);
  return out;
}

CostFunction Model::function(const std::string& name) const {
  for (const std::string& n : {name, "T_" + name})
    for (std::size_t i = 0; i < data_->equations.size(); ++i)
      if (data_->equations[i].name == n) {
        if (!data_->equations[i].failure.empty()) throw_simple("UnknownTarget", data_->equations[i].failure);
        return CostFunction(data_, i);
      }
  throw_simple("UnknownTarget", "the model " + data_->name + " has no equation '" + name + "' (nor 'T_" + name + "')");
}

std::map<std::string, double> Model::evaluate(const std::map<std::string, double>& args) const {
  std::map<std::string, double> out;
  for (const std::string& n : top_level_equations()) out[n] = function(n)(args);
  return out;
}

std::vector<std::string> Model::violated_assumptions(const std::vector<double>& given) const {
  const std::size_t count = data_->parameter_names.size();
  if (given.size() > count || given.size() < data_->required)
    throw std::invalid_argument("violated_assumptions: " +
                                (data_->required == count ? std::to_string(count)
                                                          : std::to_string(data_->required) + " to " + std::to_string(count)) +
                                " arguments expected (" + std::to_string(given.size()) + " given)");
  std::vector<double> args = given;  // trailing defaulted parameters left out take their defaults
  for (std::size_t i = args.size(); i < count; ++i) args.push_back(data_->defaults[i]->run(args.data()));
  std::vector<std::string> out;
  for (const auto& c : data_->checks) {
    double v = c.program.run(args.data());
    bool holds = c.integer ? std::isfinite(v) && v == std::floor(v) : v >= 0;
    if (!holds) out.push_back(c.text);
  }
  return out;
}

// ---- CostFunction

namespace {

// One equation at one point: its bytecode, or pamc's exact evaluator for what the bytecode
// cannot hold (integral arguments bound as exact integers, so loop bounds stay integers).
// NaN where the model has no value. GiNaC is not thread-safe: the exact path is serialized.
double exact_at(const detail::ModelData& m, const GiNaC::ex& value, const double* args);

// pamc eval's default --max-terms: about 10 s of compiled loop steps.
constexpr long long kMaxFallbackSteps = 1000000000LL;

bool conditions_hold(const detail::ModelData& m, const double* args) {
  for (const auto& c : m.checks) {
    double v = c.program.run(args);
    if (c.integer ? !(std::isfinite(v) && v == std::floor(v)) : !(v >= 0)) return false;
  }
  return true;
}

double run_equation(const detail::ModelData& m, std::size_t eq, const double* args) {
  const detail::EquationData& e = m.equations[eq];
  for (const auto& d : m.domain) {
    const double v = d.program.run(args);  // NaN fails nothing: the evaluation will say
    if (d.strict ? v <= 0 : v < 0) return std::nan("");
  }
  if (e.conditional && !conditions_hold(m, args)) {
    // Checked: NaN where the model has no value (an empty max included), and a loop that
    // would pass the step limit is refused before it runs.
    if (!e.time_program) return exact_at(m, e.time_value, args);
    const pamc::eval::StepLimit limit{kMaxFallbackSteps, [&e](long long need) {
                                        throw WorkLimit(e.name + ": this point needs about " + std::to_string(need) +
                                                        " loop steps of the unsimplified model (an assumption of the "
                                                        "closed form fails here), more than the limit of 1e9");
                                      }};
    return e.time_program->run_checked(args, nullptr, &limit);
  }
  if (!e.exact) return e.program.run(args);
  return exact_at(m, e.value, args);
}

double exact_at(const detail::ModelData& m, const GiNaC::ex& value, const double* args) {
  std::lock_guard<std::mutex> lock(compile_mutex());
  GiNaC::exmap env;
  for (std::size_t i = 0; i < m.symbols.size(); ++i) {
    double x = args[i];
    if (std::isnan(x)) return x;
    if (x == std::floor(x) && std::fabs(x) < 4e18)
      env[m.symbols[i]] = GiNaC::numeric(static_cast<long>(x));
    else
      env[m.symbols[i]] = GiNaC::numeric(x);
  }
  try {
    pamc::sym::WorkBudget budget;
    pamc::sym::Value v = pamc::sym::evaluate(value, env, budget);
    if (v.is_vector) return std::nan("");
    return v.scalar.to_double();
  } catch (const pamc::sym::EvalError&) {
    return std::nan("");
  }
}

}  // namespace

CostFunction::CostFunction(std::shared_ptr<const detail::ModelData> model, std::size_t equation)
    : model_(std::move(model)), program_(&model_->equations[equation].program), equation_(equation) {}

const std::string& CostFunction::name() const { return model_->equations[equation_].name; }
const std::vector<std::string>& CostFunction::parameters() const { return model_->parameter_names; }
std::string CostFunction::formula() const { return model_->equations[equation_].formula; }
std::size_t CostFunction::instructions() const { return program_->code.size(); }

double CostFunction::evaluate(const double* args, std::size_t n) const {
  const std::size_t count = model_->parameter_names.size();
  if (n == count) return run_equation(*model_, equation_, args);
  if (n > count || n < model_->required)
    throw std::invalid_argument(name() + " takes " +
                                (model_->required == count ? std::to_string(count)
                                                           : std::to_string(model_->required) + " to " +
                                                                 std::to_string(count)) +
                                " arguments (" + std::to_string(n) + " given)");
  std::vector<double> full(args, args + n);
  for (std::size_t i = n; i < count; ++i) full.push_back(model_->defaults[i]->run(full.data()));
  return run_equation(*model_, equation_, full.data());
}

void CostFunction::evaluate_many(const double* args, std::size_t rows, std::size_t n, double* out) const {
  if (n == model_->parameter_names.size()) {
    for (std::size_t r = 0; r < rows; ++r) out[r] = run_equation(*model_, equation_, args + r * n);
    return;
  }
  for (std::size_t r = 0; r < rows; ++r) out[r] = evaluate(args + r * n, n);
}

double CostFunction::operator()(const std::map<std::string, double>& args) const {
  const auto& names = model_->parameter_names;
  for (const auto& [k, v] : args)
    if (std::find(names.begin(), names.end(), k) == names.end())
      throw std::invalid_argument("the model " + model_->name + " has no parameter '" + k + "'" + pamc::did_you_mean(k, names));
  std::vector<double> full;
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto it = args.find(names[i]);
    if (it != args.end()) {
      full.push_back(it->second);
    } else if (model_->defaults[i]) {
      full.push_back(model_->defaults[i]->run(full.data()));
    } else {
      throw std::invalid_argument(name() + ": the parameter '" + names[i] + "' has no value and no default");
    }
  }
  return run_equation(*model_, equation_, full.data());
}

}  // namespace pamela
