// Seed 001's hybrid statistical/empirical study ("A hybrid approach ...", MIPS R10000 on
// the Origin 2000 and the Power Challenge), as data analysis: level 1 is a two-factor
// factorial experiment (codes x machines, with interaction) per dependent variable; level
// 2 computes m0 of eq. 2-3 per problem size and asks whether it is constant as the problem
// grows, i.e. whether performance is predictable. docs/predictability.md has the notation.
// Statistics (least squares, F and t distributions) come from GSL.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compiler/analysis/table.h"

namespace pamc::analysis {

// ---- Level 1: two-factor factorial ANOVA --------------------------------------------------

struct AnovaRow {
  std::string source;  // "code", "machine", "code x machine", "residual", "total"
  int df = 0;
  double ss = 0, ms = 0;
  std::optional<double> f, p;  // none for residual and total
};

struct Anova {
  std::string response;
  std::vector<std::string> a_levels, b_levels;  // codes, machines
  std::vector<AnovaRow> rows;  // code, machine, interaction, residual, total
  AnovaRow model;              // all cells against the grand mean ("overall effect")
  bool balanced = true;
};

// Two factors with interaction. Sums of squares: the interaction is the full (cell means)
// model against the additive one; each main effect is the additive model against the model
// without it (type II; for a balanced design these are the textbook sums). Needs every cell
// observed and more observations than cells; throws std::invalid_argument otherwise.
Anova two_factor_anova(const std::string& response, const std::vector<std::string>& a,
                       const std::vector<std::string>& b, const std::vector<double>& y);

// ---- Level 2: m0 per problem size -------------------------------------------------------

struct HybridObservation {
  std::string code, machine;
  double size = 0;
  double cpi = 0, cpi_pipeline = 0;
  double memory_max = 0;  // sum_i h_i T_i of eq. 2 (cycles per instruction at maximum latency)
  std::uint32_t line = 0;  // in the CSV
};

struct M0Estimate {
  double size = 0;
  int n = 0;                      // observations at this size
  double m0 = 0;                  // 1 - slope of (cpi - cpi_pipeline) on sum h_i T_i (eq. 2)
  std::optional<double> std_error;  // from the residuals, when n > 1
};

struct M0Study {
  std::string code, machine;
  std::vector<M0Estimate> sizes;  // ascending size
  // Equality of m0 across sizes: one common slope against one per size (extra sum of
  // squares F test); needs replicates.
  std::optional<double> f, f_p;
  int f_df1 = 0, f_df2 = 0;
  // Trend: least-squares line m0 = c0 + c1 size, t test of c1 = 0; needs three sizes.
  std::optional<double> slope, slope_se, slope_p;
  int slope_df = 0;
  std::string test;        // the test the verdict uses: "F" or "slope" or "" (none possible)
  std::optional<bool> predictable;  // m0 constant at level alpha; none when no test applies
};

// One study per (code, machine) in order of first appearance; sizes below min_size left out
// (the paper's steady state).
std::vector<M0Study> m0_studies(const std::vector<HybridObservation>& obs, double alpha, double min_size);

// Across machines (seed 001, level 2): "if m0 - m0' is constant as problem size increases
// ... the memory design differences make no difference for the codes being measured".
// For one code on two machines, over the sizes both measured with replicates: one slope per
// size and machine (full) against slopes whose machine difference is one constant
// (reduced), an extra sum of squares F test.
struct M0Difference {
  std::string code, machine_a, machine_b;
  std::vector<double> sizes, difference;  // m0_a(s) - m0_b(s)
  std::optional<double> f, p;
  int df1 = 0, df2 = 0;
  std::optional<bool> constant;  // the difference is constant at level alpha
};
std::vector<M0Difference> m0_differences(const std::vector<HybridObservation>& obs, double alpha, double min_size);

// Reads the hybrid CSV (docs/predictability.md): code, machine, size, cpi, and optionally
// cpi_pipeline and pairs h<i>, T<i> (hits per instruction and maximum latency at level i).
// has_m0 is false when the pairs or cpi_pipeline are missing (level 2 cannot be done).
std::vector<HybridObservation> read_hybrid_data(const Table& t, bool& has_pipeline, bool& has_m0);

}  // namespace pamc::analysis
