// pamc check: parse and check a model; diagnostics only (docs/cli.md, "check").
#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"

namespace pamc {

// The checked model, left to the OS at exit (see run): reachable from a global with
// external linkage, so LeakSanitizer does not count it and no compiler drops the store.
const Program* checked_program_left_to_exit = nullptr;

namespace {

void options(po::options_description&) {}

// check parses and checks (SPEC 4), and stays fast on large models; errors that show only
// once equations are substituted and lowered (a resource index with two multiplicities)
// are reported by the commands that lower: compile, eval, sweep, simulate.
int run(const CommandLine& line) {
  Diagnostics diags;
  auto program = load_program(line.file, line.load(), diags);
  // The process ends here: freeing a large model node by node would cost more than the
  // check (a fifth of it at 10^4 lines), so it is left to the OS, as clang's -disable-free.
  checked_program_left_to_exit = program.release();
  return report(diags);
}

}  // namespace

extern const Subcommand check_command{"check", "parse and check a model; diagnostics only", "FILE", options, run};

}  // namespace pamc
