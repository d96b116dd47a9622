// pamc check: parse and check a model; diagnostics only (docs/cli.md, "check").
#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"
#include "compiler/passes/pipeline.h"

namespace pamc {

// The checked model (parsed, or lowered), left to the OS at exit (see run): reachable from a global with
// external linkage, so LeakSanitizer does not count it and no compiler drops the store.
const Program* checked_program_left_to_exit = nullptr;
const Compilation* checked_compilation_left_to_exit = nullptr;

namespace {

void options(po::options_description& d) {
  d.add_options()("no-lower", "parse and check only, without lowering: fast on very large models (10^5 lines in "
                              "about 1 s, 10x less than lowering), but the errors lowering finds are not reported");
}

// check parses, checks, and lowers to the time-domain model, so it refuses every model
// compile refuses: the errors that show only once equations are substituted and their
// constants known (delay(-1), a division by zero, a resource index with two
// multiplicities) are found in lowering. It does not simplify. --no-lower stops after
// the checks, for models so large that lowering them takes seconds.
int run(const CommandLine& line) {
  Diagnostics diags;
  // The process ends here: freeing a large model node by node would cost more than the
  // check (a fifth of it at 10^4 lines), so it is left to the OS, as clang's -disable-free.
  if (line.flag("no-lower"))
    checked_program_left_to_exit = load_program(line.file, line.load(), diags).release();
  else
    checked_compilation_left_to_exit = compile_file(line.file, line.load(), Stage::Time, diags).release();
  return report(diags);
}

}  // namespace

extern const Subcommand check_command{"check", "parse, check and lower a model; diagnostics only", "FILE", options, run};

}  // namespace pamc
