// pamc check: parse and check a model; diagnostics only (docs/cli.md, "check").
#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"

namespace pamc {
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
  program.release();
  return report(diags);
}

}  // namespace

extern const Subcommand check_command{"check", "parse and check a model; diagnostics only", "FILE", options, run};

}  // namespace pamc
