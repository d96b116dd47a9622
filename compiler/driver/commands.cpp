#include "compiler/driver/commands.h"
#include "compiler/driver/driver_util.h"

#include <cstdio>
#include <fstream>
#include <cmath>
#include <iostream>
#include <sstream>

#include <filesystem>

#include "compiler/ast/ast.h"
#include "compiler/emit/emit.h"
#include "compiler/emit/json_text.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/symbolic/progress.h"
#include "compiler/passes/pipeline.h"
#include "runtime/simulate.h"

namespace pamc {
namespace {

int emit_text(const std::string& output, const std::string& text) {
  if (output.empty()) {
    std::cout << text;
    return kOk;
  }
  if (!write_file_atomically(output, text)) {
    return report(file_error(output, DiagKind::IOError, "cannot write the output file"));
  }
  return kOk;
}

Stage stage_from(const std::string& s) {
  if (s == "parsed") return Stage::Parsed;
  if (s == "normalized") return Stage::Normalized;
  if (s == "time") return Stage::Time;
  return Stage::Simplified;
}

std::string print_parsed(const Program& program) {
  // The main file only: imported files print as their import lines.
  for (const ast::Module& m : program.modules)
    if (m.file == program.main_file) return ast::print_module(m);
  return {};
}

std::string print_stats(const CostModel& model) {
  std::ostringstream out;
  out << "residual reductions: " << model.stats.residual_reductions << "\n";
  out << "residual reductions (all equations): " << model.stats.residual_reductions_all << "\n";
  for (const auto& [rule, count] : model.stats.fired) out << "rule " << rule << ": " << count << "\n";
  return out.str();
}



// --emit cpp|json: one text; --emit octave: a folder of function files. Everything is
// generated in memory first, so an emission error writes nothing.
int emit_code(const CompileCommand& c, const CostModel& model) {
  try {
    if (c.emit == "cpp") return emit_text(c.output, emit::emit_cpp(model, c.all));
    if (c.emit == "json") return emit_text(c.output, emit::emit_json(model, c.all));
    auto files = emit::emit_octave(model, c.all);
    if (c.output.empty()) {
      return report(usage_error("compile --emit octave needs -o FOLDER"));
    }
    std::error_code ec;
    std::filesystem::create_directories(c.output, ec);
    if (ec) {
      return report(file_error(c.output, DiagKind::IOError, "cannot create the folder: " + ec.message()));
    }
    for (const auto& [name, text] : files) {
      auto path = std::filesystem::path(c.output) / name;
      std::filesystem::create_directories(path.parent_path(), ec);  // the +model/ package
      if (int rc = emit_text(path.string(), text)) return rc;
    }
    return kOk;
  } catch (const CompileError& e) {
    return report(e);
  }
}

}  // namespace

// check parses and checks (SPEC 4), and stays fast on large models; errors that show only
// once equations are substituted and lowered (a resource index with two multiplicities)
// are reported by the commands that lower: compile, eval, sweep, simulate.
int cmd_check(const std::string& file, const LoadOptions& load) {
  Diagnostics diags;
  auto program = load_program(file, load, diags);
  // The process ends here: freeing a large model node by node would cost more than the
  // check (a fifth of it at 10^4 lines), so it is left to the OS, as clang's -disable-free.
  program.release();
  return report(diags);
}

int cmd_compile(const CompileCommand& c) {
  Diagnostics diags;
  Stage stage = stage_from(c.stage);
  auto comp = compile_file(c.file, c.load, stage, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  if (c.emit != "pamela") {
    if (stage != Stage::Simplified) {
      return report(usage_error("compile: --emit " + c.emit + " writes the simplified cost model; drop --stage"));
    }
    return emit_code(c, comp->model);
  }
  std::string text;
  switch (stage) {
    case Stage::Parsed: text = print_parsed(*comp->program); break;
    case Stage::Normalized: text = print_normalized(comp->normal); break;
    case Stage::Time:
    case Stage::Simplified: text = print_cost_model(comp->model, c.all); break;
  }
  if (c.stats && stage == Stage::Simplified) std::cerr << print_stats(comp->model);
  int rc = emit_text(c.output, text);
  report(diags);  // warnings, if any
  return rc;
}

int cmd_eval(const EvalCommand& c) {
  Diagnostics diags;
  EvalRequest request;
  if (!parse_bindings(c.bindings, request.bindings)) return kUsageError;
  request.targets = c.targets;
  request.max_terms = c.max_terms;
  request.compiled = !c.brute_force;  // the reference stays the exact evaluator
  auto comp = compile_file(c.file, c.load, c.brute_force ? Stage::Time : Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  EvalResult result;
  try {
    result = evaluate_model(comp->model, request);
  } catch (const CompileError& e) {
    return report(e);
  }
  std::ostringstream out;
  if (c.json) {
    out << "{";
    bool first = true;
    for (const auto& [name, value] : result.values) {
      out << (first ? "" : ", ") << json_quote(name) << ": " << format_value(value);
      first = false;
    }
    out << "}\n";
  } else {
    for (const auto& [name, value] : result.values) out << "numeric " << name << " = " << format_value(value) << "\n";
  }
  std::cout << out.str();
  for (const std::string& note : result.notes) report_note({}, note);
  return kOk;
}

int cmd_simulate(const SimulateCommand& c) {
  std::map<std::string, GiNaC::numeric> exact;
  if (!parse_bindings(c.bindings, exact)) return kUsageError;
  std::map<std::string, double> params;
  for (const auto& [name, v] : exact) {
    double d = v.to_double();
    if (!std::isfinite(d) || (d == 0.0 && !v.is_zero())) {  // 1e-400 would simulate as 0
      auto raw = c.bindings.find(name);
      return report(usage_error("-D " + name + "=" + (raw != c.bindings.end() ? raw->second : format_number(v)) +
                                ": not representable as a double, which the simulator works in"));
    }
    params[name] = d;
  }
  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Normalized, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  std::vector<std::string> processes = c.targets;
  if (processes.empty())
    for (const NormalEquation& e : comp->normal.equations)
      if (e.type == ast::Type::Process && e.top_level) processes.push_back(e.name);
  if (processes.empty()) {
    return report(file_error(c.file, DiagKind::UnknownTarget, "the model has no top-level process to simulate"));
  }
  SimOptions opts;
  opts.dist = c.dist == "exp" ? SimDist::Exp : SimDist::Det;
  opts.seed = c.seed;
  opts.runs = c.runs;
  opts.max_events = c.max_events;
  std::vector<NamedSimResult> results;
  try {
    for (const std::string& p : processes) {
      sym::ProgressLine line("simulating " + p, 0, "events");
      opts.on_tick = [&line](std::uint64_t events) {
        if (sym::interrupted()) throw SimError(Loc{}, DiagKind::Interrupted, "simulation interrupted (Ctrl-C)");
        line.tick(static_cast<long long>(events));
      };
      results.push_back({p, simulate(comp->normal, p, params, opts)});
    }
    // The model's names for its servers, where the text fixes them (`bus`, `cpu(3)`).
    FixedResources fixed = fixed_resources(*comp->program);
    for (NamedSimResult& r : results)
      for (SimResourceStats& s : r.result.resources) s.name = fixed.name_of(static_cast<double>(s.index));
  } catch (const CompileError& e) {
    return report(e);
  }
  std::string text = c.json ? format_sim_json(results) : format_sim_text(results);
  std::cout << text << (!text.empty() && text.back() != '\n' ? "\n" : "");
  return kOk;
}

}  // namespace pamc
