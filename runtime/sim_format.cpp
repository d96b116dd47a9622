// Text and JSON reports of a simulation (`pamc simulate [--json]`).
#include <cmath>
#include <sstream>

#include "runtime/sim_expr.h"
#include "compiler/emit/json_text.h"
#include "runtime/simulate.h"

namespace pamc {

namespace {

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  return sim::fmt_num(v);
}

std::string json_str(const std::string& s) { return json_quote(s); }

std::string json_stat(const SimStat& s) {
  return "{\"mean\": " + json_num(s.mean) + ", \"min\": " + json_num(s.min) + ", \"max\": " + json_num(s.max) +
         ", \"std\": " + json_num(s.std) + "}";
}

std::string text_stat(const SimStat& s, int runs) {
  std::string t = sim::fmt_num(s.mean);
  if (runs > 1)
    t += " (min " + sim::fmt_num(s.min) + ", max " + sim::fmt_num(s.max) + ", std " + sim::fmt_num(s.std) +
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
        << sim::fmt_num(s.utilization) << ", mean wait " << sim::fmt_num(s.mean_wait) << ", requests "
        << sim::fmt_num(s.requests) << "\n";
  out << "events = " << r.events << "\n";
  return out.str();
}

namespace {

// "resources": {...}, "mean_finish": {...}, "runs": K, "events": N
std::string json_details(const SimResult& r) {
  std::string out = "\"resources\": {";
  bool first = true;
  for (const SimResourceStats& s : r.resources) {
    if (!first) out += ", ";
    first = false;
    out += json_str(std::to_string(s.index)) + ": {" + (s.name.empty() ? "" : "\"name\": " + json_str(s.name) + ", ") +
           "\"multiplicity\": " + std::to_string(s.multiplicity) +
           ", \"utilization\": " + json_num(s.utilization) + ", \"mean_wait\": " + json_num(s.mean_wait) +
           ", \"requests\": " + json_num(s.requests) + "}";
  }
  out += "}";
  if (r.has_mean_finish) out += ", \"mean_finish\": " + json_stat(r.mean_finish);
  out += ", \"runs\": " + std::to_string(r.runs) + ", \"events\": " + std::to_string(r.events);
  return out;
}

}  // namespace

std::string format_sim_json(const SimResult& r, const std::string& process_name) {
  return "{" + json_str("T_" + process_name) + ": " + json_stat(r.makespan) + ", " + json_details(r) + "}";
}

std::string format_sim_json(const std::vector<NamedSimResult>& results) {
  if (results.size() == 1) return format_sim_json(results[0].result, results[0].process);
  std::string out = "{";
  for (const NamedSimResult& n : results) out += json_str("T_" + n.process) + ": " + json_stat(n.result.makespan) + ", ";
  out += "\"processes\": {";
  bool first = true;
  for (const NamedSimResult& n : results) {
    if (!first) out += ", ";
    first = false;
    out += json_str(n.process) + ": {" + json_details(n.result) + "}";
  }
  return out + "}}";
}

std::string format_sim_text(const std::vector<NamedSimResult>& results) {
  std::string out;
  for (const NamedSimResult& n : results) out += format_sim_text(n.result, n.process);
  return out;
}

}  // namespace pamc
