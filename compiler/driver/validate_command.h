// pamc validate: a model's region counters against MA trace files (docs/cli.md,
// "validate"). Reading and matching traces is compiler/analysis/ma_trace.h.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "compiler/check/check.h"

namespace pamc {

struct ValidateCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;  // -D: the point the counters are evaluated at
  std::vector<std::string> traces;              // --trace: one file per MPI task
  bool json = false;
};

int cmd_validate(const ValidateCommand& c);

}  // namespace pamc
