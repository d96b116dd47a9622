// Surrogate projection, seed 003 (see projection.h and docs/projection.md). Each step is
// one function with its equation number; the genetic search and the exact search share the
// same error measure (eq. 7-9), so their results compare directly.
#include "compiler/analysis/projection.h"

#include "compiler/analysis/gsl_support.h"

#include <gsl/gsl_linalg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>

namespace pamc::analysis {

std::string group_name(int g) { return "G" + std::to_string(g + 1); }

// ---- Characterisation -------------------------------------------------------------------

// Eq. 1: F_i = sum_j c_ij m_ij (G_i is F_i).
GroupArray group_values(const ProjectionData& d, const std::vector<double>& values, std::size_t mode) {
  GroupArray g{};
  const std::size_t m = d.metrics.size();
  for (std::size_t j = 0; j < m; ++j) g[d.metrics[j].group] += d.metrics[j].coefficient * values[mode * m + j];
  return g;
}

// Section 3.1: the rank of G_i follows the magnitude of its term a_i G_i of eq. 2.
std::vector<int> rank_groups(const ProjectionData& d, const GroupArray& a, const GroupArray& g) {
  std::vector<int> order(kGroups);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    if (d.group_present[x] != d.group_present[y]) return d.group_present[x];
    return std::abs(a[x] * g[x]) > std::abs(a[y] * g[y]);
  });
  return order;
}

// Eq. 3-5: H'_b = H_b R'_b / R_b for every benchmark b, a linear system in a'_1..a'_6
// solved by least squares (GSL's SVD-based gsl_multifit_linear; a group no benchmark
// exercises gets 0).
GroupArray target_coefficients(const ProjectionData& d, std::size_t target) {
  std::vector<int> cols;
  for (int i = 0; i < kGroups; ++i)
    if (d.group_present[i]) cols.push_back(i);
  GroupArray out{};
  const std::size_t n = d.benchmarks.size(), p = cols.size();
  if (p == 0 || n == 0) return out;
  gsl::Matrix x(n, p);
  gsl::Vector y(n);
  for (std::size_t b = 0; b < n; ++b) {
    GroupArray g = group_values(d, d.benchmarks[b].values, 0);
    double h = 0;  // eq. 3: H_b = sum a_i G_i,b
    for (int i = 0; i < kGroups; ++i) h += d.group_coefficient[i] * g[i];
    for (std::size_t k = 0; k < p; ++k) x.at(b, k) = g[cols[k]];
    y.at(b) = h * d.relative[target][b];  // eq. 5
  }
  const std::vector<double> c = gsl::linear_fit(x, y).c;
  for (std::size_t k = 0; k < p; ++k) out[cols[k]] = c[k];
  return out;
}

// ---- Matching -----------------------------------------------------------------------------

// Eq. 8's coefficient w_k I_k / I_total, and the share of base time it carries (eq. 10 as
// we apply it): the combination runs I_k w_k instructions of s_k per I_total, each at s_k's
// cpi, so s_k's share of the combination's time is path_share_k cpi_k / sum of the same.
void complete_shares(const ProjectionData& d, Selection& s) {
  double total = 0, time = 0;
  for (const Surrogate& x : s) total += d.benchmarks[x.benchmark].instructions;
  for (Surrogate& x : s) {
    x.path_share = x.weight * d.benchmarks[x.benchmark].instructions / total;
    time += x.path_share * d.benchmarks[x.benchmark].cpi;
  }
  for (Surrogate& x : s) x.time_share = time > 0 ? x.path_share * d.benchmarks[x.benchmark].cpi / time : 0;
}

// Eq. 8.
std::vector<double> combined_metrics(const ProjectionData& d, const Selection& s) {
  std::vector<double> out(d.modes.size() * d.metrics.size(), 0.0);
  for (const Surrogate& x : s) {
    const std::vector<double>& v = d.benchmarks[x.benchmark].values;
    for (std::size_t r = 0; r < out.size(); ++r) out[r] += x.path_share * v[r];
  }
  return out;
}

// Eq. 7, divided by sum_q m_iq(app) as eq. 9 uses it.
std::vector<GroupArray> group_errors(const ProjectionData& d, const std::vector<double>& app,
                                     const std::vector<double>& comb) {
  const std::size_t m = d.metrics.size();
  std::vector<GroupArray> out(d.modes.size(), GroupArray{});
  for (std::size_t mode = 0; mode < d.modes.size(); ++mode) {
    GroupArray total{}, e{};
    for (std::size_t j = 0; j < m; ++j) total[d.metrics[j].group] += app[mode * m + j];
    for (std::size_t j = 0; j < m; ++j) {
      int g = d.metrics[j].group;
      double a = app[mode * m + j];
      if (total[g] > 0) e[g] += std::abs(a - comb[mode * m + j]) * a / total[g];  // eq. 7
    }
    for (int g = 0; g < kGroups; ++g) out[mode][g] = total[g] > 0 ? e[g] / total[g] : 0.0;
  }
  return out;
}

// Eq. 9.
double fitness_eq9(const std::vector<GroupArray>& errors, double limit) {
  double sum = 0;
  bool all_below = true;
  for (const GroupArray& mode : errors)
    for (double e : mode) {
      sum += e;
      if (!(e < limit)) all_below = false;
    }
  return all_below ? 0.0 : sum;
}

bool Score::operator<(const Score& o) const {
  if (ranked != o.ranked) return ranked < o.ranked;
  return sum < o.sum;
}

// Section 3.3: below the limit in every group, eq. 9 is 0 and the search ends; otherwise
// the highest ranked group on the target is brought under the limit first, then the next.
// We weigh each group's excess over the limit by 2^(5 - rank): the top group counts 32
// times the last, so the search favours it without ignoring the others (a strict
// lexicographic order stalls on exact mixtures; docs/projection.md).
Score score(const std::vector<GroupArray>& errors, const std::vector<int>& ranks, double limit) {
  Score s;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (const GroupArray& mode : errors) s.excess[r] += std::max(0.0, mode[ranks[r]] - limit);
    s.ranked += std::ldexp(s.excess[r], kGroups - 1 - static_cast<int>(r));
  }
  for (const GroupArray& mode : errors)
    for (double e : mode) s.sum += e;
  s.eq9 = fitness_eq9(errors, limit);
  return s;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr double kMinLog2Weight = -10, kMaxLog2Weight = 10;  // 1/1024 .. 1024 (section 3.4)

// A reproducible source of random numbers (the mapping to [0, 1) is ours, not the
// standard library's, so a seed gives the same search on every platform).
struct Random {
  std::mt19937_64 engine;
  explicit Random(std::uint64_t seed) : engine(seed) {}
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(uniform() * static_cast<double>(n)); }
};

// The string of section 3.4: per benchmark, one select bit then weight_bits bits of
// log2(weight) scaled onto [-10, 10].
struct Genome {
  std::vector<std::uint8_t> bits;
  Score score;
};

class Ga {
 public:
  Ga(const ProjectionData& d, std::size_t app, const std::vector<int>& ranks, const GaOptions& o)
      : d_(d), app_(app), ranks_(ranks), o_(o), rng_(o.seed), n_(d.benchmarks.size()),
        gene_(static_cast<std::size_t>(1 + o.weight_bits)), app_totals_(d.modes.size(), GroupArray{}),
        errors_(d.modes.size(), GroupArray{}) {
    const std::size_t m = d.metrics.size();
    for (std::size_t mode = 0; mode < d.modes.size(); ++mode)
      for (std::size_t j = 0; j < m; ++j) app_totals_[mode][d.metrics[j].group] += d.applications[app].values[mode * m + j];
  }

  SearchResult run() {
    auto t0 = std::chrono::steady_clock::now();
    const std::size_t pop = static_cast<std::size_t>(std::max(2, o_.population));
    double reproduction = o_.reproduction >= 0 ? o_.reproduction : std::max(0.0, 0.10 - 1.0 / static_cast<double>(pop));
    double total = o_.crossover + reproduction + o_.mutation;
    if (total <= 0) total = 1, reproduction = 1;
    std::vector<Genome> people(pop);
    for (Genome& g : people) randomize(g);
    Genome best = *std::min_element(people.begin(), people.end(), by_score);
    int since_progress = 0;
    SearchResult out;
    int gen = 0;
    while (gen < o_.generations && best.score.eq9 > 0) {  // termination fitness 0.0 (Table 2)
      ++gen;
      std::vector<Genome> next;
      next.reserve(pop);
      next.push_back(best);  // elite reproduction: 1 / population
      while (next.size() < pop) {
        double r = rng_.uniform() * total;
        Genome child;
        if (r < o_.crossover) {
          child = crossover(tournament(people), tournament(people));
        } else if (r < o_.crossover + reproduction) {
          next.push_back(tournament(people));
          continue;
        } else {
          child = tournament(people);
          mutate(child);
        }
        evaluate(child);
        next.push_back(std::move(child));
      }
      people.swap(next);
      const Genome& gbest = *std::min_element(people.begin(), people.end(), by_score);
      if (gbest.score < best.score) {
        best = gbest;
        since_progress = 0;
      } else if (++since_progress >= o_.stall) {
        cataclysm(people, best);
        ++out.cataclysms;
        since_progress = 0;
      }
    }
    out.selection = decode(best.bits);
    complete_shares(d_, out.selection);
    out.errors = group_errors(d_, d_.applications[app_].values, combined_metrics(d_, out.selection));
    out.fitness = fitness_eq9(out.errors, o_.limit);
    if (score(out.errors, ranks_, o_.limit).sum != best.score.sum)
      throw std::logic_error("the genetic search's inner loop disagrees with eq. 7-8");
    out.generations = gen;
    out.evaluations = evaluations_;
    out.seconds = seconds_since(t0);
    return out;
  }

 private:
  static bool by_score(const Genome& a, const Genome& b) { return a.score < b.score; }

  double weight(const std::vector<std::uint8_t>& bits, std::size_t k) const {
    std::uint64_t code = 0;
    for (std::size_t b = 1; b < gene_; ++b) code = code << 1 | bits[k * gene_ + b];
    double top = std::ldexp(1.0, o_.weight_bits) - 1;
    return std::exp2(kMinLog2Weight + (kMaxLog2Weight - kMinLog2Weight) * static_cast<double>(code) / top);
  }

  Selection decode(const std::vector<std::uint8_t>& bits) const {
    Selection s;
    for (std::size_t k = 0; k < n_; ++k)
      if (bits[k * gene_]) s.push_back(Surrogate{k, weight(bits, k), 0, 0});
    return s;
  }

  // At least one and at most max_surrogates benchmarks selected.
  void repair(Genome& g) {
    std::vector<std::size_t>& on = on_;
    on.clear();
    for (std::size_t k = 0; k < n_; ++k)
      if (g.bits[k * gene_]) on.push_back(k);
    while (on.size() > static_cast<std::size_t>(std::max(1, o_.max_surrogates))) {
      std::size_t i = rng_.below(on.size());
      g.bits[on[i] * gene_] = 0;
      on.erase(on.begin() + static_cast<long>(i));
    }
    if (on.empty()) {
      on.push_back(rng_.below(n_));
      g.bits[on.back() * gene_] = 1;
    }
  }

  // The GA's inner loop: eq. 8, 7 and the score as complete_shares, combined_metrics and
  // group_errors compute them (same operations in the same order, so the same numbers), on
  // buffers kept between calls. run() checks the best string against those functions.
  void evaluate(Genome& g) {
    repair(g);
    const std::size_t m = d_.metrics.size(), rows = d_.modes.size() * m;
    double total = 0;
    for (std::size_t k : on_) total += d_.benchmarks[k].instructions;
    comb_.assign(rows, 0.0);
    for (std::size_t k : on_) {
      double share = weight(g.bits, k) * d_.benchmarks[k].instructions / total;
      const std::vector<double>& v = d_.benchmarks[k].values;
      for (std::size_t r = 0; r < rows; ++r) comb_[r] += share * v[r];
    }
    const std::vector<double>& app = d_.applications[app_].values;
    for (std::size_t mode = 0; mode < d_.modes.size(); ++mode) {
      GroupArray e{};
      const GroupArray& total_g = app_totals_[mode];
      for (std::size_t j = 0; j < m; ++j) {
        int grp = d_.metrics[j].group;
        double a = app[mode * m + j];
        if (total_g[grp] > 0) e[grp] += std::abs(a - comb_[mode * m + j]) * a / total_g[grp];
      }
      for (int grp = 0; grp < kGroups; ++grp) errors_[mode][grp] = total_g[grp] > 0 ? e[grp] / total_g[grp] : 0.0;
    }
    g.score = score(errors_, ranks_, o_.limit);
    ++evaluations_;
  }

  void randomize(Genome& g) {
    g.bits.assign(n_ * gene_, 0);
    double p_select = std::min(0.5, 2.0 / static_cast<double>(n_));
    for (std::size_t k = 0; k < n_; ++k) {
      g.bits[k * gene_] = rng_.uniform() < p_select;
      for (std::size_t b = 1; b < gene_; ++b) g.bits[k * gene_ + b] = rng_.uniform() < 0.5;
    }
    evaluate(g);
  }

  const Genome& tournament(const std::vector<Genome>& people) {
    const Genome* best = &people[rng_.below(people.size())];
    for (int i = 1; i < o_.tournament; ++i) {
      const Genome* c = &people[rng_.below(people.size())];
      if (c->score < best->score) best = c;
    }
    return *best;
  }

  // One-point crossover of the two strings.
  Genome crossover(const Genome& a, const Genome& b) {
    Genome child;
    std::size_t cut = 1 + rng_.below(a.bits.size() - 1);
    child.bits.assign(a.bits.begin(), a.bits.begin() + static_cast<long>(cut));
    child.bits.insert(child.bits.end(), b.bits.begin() + static_cast<long>(cut), b.bits.end());
    return child;
  }

  // One gene changes: its select bit, or one bit of its weight.
  void mutate(Genome& g) {
    std::size_t k = rng_.below(n_);
    if (rng_.uniform() < 0.5)
      g.bits[k * gene_] ^= 1;
    else
      g.bits[k * gene_ + 1 + rng_.below(gene_ - 1)] ^= 1;
  }

  // Stuck for `stall` generations: keep the best, replace the rest by fresh strings (half)
  // and by the best with a fifth of its bits flipped (half).
  void cataclysm(std::vector<Genome>& people, const Genome& best) {
    people[0] = best;
    for (std::size_t i = 1; i < people.size(); ++i) {
      if (i % 2) {
        randomize(people[i]);
      } else {
        people[i].bits = best.bits;
        for (std::uint8_t& bit : people[i].bits)
          if (rng_.uniform() < 0.2) bit ^= 1;
        evaluate(people[i]);
      }
    }
  }

  const ProjectionData& d_;
  std::size_t app_;
  std::vector<int> ranks_;
  GaOptions o_;
  Random rng_;
  std::size_t n_, gene_;
  std::uint64_t evaluations_ = 0;
  std::vector<GroupArray> app_totals_;  // sum_q m_iq(app) per mode and group
  std::vector<std::size_t> on_;         // the selected benchmarks of the string in hand
  std::vector<double> comb_;            // eq. 8
  std::vector<GroupArray> errors_;      // eq. 7
};

}  // namespace

SearchResult genetic_search(const ProjectionData& d, std::size_t app, const std::vector<int>& ranks,
                            const GaOptions& o) {
  if (d.benchmarks.empty()) throw std::invalid_argument("no benchmarks to search");
  return Ga(d, app, ranks, o).run();
}

// The exact search: weighted least squares per subset from one Gram matrix.
SearchResult exact_search(const ProjectionData& d, std::size_t app, const GaOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  const std::size_t m = d.metrics.size(), n = d.benchmarks.size();
  const std::vector<double>& a = d.applications[app].values;
  // Rows: eq. 9's terms as least squares. A metric's residual counts in eq. 7 with weight
  // m_app / S and in eq. 9 divided by S again; squared, that is the weight sqrt(m_app / S) / S.
  std::vector<double> omega(a.size(), 0.0);
  for (std::size_t mode = 0; mode < d.modes.size(); ++mode) {
    GroupArray total{};
    for (std::size_t j = 0; j < m; ++j) total[d.metrics[j].group] += a[mode * m + j];
    for (std::size_t j = 0; j < m; ++j) {
      double S = total[d.metrics[j].group], v = a[mode * m + j];
      if (S > 0 && v > 0) omega[mode * m + j] = std::sqrt(v / S) / S;
    }
  }
  std::vector<double> gram(n * n, 0.0), rhs(n, 0.0);
  for (std::size_t r = 0; r < a.size(); ++r) {
    double w2 = omega[r] * omega[r];
    if (w2 == 0) continue;
    for (std::size_t k = 0; k < n; ++k) {
      double xk = d.benchmarks[k].values[r];
      rhs[k] += w2 * xk * a[r];
      for (std::size_t l = 0; l < n; ++l) gram[k * n + l] += w2 * xk * d.benchmarks[l].values[r];
    }
  }
  double bb = 0;
  for (std::size_t r = 0; r < a.size(); ++r) bb += omega[r] * omega[r] * a[r] * a[r];
  const double tolerance = 1e-12 * bb;  // a larger subset must do better than rounding

  SearchResult out;
  double best = HUGE_VAL;
  std::vector<std::size_t> subset;
  gsl::NoAbort quiet;  // a singular subset is just skipped
  // Solves one subset: the normal equations by Cholesky (GSL), then the feasibility of the
  // weights (all within 1/1024..1024), then the residual computed from the rows.
  auto solve = [&]() {
    const std::size_t k = subset.size();
    gsl::Matrix g(k, k);
    gsl::Vector c(k), x(k);
    for (std::size_t i = 0; i < k; ++i) {
      c.at(i) = rhs[subset[i]];
      for (std::size_t j = 0; j < k; ++j) g.at(i, j) = gram[subset[i] * n + subset[j]];
    }
    ++out.evaluations;
    bool ok = gsl_linalg_cholesky_decomp1(g.get()) == GSL_SUCCESS &&
              gsl_linalg_cholesky_solve(g.get(), c.get(), x.get()) == GSL_SUCCESS;
    Selection s;
    if (ok) {
      double total = 0;
      for (std::size_t i = 0; i < k; ++i) total += d.benchmarks[subset[i]].instructions;
      for (std::size_t i = 0; i < k && ok; ++i) {
        double share = x.at(i);
        double w = share * total / d.benchmarks[subset[i]].instructions;  // eq. 8 inverted
        if (!(w >= std::exp2(kMinLog2Weight) && w <= std::exp2(kMaxLog2Weight))) ok = false;
        s.push_back(Surrogate{subset[i], w, 0, 0});
      }
    }
    if (!ok) return;
    complete_shares(d, s);
    std::vector<double> comb = combined_metrics(d, s);
    double rss = 0;
    for (std::size_t r = 0; r < a.size(); ++r) rss += std::pow(omega[r] * (a[r] - comb[r]), 2);
    if (rss < best - tolerance) {
      best = rss;
      out.selection = s;
    }
  };
  // Subsets in order of size, so the smallest of equally good subsets wins.
  std::function<void(std::size_t, std::size_t)> walk = [&](std::size_t from, std::size_t left) {
    if (left == 0) return solve();
    for (std::size_t k = from; k + left <= n; ++k) {
      subset.push_back(k);
      walk(k + 1, left - 1);
      subset.pop_back();
    }
  };
  for (std::size_t size = 1; size <= std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, o.max_surrogates))); ++size)
    walk(0, size);
  if (!out.selection.empty()) {
    out.errors = group_errors(d, a, combined_metrics(d, out.selection));
    out.fitness = fitness_eq9(out.errors, o.limit);
    out.residual = best;
  }
  out.seconds = seconds_since(t0);
  return out;
}

// Eq. 10 with eq. 8's normalization: P_app = sum_k v_k P_k, v_k the time shares.
double project(const ProjectionData& d, const Selection& s, std::size_t target) {
  double p = 0;
  for (const Surrogate& x : s) p += x.time_share * d.relative[target][x.benchmark];
  return p;
}

// Eq. 10 as printed: P_app = sum_k w_k P_k.
double project_literal(const ProjectionData& d, const Selection& s, std::size_t target) {
  double p = 0;
  for (const Surrogate& x : s) p += x.weight * d.relative[target][x.benchmark];
  return p;
}

}  // namespace pamc::analysis
