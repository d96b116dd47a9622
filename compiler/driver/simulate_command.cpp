// pamc simulate: discrete-event simulation of the model (docs/cli.md, "simulate";
// the simulator is runtime/simulate.h).
#include <cmath>
#include <iostream>

#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "compiler/symbolic/progress.h"
#include "runtime/simulate.h"

namespace pamc {
namespace {

struct SimulateCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::string dist = "det";
  unsigned long long seed = 1;
  int runs = 1;
  unsigned long long max_events = 0;
  unsigned long long max_processes = 0;
  std::vector<std::string> targets;
  bool json = false;
};

int run_simulate(const SimulateCommand& c) {
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
  opts.max_processes = c.max_processes;
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
    // The model's names for its servers (`bus`, `cpu(3)`, `link(2)`).
    const std::map<std::string, double> values = sim_parameter_values(comp->normal, params);
    for (NamedSimResult& r : results) name_resources(*comp->program, values, r.result);
  } catch (const CompileError& e) {
    return report(e);
  }
  std::string text = c.json ? format_sim_json(results) : format_sim_text(results);
  std::cout << text << (!text.empty() && text.back() != '\n' ? "\n" : "");
  return kOk;
}

void options(po::options_description& d) {
  add_binding_option(d);
  d.add_options()
      ("dist", po::value<std::string>()->default_value("det"), "det | exp: durations as given, or exponential with that mean")
      ("seed", po::value<unsigned long long>()->default_value(1), "random seed")
      ("runs", po::value<int>()->default_value(1), "number of runs")
      ("max-events", po::value<unsigned long long>()->default_value(1000000000ULL), "stop with an error after this many events per run (0: no limit); a model that needs more is refused before it runs")
      ("max-processes", po::value<unsigned long long>()->default_value(10000000ULL), "refuse a run that holds more processes at once (pending events, queued requests, composite processes in progress; 0: no limit), checked before they are allocated")
      ("target", po::value<std::vector<std::string>>()->composing(), "simulate process NAME (default: top-level processes)")
      ("json", "print JSON");
}

int run(const CommandLine& line) {
  SimulateCommand c;
  read_model_options(c, line);
  c.dist = line.text("dist");
  if (c.dist != "det" && c.dist != "exp") throw usage_error("simulate: --dist must be det or exp");
  c.seed = line.vm["seed"].as<unsigned long long>();
  c.runs = line.vm["runs"].as<int>();
  if (c.runs < 1) throw usage_error("simulate: --runs must be at least 1");
  c.max_events = line.vm["max-events"].as<unsigned long long>();
  c.max_processes = line.vm["max-processes"].as<unsigned long long>();
  sym::install_interrupt_handler();  // Ctrl-C: a clean error at the next 2^20 events
  c.json = line.flag("json");
  return run_simulate(c);
}

}  // namespace

extern const Subcommand simulate_command{
    "simulate", "discrete-event simulation of the model",
    "FILE [-D ...] [--dist det|exp] [--seed S] [--runs K] [--max-events N] [--max-processes N] [--target NAME]... [--json]", options, run};

}  // namespace pamc
