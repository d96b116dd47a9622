// Calibration of a cost model's unknown constants from measurements (`pamc fit`; seed 004
// section 3.2, the m0 of seed 001).
//
// The unknowns are numeric parameters of the model. Each row of a CSV file binds the other
// parameters (its columns named after them) and gives one measured value of the target
// equation; fit_model finds the unknowns that minimise the sum of squared residuals
// (predicted - measured), or of relative residuals ((predicted - measured) / measured).
//
//   - The unknowns stay where the facts allow: >= 0 unless declared otherwise, and within
//     their declared bounds (the closed form holds there only).
//   - When the target is linear in the unknowns (checked symbolically: every second
//     derivative with respect to the unknowns is zero, and they enter only through +, *
//     and powers), the least-squares problem is solved directly by Householder QR on
//     doubles, columns scaled to unit norm (solve_least_squares), or where that breaks a
//     bound by bounded least squares (solve_bounded_least_squares).
//   - Otherwise the target is mostly linear on each piece of its max/min: the bounded
//     least-squares optimum of the pieces the rows lie on, from the unknowns' declared
//     defaults (or 1); then Levenberg-Marquardt (levenberg_marquardt) over the unknowns
//     not on a bound, with derivatives from GiNaC's diff of each row's branch (every
//     max/min holding an unknown at the argument attaining it); then the pieces again,
//     so a piecewise-linear target ends at the exact optimum of its piece.
//
// This file holds the model logic; the numerics are least_squares.h (on GSL), the command
// (options, printing) compiler/driver/fit_command.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/analysis/least_squares.h"
#include "compiler/diag/diag.h"
#include "compiler/passes/cost_model.h"
#include "compiler/source/source.h"

namespace pamc {

// ---- Measurements ----------------------------------------------------------------------

// A CSV file: a header row of column names, then rows of exact decimal numbers. Blank lines
// and lines starting with '#' are skipped; fields may be double-quoted; spaces around a
// field are ignored.
struct FitData {
  SourceFileP file;  // for diagnostics that point into the CSV (keep alive while rendering)
  std::vector<std::string> columns;
  std::vector<std::uint32_t> column_cols;  // the header column of each name (1-based bytes)
  struct Row {
    std::uint32_t line = 0;
    std::vector<GiNaC::numeric> values;  // one per column
    std::vector<std::uint32_t> cols;     // where each field starts
  };
  std::vector<Row> rows;
};

// Throws CompileError, SyntaxError (a ragged row, a cell that is not a number, an empty or
// repeated column name, no header, no rows), located in `file`: keep it alive until the
// error is rendered.
FitData parse_fit_data(SourceFileP file);

// ---- Fitting a model -------------------------------------------------------------------

struct FitRequest {
  std::vector<std::string> unknowns;              // --fit: distinct, none in bindings (the driver checks, once)
  std::map<std::string, GiNaC::numeric> bindings; // -D: fixed for every row
  std::map<std::string, GiNaC::numeric> start;    // --start: LM starting values
  std::string target;    // "" : T_main, else the only top-level equation
  std::string measured;  // "" : by the naming rule (docs/cli.md)
  bool relative = false; // minimise relative residuals
  int max_iterations = 200;
};

struct FitParameter {
  std::string name;
  double value = 0;
  std::optional<double> std_error;  // sqrt(sigma^2 (J^T J)^-1_jj), when rows > unknowns
  double start = 0;                 // LM starting value (nonlinear fits)
  bool at_bound = false;            // held at a bound (0 for a time): no standard error
};

struct FitRow {
  std::uint32_t line = 0;  // in the CSV
  std::vector<std::pair<std::string, double>> inputs;  // the parameter columns
  double measured = 0, predicted = 0;
  std::optional<double> relative_error;  // (predicted - measured) / measured; none if measured = 0
};

struct FitResult {
  std::string target;     // T_main
  std::string equation;   // its closed form, Pamela syntax
  std::string measured;   // the measurement column
  bool linear = false;
  std::string method;     // "linear least squares (Householder QR)" / "Levenberg-Marquardt"
  bool relative = false;
  int iterations = 0;     // LM iterations (0 for linear)
  std::string convergence;  // LM: how it stopped
  std::vector<FitParameter> parameters;
  std::vector<FitRow> rows;
  double rss = 0;               // sum of (predicted - measured)^2
  double rms = 0;               // sqrt(rss / rows)
  std::optional<double> rms_relative_error, max_relative_error;
  std::optional<std::uint32_t> max_relative_error_line;
  // 1 - sum (w r)^2 / sum (w (measured - mean_w))^2 with the fit's weights w (1, or
  // 1 / |measured| with --relative) and their weighted mean; none if all equal.
  std::optional<double> r2;
  std::vector<std::string> notes;  // ignored columns, rows outside the closed form's assumptions, held bounds
  std::vector<std::string> warnings;  // a large relative error, negative predictions
};

// Above this RMS relative error the fit warns (the measurements are missed by more than 10%).
constexpr double kLargeRelativeError = 0.1;

// Throws CompileError: UnknownTarget (no such target, --fit or -D name, no measurement
// column), UnboundParameter (naming every parameter with no value), EvaluationError (too
// few rows, unknowns the data cannot separate, no convergence, a value that is not finite),
// and errors located in the CSV (a row that breaks a declared bound).
FitResult fit_model(const CostModel& model, const FitData& data, const FitRequest& request);

}  // namespace pamc
