// pamc hybrid (docs/cli.md): level 1 (ANOVA tables and Sun and Cameron's (2000) four hypotheses) and
// level 2 (m0 per problem size, the predictability verdict).
#include <cmath>
#include <string>
#include "compiler/driver/subcommand.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "compiler/analysis/predictability.h"
#include "compiler/driver/driver_util.h"
#include "compiler/support/json.h"

namespace pamc {
namespace {

struct HybridCommand {
  std::string data;       // the CSV
  double alpha = 0.05;    // significance level of every test
  double min_size = -HUGE_VAL;  // level 2 leaves out smaller problem sizes (steady state)
  bool json = false;
};

}  // namespace
namespace {

using namespace analysis;

std::string num(double v, int digits = 6) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

struct Hypothesis {
  std::string name, response, source;
  std::optional<double> p;
};

// Sun and Cameron (2000), section 2.1: each hypothesis, its dependent variable and the ANOVA row tested.
std::vector<Hypothesis> hypotheses(const std::vector<Anova>& tables, double /*alpha*/) {
  auto find = [&](const std::string& response, const std::string& source) -> std::optional<double> {
    for (const Anova& a : tables)
      if (a.response == response) {
        if (source == "model") return a.model.p;
        for (const AnovaRow& r : a.rows)
          if (r.source == source) return r.p;
      }
    return std::nullopt;
  };
  return {
      {"overall effect does not exist", "cpi", "model", find("cpi", "model")},
      {"code effect does not exist", "cpi_pipeline", "code", find("cpi_pipeline", "code")},
      {"machine effect does not exist", "cpi_memory", "machine", find("cpi_memory", "machine")},
      {"machine-code interaction does not exist", "cpi", "code x machine", find("cpi", "code x machine")},
  };
}

std::string anova_text(const Anova& a) {
  std::ostringstream o;
  char line[200];
  std::snprintf(line, sizeof line, "  %-16s %4s %14s %14s %10s %10s\n", "source", "df", "sum of squares", "mean square", "F", "p");
  o << line;
  auto row = [&](const AnovaRow& r) {
    std::snprintf(line, sizeof line, "  %-16s %4d %14s %14s %10s %10s\n", r.source.c_str(), r.df, num(r.ss).c_str(),
                  r.source == "total" ? "" : num(r.ms).c_str(), r.f ? num(*r.f, 4).c_str() : "",
                  r.p ? num(*r.p, 3).c_str() : "");
    o << line;
  };
  for (const AnovaRow& r : a.rows) row(r);
  AnovaRow m = a.model;
  m.source = "model (cells)";
  row(m);
  return o.str();
}

Json anova_json(const Anova& a) {
  Json rows = Json::array();
  std::vector<AnovaRow> all = a.rows;
  all.push_back(a.model);
  for (const AnovaRow& r : all)
    rows.push_back({{"source", r.source}, {"df", r.df}, {"ss", json_number(r.ss, 12)}, {"ms", json_number(r.ms, 12)},
                    {"f", json_number(r.f, 10)}, {"p", json_number(r.p, 10)}});
  return {{"response", a.response}, {"codes", a.a_levels}, {"machines", a.b_levels}, {"balanced", a.balanced}, {"rows", rows}};
}

// true, false, or null where the test could not be made.
Json json_bool(const std::optional<bool>& b) { return b ? Json(*b) : Json(nullptr); }

}  // namespace

int cmd_hybrid(const HybridCommand& c) {
  Table t;
  try {
    read_table(c.data, t);
    bool has_pipeline = false, has_m0 = false;
    std::vector<HybridObservation> obs = read_hybrid_data(t, has_pipeline, has_m0);
    std::vector<std::string> codes, machines;
    std::vector<double> cpi, pipe, mem;
    for (const HybridObservation& o : obs) {
      codes.push_back(o.code), machines.push_back(o.machine), cpi.push_back(o.cpi);
      pipe.push_back(o.cpi_pipeline), mem.push_back(o.cpi - o.cpi_pipeline);
    }
    std::vector<Anova> tables;
    std::vector<std::string> distinct_codes = codes, distinct_machines = machines;
    for (auto* v : {&distinct_codes, &distinct_machines}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    const bool factorial = distinct_codes.size() >= 2 && distinct_machines.size() >= 2;
    if (factorial) try {
      tables.push_back(two_factor_anova("cpi", codes, machines, cpi));
      if (has_pipeline) {
        tables.push_back(two_factor_anova("cpi_pipeline", codes, machines, pipe));
        tables.push_back(two_factor_anova("cpi_memory", codes, machines, mem));
      }
    } catch (const std::invalid_argument& e) {
      throw CompileError{Diagnostic{Severity::Error, DiagKind::DataError, {}, std::string("level 1 (ANOVA): ") + e.what(), c.data}};
    }
    std::vector<M0Study> studies;
    std::vector<M0Difference> differences;
    if (has_m0) {
      studies = m0_studies(obs, c.alpha, c.min_size);
      differences = m0_differences(obs, c.alpha, c.min_size);
    }
    std::vector<Hypothesis> hyp = hypotheses(tables, c.alpha);
    std::ostringstream o;
    if (c.json) {
      Json anova = Json::array(), hypotheses = Json::array(), m0 = Json::array(), m0_difference = Json::array();
      for (const Anova& a : tables) anova.push_back(anova_json(a));
      for (const Hypothesis& h : hyp)
        if (h.p)
          hypotheses.push_back({{"hypothesis", h.name}, {"response", h.response}, {"source", h.source},
                                {"p", json_number(h.p, 10)}, {"rejected", *h.p < c.alpha}});
      for (const M0Study& s : studies) {
        Json sizes = Json::array();
        for (const auto& z : s.sizes)
          sizes.push_back({{"size", json_number(z.size, 12)}, {"n", z.n}, {"m0", json_number(z.m0, 12)},
                           {"std_error", json_number(z.std_error, 10)}});
        m0.push_back({{"code", s.code}, {"machine", s.machine}, {"sizes", sizes}, {"f", json_number(s.f, 10)},
                      {"f_df", Json::array({s.f_df1, s.f_df2})}, {"f_p", json_number(s.f_p, 10)}, {"slope", json_number(s.slope, 10)},
                      {"slope_se", json_number(s.slope_se, 10)}, {"slope_df", s.slope_df},
                      {"slope_p", json_number(s.slope_p, 10)}, {"test", s.test.empty() ? Json(nullptr) : Json(s.test)},
                      {"predictable", json_bool(s.predictable)}});
      }
      for (const M0Difference& d : differences) {
        Json sizes = Json::array();
        for (std::size_t k = 0; k < d.sizes.size(); ++k)
          sizes.push_back({{"size", json_number(d.sizes[k], 12)}, {"difference", json_number(d.difference[k], 12)}});
        m0_difference.push_back({{"code", d.code}, {"machines", Json::array({d.machine_a, d.machine_b})}, {"sizes", sizes},
                                 {"f", json_number(d.f, 10)}, {"f_df", Json::array({d.df1, d.df2})}, {"p", json_number(d.p, 10)},
                                 {"constant", json_bool(d.constant)}});
      }
      Json doc = {{"data", c.data}, {"alpha", json_number(c.alpha, 6)}, {"observations", obs.size()}, {"anova", anova},
                  {"hypotheses", hypotheses}, {"m0", m0}, {"m0_difference", m0_difference}};
      o << json_text(doc) << "\n";
    } else {
      o << "level 1: two-factor factorial experiments (codes x machines, with interaction), " << obs.size()
        << " observations, alpha " << num(c.alpha) << "\n";
      if (!factorial)
        o << "  needs at least two codes and two machines (this file has " << distinct_codes.size() << " and "
          << distinct_machines.size() << ")\n";
      for (const Anova& a : tables)
        o << "\nresponse " << a.response << " (" << a.a_levels.size() << " codes x " << a.b_levels.size() << " machines, "
          << (a.balanced ? "balanced" : "unbalanced: type II sums of squares") << ")\n"
          << anova_text(a);
      if (factorial) o << "\nhypotheses (Sun and Cameron 2000, section 2.1):\n";
      for (const Hypothesis& h : hyp) {
        if (!h.p) continue;
        o << "  " << h.name << " (" << h.response << ", " << h.source << " F): "
          << (*h.p < c.alpha ? "rejected" : "not rejected") << " (p = " << num(*h.p, 3) << ")\n";
      }
      if (!has_m0) {
        o << "\nlevel 2 needs columns size, cpi_pipeline and pairs h<i>, T<i> (docs/predictability.md)\n";
      } else {
        o << "\nlevel 2: m0 per problem size (eq. 2: cpi - cpi_pipeline = (1 - m0) sum h_i T_i, least squares through the origin)\n";
        for (const M0Study& s : studies) {
          o << "\n" << s.code << " on " << s.machine << ":\n";
          char line[160];
          std::snprintf(line, sizeof line, "  %12s %4s %12s %12s\n", "size", "n", "m0", "std. error");
          o << line;
          for (const M0Estimate& e : s.sizes) {
            std::snprintf(line, sizeof line, "  %12s %4d %12s %12s\n", num(e.size).c_str(), e.n, num(e.m0, 6).c_str(),
                          e.std_error ? num(*e.std_error, 3).c_str() : "-");
            o << line;
          }
          if (s.f) o << "  equal m0 at every size: F(" << s.f_df1 << ", " << s.f_df2 << ") = " << num(*s.f, 4) << ", p = " << num(*s.f_p, 3) << "\n";
          if (s.slope)
            o << "  trend: m0 changes by " << num(*s.slope, 4) << " per unit of size (std. error " << num(*s.slope_se, 3)
              << "), t test p = " << num(*s.slope_p, 3) << "\n";
          if (!s.predictable)
            o << "  verdict: none (needs replicates at a size, or three sizes)\n";
          else
            o << "  verdict: " << (*s.predictable ? "predictable (m0 constant across sizes" : "not predictable (m0 varies with size")
              << "; " << (s.test == "F" ? "F test of equal m0" : "t test of the slope") << " at alpha " << num(c.alpha) << ")\n";
        }
        if (!differences.empty()) o << "\nacross machines: is m0 - m0' constant as the problem grows?\n";
        for (const M0Difference& d : differences) {
          o << "\n" << d.code << ": m0(" << d.machine_a << ") - m0(" << d.machine_b << ") per size:";
          for (std::size_t k = 0; k < d.sizes.size(); ++k) o << " " << num(d.sizes[k]) << ": " << num(d.difference[k], 4);
          o << "\n";
          if (!d.constant) {
            o << "  verdict: none (needs two common sizes with replicates)\n";
            continue;
          }
          o << "  constant difference: F(" << d.df1 << ", " << d.df2 << ") = " << num(*d.f, 4) << ", p = " << num(*d.p, 3) << "\n"
            << "  verdict: " << (*d.constant ? "constant: the machines' memory designs scale this code alike"
                                              : "not constant: the machines scale this code differently")
            << "\n";
        }
      }
    }
    std::cout << o.str();
    return kOk;
  } catch (const CompileError& e) {
    return report(e);
  }
}

namespace {

void options(po::options_description& d) {
  d.add_options()
      ("alpha", po::value<double>()->value_name("A")->default_value(0.05, "0.05"), "significance level of every test")
      ("min-size", po::value<double>()->value_name("N"), "level 2 leaves out problem sizes below this (the paper's steady state)")
      ("json", "print JSON");
}

int run(const CommandLine& line) {
  HybridCommand c;
  c.data = line.file;
  c.alpha = line.vm["alpha"].as<double>();
  if (!(c.alpha > 0 && c.alpha < 1)) throw usage_error("hybrid: --alpha must lie in (0, 1)");
  if (line.flag("min-size")) c.min_size = line.vm["min-size"].as<double>();
  c.json = line.flag("json");
  return cmd_hybrid(c);
}

}  // namespace

extern const Subcommand hybrid_command{
    "hybrid", "the statistical-empirical hybrid study (Sun and Cameron 2000): codes x machines ANOVA, m0 per problem size, predictability",
    "DATA.csv", options, run};

}  // namespace pamc
