// pamc explain and pamc sensitivity: the cost model at one point (docs/cli.md).
#include <iostream>

#include "compiler/analysis/explain.h"
#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"
#include "compiler/passes/pipeline.h"

namespace pamc {
namespace {

// explain and sensitivity: one point, every top-level T_ (or the targets).
struct PointCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;
  std::vector<std::string> targets;
  bool json = false;
};

template <typename Analyse, typename Format>
int point_command(const PointCommand& c, Analyse analyse, Format format) {
  std::map<std::string, GiNaC::numeric> bindings;
  if (!parse_bindings(c.bindings, bindings)) return kUsageError;
  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  try {
    std::cout << format(analyse(comp->model, bindings, c.targets), c.json);
  } catch (const CompileError& e) {
    return report(e);
  }
  return kOk;
}

void options(po::options_description& d) {
  add_binding_option(d);
  d.add_options()
      ("target", po::value<std::vector<std::string>>()->value_name("NAME")->composing(), "analyse NAME (T_main, or a process L meaning T_L); repeatable")
      ("json", "print JSON");
}

PointCommand read(const CommandLine& line) {
  PointCommand c;
  read_model_options(c, line);
  c.json = line.flag("json");
  return c;
}

int run_explain(const CommandLine& line) { return point_command(read(line), explain_model, format_explain); }
int run_sensitivity(const CommandLine& line) { return point_command(read(line), sensitivity_model, format_sensitivity); }

}  // namespace

// Two subcommands, one file: both analyse the cost model at one point and share their options.
extern const Subcommand explain_command{
    "explain", "which argument of each max/min dominates at a point, and where they cross",
    "FILE", options, run_explain};
extern const Subcommand sensitivity_command{
    "sensitivity", "partial derivatives and elasticities of the cost equations at a point",
    "FILE", options, run_sensitivity};

}  // namespace pamc
