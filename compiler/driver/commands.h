// One function per subcommand; main.cpp only turns the command line into these structs.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "compiler/check/check.h"

namespace pamc {

struct CompileCommand {
  std::string file;
  LoadOptions load;
  std::string stage = "simplified";
  std::string emit = "pamela";
  std::string output;  // empty: stdout
  bool all = false;
  bool stats = false;
};

struct EvalCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::vector<std::string> targets;
  bool json = false;
  bool brute_force = false;  // evaluate the time-domain model instead of the closed form
  double max_terms = 1e9;    // reduction terms one point may unroll (3e7 with --brute-force)
};

struct SimulateCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::string dist = "det";
  unsigned long long seed = 1;
  int runs = 1;
  unsigned long long max_events = 0;
  std::vector<std::string> targets;
  bool json = false;
};

struct SweepCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::vector<std::string> sweeps;  // NAME=FIRST:LAST[:STEP|:xFACTOR]
  std::vector<std::string> targets;
  std::string csv;   // empty: stdout
  std::string plot;  // empty: no plot
  bool speedup = false;
  bool timing = false;  // points/s on stderr
  bool heatmap = false;  // --plot as heat maps over two swept parameters (seed 004, Figure 4)
};

// explain and sensitivity: one point, every top-level T_ (or the targets).
struct PointCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::vector<std::string> targets;
  bool json = false;
};

int cmd_check(const std::string& file, const LoadOptions& load);
int cmd_compile(const CompileCommand& c);
int cmd_eval(const EvalCommand& c);
int cmd_simulate(const SimulateCommand& c);
int cmd_sweep(const SweepCommand& c);
int cmd_explain(const PointCommand& c);
int cmd_sensitivity(const PointCommand& c);

}  // namespace pamc
