// pamc project (docs/cli.md): reads the CSVs, ranks the groups per target, runs the
// searches and prints the projections with the per-group errors of eq. 7 beside them.
#include <string>
#include "compiler/analysis/projection.h"
#include "compiler/analysis/projection_input.h"
#include "compiler/driver/subcommand.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "compiler/driver/driver_util.h"
#include "compiler/support/json.h"

namespace pamc {
namespace {

struct ProjectCommand {
  analysis::ProjectionFiles files;
  analysis::GaOptions ga;
  std::string method = "both";  // ga | exact | both
  std::string application;      // only this one (default: every application)
  bool json = false;
  std::string csv;              // also write the projections as CSV to this path
};

}  // namespace
namespace {

using namespace analysis;

std::string num(double v, int digits = 6) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

struct MethodResult {
  std::string method;
  SearchResult search;
  double projection = 0, literal = 0;
  std::optional<double> error;  // (projection - measured) / measured
};

struct TargetResult {
  std::size_t target = 0;
  GroupArray coefficients{};  // a'_i
  std::vector<int> ranks;
  std::vector<MethodResult> methods;
};

struct AppResult {
  std::size_t app = 0;
  std::vector<int> base_ranks;
  std::vector<TargetResult> targets;
};

std::string ranks_text(const ProjectionData& d, const std::vector<int>& r, const char* sep) {
  std::string s;
  for (int g : r)
    if (d.group_present[g]) s += (s.empty() ? "" : sep) + group_name(g);
  return s;
}

std::string surrogates_text(const ProjectionData& d, const Selection& s) {
  if (s.empty()) return "(none feasible)";
  std::string out;
  for (const Surrogate& x : s)
    out += (out.empty() ? "" : " + ") + d.benchmarks[x.benchmark].name + " x " + num(x.weight, 4);
  return out;
}

std::string shares_text(const ProjectionData& d, const Selection& s, bool time) {
  std::string out;
  for (const Surrogate& x : s)
    out += (out.empty() ? "" : ", ") + d.benchmarks[x.benchmark].name + " " + num(100 * (time ? x.time_share : x.path_share), 4) + "%";
  return out;
}

std::string errors_text(const ProjectionData& d, const std::vector<GroupArray>& e) {
  std::string out;
  for (std::size_t mode = 0; mode < e.size(); ++mode) {
    out += (mode ? " | " : "") + d.modes[mode] + ":";
    for (int g = 0; g < kGroups; ++g)
      if (d.group_present[g]) out += " " + group_name(g) + " " + num(100 * e[mode][g], 3) + "%";
  }
  return out;
}

Json json_selection(const ProjectionData& d, const Selection& s) {
  Json out = Json::array();
  for (const auto& pick : s)
    out.push_back({{"benchmark", d.benchmarks[pick.benchmark].name}, {"weight", json_number(pick.weight, 10)},
                   {"path_share", json_number(pick.path_share, 10)}, {"time_share", json_number(pick.time_share, 10)}});
  return out;
}

// Per present group G1..G6: {"G1": value, ...}.
Json json_groups(const ProjectionData& d, const GroupArray& values) {
  Json out = Json::object();
  for (int g = 0; g < kGroups; ++g)
    if (d.group_present[g]) out[group_name(g)] = json_number(values[g], 10);
  return out;
}

Json json_errors(const ProjectionData& d, const std::vector<GroupArray>& e) {
  Json out = Json::object();
  for (std::size_t mode = 0; mode < e.size(); ++mode) out[d.modes[mode]] = json_groups(d, e[mode]);
  return out;
}

Json json_ranks(const ProjectionData& d, const std::vector<int>& r) {
  Json names = Json::array();
  for (int g : r)
    if (d.group_present[g]) names.push_back(group_name(g));
  return names;
}

std::string format_json(const ProjectionData& d, const std::vector<AppResult>& apps, const ProjectCommand& c) {
  Json applications = Json::array();
  for (const AppResult& a : apps) {
    const analysis::Program& p = d.applications[a.app];
    Json targets = Json::array();
    for (const TargetResult& tr : a.targets) {
      Json t = {{"target", d.targets[tr.target]}, {"ranks", json_ranks(d, tr.ranks)},
                {"group_coefficients", json_groups(d, tr.coefficients)},
                {"measured", json_number(d.measured[tr.target][a.app], 10)}};
      for (const MethodResult& m : tr.methods) {
        const bool none = m.search.selection.empty();
        Json r = {{"surrogates", json_selection(d, m.search.selection)},
                  {"projection", none ? Json(nullptr) : json_number(m.projection, 10)},
                  {"projected_runtime", p.runtime && !none ? json_number(m.projection * *p.runtime, 10) : Json(nullptr)},
                  {"eq10_as_printed", none ? Json(nullptr) : json_number(m.literal, 10)},
                  {"error", json_number(m.error, 10)},
                  {"fitness", json_number(m.search.fitness, 10)},
                  {"group_errors", json_errors(d, m.search.errors)},
                  {"seconds", json_number(m.search.seconds, 6)},
                  {"evaluations", m.search.evaluations}};
        if (m.method == "ga") {
          r["generations"] = m.search.generations;
          r["cataclysms"] = m.search.cataclysms;
        }
        t[m.method] = r;
      }
      targets.push_back(t);
    }
    applications.push_back({{"name", p.name}, {"base_ranks", json_ranks(d, a.base_ranks)},
                            {"base_runtime", json_number(p.runtime, 10)}, {"targets", targets}});
  }
  Json doc = {{"base_mode", d.modes[0]}, {"modes", d.modes}, {"benchmarks", d.benchmarks.size()},
              {"limit", json_number(c.ga.limit, 6)}, {"seed", c.ga.seed}, {"applications", applications}};
  return json_text(doc) + "\n";
}

std::string format_text(const ProjectionData& d, const std::vector<AppResult>& apps) {
  std::ostringstream o;
  o << "base mode " << d.modes[0];
  for (std::size_t m = 1; m < d.modes.size(); ++m) o << ", mode " << d.modes[m];
  o << "; " << d.benchmarks.size() << " benchmarks; " << d.targets.size() << (d.targets.size() == 1 ? " target" : " targets")
    << "\n";
  for (const AppResult& a : apps) {
    const analysis::Program& p = d.applications[a.app];
    std::map<std::string, std::string> first;  // a search's result -> the target that printed it
    o << "\napplication " << p.name << ": base ranks " << ranks_text(d, a.base_ranks, " > ") << "\n";
    for (const TargetResult& tr : a.targets) {
      const std::optional<double>& meas = d.measured[tr.target][a.app];
      o << "  target " << d.targets[tr.target] << ": ranks " << ranks_text(d, tr.ranks, " > ");
      if (meas) o << "; measured " << num(*meas, 4) << "x";
      o << "\n";
      for (const MethodResult& m : tr.methods) {
        o << "    " << m.method << (m.method == "ga" ? "    " : " ") << " ";
        if (m.search.selection.empty()) {
          o << "no feasible combination\n";
          continue;
        }
        o << num(m.projection, 4) << "x";
        if (p.runtime) o << " (" << num(m.projection * *p.runtime, 5) << " from base " << num(*p.runtime, 5) << ")";
        if (m.error) o << ", error " << (*m.error >= 0 ? "+" : "") << num(100 * *m.error, 3) << "%";
        o << "; eq. 10 as printed " << num(m.literal, 4) << "x; eq. 9 fitness " << num(m.search.fitness, 4) << "\n";
        std::string key = m.method + surrogates_text(d, m.search.selection);
        if (auto seen = first.find(key); seen != first.end()) {
          o << "           surrogates as for target " << seen->second << "\n";
          continue;
        }
        first.emplace(key, d.targets[tr.target]);
        o << "           surrogates " << surrogates_text(d, m.search.selection) << "\n";
        o << "           shares of path length " << shares_text(d, m.search.selection, false) << "; of base time "
          << shares_text(d, m.search.selection, true) << "\n";
        o << "           group errors (eq. 7) " << errors_text(d, m.search.errors) << "\n";
        o << "           " << m.search.evaluations << " evaluations";
        if (m.method == "ga") o << ", " << m.search.generations << " generations, " << m.search.cataclysms << " cataclysms";
        o << ", " << num(m.search.seconds, 3) << " s\n";
      }
    }
  }
  return o.str();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string format_csv(const ProjectionData& d, const std::vector<AppResult>& apps) {
  std::ostringstream o;
  o << "application,target,method,surrogates,projection,projected_runtime,eq10_as_printed,measured,error,fitness";
  for (const std::string& mode : d.modes)
    for (int g = 0; g < kGroups; ++g)
      if (d.group_present[g]) o << "," << csv_field(mode + "_" + group_name(g));
  o << ",seconds\n";
  for (const AppResult& a : apps) {
    const analysis::Program& p = d.applications[a.app];
    for (const TargetResult& tr : a.targets)
      for (const MethodResult& m : tr.methods) {
        if (m.search.selection.empty()) continue;
        const std::optional<double>& meas = d.measured[tr.target][a.app];
        std::string sur;
        for (const Surrogate& x : m.search.selection)
          sur += (sur.empty() ? "" : " ") + d.benchmarks[x.benchmark].name + ":" + num(x.weight, 10);
        o << csv_field(p.name) << "," << csv_field(d.targets[tr.target]) << "," << m.method << "," << csv_field(sur) << ","
          << num(m.projection, 10) << "," << (p.runtime ? num(m.projection * *p.runtime, 10) : "") << ","
          << num(m.literal, 10) << "," << (meas ? num(*meas, 10) : "") << "," << (m.error ? num(*m.error, 10) : "") << ","
          << num(m.search.fitness, 10);
        for (const GroupArray& e : m.search.errors)
          for (int g = 0; g < kGroups; ++g)
            if (d.group_present[g]) o << "," << num(e[g], 10);
        o << "," << num(m.search.seconds, 6) << "\n";
      }
  }
  return o.str();
}

void finish(const ProjectionData& d, MethodResult& m, std::size_t app, std::size_t target) {
  if (m.search.selection.empty()) return;
  m.projection = project(d, m.search.selection, target);
  m.literal = project_literal(d, m.search.selection, target);
  if (const std::optional<double>& meas = d.measured[target][app]) {
    m.error = (m.projection - *meas) / *meas;
    if (std::abs(*m.error) < 1e-12) m.error = 0.0;  // rounding, not error
  }
}

}  // namespace

int cmd_project(const ProjectCommand& c) {
  std::vector<Table> tables;  // the CSVs, alive while a diagnostic is rendered
  try {
    ProjectionData d = read_projection_data(c.files, tables);
    std::vector<AppResult> apps;
    for (std::size_t a = 0; a < d.applications.size(); ++a) {
      if (!c.application.empty() && d.applications[a].name != c.application) continue;
      AppResult ar;
      ar.app = a;
      GroupArray g = group_values(d, d.applications[a].values, 0);
      ar.base_ranks = rank_groups(d, d.group_coefficient, g);
      std::optional<SearchResult> exact;
      std::map<std::vector<int>, SearchResult> ga_by_ranks;  // the GA depends on the target only through its ranks
      for (std::size_t t = 0; t < d.targets.size(); ++t) {
        TargetResult tr;
        tr.target = t;
        tr.coefficients = target_coefficients(d, t);
        tr.ranks = rank_groups(d, tr.coefficients, g);
        if (c.method != "exact") {
          auto it = ga_by_ranks.find(tr.ranks);
          if (it == ga_by_ranks.end()) it = ga_by_ranks.emplace(tr.ranks, genetic_search(d, a, tr.ranks, c.ga)).first;
          MethodResult m{"ga", it->second, 0, 0, std::nullopt};
          finish(d, m, a, t);
          tr.methods.push_back(std::move(m));
        }
        if (c.method != "ga") {
          if (!exact) exact = exact_search(d, a, c.ga);
          MethodResult m{"exact", *exact, 0, 0, std::nullopt};
          finish(d, m, a, t);
          tr.methods.push_back(std::move(m));
        }
        ar.targets.push_back(std::move(tr));
      }
      apps.push_back(std::move(ar));
    }
    if (apps.empty()) {
      return report(file_error(c.files.metrics, DiagKind::DataError, "no application named '" + c.application + "'"));
    }
    if (!c.csv.empty() && !write_file_atomically(c.csv, format_csv(d, apps))) {
      return report(file_error(c.csv, DiagKind::IOError, "cannot write the CSV"));
    }
    std::cout << (c.json ? format_json(d, apps, c) : format_text(d, apps));
    return kOk;
  } catch (const CompileError& e) {
    return report(e);
  }
}

namespace {

void options(po::options_description& d) {
  d.add_options()
      ("targets", po::value<std::string>()->value_name("CSV"), "CSV of relative runtimes (target / base): a 'program' column, one column per target")
      ("coefficients", po::value<std::string>()->value_name("CSV"), "CSV 'name,value': c_ij of eq. 1 by metric, a_i of eq. 2 by group G1..G6 (default 1)")
      ("base-mode", po::value<std::string>()->value_name("MODE"), "the mode that ranks groups and gives cpi (default: the first in the file)")
      ("method", po::value<std::string>()->value_name("ga|exact|both")->default_value("both"), "ga | exact | both")
      ("application", po::value<std::string>()->value_name("NAME"), "project only this application")
      ("seed", po::value<unsigned long long>()->value_name("S")->default_value(1), "GA random seed")
      ("population", po::value<int>()->value_name("N")->default_value(10000), "GA population size (Table 2)")
      ("generations", po::value<int>()->value_name("N")->default_value(2000), "GA max generations (Table 2)")
      ("stall", po::value<int>()->value_name("N")->default_value(15), "GA generations without progress before a cataclysm (Table 2)")
      ("tournament", po::value<int>()->value_name("N")->default_value(7), "GA tournament size (Table 2)")
      ("mutation", po::value<double>()->value_name("RATE")->default_value(0.03, "0.03"), "GA mutation rate (Table 2)")
      ("crossover", po::value<double>()->value_name("RATE")->default_value(0.77, "0.77"), "GA crossover rate (Table 2)")
      ("reproduction", po::value<double>()->value_name("RATE"), "GA reproduction rate (default 0.10 - 1/population, Table 2)")
      ("limit", po::value<double>()->value_name("E")->default_value(0.10, "0.10"), "eq. 9's per-group error limit (the paper's 10%)")
      ("max-surrogates", po::value<int>()->value_name("N")->default_value(4), "at most this many surrogates (both searches)")
      ("json", "print JSON")
      ("csv", po::value<std::string>()->value_name("PATH"), "also write the projections as CSV to PATH");
}

int run(const CommandLine& line) {
  const po::variables_map& vm = line.vm;
  ProjectCommand c;
  c.files.metrics = line.file;
  if (!line.flag("targets")) throw usage_error("project: no --targets CSV given (relative runtimes on the target machines)");
  c.files.targets = line.text("targets");
  c.files.coefficients = line.text("coefficients");
  c.files.base_mode = line.text("base-mode");
  c.method = line.text("method");
  if (c.method != "ga" && c.method != "exact" && c.method != "both") throw usage_error("project: --method must be ga, exact or both");
  c.application = line.text("application");
  c.ga.seed = vm["seed"].as<unsigned long long>();
  c.ga.population = vm["population"].as<int>();
  c.ga.generations = vm["generations"].as<int>();
  c.ga.stall = vm["stall"].as<int>();
  c.ga.tournament = vm["tournament"].as<int>();
  c.ga.mutation = vm["mutation"].as<double>();
  c.ga.crossover = vm["crossover"].as<double>();
  if (vm.count("reproduction")) c.ga.reproduction = vm["reproduction"].as<double>();
  c.ga.limit = vm["limit"].as<double>();
  c.ga.max_surrogates = vm["max-surrogates"].as<int>();
  if (c.ga.population < 2) throw usage_error("project: --population must be at least 2");
  if (c.ga.generations < 0) throw usage_error("project: --generations cannot be negative");
  if (c.ga.stall < 1) throw usage_error("project: --stall must be at least 1");
  if (c.ga.tournament < 1) throw usage_error("project: --tournament must be at least 1");
  if (c.ga.max_surrogates < 1) throw usage_error("project: --max-surrogates must be at least 1");
  if (!(c.ga.limit >= 0)) throw usage_error("project: --limit cannot be negative");
  for (double r : {c.ga.mutation, c.ga.crossover})
    if (!(r >= 0 && r <= 1)) throw usage_error("project: rates must lie in [0, 1]");
  if (vm.count("reproduction") && !(c.ga.reproduction >= 0 && c.ga.reproduction <= 1))
    throw usage_error("project: rates must lie in [0, 1]");
  c.json = line.flag("json");
  c.csv = line.text("csv");
  return cmd_project(c);
}

}  // namespace

extern const Subcommand project_command{
    "project", "surrogate projection from hardware-counter CSVs (Sharkawi et al. 2009)",
    "METRICS.csv --targets CSV",
    options, run};

}  // namespace pamc
