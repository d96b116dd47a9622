// pamc eval: evaluate the cost model for parameter values (docs/cli.md, "eval").
#include <cstdio>
#include <iostream>
#include <sstream>

#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "compiler/symbolic/progress.h"
#include "compiler/support/json.h"

namespace pamc {
namespace {

// A double-precision value with only the significant digits that are right
// (EvalResult::digits): 666667166.459, not 666667166.4588418.
std::string format_digits(const GiNaC::numeric& x, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, x.to_double());
  return text;
}

// A value as format_value prints it: an exact number, or a vector's elements (0 where unset).
Json json_value(const sym::Value& v) {
  if (!v.is_vector) return json_number_text(format_number(v.scalar));
  if (!v.elems.empty() && v.elems.rbegin()->first >= kDenseVectorLimit) {
    // Too long to list its zeros: {"length": n, "elements": {"position": value, ...}}.
    Json elements = Json::object();
    for (const auto& [pos, value] : v.elems) elements[std::to_string(pos)] = json_number_text(format_number(value));
    return Json{{"length", v.elems.rbegin()->first + 1}, {"elements", std::move(elements)}};
  }
  Json out = Json::array();
  long next = 0;
  for (const auto& [pos, value] : v.elems) {
    for (; next < pos; ++next) out.push_back(0);
    out.push_back(json_number_text(format_number(value)));
    next = pos + 1;
  }
  return out;
}

struct EvalCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::vector<std::string> targets;
  bool json = false;
  bool brute_force = false;  // evaluate the time-domain model instead of the closed form
  bool closed_form = false;  // evaluate the closed form for every value, not one simplified at the point
  double max_terms = 1e9;    // reduction terms one point may unroll (3e7 with --brute-force)
};

int run_eval(const EvalCommand& c) {
  Diagnostics diags;
  EvalRequest request;
  if (!parse_bindings(c.bindings, request.bindings)) return kUsageError;
  request.targets = c.targets;
  request.max_terms = c.max_terms;
  request.compiled = !c.brute_force;  // the reference stays the exact evaluator
  // One point: the model simplified with the point's numbers in place, where nothing large
  // stays open there; else the closed form for every value, as `pamc compile` prints it.
  const bool at_point_first = !c.brute_force && !c.closed_form;
  auto comp = compile_file(c.file, c.load, at_point_first || c.brute_force ? Stage::Time : Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  EvalResult result;
  try {
    if (at_point_first) {
      request.at_point = true;
      result = evaluate_model(comp->model, request);
      request.at_point = false;
      if (result.needs_closed_form) simplify_model(comp->model);
    }
    if (!at_point_first || result.needs_closed_form) result = evaluate_model(comp->model, request);
  } catch (const CompileError& e) {
    return report(e);
  }
  std::ostringstream out;
  if (c.json) {
    Json doc = Json::object();
    for (const auto& [name, value] : result.values) json_append(doc, name, json_value(value));
    out << json_text(doc) << "\n";
  } else {
    for (const auto& [name, value] : result.values) {
      auto digits = result.digits.find(name);
      out << "numeric " << name << " = "
          << (digits != result.digits.end() && !value.is_vector ? format_digits(value.scalar, digits->second)
                                                                 : format_value(value))
          << "\n";
    }
  }
  std::cout << out.str();
  for (const std::string& note : result.notes) report_note({}, note);
  return kOk;
}

void options(po::options_description& d) {
  add_binding_option(d);
  d.add_options()
      ("target", po::value<std::vector<std::string>>()->value_name("NAME")->composing(), "evaluate NAME (T_main, a process L meaning T_L, or a region counter REGION.COUNTER); repeatable")
      ("json", "print a JSON object {\"T_main\": value, ...}")
      ("closed-form", "evaluate the closed form that `pamc compile` prints (built for every parameter value), not the model simplified at this point")
      ("brute-force", "evaluate the unsimplified time-domain model, unrolling every reduction (a reference for the closed form)")
      ("max-terms", po::value<double>()->value_name("N"), "stop with an error when a point needs more reduction terms than this (a loop left open): default 1e9, about 10 s compiled; 3e7 with --brute-force, about 10 s unrolled exactly");
}

int run(const CommandLine& line) {
  EvalCommand c;
  read_model_options(c, line);
  c.json = line.flag("json");
  c.brute_force = line.flag("brute-force");
  c.closed_form = line.flag("closed-form");
  c.max_terms = line.flag("max-terms") ? line.vm["max-terms"].as<double>() : c.brute_force ? 3e7 : 1e9;
  sym::install_interrupt_handler();  // Ctrl-C: a clean error at the next tick
  return run_eval(c);
}

}  // namespace

extern const Subcommand eval_command{
    "eval", "evaluate the cost model for parameter values",
    "FILE", options, run};

}  // namespace pamc
