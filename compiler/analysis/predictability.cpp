// Seed 001's study (see predictability.h). Equation numbers are seed 001's.
#include "compiler/analysis/predictability.h"

#include "compiler/analysis/gsl_support.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

namespace pamc::analysis {

namespace {

std::vector<std::string> levels(const std::vector<std::string>& x) {
  std::vector<std::string> out;
  for (const std::string& s : x)
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

std::size_t index_of(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

// Residual sum of squares of y around the means of the groups `g` (a one-way model).
double rss_groups(const std::vector<std::size_t>& g, std::size_t groups, const std::vector<double>& y) {
  std::vector<double> sum(groups, 0.0), n(groups, 0.0);
  for (std::size_t i = 0; i < y.size(); ++i) sum[g[i]] += y[i], n[g[i]] += 1;
  double rss = 0;
  for (std::size_t i = 0; i < y.size(); ++i) rss += std::pow(y[i] - sum[g[i]] / n[g[i]], 2);
  return rss;
}

// Residual sum of squares of the additive model y = mu + alpha_a + beta_b (dummy coding),
// by GSL's least squares.
double rss_additive(const std::vector<std::size_t>& a, std::size_t na, const std::vector<std::size_t>& b,
                    std::size_t nb, const std::vector<double>& y) {
  const std::size_t n = y.size(), p = 1 + (na - 1) + (nb - 1);
  gsl::Matrix x(n, p);
  gsl::Vector v(n);
  for (std::size_t i = 0; i < n; ++i) {
    x.at(i, 0) = 1.0;
    if (a[i] > 0) x.at(i, a[i]) = 1.0;
    if (b[i] > 0) x.at(i, na - 1 + b[i]) = 1.0;
    v.at(i) = y[i];
  }
  return gsl::linear_fit(x, v).rss;
}

AnovaRow effect(const std::string& source, int df, double ss, double mse, int df_error) {
  AnovaRow r{source, df, ss, df > 0 ? ss / df : 0, std::nullopt, std::nullopt};
  if (df > 0 && df_error > 0) {
    double f = mse > 0 ? r.ms / mse : (r.ms > 0 ? HUGE_VAL : 0.0);
    r.f = f;
    r.p = std::isinf(f) ? 0.0 : gsl_cdf_fdist_Q(f, df, df_error);
  }
  return r;
}

}  // namespace

Anova two_factor_anova(const std::string& response, const std::vector<std::string>& a,
                       const std::vector<std::string>& b, const std::vector<double>& y) {
  Anova out;
  out.response = response;
  out.a_levels = levels(a);
  out.b_levels = levels(b);
  const std::size_t na = out.a_levels.size(), nb = out.b_levels.size(), n = y.size();
  std::vector<std::size_t> ai(n), bi(n), cell(n), count(na * nb, 0);
  for (std::size_t i = 0; i < n; ++i) {
    ai[i] = index_of(out.a_levels, a[i]);
    bi[i] = index_of(out.b_levels, b[i]);
    cell[i] = ai[i] * nb + bi[i];
    ++count[cell[i]];
  }
  for (std::size_t c = 0; c < count.size(); ++c) {
    if (count[c] == 0)
      throw std::invalid_argument("no observation of code '" + out.a_levels[c / nb] + "' on machine '" +
                                  out.b_levels[c % nb] + "': the interaction cannot be estimated");
    if (count[c] != count[0]) out.balanced = false;
  }
  if (n <= na * nb)
    throw std::invalid_argument("as many observations as code x machine cells: no replicate to estimate the error");
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(n);
  double sst = 0;
  for (double v : y) sst += (v - mean) * (v - mean);
  // Sums of squares below rounding (a response that is the same in every run of a cell)
  // are 0, so that F is not a ratio of two rounding errors.
  double sum_squares = 0;
  for (double v : y) sum_squares += v * v;
  const double eps = 1e-12 * (sst + sum_squares);
  auto clean = [eps](double ss) { return ss <= eps ? 0.0 : ss; };
  const double rss_full = clean(rss_groups(cell, na * nb, y));       // cell means
  const double rss_add = clean(rss_additive(ai, na, bi, nb, y));     // code + machine
  const double rss_a = clean(rss_groups(ai, na, y)), rss_b = clean(rss_groups(bi, nb, y));
  const int df_a = static_cast<int>(na) - 1, df_b = static_cast<int>(nb) - 1, df_ab = df_a * df_b;
  const int df_e = static_cast<int>(n - na * nb);
  const double mse = rss_full / df_e;
  out.rows.push_back(effect("code", df_a, clean(rss_b - rss_add), mse, df_e));  // type II
  out.rows.push_back(effect("machine", df_b, clean(rss_a - rss_add), mse, df_e));
  out.rows.push_back(effect("code x machine", df_ab, clean(rss_add - rss_full), mse, df_e));
  out.rows.push_back(AnovaRow{"residual", df_e, rss_full, mse, std::nullopt, std::nullopt});
  out.rows.push_back(AnovaRow{"total", static_cast<int>(n) - 1, sst, 0, std::nullopt, std::nullopt});
  out.model = effect("model", static_cast<int>(na * nb) - 1, clean(sst - rss_full), mse, df_e);
  return out;
}

std::vector<M0Study> m0_studies(const std::vector<HybridObservation>& obs, double alpha, double min_size) {
  std::vector<M0Study> out;
  std::vector<std::vector<const HybridObservation*>> groups;
  for (const HybridObservation& o : obs) {
    if (o.size < min_size) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const M0Study& s) { return s.code == o.code && s.machine == o.machine; });
    if (it == out.end()) {
      out.push_back(M0Study{});
      out.back().code = o.code;
      out.back().machine = o.machine;
      groups.emplace_back();
      it = out.end() - 1;
    }
    groups[static_cast<std::size_t>(it - out.begin())].push_back(&o);
  }
  for (std::size_t s = 0; s < out.size(); ++s) {
    M0Study& st = out[s];
    // Eq. 2 rearranged: cpi - cpi_pipeline = (1 - m0) sum h_i T_i, a line through the origin.
    std::map<double, std::vector<const HybridObservation*>> by_size;
    for (const HybridObservation* o : groups[s]) by_size[o->size].push_back(o);
    double sxy_all = 0, sxx_all = 0;
    for (const HybridObservation* o : groups[s])
      sxy_all += o->memory_max * (o->cpi - o->cpi_pipeline), sxx_all += o->memory_max * o->memory_max;
    double rss_sep = 0, rss_common = 0;
    std::size_t n_all = 0;
    for (auto& [size, rows] : by_size) {
      double sxy = 0, sxx = 0;
      for (const HybridObservation* o : rows) sxy += o->memory_max * (o->cpi - o->cpi_pipeline), sxx += o->memory_max * o->memory_max;
      double slope = sxx > 0 ? sxy / sxx : 0;
      double rss = 0;
      for (const HybridObservation* o : rows) {
        rss += std::pow(o->cpi - o->cpi_pipeline - slope * o->memory_max, 2);
        rss_common += std::pow(o->cpi - o->cpi_pipeline - (sxx_all > 0 ? sxy_all / sxx_all : 0) * o->memory_max, 2);
      }
      rss_sep += rss;
      n_all += rows.size();
      M0Estimate e{size, static_cast<int>(rows.size()), 1 - slope, std::nullopt};
      if (rows.size() > 1 && sxx > 0) e.std_error = std::sqrt(rss / static_cast<double>(rows.size() - 1) / sxx);
      st.sizes.push_back(e);
    }
    const std::size_t k = st.sizes.size();
    // Equal m0 at every size: extra sum of squares F = ((RSS_1 - RSS_k) / (k - 1)) / (RSS_k / (N - k)).
    if (k >= 2 && n_all > k) {
      st.f_df1 = static_cast<int>(k - 1);
      st.f_df2 = static_cast<int>(n_all - k);
      double num = std::max(0.0, rss_common - rss_sep) / st.f_df1, den = rss_sep / st.f_df2;
      double f = den > 0 ? num / den : (num > 0 ? HUGE_VAL : 0.0);
      st.f = f;
      st.f_p = std::isinf(f) ? 0.0 : gsl_cdf_fdist_Q(f, st.f_df1, st.f_df2);
    }
    // Trend of m0 with size: t = c1 / se(c1), k - 2 degrees of freedom.
    if (k >= 3) {
      std::vector<double> x, yv;
      for (const M0Estimate& e : st.sizes) x.push_back(e.size), yv.push_back(e.m0);
      double c0, c1, cov00, cov01, cov11, sumsq;
      gsl_fit_linear(x.data(), 1, yv.data(), 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
      st.slope = c1;
      st.slope_df = static_cast<int>(k - 2);
      st.slope_se = std::sqrt(std::max(0.0, cov11));
      double t = *st.slope_se > 0 ? c1 / *st.slope_se : (c1 != 0 ? HUGE_VAL : 0.0);
      st.slope_p = std::isinf(t) ? 0.0 : 2 * gsl_cdf_tdist_Q(std::abs(t), st.slope_df);
    }
    if (st.f_p) {
      st.test = "F";
      st.predictable = *st.f_p >= alpha;
    } else if (st.slope_p) {
      st.test = "slope";
      st.predictable = *st.slope_p >= alpha;
    }
  }
  return out;
}

std::vector<M0Difference> m0_differences(const std::vector<HybridObservation>& obs, double alpha, double min_size) {
  std::vector<M0Difference> out;
  std::vector<std::string> codes;
  for (const HybridObservation& o : obs)
    if (std::find(codes.begin(), codes.end(), o.code) == codes.end()) codes.push_back(o.code);
  for (const std::string& code : codes) {
    std::vector<std::string> machines;
    for (const HybridObservation& o : obs)
      if (o.code == code && std::find(machines.begin(), machines.end(), o.machine) == machines.end())
        machines.push_back(o.machine);
    for (std::size_t i = 0; i < machines.size(); ++i)
      for (std::size_t j = i + 1; j < machines.size(); ++j) {
        M0Difference d{code, machines[i], machines[j], {}, {}, std::nullopt, std::nullopt, 0, 0, std::nullopt};
        // Rows per (size, machine) for the sizes both machines measured.
        std::map<double, std::array<std::vector<const HybridObservation*>, 2>> cells;
        for (const HybridObservation& o : obs)
          if (o.code == code && o.size >= min_size && (o.machine == d.machine_a || o.machine == d.machine_b))
            cells[o.size][o.machine == d.machine_a ? 0 : 1].push_back(&o);
        for (auto it = cells.begin(); it != cells.end();)
          it = it->second[0].empty() || it->second[1].empty() ? cells.erase(it) : std::next(it);
        const std::size_t k = cells.size();
        std::size_t n = 0;
        for (auto& [size, rows] : cells) n += rows[0].size() + rows[1].size();
        // Full model: one slope per size and machine (2k); m0 per cell as in m0_studies.
        double rss_full = 0;
        for (auto& [size, rows] : cells) {
          double m0[2];
          for (int m = 0; m < 2; ++m) {
            double sxy = 0, sxx = 0;
            for (const HybridObservation* o : rows[m]) sxy += o->memory_max * (o->cpi - o->cpi_pipeline), sxx += o->memory_max * o->memory_max;
            double b = sxx > 0 ? sxy / sxx : 0;
            for (const HybridObservation* o : rows[m]) rss_full += std::pow(o->cpi - o->cpi_pipeline - b * o->memory_max, 2);
            m0[m] = 1 - b;
          }
          d.sizes.push_back(size);
          d.difference.push_back(m0[0] - m0[1]);
        }
        if (k < 2 || n <= 2 * k) {
          out.push_back(std::move(d));
          continue;
        }
        // Reduced model: y = (beta_s + c [machine b]) M, k + 1 coefficients, GSL least squares.
        gsl::Matrix x(n, k + 1);
        gsl::Vector y(n);
        std::size_t row = 0, s = 0;
        for (auto& [size, rows] : cells) {
          for (int m = 0; m < 2; ++m)
            for (const HybridObservation* o : rows[m]) {
              x.at(row, s) = o->memory_max;
              if (m == 1) x.at(row, k) = o->memory_max;
              y.at(row++) = o->cpi - o->cpi_pipeline;
            }
          ++s;
        }
        const double rss_reduced = gsl::linear_fit(x, y).rss;
        d.df1 = static_cast<int>(k - 1);
        d.df2 = static_cast<int>(n - 2 * k);
        double num = std::max(0.0, rss_reduced - rss_full) / d.df1, den = rss_full / d.df2;
        double f = den > 0 ? num / den : (num > 0 ? HUGE_VAL : 0.0);
        d.f = f;
        d.p = std::isinf(f) ? 0.0 : gsl_cdf_fdist_Q(f, d.df1, d.df2);
        d.constant = *d.p >= alpha;
        out.push_back(std::move(d));
      }
  }
  return out;
}

std::vector<HybridObservation> read_hybrid_data(const Table& t, bool& has_pipeline, bool& has_m0) {
  const std::size_t c_code = t.require("code"), c_machine = t.require("machine"), c_cpi = t.require("cpi");
  const int c_size = t.find("size"), c_pipe = t.find("cpi_pipeline");
  has_pipeline = c_pipe >= 0;
  // Level pairs h<i>, T<i>.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const std::string& name = t.columns[c];
    if (name.size() < 2 || name[0] != 'h' || name.find_first_not_of("0123456789", 1) != std::string::npos) continue;
    int T = t.find("T" + name.substr(1));
    if (T < 0) data_error("column '" + name + "' has no latency column 'T" + name.substr(1) + "' beside it", t.header_loc(c));
    pairs.emplace_back(c, static_cast<std::size_t>(T));
  }
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const std::string& name = t.columns[c];
    if (name.size() >= 2 && name[0] == 'T' && name.find_first_not_of("0123456789", 1) == std::string::npos &&
        t.find("h" + name.substr(1)) < 0)
      data_error("column '" + name + "' has no hit column 'h" + name.substr(1) + "' beside it", t.header_loc(c));
  }
  has_m0 = has_pipeline && !pairs.empty() && c_size >= 0;
  std::vector<HybridObservation> out;
  for (const Table::Row& row : t.rows) {
    HybridObservation o;
    o.line = row.line;
    o.code = row.cells[c_code];
    o.machine = row.cells[c_machine];
    if (o.code.empty()) data_error("empty cell in column 'code'", t.where(row, c_code));
    if (o.machine.empty()) data_error("empty cell in column 'machine'", t.where(row, c_machine));
    o.cpi = t.number(row, c_cpi);
    if (!(o.cpi > 0)) data_error("column 'cpi' must be positive", t.where(row, c_cpi));
    if (c_size >= 0) o.size = t.number(row, static_cast<std::size_t>(c_size));
    if (has_pipeline) {
      o.cpi_pipeline = t.number(row, static_cast<std::size_t>(c_pipe));
      if (o.cpi_pipeline < 0) data_error("column 'cpi_pipeline' cannot be negative", t.where(row, static_cast<std::size_t>(c_pipe)));
      if (o.cpi_pipeline > o.cpi) data_error("cpi_pipeline exceeds cpi (cpi_memory would be negative)", t.where(row, static_cast<std::size_t>(c_pipe)));
    }
    for (auto [h, T] : pairs) {
      double hv = t.number(row, h), Tv = t.number(row, T);
      if (hv < 0) data_error("column '" + t.columns[h] + "': hits cannot be negative", t.where(row, h));
      if (Tv < 0) data_error("column '" + t.columns[T] + "': a latency cannot be negative", t.where(row, T));
      o.memory_max += hv * Tv;
    }
    if (has_m0 && !(o.memory_max > 0))
      data_error("sum h_i T_i is 0 in this row: m0 is undefined without memory accesses", t.where(row, pairs[0].first));
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace pamc::analysis
