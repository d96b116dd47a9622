// Text and JSON reports of a simulation (`pamc simulate [--json]`).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/lower.h"
#include "compiler/support/json.h"
#include "runtime/sim_expr.h"
#include "runtime/simulate.h"

namespace pamc {

namespace {

// A number as the text report prints it; not finite is null.
Json json_num(double v) { return std::isfinite(v) ? json_number_text(sim::fmt_num(v)) : Json(nullptr); }

Json json_stat(const SimStat& s) {
  return {{"mean", json_num(s.mean)}, {"min", json_num(s.min)}, {"max", json_num(s.max)}, {"std", json_num(s.std)}};
}

// A number as the text report prints it: 12 significant digits (the digits after them are
// the rounding of sums of doubles: 1010.9000000000018 is 1010.9), then as pamc eval prints
// that decimal (0.015925, 100000, 4e-8). --json keeps every digit of the double.
std::string text_num(double v) {
  if (!std::isfinite(v) || (std::fabs(v) < 1e16 && v == std::floor(v))) return sim::fmt_num(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", std::fabs(v));
  GiNaC::numeric x;
  if (!parse_exact_number(buf, x)) return sim::fmt_num(v);
  return (v < 0 ? "-" : "") + format_number(x);
}

std::string text_stat(const SimStat& s, int runs) {
  std::string t = text_num(s.mean);
  if (runs > 1)
    t += " (min " + text_num(s.min) + ", max " + text_num(s.max) + ", std " + text_num(s.std) +
         "; " + std::to_string(runs) + " runs)";
  return t;
}

}  // namespace

std::string format_sim_text(const SimResult& r, const std::string& process_name) {
  std::ostringstream out;
  out << "T_" << process_name << " = " << text_stat(r.makespan, r.runs) << "\n";
  if (r.has_mean_finish)
    out << "mean finish of the " << process_name << " branches = " << text_stat(r.mean_finish, r.runs) << "\n";
  for (const SimResourceStats& s : r.resources)
    out << "resource " << (s.name.empty() ? "" : s.name + " = ") << "fcfs(" << s.index << ", " << s.multiplicity
        << "): utilization "
        << text_num(s.utilization) << ", mean wait " << text_num(s.mean_wait) << ", requests "
        << text_num(s.requests) << "\n";
  out << "events = " << r.events << "\n";
  return out.str();
}

namespace {

// Adds "resources": {...}, "mean_finish": {...}, "runs": K, "events": N to doc.
void add_details(Json& doc, const SimResult& r) {
  Json resources = Json::object();
  for (const SimResourceStats& s : r.resources) {
    Json res = Json::object();
    if (!s.name.empty()) res["name"] = s.name;
    res["multiplicity"] = s.multiplicity;
    res["utilization"] = json_num(s.utilization);
    res["mean_wait"] = json_num(s.mean_wait);
    res["requests"] = json_num(s.requests);
    json_append(resources, std::to_string(s.index), std::move(res));
  }
  doc["resources"] = std::move(resources);
  if (r.has_mean_finish) doc["mean_finish"] = json_stat(r.mean_finish);
  doc["runs"] = r.runs;
  doc["events"] = r.events;
}

}  // namespace

std::string format_sim_json(const SimResult& r, const std::string& process_name) {
  Json doc = {{"T_" + process_name, json_stat(r.makespan)}};
  add_details(doc, r);
  return json_text(doc);
}

std::string format_sim_json(const std::vector<NamedSimResult>& results) {
  if (results.size() == 1) return format_sim_json(results[0].result, results[0].process);
  Json doc = Json::object(), processes = Json::object();
  for (const NamedSimResult& n : results) {
    json_append(doc, "T_" + n.process, json_stat(n.result.makespan));
    Json details = Json::object();
    add_details(details, n.result);
    json_append(processes, n.process, std::move(details));
  }
  json_append(doc, "processes", std::move(processes));
  return json_text(doc);
}

std::string format_sim_text(const std::vector<NamedSimResult>& results) {
  std::string out;
  for (const NamedSimResult& n : results) out += format_sim_text(n.result, n.process);
  return out;
}

}  // namespace pamc
