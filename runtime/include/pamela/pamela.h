// pamela: embed Pamela cost models in a C++ program.
//
//   #include <pamela/pamela.h>
//   pamela::Model m = pamela::Model::from_file("mrm.pam");
//   pamela::CostFunction t = m.function("main");        // or "T_main"
//   double time = t({1000, 1e6});                        // P, N in declaration order
//
// A model is compiled once (parse, check, lower, simplify to closed form); each cost
// equation is then flattened into a compact program over doubles, so evaluating it is a
// short loop over a few instructions (tens of nanoseconds), not symbolic evaluation.
// Compiled models and functions hold no symbolic objects: they are cheap to copy and may
// be evaluated from any number of threads at once. Compiling (from_file, from_text) is
// serialized internally.
//
// The header uses the standard library only; link the CMake target pamela::pamela
// (find_package(pamela)).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_WIN32)
#define PAMELA_API
#else
#define PAMELA_API __attribute__((visibility("default")))
#endif

namespace pamela {

// One diagnostic of a model that failed to compile: where (file, 1-based line and column;
// 0 when the error is about the whole file), its kind (SyntaxError, UnknownName, ...), the
// message, and the whole diagnostic as pamc prints it (with the source line and a caret).
struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string kind;
  std::string message;
  std::string rendered;
};

// Thrown for a model that does not compile (and for equations that have no scalar value).
// what() is every diagnostic rendered, one after another.
class PAMELA_API Error : public std::runtime_error {
 public:
  explicit Error(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const noexcept { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Thrown by a cost function at a point where the closed form's assumptions fail, so the
// unsimplified model answers, and its loops would take more than 10^9 steps (pamc eval's
// default limit, about 10 s): the point is refused at once rather than run for hours.
class PAMELA_API WorkLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<std::string> include_dirs;  // searched by `import` after the importing file's folder
  std::vector<std::string> machines;      // like pamc --machine NAME
  bool simplify = true;                   // false: the unsimplified time-domain model (reference)
};

// A declared model parameter.
struct Parameter {
  std::string name;
  std::optional<std::string> default_text;  // the declared default, in Pamela syntax
  std::vector<std::string> bounds;          // ">= 1", "< N", ...
};

namespace detail {
struct Program;
struct ModelData;
}  // namespace detail

// One cost equation, compiled for fast evaluation. Its arguments are the model's
// parameters, in their order of declaration (as pamc's emitted C++ takes them). Trailing
// arguments may be left out when those parameters have defaults (a default may depend on
// earlier parameters).
class PAMELA_API CostFunction {
 public:
  const std::string& name() const;                     // "T_main"
  const std::vector<std::string>& parameters() const;  // the model's parameters

  double operator()(const std::vector<double>& args) const { return evaluate(args.data(), args.size()); }
  double operator()(std::initializer_list<double> args) const { return evaluate(args.begin(), args.size()); }
  // By name; parameters left out take their defaults. Throws std::invalid_argument for an
  // unknown name or a missing parameter without default.
  double operator()(const std::map<std::string, double>& args) const;
  // The fast path. Throws std::invalid_argument when n is more than the parameters, or
  // fewer than those without default.
  double evaluate(const double* args, std::size_t n) const;
  // Evaluates rows of a row-major table (rows x n): out[r] = f(args + r*n).
  void evaluate_many(const double* args, std::size_t rows, std::size_t n, double* out) const;

  std::string formula() const;  // the closed form, in Pamela syntax
  std::size_t instructions() const;  // size of the compiled program

 private:
  friend class Model;
  CostFunction(std::shared_ptr<const detail::ModelData> model, std::size_t equation);
  std::shared_ptr<const detail::ModelData> model_;
  const detail::Program* program_ = nullptr;
  std::size_t equation_ = 0;
};

class PAMELA_API Model {
 public:
  // Throw pamela::Error carrying the diagnostics when the model does not compile.
  static Model from_file(const std::string& path, const Options& options = {});
  static Model from_text(const std::string& text, const std::string& name = "model", const Options& options = {});

  const std::string& name() const;  // the file's stem, or the name given
  const std::vector<std::string>& parameters() const;
  const std::vector<Parameter>& parameter_info() const;
  // Scalar equations: those printed by default (T_ of top-level processes, top-level
  // numerics) first, then the rest (phi_, omega_, T_ of other processes, ...).
  std::vector<std::string> equations() const;
  std::vector<std::string> top_level_equations() const;
  // What closed forms relied on without proof ("N is an integer", ...).
  const std::vector<std::string>& assumptions() const;
  // Those of them that fail at these arguments (the parameters in declaration order; the
  // defaulted ones at the end may be left out). The closed forms equal the model only where
  // none fails; there the functions, as pamc eval, evaluate the unsimplified model.
  std::vector<std::string> violated_assumptions(const std::vector<double>& args) const;

  // "T_main", "main" (a process: T_main) or a numeric equation's name. Throws
  // pamela::Error (kind UnknownTarget) when there is none, or it is vector-valued.
  CostFunction function(const std::string& name) const;

  // The top-level equations as `pamc compile --emit latex` prints them (amsmath align*), and
  // as `--emit sympy` does (the text of a Python module of SymPy expressions). Throw
  // pamela::Error (kind CannotEmit) for a construct the form cannot write.
  const std::string& latex() const;
  const std::string& sympy() const;

  // Every top-level equation at these parameter values (defaults fill the rest).
  std::map<std::string, double> evaluate(const std::map<std::string, double>& args) const;

 private:
  explicit Model(std::shared_ptr<const detail::ModelData> data) : data_(std::move(data)) {}
  std::shared_ptr<const detail::ModelData> data_;
};

}  // namespace pamela
