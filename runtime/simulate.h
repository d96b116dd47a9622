// The discrete-event simulator: runs a normalized Pamela process and measures its time.
// It is the reference the symbolic bound is checked against (SPEC section 5, and
// docs/simulation.md for the semantics and the engine).
//
//   - `a ; b` runs a then b; `a || b` runs both and finishes when both have finished;
//     `seq (i = l, u) B` runs B for i = l..u in order, `par (i = l, u) B` all at once
//     (an empty range does nothing and takes no time);
//   - `use(fcfs(a, b), t)` queues FCFS at the resource whose identity is the index a,
//     which has b servers, and holds a server for t; `delay(t)` never queues;
//   - under Dist::Exp every duration of delay and use is drawn from an exponential
//     distribution with that mean;
//   - `if (c) a else b`: c == 1 runs a, c == 0 runs b, 0 < c < 1 draws a (seeded)
//     Bernoulli(c) each time the `if` is reached.
// Numeric expressions are compiled once per simulate() call (parameters folded in) to a
// tree of small closures; only expressions that depend on loop indices are evaluated at
// run time.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"

namespace pamc {

struct NormalModel;  // compiler/passes/normalize.h
struct Program;      // compiler/check/check.h

enum class SimDist { Det, Exp };

struct SimOptions {
  SimDist dist = SimDist::Det;
  std::uint64_t seed = 1;
  int runs = 1;
  // Per run; a run that would process more events throws SimError (WorkLimit).
  // 0 means no limit.
  std::uint64_t max_events = 1000000000ULL;
  // Per run: the processes held at once (pending events, queued requests and composite
  // processes in progress), checked on the compiled body before the run (what it starts at
  // time 0) and while running (before any of them is allocated past it). 0: no limit.
  std::uint64_t max_processes = 10000000ULL;
  // Called every 2^20 events with the events so far in this run (a progress line, Ctrl-C:
  // it may throw to stop the run).
  std::function<void(std::uint64_t)> on_tick;
};

struct SimStat {
  double mean = 0, min = 0, max = 0, std = 0;  // std: sample standard deviation (0 for one run)
};

struct SimResourceStats {
  std::int64_t index = 0;         // the resource's identity (fcfs index)
  std::int64_t multiplicity = 1;  // its number of servers
  double utilization = 0;  // busy server-time / (multiplicity * makespan), mean over runs
  double mean_wait = 0;    // mean time a request queued before service (all runs pooled)
  double requests = 0;     // mean number of requests per run
  std::string name;        // the model's name for it ("bus", "cpu(3)"): name_resources()
  Loc def;                 // the fcfs(...) call that first reached it (in a declaration: its name)
};

struct SimResult {
  std::vector<double> T;  // makespan of the process, per run
  SimStat makespan;       // over T
  std::vector<SimResourceStats> resources;  // by increasing index
  // Where the process body is a par (`par (i = ...)` or `a || b || ...`): the mean over its
  // branches of their finish times ("mean client finish time"), per run and over runs.
  bool has_mean_finish = false;
  std::vector<double> mean_finish_runs;
  SimStat mean_finish;
  std::uint64_t events = 0;  // events processed, all runs together
  int runs = 0;
};

// An error that ends a simulation (unbound parameter, non-integer loop bound, vector
// where a scalar is needed, max_events reached, ...) is pamc's one error type, CompileError
// (compiler/diag/diag.h): what() is "file:line:col: message" when the location is known;
// `diag` carries the same for render_diagnostic(). SimError is its name here.
using SimError = CompileError;

// Simulates the process equation `process_name` of a normalized model. `params` binds
// numeric parameters by name; a parameter not bound takes its default, if any. Throws
// SimError.
SimResult simulate(const NormalModel& model, const std::string& process_name,
                   const std::map<std::string, double>& params, const SimOptions& opts);

// The values simulate() binds: `params`, and the declared default of every other parameter.
std::map<std::string, double> sim_parameter_values(const NormalModel& model,
                                                   const std::map<std::string, double>& params);

// Names each resource of `result` as the model does (`bus`, `cpu(3)`, `link(2)` for
// link(p) = fcfs(P + p, 1)) from the declaration its fcfs(...) call is written in, at these
// parameter values (sim_parameter_values); unnamed where the text does not determine it.
void name_resources(const Program& program, const std::map<std::string, double>& values, SimResult& result);

// Simulates a normalized process body directly (every Name in it is a loop index or a key
// of `params`). Used by simulate() and by tests that build ASTs by hand.
SimResult simulate_body(const ast::NodeP& body, const std::map<std::string, double>& params,
                        const SimOptions& opts);

// Evaluates a normalized, scalar numeric expression (every Name a key of `params`).
double sim_eval(const ast::NodeP& expr, const std::map<std::string, double>& params);

// Human-readable report, e.g.
//   T_main = 1010 (min 1010, max 1010, std 0; 1 run, det)
std::string format_sim_text(const SimResult& r, const std::string& process_name);
// {"T_main": {"mean": ..., "min": ..., "max": ..., "std": ...},
//  "resources": {"0": {"utilization": ..., "mean_wait": ...}}, "mean_finish": {...},
//  "events": N}   ("mean_finish" only where the body is a par)
std::string format_sim_json(const SimResult& r, const std::string& process_name);

// Several processes (`pamc simulate` of every top-level process): one result is printed
// as above; several as {"T_a": {...}, "T_b": {...}, "processes": {"a": {"resources": ...,
// "mean_finish": ..., "runs": K, "events": N}, "b": {...}}}. Text: one block per process.
struct NamedSimResult {
  std::string process;
  SimResult result;
};
std::string format_sim_json(const std::vector<NamedSimResult>& results);
std::string format_sim_text(const std::vector<NamedSimResult>& results);

}  // namespace pamc
