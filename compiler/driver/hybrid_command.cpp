// pamc hybrid (docs/cli.md): level 1 (ANOVA tables and seed 001's four hypotheses) and
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
#include "compiler/emit/json_text.h"

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
std::string jnum(const std::optional<double>& v) { return v && std::isfinite(*v) ? num(*v, 10) : "null"; }

struct Hypothesis {
  std::string name, response, source;
  std::optional<double> p;
};

// Seed 001, section 2.1: each hypothesis, its dependent variable and the ANOVA row tested.
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

std::string anova_json(const Anova& a) {
  std::ostringstream o;
  o << "{\"response\": " << json_quote(a.response) << ", \"codes\": [" << json_string_list(a.a_levels)
    << "], \"machines\": [" << json_string_list(a.b_levels) << "], \"balanced\": " << (a.balanced ? "true" : "false")
    << ", \"rows\": [";
  std::vector<AnovaRow> rows = a.rows;
  rows.push_back(a.model);
  for (std::size_t i = 0; i < rows.size(); ++i)
    o << (i ? ", " : "") << "{\"source\": " << json_quote(rows[i].source) << ", \"df\": " << rows[i].df
      << ", \"ss\": " << num(rows[i].ss, 12) << ", \"ms\": " << num(rows[i].ms, 12) << ", \"f\": " << jnum(rows[i].f)
      << ", \"p\": " << jnum(rows[i].p) << "}";
  return o.str() + "]}";
}

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
      o << "{\"data\": " << json_quote(c.data) << ", \"alpha\": " << num(c.alpha) << ", \"observations\": " << obs.size()
        << ", \"anova\": [";
      for (std::size_t i = 0; i < tables.size(); ++i) o << (i ? ", " : "") << anova_json(tables[i]);
      o << "], \"hypotheses\": [";
      bool first = true;
      for (const Hypothesis& h : hyp) {
        if (!h.p) continue;
        o << (first ? "" : ", ") << "{\"hypothesis\": " << json_quote(h.name) << ", \"response\": " << json_quote(h.response)
          << ", \"source\": " << json_quote(h.source) << ", \"p\": " << jnum(h.p)
          << ", \"rejected\": " << (*h.p < c.alpha ? "true" : "false") << "}";
        first = false;
      }
      o << "], \"m0\": [";
      for (std::size_t i = 0; i < studies.size(); ++i) {
        const M0Study& s = studies[i];
        o << (i ? ", " : "") << "{\"code\": " << json_quote(s.code) << ", \"machine\": " << json_quote(s.machine) << ", \"sizes\": [";
        for (std::size_t k = 0; k < s.sizes.size(); ++k)
          o << (k ? ", " : "") << "{\"size\": " << num(s.sizes[k].size, 12) << ", \"n\": " << s.sizes[k].n
            << ", \"m0\": " << num(s.sizes[k].m0, 12) << ", \"std_error\": " << jnum(s.sizes[k].std_error) << "}";
        o << "], \"f\": " << jnum(s.f) << ", \"f_df\": [" << s.f_df1 << ", " << s.f_df2 << "], \"f_p\": " << jnum(s.f_p)
          << ", \"slope\": " << jnum(s.slope) << ", \"slope_se\": " << jnum(s.slope_se) << ", \"slope_df\": " << s.slope_df
          << ", \"slope_p\": " << jnum(s.slope_p) << ", \"test\": " << (s.test.empty() ? "null" : json_quote(s.test))
          << ", \"predictable\": " << (s.predictable ? (*s.predictable ? "true" : "false") : "null") << "}";
      }
      o << "], \"m0_difference\": [";
      for (std::size_t i = 0; i < differences.size(); ++i) {
        const M0Difference& d = differences[i];
        o << (i ? ", " : "") << "{\"code\": " << json_quote(d.code) << ", \"machines\": [" << json_quote(d.machine_a) << ", "
          << json_quote(d.machine_b) << "], \"sizes\": [";
        for (std::size_t k = 0; k < d.sizes.size(); ++k)
          o << (k ? ", " : "") << "{\"size\": " << num(d.sizes[k], 12) << ", \"difference\": " << num(d.difference[k], 12) << "}";
        o << "], \"f\": " << jnum(d.f) << ", \"f_df\": [" << d.df1 << ", " << d.df2 << "], \"p\": " << jnum(d.p)
          << ", \"constant\": " << (d.constant ? (*d.constant ? "true" : "false") : "null") << "}";
      }
      o << "]}\n";
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
      if (factorial) o << "\nhypotheses (seed 001, section 2.1):\n";
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
      ("alpha", po::value<double>()->default_value(0.05, "0.05"), "significance level of every test")
      ("min-size", po::value<double>(), "level 2 leaves out problem sizes below this (the paper's steady state)")
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
    "hybrid", "seed 001's study: codes x machines ANOVA, m0 per problem size, predictability",
    "DATA.csv [--alpha A] [--min-size N] [--json]", options, run};

}  // namespace pamc
