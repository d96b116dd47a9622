// Surrogate projection (seed 003, "Performance projection of HPC applications using SPEC
// CFP2006 benchmarks"): an application's hardware-counter metrics on a base machine are
// matched by a weighted combination of benchmarks (the surrogates), and the benchmarks'
// relative runtimes on a target machine project the application's. docs/projection.md
// gives the equations in this notation; each function names the one it implements.
//
// Data flow: ProjectionData (read by projection_input.h from CSV) -> group values and
// ranks (eq. 1-5) -> a search (genetic, section 3.4, or exact, ours) for surrogates that
// minimise the metric errors (eq. 6-9) -> the projection (eq. 10, normalized as eq. 8).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pamc::analysis {

constexpr int kGroups = 6;  // G_1..G_6 of seed 003, Table 1
using GroupArray = std::array<double, kGroups>;

struct Metric {
  std::string name;
  int group = 0;            // 0..5 for G_1..G_6
  double coefficient = 1;   // c_ij of eq. 1 (cycles per event on the base machine)
};

struct Program {
  std::string name;
  double instructions = 0;  // path length I (eq. 8)
  double cpi = 0;           // base cycles per instruction in the base mode (eq. 10 time shares)
  std::vector<double> values;  // metric values, mode-major: values[mode * metrics + j]
  std::optional<double> runtime;  // base runtime (applications; for a projected runtime)
};

struct ProjectionData {
  std::vector<std::string> modes;  // modes[0] is the base mode (ranks, cpi, eq. 10)
  std::vector<Metric> metrics;
  GroupArray group_coefficient{1, 1, 1, 1, 1, 1};  // a_i of eq. 2
  std::array<bool, kGroups> group_present{};       // has at least one metric
  std::vector<Program> benchmarks, applications;
  std::vector<std::string> targets;
  std::vector<std::vector<double>> relative;  // [target][benchmark]: runtime on target / on base
  std::vector<std::vector<std::optional<double>>> measured;  // [target][application], if known
};

// ---- Characterisation (section 2.3, 3.1, 3.2) ----------------------------------------

// G_i = F_i = sum_j c_ij m_ij of one program in one mode (eq. 1).
GroupArray group_values(const ProjectionData& d, const std::vector<double>& values, std::size_t mode);
// Group indices by descending |a_i G_i| (eq. 2, section 3.1); absent groups last.
std::vector<int> rank_groups(const ProjectionData& d, const GroupArray& a, const GroupArray& g);
// The target's a'_i: least squares over benchmarks of sum_i a'_i G_i,b = H_b R'_b / R_b
// (eq. 3-5), in the base mode. Absent groups get 0.
GroupArray target_coefficients(const ProjectionData& d, std::size_t target);

// ---- Matching (section 3.3) ----------------------------------------------------------

struct Surrogate {
  std::size_t benchmark = 0;
  double weight = 0;      // w_k of eq. 6/8/10, in the paper's range 1/1024..1024
  double path_share = 0;  // w_k I_k / I_total: the coefficient eq. 8 applies to metrics
  double time_share = 0;  // path_share * cpi_k, normalized: the coefficient of eq. 10
};
using Selection = std::vector<Surrogate>;

// Fills path_share and time_share from benchmark and weight (eq. 8; docs/projection.md).
void complete_shares(const ProjectionData& d, Selection& s);
// m_ij(comb_surrogates) = sum_k m_ij(s_k) w_k I_k / I_total, every mode (eq. 8).
std::vector<double> combined_metrics(const ProjectionData& d, const Selection& s);

// E_i / sum_j m_ij(app) per mode and group (eq. 7 divided as in eq. 9); 0 for a group the
// application does not have. errors[mode][group].
std::vector<GroupArray> group_errors(const ProjectionData& d, const std::vector<double>& app,
                                     const std::vector<double>& comb);

// Eq. 9: 0 when every group of every mode is below `limit`, else the sum of the terms.
double fitness_eq9(const std::vector<GroupArray>& errors, double limit);

// The search's order (section 3.3, last paragraphs): each group's excess over the limit
// (summed over modes), weighted 2^(5 - rank) by the target's rank order, compared first;
// ties (every group under the limit) by the plain sum of eq. 9's terms.
struct Score {
  std::array<double, kGroups> excess{};  // in rank order
  double ranked = 0;                     // sum_r 2^(5 - r) excess_r
  double sum = 0;                        // sum of all terms of eq. 9
  double eq9 = 0;                        // eq. 9's return value
  bool operator<(const Score& o) const;
};
Score score(const std::vector<GroupArray>& errors, const std::vector<int>& ranks, double limit);

// ---- Searches ------------------------------------------------------------------------

struct GaOptions {  // seed 003, Table 2 (defaults) and section 3.4
  int population = 10000;
  int generations = 2000;        // max generations
  int stall = 15;                // generations without progress before a cataclysm
  int tournament = 7;
  double mutation = 0.03;
  double crossover = 0.77;
  double reproduction = -1;      // < 0: 0.10 - 1/population (Table 2)
  double limit = 0.10;           // eq. 9's per-group limit
  int weight_bits = 16;          // each weight: log2 w in [-10, 10] on this many bits
  int max_surrogates = 4;        // section 4: "between one and four surrogates"
  std::uint64_t seed = 1;
};

struct SearchResult {
  Selection selection;
  std::vector<GroupArray> errors;  // eq. 7 per mode and group
  double fitness = 0;              // eq. 9
  double seconds = 0;
  std::uint64_t evaluations = 0;
  int generations = 0;             // GA only
  int cataclysms = 0;              // GA only
  double residual = 0;             // exact only: the weighted least-squares residual
};

// Section 3.4's genetic algorithm: a bit string per individual (a select bit and a weight
// field per benchmark), tournament selection, one-point crossover, per-gene mutation, one
// elite, cataclysm after `stall` generations without progress; stops at eq. 9 = 0 or at
// the generation limit. Same seed, same data: same result.
SearchResult genetic_search(const ProjectionData& d, std::size_t app, const std::vector<int>& ranks,
                            const GaOptions& o);

// Ours: every subset of at most max_surrogates benchmarks, each solved by least squares on
// eq. 9's weighting (a row per metric and mode, weighted sqrt(m_app / S) / S); subsets with
// a coefficient outside the weight range are infeasible, so the best feasible subset is the
// non-negative least-squares optimum over subsets. Exact: no randomness.
SearchResult exact_search(const ProjectionData& d, std::size_t app, const GaOptions& o);

// ---- Projection (eq. 10) ---------------------------------------------------------------

// sum_k time_share_k P_k: eq. 10 with the weights normalized as eq. 8 combines metrics, so
// that a target identical to the base projects 1 (docs/projection.md).
double project(const ProjectionData& d, const Selection& s, std::size_t target);
// sum_k w_k P_k: eq. 10 as printed (for comparison).
double project_literal(const ProjectionData& d, const Selection& s, std::size_t target);

std::string group_name(int g);  // "G1".."G6"

}  // namespace pamc::analysis
