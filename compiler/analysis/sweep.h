// Parameter sweeps (`pamc sweep`): ranges, the grid (cartesian product of the ranges, the
// first --sweep varying slowest), and fast evaluation of the cost equations at every point.
//
// Each target is reduced once to an expression in the swept parameters only (-D values and
// declared defaults substituted exactly) and compiled to the evaluation room's Program
// (compiler/evaluate/program.h): closed forms a batch of points at a time, residual loops
// point by point; a target that does not compile is evaluated exactly per point. The
// checks `pamc eval` makes (declared bounds, the assumptions closed forms rely on) are
// compiled too and run over the whole grid before anything is printed; a point that fails
// one, or whose double result is not finite, is re-evaluated exactly so the error is the
// one `pamc eval` would give at that point.
#pragma once
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/passes/cost_model.h"
#include "compiler/evaluate/program.h"

namespace pamc {

struct SweepRange {
  std::string name;
  GiNaC::numeric first, last, step;  // step: the increment, or the factor when geometric
  bool geometric = false;
  std::vector<double> dvalues;  // first, first+step, ... up to last (inclusive), as doubles
  std::size_t size() const { return dvalues.size(); }
  GiNaC::numeric value(std::size_t k) const;  // exactly
  std::vector<GiNaC::numeric> geo;  // geometric: the exact values
};

// Parses NAME=FIRST:LAST[:STEP|:xFACTOR]. On failure returns false with a message.
bool parse_sweep_range(const std::string& text, SweepRange& out, std::string& error,
                       std::size_t max_points = 100'000'000);

class Sweep {
public:
  // Throws CompileError as evaluate_model does (unknown parameter or target, unbound
  // parameter, a bound or assumption violated at the first point).
  Sweep(const CostModel& model, const std::map<std::string, GiNaC::numeric>& fixed,
        std::vector<SweepRange> ranges, const std::vector<std::string>& targets);

  std::size_t points() const { return points_; }
  const std::vector<SweepRange>& ranges() const { return ranges_; }
  const std::vector<std::string>& target_names() const { return names_; }
  // Targets evaluated exactly per point (did not compile), with the reason.
  const std::vector<std::pair<std::string, std::string>>& slow_targets() const { return slow_; }

  // Index of each swept parameter's value at grid point i.
  void indices(std::size_t i, std::vector<std::size_t>& idx) const;
  // Runs the compiled checks over the whole grid: a declared bound that fails throws the
  // exact diagnostic; a point outside the closed form's assumptions is evaluated exactly
  // later (eval's fallback to the time-domain model), or throws if the model has no value.
  void validate();
  // Values of every target at points [begin, end): out[(i - begin) * targets + t].
  // Evaluates in batches of kBatch points.
  static constexpr std::size_t kBatch = 512;
  void evaluate(std::size_t begin, std::size_t end, double* out) const;

private:
  double exact_at(std::size_t target, const std::vector<std::size_t>& idx) const;
  void fill_batch(std::vector<std::size_t>& idx, std::size_t n, std::size_t b0, std::vector<double>& xs,
                  std::vector<const double*>& vars) const;
  void check_exactly_at(const std::vector<std::size_t>& idx) const;
  [[noreturn]] void fail_exactly_at(const std::vector<std::size_t>& idx, const std::string& what) const;

  const CostModel& model_;
  std::map<std::string, GiNaC::numeric> fixed_;
  std::vector<SweepRange> ranges_;
  std::size_t points_ = 1;
  std::vector<std::string> names_;
  // Each target's compiled program (none: the exact evaluator at every point). A straight
  // program (a closed form) runs a batch of points per instruction; one with loops runs
  // point by point, and the exact evaluator takes over only where it gives no number.
  std::vector<std::optional<eval::Program>> programs_;
  std::vector<std::pair<std::string, std::string>> slow_;
  struct Check {
    eval::Program program;
    enum Kind { Ge, Gt, Le, Lt, Integer, Nonneg } kind;
  };
  std::vector<Check> checks_;
  std::unordered_set<std::size_t> outside_assumptions_;  // grid points evaluated exactly
  bool all_outside_assumptions_ = false;                 // the fixed values break one
};

// Substitutes -D values and declared defaults (repeatedly, defaults may mention other
// parameters) for every parameter not in `keep`.
GiNaC::ex bind_except(const CostModel& model, const GiNaC::ex& e,
                      const std::map<std::string, GiNaC::numeric>& fixed, const std::vector<std::string>& keep);

}  // namespace pamc
